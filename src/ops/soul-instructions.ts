// The ACI spec's on-demand instructions in SOUL.md, for operators: a check (status and doctor call
// it after any SOUL.md change, not only at promote) and the edit that supplies the missing ones
// (`soul-instructions`, a diff first, --apply behind a backup). What the instructions say and how
// they are recognised lives in src/bootstrap/soul-instructions.ts (the hook reads them too).
import fs from "node:fs/promises";
import path from "node:path";
import { estimateTokens } from "../core/tokens.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { withFileLock } from "../fs/lock.ts";
import {
  ON_DEMAND_HEADING_TEXT,
  REQUIRED_MEMORY_ENTRY,
  SHEDDING_HEADING,
  SHEDDING_HEADING_TEXT,
  SHEDDING_INSTRUCTIONS,
  TOOLS_INSTRUCTION,
  TOOLS_INSTRUCTION_LINE,
  isMemoryEntryLine,
} from "../bootstrap/soul-instructions.ts";
import { lineDiff } from "./line-diff.ts";
import { detectEol, findSections, replaceLines, splitLines } from "../core/markdown.ts";
import { backupsDir } from "./paths.ts";
import { backupBeforeChange } from "./safe-write.ts";
import { MAX_SOUL_TOKENS } from "./wisdom/promote.ts";

export const SOUL_INSTRUCTION_PARTS = ["memory", "tools", "shedding"] as const;
export type SoulInstructionPart = (typeof SOUL_INSTRUCTION_PARTS)[number];

export type SoulInstructionStatus = {
  part: SoulInstructionPart;
  /** Which spec phase adds it. */
  phase: "1" | "3" | "4";
  present: boolean;
  detail: string;
};

export type SoulInstructionsCheck = {
  soulPath: string;
  exists: boolean;
  tokens: number;
  maxTokens: number;
  modifiedAt?: string;
  items: SoulInstructionStatus[];
  /** The required memory entry is present inside `## Wisdom` (spec §5: load-bearing, not optional). */
  ok: boolean;
};

function wisdomSection(text: string) {
  return findSections(text).find((section) => section.level === 2 && /^wisdom$/i.test(section.title.trim()));
}

/** Which of the three instructions a SOUL.md text holds. Pure: status, doctor and the command share it. */
export function soulInstructionStatus(text: string): SoulInstructionStatus[] {
  const lines = splitLines(text);
  const wisdom = wisdomSection(text);
  const entryLines = lines.map((line, index) => (isMemoryEntryLine(line) ? index : -1)).filter((index) => index >= 0);
  const inWisdom = wisdom !== undefined && entryLines.some((index) => index > wisdom.startLine && index < wisdom.endLine);
  const memory: SoulInstructionStatus = {
    part: "memory",
    phase: "1",
    present: inWisdom,
    detail: inWisdom
      ? "required memory entry present in ## Wisdom"
      : entryLines.length > 0
        ? "required memory entry present, but outside ## Wisdom (a wisdom promotion replaces only that section: move it in)"
        : `required memory entry MISSING: ${REQUIRED_MEMORY_ENTRY}`,
  };
  const toolsLine = lines.find((line) => TOOLS_INSTRUCTION_LINE.test(line));
  const shedding = findSections(text).find((section) => SHEDDING_HEADING.test(section.title));
  return [
    memory,
    { part: "tools", phase: "4", present: toolsLine !== undefined, detail: toolsLine ? `"read TOOLS.md" instruction: ${toolsLine.trim()}` : "no \"read TOOLS.md\" instruction" },
    { part: "shedding", phase: "3", present: shedding !== undefined, detail: shedding ? `shedding section: ## ${shedding.title}` : "no shedding section" },
  ];
}

/** SOUL.md of a workspace against the spec's on-demand instructions (read-only). */
export async function checkSoulInstructions(workspace: string): Promise<SoulInstructionsCheck> {
  const soulPath = path.join(workspace, "SOUL.md");
  let text: string;
  let modifiedAt: string | undefined;
  try {
    text = await fs.readFile(soulPath, "utf8");
    modifiedAt = (await fs.stat(soulPath)).mtime.toISOString();
  } catch {
    return { soulPath, exists: false, tokens: 0, maxTokens: MAX_SOUL_TOKENS, items: [], ok: false };
  }
  const items = soulInstructionStatus(text);
  return { soulPath, exists: true, tokens: estimateTokens(text.trimEnd()), maxTokens: MAX_SOUL_TOKENS, modifiedAt, items, ok: items[0]!.present };
}

