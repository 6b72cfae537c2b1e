import { CHARS_PER_TOKEN } from "../core/tokens.ts";
import { loadHygieneConfigCached } from "../memory/config-md.ts";
import type { HygieneConfig } from "../memory/config-md.ts";
import { leftOutOfTurnOf } from "../capture/capture.ts";
import { bootstrapSlotTokens } from "./bootstrap-slots.ts";
import type { BootstrapShape } from "./bootstrap-slots.ts";
import type { EthosContextConfig } from "./config.ts";
import { readContextSource, readWorkspaceSource } from "./context-sources.ts";
import type { ContextSourceSlot, SourceText } from "./context-sources.ts";
import { assembleMemoryBlock } from "./memory-block.ts";
import type { SessionType } from "../session/types.ts";
import type { Selection } from "./pipeline.ts";
import { getLogger } from "../core/log.ts";

// The injected block through the §6 context assembler (src/context/memory-block.ts): open
// corrections, memory from the last `memory_retention_hours`, the search hits and the extension
// slots share the turn's ceiling, so a fresh correction competes with the hits instead of being
// invisible to them.
//
// Layout: the hits first, in the compact layout the model reads (`Relevant memories (…), by date:`),
// in the room the assembler gave slot 5; then the assembler's other sections in slot order.
// ETHOS_CONTEXT.md gets the hits in story 007's layout and the same sections.

/**
 * Replaces the whole injected block, e.g. with the context assembler's memory block
 * (src/context/memory-block.ts). Called once per turn after gate, de-duplication and budget, with
 * the default story-007 block in `selection.block`. Its result is used only if it arrives within
 * the turn's wait and fits the budget (`maxChars`); otherwise the default block is injected.
 */
export type BlockComposer = (input: {
  workspaceDir: string;
  sessionType: SessionType;
  selection: Selection;
  /** Token and character ceilings of the block this turn (the session type's, within the model's window). */
  maxTokens: number;
  maxChars: number;
  /** The session type's own token ceiling, which the slots' shares are cut from (default maxTokens). */
  shareTokens?: number;
  now: Date;
  /** Memory ids already injected earlier in this session: never injected twice. */
  excludeIds: ReadonlySet<string>;
  /** This turn's cleaned message: a memory it already says is not echoed back. */
  message?: string;
  /** What this session's bootstrap injects: slots 1, 2 and 7 are counted, not repeated. */
  bootstrap?: BootstrapShape;
  /** openclaw.json's extension sources (slot 6 CRM, slot 8 external). */
  sources?: EthosContextConfig["contextSources"];
  /** Time left in the turn, ms: an extension command gets no more. */
  remainingMs?: number;
}) => Promise<ComposedBlock | string> | ComposedBlock | string;

/**
 * A composed block and every memory id it carries (for per-session de-duplication); `fileBlock` is
 * its story-007 copy for ETHOS_CONTEXT.md (the injected block itself uses the compact layout).
 */
export type ComposedBlock = { block: string; injectedIds: string[]; fileBlock?: string };

/**
 * Corrections, daily notes and the extension slots are the operator's own: they join the block only
 * in the operator's sessions (a non-owner sender never gets here: such a turn has no memory at all).
 * A group with its own memory folder gets its search hits and nothing from the workspace.
 */
const OPERATOR_SESSIONS: ReadonlySet<SessionType> = new Set(["MAIN_SESSION", "PRIVATE_DM"]);

const log = () => getLogger("ethos-context");

/** The extension slots' text this turn: openclaw.json's source, else (slot 8) CONFIG.md's workspace file. Never throws. */
async function extensionTexts(input: Parameters<BlockComposer>[0], config: HygieneConfig): Promise<{ crm?: string; external?: string }> {
  const read = async (slot: ContextSourceSlot, budget: number): Promise<string | undefined> => {
    if (budget <= 0) return undefined; // a slot with no budget is off: its source is not even read
    const source = input.sources?.[slot];
    let result: SourceText | undefined;
    if (source) {
      result = await readContextSource(source, { slot, workspaceDir: input.workspaceDir, query: input.message ?? "", sessionType: input.sessionType, remainingMs: input.remainingMs ?? source.timeoutMs });
    } else if (slot === "external" && config.external_context_source) {
      result = await readWorkspaceSource(config.external_context_source, input.workspaceDir);
    }
    if (result?.error) log().warn({ slot, err: result.error }, "context source gave nothing this turn");
    return result?.text;
  };
  const [crm, external] = await Promise.all([read("crm", config.crm_tokens), read("external", config.external_context_budget)]);
  return { crm, external };
}

export const assemblerBlockComposer: BlockComposer = async (input) => {
  const { workspaceDir, sessionType, selection, maxTokens, maxChars, now, excludeIds, message } = input;
  const semanticOnly: ComposedBlock = { block: selection.block, injectedIds: selection.injected.map((memory) => memory.id), fileBlock: selection.fileBlock };
  if (!OPERATOR_SESSIONS.has(sessionType)) return semanticOnly;

  const { config } = await loadHygieneConfigCached(workspaceDir);
  const [bootstrapTokens, extensions] = await Promise.all([input.bootstrap ? bootstrapSlotTokens(workspaceDir, input.bootstrap) : undefined, extensionTexts(input, config)]);
  const leaveOut = leftOutOfTurnOf(message ?? "");
  const assembled = await assembleMemoryBlock({
    workspaceDir,
    semanticHits: selection.injected,
    maxTokens: Math.min(maxTokens, Math.floor(maxChars / CHARS_PER_TOKEN)),
    shareTokens: input.shareTokens,
    now,
    config,
    excludeIds,
    leaveOut,
    bootstrapTokens,
    extensions,
    hitLayout: (memories) => selection.render(memories),
  });

  // Slot 5 in the compact layout, best first, in the room the assembler gave it (a hit shown in a
  // slot that explains it better, a correction, is not repeated here).
  const semanticRoom = assembled.slots.find((report) => report.slot === "semantic_recall")?.allocated ?? 0;
  const candidates = selection.injected.filter((memory) => !excludeIds.has(memory.id) && !assembled.shownAs.has(memory.id));
  const hits = candidates.length > 0 && semanticRoom > 0 ? selection.fit(candidates, semanticRoom * CHARS_PER_TOKEN - 2) : { block: "", injected: [] };
  const sections = assembled.blocks.filter((block) => block.slot !== "semantic_recall").map((block) => ({ text: block.text.trimEnd(), itemIds: block.itemIds }));
  if (sections.length === 0 && hits.injected.length === selection.injected.length) return semanticOnly;

  const shownIds = new Set([...hits.injected.map((memory) => memory.id), ...sections.flatMap((section) => section.itemIds)]);
  // A memory left out because another slot shows it was delivered all the same: it counts as shown.
  // (A chain: a recent note deferred to a hit, which deferred to a correction.)
  for (let grew = true; grew; ) {
    grew = false;
    for (const [id, shownAs] of assembled.shownAs) if (shownIds.has(shownAs) && !shownIds.has(id)) grew = Boolean(shownIds.add(id));
  }
  const parts = [hits.block.trimEnd(), ...sections.map((section) => section.text)].filter(Boolean);
  if (parts.length === 0) return { block: "", injectedIds: [] };
  const fileParts = [hits.injected.length ? selection.renderFile(hits.injected).trimEnd() : "", ...sections.map((section) => section.text)].filter(Boolean);
  return { block: `${parts.join("\n\n")}\n`, fileBlock: `${fileParts.join("\n\n")}\n`, injectedIds: [...shownIds] };
};
