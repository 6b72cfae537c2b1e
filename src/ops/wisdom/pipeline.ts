import fs from "node:fs/promises";
import path from "node:path";
import { chat } from "../llm.ts";
import type { ChatMessage, LlmOptions } from "../llm.ts";
import { QUEUE_NAME, withReviewFlag } from "../../lifecycle/review-gate.ts";
import { backupsDir, initiativeDir, INITIATIVE_DIR } from "../paths.ts";
import { replaceFileWithBackup } from "../safe-write.ts";
import { buildRepairMessages, buildWisdomPrompt } from "./prompt.ts";
import type { CollectedLessons, Lesson } from "./sources.ts";
import { DEFAULT_WISDOM_LIMITS, parseWisdomAnswer, renderWisdomSection, validateWisdom } from "./validate.ts";
import type { WisdomEntry, WisdomLimits } from "./validate.ts";

// Steps 2-4: distil with the model, validate, repair once, write the draft and flag it for review.
// SOUL.md is never touched here.

export const DRAFT_NAME = "SOUL_WISDOM_DRAFT.md";
const TRACE_NAME = "SOUL_WISDOM_TRACE.md";

export type DistilResult =
  | { ok: true; entries: WisdomEntry[]; section: string; attempts: number; repaired: boolean }
  | { ok: false; violations: string[]; lastAnswer: string; attempts: number };

export function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export async function distilWisdom(params: {
  lessons: readonly Lesson[];
  llm: LlmOptions;
  date: string;
  limits?: WisdomLimits;
  call?: (messages: ChatMessage[]) => Promise<string>;
}): Promise<DistilResult> {
  const limits = params.limits ?? DEFAULT_WISDOM_LIMITS;
  const call = params.call ?? ((messages: ChatMessage[]) => chat(params.llm, messages));
  const prompt = buildWisdomPrompt(params.lessons, limits);
  const evaluate = (answer: string) => {
    const parsed = parseWisdomAnswer(answer);
    const section = renderWisdomSection(parsed.entries, params.date, params.lessons.length);
    return { parsed, section, violations: validateWisdom({ answer: parsed, lessons: params.lessons, limits, renderedSection: section }) };
  };
  const first = await call(prompt);
  const firstResult = evaluate(first);
  if (firstResult.violations.length === 0) return { ok: true, entries: firstResult.parsed.entries, section: firstResult.section, attempts: 1, repaired: false };
  // One repair round with the exact violations, then give up (spec: re-prompt once, else fail).
  const second = await call(buildRepairMessages(prompt, first, firstResult.violations));
  const secondResult = evaluate(second);
  if (secondResult.violations.length === 0) return { ok: true, entries: secondResult.parsed.entries, section: secondResult.section, attempts: 2, repaired: true };
  return { ok: false, violations: secondResult.violations, lastAnswer: second, attempts: 2 };
}

/** Reviewer's trace: each entry with the raw lessons it cites (AC-7 evidence). */
function renderTrace(entries: readonly WisdomEntry[], lessons: readonly Lesson[], date: string): string {
  const byId = new Map(lessons.map((lesson) => [lesson.id, lesson]));
  const out = [`# Wisdom trace (${date})`, "", "Each entry of SOUL_WISDOM_DRAFT.md with the raw lessons the model cited for it.", ""];
  for (const entry of entries) {
    out.push(`## ${entry.name}`, entry.required ? "Required entry (spec §5): not derived from lessons." : entry.wisdom, "");
    for (const id of entry.citations) {
      const lesson = byId.get(id);
      if (lesson) out.push(`- ${id} (${lesson.source}): ${lesson.text}`);
    }
    out.push("");
  }
  return out.join("\n");
}

export type DraftWriteResult = { draft: string; trace: string; queue: string; backups: string[] };

/** Write the draft and trace, and add (or refresh) the REVIEW NEEDED line in DAILY_EXECUTION_QUEUE.md. */
export async function writeDraftAndFlag(params: { workspace: string; section: string; entries: readonly WisdomEntry[]; lessons: readonly Lesson[]; date: string }): Promise<DraftWriteResult> {
  const dir = initiativeDir(params.workspace);
  const backups = backupsDir(params.workspace);
  const draft = path.join(dir, DRAFT_NAME);
  const trace = path.join(dir, TRACE_NAME);
  const queue = path.join(params.workspace, QUEUE_NAME);
  const written: string[] = [];
  for (const [file, content] of [
    [draft, params.section],
    [trace, renderTrace(params.entries, params.lessons, params.date)],
  ] as const) {
    const backup = await replaceFileWithBackup(file, content, backups);
    if (backup) written.push(backup);
  }
  let queueText = "";
  try {
    queueText = await fs.readFile(queue, "utf8");
  } catch {
    // no queue yet: withReviewFlag starts one
  }
  const flag = `- [ ] REVIEW NEEDED: wisdom draft ${INITIATIVE_DIR}/${DRAFT_NAME} (compressed ${params.date}, ${params.lessons.length} source lessons; trace in ${TRACE_NAME}). Approve with: npm run compress-wisdom -- promote --approve`;
  const backup = await replaceFileWithBackup(queue, withReviewFlag(queueText, DRAFT_NAME, flag), backups);
  if (backup) written.push(backup);
  return { draft, trace, queue, backups: written };
}

export function sourceSummary(collected: CollectedLessons): string[] {
  return collected.sources.map((source) => `${source.status.padEnd(10)} ${String(source.lessons).padStart(4)} lesson(s)  ${source.label}`);
}
