import fs from "node:fs/promises";
import path from "node:path";
import { estimateTokens } from "../../core/tokens.ts";
import { withFileLock } from "../../fs/lock.ts";
import { writeFileAtomic } from "../../fs/atomic.ts";
import { lineDiff } from "../line-diff.ts";
import { detectEol, findSections, replaceLines, splitLines } from "../../core/markdown.ts";
import { backupsDir, initiativeDir, phase0BackupPath } from "../paths.ts";
import { backupBeforeChange, exists, replaceFileWithBackup, sha256File } from "../safe-write.ts";
import { soulPointsTo } from "../../bootstrap/soul-instructions.ts";
import { QUEUE_NAME, withReviewTicked } from "../../lifecycle/review-gate.ts";
import { DRAFT_NAME } from "./pipeline.ts";
import { DEFAULT_WISDOM_LIMITS, REQUIRED_ENTRY, parseWisdomAnswer, validateWisdom } from "./validate.ts";

// Step 5, the review gate: put the reviewed draft into SOUL.md's `## Wisdom` section, nothing else.

export const MAX_SOUL_TOKENS = 200;

export type PromotePlan = {
  soulPath: string;
  before: string;
  after: string;
  diff: string;
  notes: string[];
  /** Reasons the promotion is refused; empty = allowed. */
  problems: string[];
};

function wisdomSections(text: string) {
  return findSections(text).filter((section) => section.level === 2 && /^wisdom$/i.test(section.title.trim()));
}

/** Compute the new SOUL.md and every check, without writing anything. */
export async function planPromotion(workspace: string, options: { maxSoulTokens?: number; draftPath?: string } = {}): Promise<PromotePlan> {
  const draftPath = options.draftPath ?? path.join(initiativeDir(workspace), DRAFT_NAME);
  const soulPath = path.join(workspace, "SOUL.md");
  const maxSoulTokens = options.maxSoulTokens ?? MAX_SOUL_TOKENS;
  let draft: string;
  try {
    draft = await fs.readFile(draftPath, "utf8");
  } catch {
    throw new Error(`no wisdom draft at ${draftPath}: run compress-wisdom first`);
  }
  let before: string;
  try {
    before = await fs.readFile(soulPath, "utf8");
  } catch {
    throw new Error(`no SOUL.md at ${soulPath}`);
  }
  const problems: string[] = [];
  const notes: string[] = [];

  const draftSections = wisdomSections(draft);
  if (draftSections.length !== 1) problems.push(`the draft must hold exactly one "## Wisdom" section, found ${draftSections.length}`);
  const draftLines = splitLines(draft);
  const section = draftSections[0] ? draftLines.slice(draftSections[0].startLine, draftSections[0].endLine).join("\n").trimEnd() : draft.trimEnd();
  // Re-check the reviewed draft (it may have been edited by hand); citations live in the trace file.
  const parsed = parseWisdomAnswer(section);
  for (const violation of validateWisdom({ answer: parsed, renderedSection: section + "\n", limits: DEFAULT_WISDOM_LIMITS })) problems.push(`draft: ${violation}`);

  const existing = wisdomSections(before);
  let after: string;
  const eol = detectEol(before);
  if (existing.length > 1) {
    problems.push(`SOUL.md has ${existing.length} "## Wisdom" sections (lines ${existing.map((s) => s.startLine + 1).join(", ")}): merge them by hand first, the tool will not guess which to replace`);
    after = before;
  } else if (existing.length === 1) {
    // The trailing "\n" keeps one blank line before the next heading (or the final newline at EOF).
    const target = existing[0];
    after = replaceLines(before, target.startLine, target.endLine, section + "\n");
  } else {
    notes.push('SOUL.md has no "## Wisdom" section: it will be appended at the end');
    after = before.replace(/\s*$/, "") + eol + eol + section.split("\n").join(eol) + eol;
  }

  const soulTokens = estimateTokens(after);
  if (soulTokens > maxSoulTokens) {
    problems.push(`SOUL.md would be ${soulTokens} tokens (> ${maxSoulTokens}, AC-7); compress the identity part first (spec Task 4: SOUL_COMPRESSED_DRAFT.md)`);
  }
  if (!soulPointsTo(after).memory) problems.push(`SOUL.md would lack the required entry: ${REQUIRED_ENTRY}`);
  if (await exists(path.join(workspace, "WISDOM.md"))) problems.push("WISDOM.md exists in the workspace root; wisdom lives only in SOUL.md (spec §3): remove it first");
  return { soulPath, before, after, diff: lineDiff(before, after, { before: "SOUL.md", after: "SOUL.md (promoted)" }), notes, problems };
}

export type PromoteResult = { backup: string; backupNote: string; queueBackup?: string };

/**
 * Apply a plan that has no problems. SOUL.md goes to backups/SOUL.md.bak first; when that file
 * already holds a different SOUL.md it is the Phase 0 original and is kept, and the current file
 * goes to a timestamped backup instead.
 */
export async function applyPromotion(workspace: string, plan: PromotePlan, date: string): Promise<PromoteResult> {
  if (plan.problems.length > 0) throw new Error("refusing to promote: the plan has problems");
  const bak = phase0BackupPath(workspace, "SOUL.md");
  const result = await withFileLock(plan.soulPath, async () => {
    const current = await fs.readFile(plan.soulPath, "utf8");
    if (current !== plan.before) throw new Error("SOUL.md changed since the diff was computed; run promote again");
    let backup: string;
    let backupNote: string;
    if (!(await exists(bak))) {
      await fs.mkdir(path.dirname(bak), { recursive: true });
      await fs.copyFile(plan.soulPath, bak);
      backup = bak;
      backupNote = "backed up to backups/SOUL.md.bak";
    } else if ((await sha256File(bak)) === (await sha256File(plan.soulPath))) {
      backup = bak;
      backupNote = "backups/SOUL.md.bak already holds this SOUL.md";
    } else {
      backup = (await backupBeforeChange(plan.soulPath, backupsDir(workspace))) ?? bak;
      backupNote = `backups/SOUL.md.bak holds an older SOUL.md (the Phase 0 original) and was kept; current SOUL.md backed up to ${path.relative(workspace, backup)}`;
    }
    if ((await sha256File(backup)) !== (await sha256File(plan.soulPath))) throw new Error(`backup ${backup} does not match SOUL.md; nothing changed`);
    await writeFileAtomic(plan.soulPath, plan.after);
    return { backup, backupNote };
  });
  if ((await fs.readFile(plan.soulPath, "utf8")) !== plan.after) throw new Error("SOUL.md does not hold the promoted text after writing");
  // Tick the review item in the queue.
  const queue = path.join(workspace, QUEUE_NAME);
  let queueBackup: string | undefined;
  try {
    const ticked = withReviewTicked(await fs.readFile(queue, "utf8"), DRAFT_NAME, `- [x] REVIEWED: wisdom draft promoted into SOUL.md on ${date}`);
    if (ticked !== null) queueBackup = await replaceFileWithBackup(queue, ticked, backupsDir(workspace));
  } catch {
    // No queue file: nothing to tick.
  }
  return { ...result, queueBackup };
}
