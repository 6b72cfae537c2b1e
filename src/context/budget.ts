import { tokensToChars } from "../core/tokens.ts";
import type { SessionType } from "../session/types.ts";
import type { EthosContextConfig } from "./config.ts";
import type { ContextBlockFormatter, ContextBlockInput, FormattedEntry } from "./format.ts";
import { renderMemoryText } from "../memory/neutralise.ts";
import type { RetrievedMemory } from "../memory/types.ts";

// Bounded injection (hardening plan "Bounded injection"): the session type's token ceiling decides
// how much is injected. The best-ranked memories that passed the gate are added, best first, until
// the block is full: each at most `maxSnippetCharsEach`, the whole block at most
// min(maxInjectedCharsTotal, token ceiling × 4 chars), and at most `searchTopK` of them when the
// operator sets one (unset = the budget is the only limit). A memory that does not fit whole is
// skipped so a smaller one further down can use the room; only the first entry is ever shortened.
// Two memories with the same rendered text are one (the same fact copied into two files).
// The block is built entry by entry and verified against the limit, so no formatter change can
// push it over.

export type BudgetLimits = { topK: number; maxSnippetChars: number; maxTotalChars: number };

/** Smallest snippet worth showing when the first entry has to be shortened to fit. */
const MIN_USEFUL_SNIPPET = 60;

export function budgetLimitsFor(config: EthosContextConfig, sessionType: SessionType, maxTokensOverride?: number): BudgetLimits {
  const ceilingTokens = maxTokensOverride ?? config.maxTokensBySessionType[sessionType] ?? 0;
  return {
    topK: config.searchTopK ?? Number.POSITIVE_INFINITY,
    maxSnippetChars: config.maxSnippetCharsEach,
    maxTotalChars: Math.min(config.maxInjectedCharsTotal, tokensToChars(ceilingTokens)),
  };
}

export type BudgetedBlock = { injected: RetrievedMemory[]; entries: FormattedEntry[]; block: string };

/**
 * What one more entry can add to a formatted block, beyond its text and its date: both layouts add
 * a line of their own (numbering, score or bullet, a date heading). Checked: a block that comes out
 * over its limit is built again entry by entry.
 */
const ENTRY_GROWTH_SLACK = 64;

export function buildBudgetedBlock(
  memories: readonly RetrievedMemory[],
  limits: BudgetLimits,
  frame: Omit<ContextBlockInput, "entries">,
  format: ContextBlockFormatter,
): BudgetedBlock {
  const quick = fillBlock(memories, limits, frame, format, true);
  // The growth bound held (it does for both layouts): the same choices as formatting every step.
  if (quick.block.length <= limits.maxTotalChars) return quick;
  return buildBudgetedBlockStepwise(memories, limits, frame, format);
}

/** The fill that formats the whole block for every candidate: the choices the quick fill must make too. */
export function buildBudgetedBlockStepwise(
  memories: readonly RetrievedMemory[],
  limits: BudgetLimits,
  frame: Omit<ContextBlockInput, "entries">,
  format: ContextBlockFormatter,
): BudgetedBlock {
  return fillBlock(memories, limits, frame, format, false);
}

/**
 * The fill. Formatting the whole block for every candidate is quadratic in the candidates, and a
 * turn fills several blocks; with `trustGrowth` an entry whose text, date and ENTRY_GROWTH_SLACK
 * still leave the block under its limit is taken without formatting, and the block is formatted
 * exactly only where a decision is close to the limit, and once at the end.
 */
function fillBlock(
  memories: readonly RetrievedMemory[],
  limits: BudgetLimits,
  frame: Omit<ContextBlockInput, "entries">,
  format: ContextBlockFormatter,
  trustGrowth: boolean,
): BudgetedBlock {
  const injected: RetrievedMemory[] = [];
  const entries: FormattedEntry[] = [];
  const seenTexts = new Set<string>();
  let block = "";
  /** An upper bound of the formatted length of `entries` (exact when `formatted`). */
  let bound = 0;
  let formatted = true;
  const exactLength = () => {
    if (!formatted) {
      block = format({ ...frame, entries });
      bound = block.length;
      formatted = true;
    }
    return block.length;
  };
  for (const memory of memories) {
    if (injected.length >= limits.topK) break;
    // Room left is below what any entry costs: stop looking.
    if (entries.length > 0 && limits.maxTotalChars - bound < 8 && limits.maxTotalChars - exactLength() < 8) break;
    const full = renderMemoryText(memory.text, limits.maxSnippetChars);
    if (!full || seenTexts.has(full)) continue;
    // An entry adds at least its own text to the block (both layouts show every entry's text in
    // full): one that cannot fit is skipped without formatting the whole block again.
    if (entries.length > 0 && bound + full.length > limits.maxTotalChars && exactLength() + full.length > limits.maxTotalChars) continue;
    const entry: FormattedEntry = { text: full, score: memory.score };
    if (memory.date) entry.date = memory.date;
    const grown = bound + full.length + (memory.date ?? "undated").length + ENTRY_GROWTH_SLACK;
    if (trustGrowth && entries.length > 0 && grown <= limits.maxTotalChars) {
      seenTexts.add(full);
      entries.push(entry);
      injected.push(memory);
      bound = grown;
      formatted = false;
      continue;
    }
    let candidate = format({ ...frame, entries: [...entries, entry] });
    if (candidate.length > limits.maxTotalChars) {
      if (entries.length > 0) continue; // a smaller memory further down may still fit whole
      // The best memory alone is too long: shorten it to the room there is, if that leaves something useful.
      const overflow = candidate.length - limits.maxTotalChars;
      const room = full.length - overflow;
      if (room < MIN_USEFUL_SNIPPET) break;
      entry.text = renderMemoryText(memory.text, room);
      if (!entry.text) break;
      candidate = format({ ...frame, entries: [...entries, entry] });
      if (candidate.length > limits.maxTotalChars) break;
    }
    seenTexts.add(full);
    entries.push(entry);
    injected.push(memory);
    block = candidate;
    bound = block.length;
    formatted = true;
  }
  exactLength();
  return { injected, entries, block };
}
