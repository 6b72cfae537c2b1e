import { loadHygieneConfigCached } from "../memory/config-md.ts";
import { leftOutOfTurn } from "../capture/capture.ts";
import { assembleMemoryBlock } from "./memory-block.ts";
import type { SessionType } from "../session/types.ts";
import type { Selection } from "./pipeline.ts";

// The injected block through the §6 context assembler: open corrections, memory from the last
// `memory_retention_hours` and the semantic hits share the session type's ceiling, so a fresh
// correction competes with the retrieval hits instead of being invisible to them.
//
// Layout: the story-007 block (header, heading, numbered hits) for the hits the assembler kept,
// then the assembler's corrections and recent-memory sections. ETHOS_CONTEXT.md gets the same text.

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
  /** Token and character ceilings of the block for this session type. */
  maxTokens: number;
  maxChars: number;
  now: Date;
  /** Memory ids already injected earlier in this session: never injected twice. */
  excludeIds: ReadonlySet<string>;
  /** This turn's cleaned message: a memory it already says is not echoed back. */
  message?: string;
}) => Promise<ComposedBlock | string> | ComposedBlock | string;

/**
 * A composed block and every memory id it carries (for per-session de-duplication); `fileBlock` is
 * its story-007 copy for ETHOS_CONTEXT.md (the injected block itself uses the compact layout).
 */
export type ComposedBlock = { block: string; injectedIds: string[]; fileBlock?: string };

/**
 * Corrections and daily notes are the operator's own: they join the block only in the operator's
 * sessions. A group with its own memory folder gets its semantic hits and nothing from the workspace.
 */
const OPERATOR_SESSIONS: ReadonlySet<SessionType> = new Set(["MAIN_SESSION", "PRIVATE_DM"]);

export const assemblerBlockComposer: BlockComposer = async ({ workspaceDir, sessionType, selection, maxTokens, maxChars, now, excludeIds, message }) => {
  const semanticOnly: ComposedBlock = { block: selection.block, injectedIds: selection.injected.map((memory) => memory.id), fileBlock: selection.fileBlock };
  if (!OPERATOR_SESSIONS.has(sessionType)) return semanticOnly;

  const { config } = await loadHygieneConfigCached(workspaceDir);
  const leaveOut = (text: string) => leftOutOfTurn(text, message ?? "");
  const assembled = await assembleMemoryBlock({ workspaceDir, semanticHits: selection.injected, maxTokens, now, config, excludeIds, leaveOut });
  const keptIds = new Set(assembled.blocks.flatMap((block) => block.itemIds));
  const keptHits = selection.injected.filter((memory) => keptIds.has(memory.id));
  const extraSections = assembled.blocks.filter((block) => block.slot !== "semantic_recall" && block.text);
  if (extraSections.length === 0 && keptHits.length === selection.injected.length) return semanticOnly;

  // The story-007 frame stays first so the markers are the same whatever the assembler chose; the
  // gate's top hit is what made this turn memory-worthy, so it is never crowded out entirely.
  const shownHits = keptHits.length > 0 ? keptHits : selection.injected.slice(0, 1);
  const semantic = selection.render(shownHits);
  const sections = extraSections.map((section) => section.text.trimEnd());
  const block = [semantic.trimEnd(), ...sections].join("\n\n") + "\n";
  if (block.length > maxChars) return semanticOnly;
  return {
    block,
    fileBlock: [selection.renderFile(shownHits).trimEnd(), ...sections].join("\n\n") + "\n",
    injectedIds: [...shownHits.map((memory) => memory.id), ...extraSections.flatMap((section) => section.itemIds)],
  };
};
