// The ACI spec's on-demand instructions in SOUL.md (§5 "Required wisdom entry", Phase 3 shedding,
// Phase 4 "read TOOLS.md"), as text: what they say and how to recognise them. Shared by the hook
// (the on-demand index leaves out what SOUL.md already points to), the wisdom pipeline, rollback,
// status and the operator command that adds them (src/ops/soul-instructions.ts).

/** Required wisdom entry (spec §5, Jeff 2026-03-21): the trigger that replaces bulk MEMORY.md. */
export const REQUIRED_MEMORY_ENTRY =
  "**When context feels incomplete, check your memory.** Read memory/YYYY-MM-DD.md and MEMORY.md when historical knowledge is needed.";

/** Phase 4, in the spec's words, and the section the operator command puts it in. */
export const TOOLS_INSTRUCTION = "For full tool details, read TOOLS.md explicitly when needed.";
export const ON_DEMAND_HEADING_TEXT = "On demand";

/** Phase 3 (spec §3 Layer 3, v1 behavioural shedding), tightened to one line each. */
export const SHEDDING_HEADING_TEXT = "Context shedding";
export const SHEDDING_INSTRUCTIONS = [
  "- Once USER.md has been acted on and the conversation is established, do not re-reference it this session.",
  "- When all orchestration tasks are done, AGENTS.md context is no longer needed.",
  "- Once a topic thread has its own clear context, drop topic-specific file references.",
];

/** A heading that marks the Phase 3 section (rollback phase 3 removes it). */
export const SHEDDING_HEADING = /shedding/i;
/** A line that holds the Phase 4 instruction (rollback phase 4 removes it). */
export const TOOLS_INSTRUCTION_LINE = /\bread\s+(?:the\s+)?(?:full\s+)?`?TOOLS\.md`?/i;

/** Backticks, list bullets and runs of spaces do not make the required entry a different entry. */
function canonicalLine(line: string): string {
  return line.replace(/`/g, "").replace(/^\s*[-*+]\s+/, "").replace(/\s+/g, " ").trim();
}

const CANONICAL_MEMORY_ENTRY = canonicalLine(REQUIRED_MEMORY_ENTRY);

export function isMemoryEntryLine(line: string): boolean {
  return canonicalLine(line) === CANONICAL_MEMORY_ENTRY;
}

/** Which on-demand files a SOUL.md text already tells the agent to read. */
export function soulPointsTo(text: string): { memory: boolean; tools: boolean } {
  const lines = text.split(/\r?\n/);
  return { memory: lines.some(isMemoryEntryLine), tools: lines.some((line) => TOOLS_INSTRUCTION_LINE.test(line)) };
}