export type SoulInstructionsPlan = { soulPath: string; before: string; after: string; diff: string; added: SoulInstructionPart[]; notes: string[] };

/** Append `lines` at the end of a section (before its trailing blank lines). */
function appendToSection(text: string, section: { startLine: number; endLine: number }, added: string[]): string {
  const lines = splitLines(text);
  let end = section.endLine;
  while (end > section.startLine + 1 && lines[end - 1]!.trim() === "") end -= 1;
  return replaceLines(text, end, end, added.join("\n"));
}

function appendSection(text: string, heading: string, body: string[]): string {
  const eol = detectEol(text);
  return `${text.replace(/\s*$/, "")}${eol}${eol}${[`## ${heading}`, ...body].join(eol)}${eol}`;
}

/** SOUL.md with the missing instructions of `parts` added; nothing is written. */
export async function planSoulInstructions(workspace: string, parts: readonly SoulInstructionPart[] = SOUL_INSTRUCTION_PARTS): Promise<SoulInstructionsPlan> {
  const soulPath = path.join(workspace, "SOUL.md");
  let before: string;
  try {
    before = await fs.readFile(soulPath, "utf8");
  } catch {
    throw new Error(`no SOUL.md at ${soulPath}`);
  }
  const status = new Map(soulInstructionStatus(before).map((item) => [item.part, item]));
  let after = before;
  const added: SoulInstructionPart[] = [];
  const notes: string[] = [];
  for (const part of SOUL_INSTRUCTION_PARTS) {
    if (!parts.includes(part) || status.get(part)!.present) continue;
    if (part === "memory") {
      if (splitLines(after).some(isMemoryEntryLine)) {
        notes.push("the required memory entry is outside ## Wisdom: move it into that section by hand (the tool does not move lines)");
        continue;
      }
      const wisdom = wisdomSection(after);
      after = wisdom ? appendToSection(after, wisdom, [REQUIRED_MEMORY_ENTRY]) : appendSection(after, "Wisdom", [REQUIRED_MEMORY_ENTRY]);
    } else if (part === "tools") {
      const section = findSections(after).find((candidate) => candidate.level === 2 && candidate.title.trim() === ON_DEMAND_HEADING_TEXT);
      after = section ? appendToSection(after, section, [TOOLS_INSTRUCTION]) : appendSection(after, ON_DEMAND_HEADING_TEXT, [TOOLS_INSTRUCTION]);
    } else {
      after = appendSection(after, SHEDDING_HEADING_TEXT, SHEDDING_INSTRUCTIONS);
    }
    added.push(part);
  }
  const tokens = estimateTokens(after.trimEnd());
  if (added.length > 0 && tokens > MAX_SOUL_TOKENS) notes.push(`SOUL.md would be ${tokens} tokens (AC-7 wants <= ${MAX_SOUL_TOKENS}): compress the identity part or the Wisdom section`);
  return { soulPath, before, after, diff: lineDiff(before, after, { before: "SOUL.md", after: "SOUL.md (with on-demand instructions)" }), added, notes };
}

/**
 * Write a plan: SOUL.md is copied to backups/SOUL.md.<timestamp>.bak first, then replaced
 * atomically under its lock. Refused when SOUL.md changed since the plan was made.
 */
export async function applySoulInstructions(workspace: string, plan: SoulInstructionsPlan): Promise<{ backup: string | undefined }> {
  const backup = await withFileLock(plan.soulPath, async () => {
    if ((await fs.readFile(plan.soulPath, "utf8")) !== plan.before) throw new Error("SOUL.md changed since the diff was shown; run the command again");
    const copy = await backupBeforeChange(plan.soulPath, backupsDir(workspace));
    await writeFileAtomic(plan.soulPath, plan.after);
    return copy;
  });
  if ((await fs.readFile(plan.soulPath, "utf8")) !== plan.after) throw new Error("SOUL.md does not hold the planned text after writing");
  return { backup };
}
