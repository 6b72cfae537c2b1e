import { tokensToChars } from "../core/tokens.ts";
import type { SessionType } from "../session/types.ts";
import type { EthosContextConfig } from "./config.ts";
import type { ContextBlockFormatter, ContextBlockInput, FormattedEntry } from "./format.ts";
import { renderMemoryText } from "./neutralise.ts";
import type { RetrievedMemory } from "../memory/types.ts";

// Bounded injection (hardening plan "Bounded injection"): at most `searchTopK` memories, each at
// most `maxSnippetCharsEach`, the whole block at most min(maxInjectedCharsTotal, token ceiling of
// the session type × 4 chars). The block is built entry by entry and verified against the limit,
// so no formatter change can push it over.

export type BudgetLimits = { topK: number; maxSnippetChars: number; maxTotalChars: number };

/** Smallest snippet worth showing when the last entry has to be shortened to fit. */
const MIN_USEFUL_SNIPPET = 60;

export function budgetLimitsFor(config: EthosContextConfig, sessionType: SessionType, maxTokensOverride?: number): BudgetLimits {
  const ceilingTokens = maxTokensOverride ?? config.maxTokensBySessionType[sessionType] ?? 0;
  return {
    topK: config.searchTopK,
    maxSnippetChars: config.maxSnippetCharsEach,
    maxTotalChars: Math.min(config.maxInjectedCharsTotal, tokensToChars(ceilingTokens)),
  };
}

export type BudgetedBlock = { injected: RetrievedMemory[]; entries: FormattedEntry[]; block: string };

export function buildBudgetedBlock(
  memories: readonly RetrievedMemory[],
  limits: BudgetLimits,
  frame: Omit<ContextBlockInput, "entries">,
  format: ContextBlockFormatter,
): BudgetedBlock {
  const injected: RetrievedMemory[] = [];
  const entries: FormattedEntry[] = [];
  let block = "";
  for (const memory of memories.slice(0, limits.topK)) {
    const full = renderMemoryText(memory.text, limits.maxSnippetChars);
    if (!full) continue;
    const entry: FormattedEntry = { text: full, score: memory.score };
    if (memory.date) entry.date = memory.date;
    let candidate = format({ ...frame, entries: [...entries, entry] });
    if (candidate.length > limits.maxTotalChars) {
      // Shorten this entry to the room that is left, if that leaves something useful.
      const overflow = candidate.length - limits.maxTotalChars;
      const room = full.length - overflow;
      if (room < MIN_USEFUL_SNIPPET) break;
      entry.text = renderMemoryText(memory.text, room);
      if (!entry.text) break;
      candidate = format({ ...frame, entries: [...entries, entry] });
      if (candidate.length > limits.maxTotalChars) break;
    }
    entries.push(entry);
    injected.push(memory);
    block = candidate;
    if (block.length >= limits.maxTotalChars) break;
  }
  return { injected, entries, block };
}
