import fs from "node:fs/promises";
import path from "node:path";
import { appendFileLocked, updateFileLocked } from "../fs/locked-writes.ts";
import { getLogger } from "../core/log.ts";
import type { LockOptions } from "../fs/lock.ts";
import { readRegularFile } from "../fs/safe-read.ts";
import { formatMemoryMetadata, parseMemoryMetadata, recordMention } from "../memory/confidence.ts";
import type { MemoryMetadata } from "../memory/confidence.ts";
import type { HygieneConfig } from "../memory/config-md.ts";
import { contentTerms, echoesMessage, isRepeat, valueChange, withNewValue } from "./statement.ts";
import type { ExtractedFact, FactTag } from "./statement.ts";

// Explicit capture (persistent memory spec §5.1 Core tier, flat files, no LLM): a fact the operator
// asked to keep becomes one line of today's `memory/YYYY-MM-DD.md`:
//
//   - my locker code is 4312 #knowledge <!-- confidence: 0.95 source: operator mentions: 1 last: 2026-11-25 captured: 2026-11-25T03:12:09.120Z -->
//
// One list item is one chunk for the memory index and one entry for the recent-memory slot; the
// comment is invisible to the model (rendering drops it) and deleting the line undoes the capture.
// Before writing (§5.1 rule 2): a repeat raises the existing line's mention count (+0.05); a new
// value for the same key (rule 5, corrections win) marks the older line `status: superseded`, which
// retrieval leaves out, and adds the new value. Every change takes the file's §4.1 lock; locks are
// taken one after another, never nested. A new line is an O_APPEND write (never a rewrite), since
// OpenClaw's agent appends to the same day file without our lock; only the two in-place edits
// rewrite it (docs/memory-hygiene.md, "Which writes append").

export const MEMORY_DIR = "memory";
/** Older day files searched for a repeat or an outdated value (newest first). */
export const MAX_DEDUPE_FILES = 30;
export const MAX_DAY_FILE_BYTES = 256 * 1024;
export const SUPERSEDED = "superseded";
const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.md$/;
const log = () => getLogger("openclaw-context.hygiene");
const CAPTURED_LINE = /^- (.+?) (#event|#knowledge|#skill|#decision) (<!--[^>]*\bcaptured:[ \t]*(\S+)[^>]*-->)[ \t]*$/;

export type CapturedFact = {
  /** The whole line as in the file (used to find it again under the lock). */
  line: string;
  statement: string;
  tag: FactTag;
  meta: MemoryMetadata;
  capturedAt: string;
  superseded: boolean;
};

export function dayFileFor(workspaceDir: string, now: Date): string {
  return path.join(workspaceDir, MEMORY_DIR, `${now.toISOString().slice(0, 10)}.md`);
}

/** A captured fact line, or undefined for any other line. */
export function parseCapturedLine(line: string): CapturedFact | undefined {
  const match = CAPTURED_LINE.exec(line);
  if (!match) return undefined;
  const meta = parseMemoryMetadata(match[3]) ?? {};
  return { line, statement: match[1], tag: match[2] as FactTag, meta, capturedAt: match[4], superseded: meta.status === SUPERSEDED };
}

export function formatCapturedLine(statement: string, tag: FactTag, meta: MemoryMetadata, capturedAt: string): string {
  return `- ${statement} ${tag} ${formatMemoryMetadata(meta).replace(/ -->$/, ` captured: ${capturedAt} -->`)}`;
}

/** Captured facts of a day file, newest (lowest in the file) first. */
export function capturedFacts(markdown: string): CapturedFact[] {
  const facts: CapturedFact[] = [];
  for (const line of markdown.split(/\r?\n/)) {
    const fact = parseCapturedLine(line);
    if (fact) facts.push(fact);
  }
  return facts.reverse();
}

/** Is this memory entry a captured fact that a newer value replaced? Retrieval leaves it out. */
export function isSupersededEntry(text: string): boolean {
  return /<!--[^>]*\bstatus:[ \t]*superseded\b[^>]*-->/i.test(text);
}

type Relation = { fact: CapturedFact; how: "repeat" } | { fact: CapturedFact; how: "change"; replacement: string };

function jaccard(a: string, b: string): number {
  const x = new Set(contentTerms(a));
  const y = new Set(contentTerms(b));
  if (x.size === 0 || y.size === 0) return 0;
  let shared = 0;
  for (const term of x) if (y.has(term)) shared++;
  return shared / (x.size + y.size - shared);
}

/** How a new fact relates to the current captured facts (newest first), or undefined. */
export function relate(fact: ExtractedFact, facts: readonly CapturedFact[]): Relation | undefined {
  const current = facts.filter((f) => !f.superseded);
  const repeat = current.find((f) => isRepeat(f.statement, fact.statement));
  if (repeat) return { fact: repeat, how: "repeat" };
  for (const older of current) {
    const change = valueChange(older.statement, fact.statement);
    if (change) {
      // A correction names only the new value ("it's slip 22 now"): the older line with the value put in.
      const replacement = fact.kind === "correction" ? (withNewValue(older.statement, change) ?? fact.statement) : fact.statement;
      return { fact: older, how: "change", replacement };
    }
  }
  if (fact.kind === "correction") {
    // "Actually, I prefer tea in the morning" vs "I prefer coffee in the morning": most words shared.
    const similar = current.find((f) => jaccard(f.statement, fact.statement) >= 0.5);
    if (similar) return { fact: similar, how: "change", replacement: fact.statement };
  }
  return undefined;
}

export type CaptureAction = "added" | "mentioned" | "superseded" | "ignored";

export type CaptureOutcome = {
  action: CaptureAction;
  /** The line written or updated (for `added`/`superseded`: the new line). */
  line?: string;
  /** Day file holding the new or updated line. */
  file?: string;
  /** For `superseded`: the older line's file and statement. */
  supersededIn?: string;
  supersededStatement?: string;
  reason?: string;
  /** An in-place edit that failed after its retries (logged with the file); the fact itself was kept. */
  warning?: string;
};

export type CaptureInput = {
  workspaceDir: string;
  fact: ExtractedFact;
  now: Date;
  config: HygieneConfig;
  lock: LockOptions;
};

function newMeta(fact: ExtractedFact, now: Date): MemoryMetadata {
  return fact.kind === "correction" ? { confidence: 1, source: "correction", mentions: 1, last: now } : { confidence: 0.95, source: "operator", mentions: 1, last: now };
}

function replaceLine(markdown: string, line: string, next: string): string | null {
  const lines = markdown.split("\n");
  const index = lines.findIndex((l) => l.replace(/\r$/, "") === line);
  if (index === -1) return null;
  lines[index] = next;
  return lines.join("\n");
}

function mentioned(fact: CapturedFact, now: Date, config: HygieneConfig): string {
  return formatCapturedLine(fact.statement, fact.tag, recordMention(fact.meta, now, config), fact.capturedAt);
}

function superseded(fact: CapturedFact): string {
  return formatCapturedLine(fact.statement, fact.tag, { ...fact.meta, status: SUPERSEDED }, fact.capturedAt);
}

async function readDayFile(file: string, workspaceDir: string): Promise<string> {
  const read = await readRegularFile(file, { maxBytes: MAX_DAY_FILE_BYTES, root: workspaceDir, truncate: true });
  return read.ok ? read.bytes.toString("utf8") : "";
}

/** Day files before today, newest first, at most MAX_DEDUPE_FILES. */
async function olderDayFiles(workspaceDir: string, today: string): Promise<string[]> {
  const names = await fs.readdir(path.join(workspaceDir, MEMORY_DIR)).catch(() => [] as string[]);
  return names
    .filter((name) => DAY_FILE.test(name) && name < `${today}.md`)
    .sort()
    .reverse()
    .slice(0, MAX_DEDUPE_FILES)
    .map((name) => path.join(workspaceDir, MEMORY_DIR, name));
}

/**
 * What today's file calls for, decided under its lock from what it holds at that moment: a new line
 * (and, for a new value of a line there, that older line to mark), only the mark (the new value is
 * there already), a mention for a repeat, or nothing.
 */
type Decision =
  | { kind: "append"; line: string; supersede?: CapturedFact; replacement?: string }
  | { kind: "mark"; supersede: CapturedFact; line: string }
  | { kind: "mention"; fact: CapturedFact }
  | { kind: "ignore" };

/** Rounds of decide → mention before a repeat whose line keeps vanishing is left as it is. */
const MAX_DECIDE_ROUNDS = 4;

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Write one extracted fact. Adding a line, the common case, is an O_APPEND write under today's
 * lock (`appendFileLocked`): it never rewrites the file, so it lands however busy the agent's own
 * unlocked appends to the same file are. Whether to add is decided under that lock from what the
 * file holds at that moment, so concurrent captures of the same words never add two lines. Only the
 * rare in-place edits (a repeat's mention count, an older value marked superseded) rewrite the file
 * (`updateFileLocked`), and a new value is appended *before* its older line is marked, so a failure
 * or a crash in between leaves both values, never neither. When an edit fails after its retries,
 * the failure is logged with the file and the fact is kept: a repeat is already there, a new value
 * is added all the same (`warning` says what was not marked).
 * Throws only when the new line itself cannot be written (the caller reports it; the turn never
 * waits for this).
 */
export async function captureFact(input: CaptureInput): Promise<CaptureOutcome> {
  const { workspaceDir, fact, now, config } = input;
  const todayFile = dayFileFor(workspaceDir, now);
  const lock = { ...input.lock, containWithin: workspaceDir };
  await fs.mkdir(path.dirname(todayFile), { recursive: true });

  /** An in-place edit; a failure is logged with the file and returned, never thrown. */
  const editInPlace = async (file: string, transform: (text: string) => string | null): Promise<{ written: boolean; error?: string }> => {
    try {
      return { written: (await updateFileLocked(file, transform, lock)).written };
    } catch (error) {
      log().warn({ file, error: errorText(error) }, `capture: could not update ${file} in place`);
      return { written: false, error: errorText(error) };
    }
  };
  const notMentioned = (file: string, error: string): CaptureOutcome => ({ action: "ignored", file, reason: `already captured; mention count not updated (${error})` });

  // An older day's fact said again or given a new value: update it there (its own lock).
  let statement = fact.statement;
  /** The statement replaces an older value (marked or not): a correction is written even so. */
  let replacing = false;
  let supersededInfo: Pick<CaptureOutcome, "supersededIn" | "supersededStatement"> = {};
  let warning: string | undefined;
  const todayHas = relate(fact, capturedFacts(await readDayFile(todayFile, workspaceDir)));
  if (!todayHas) {
    for (const file of await olderDayFiles(workspaceDir, path.basename(todayFile, ".md"))) {
      const relation = relate(fact, capturedFacts(await readDayFile(file, workspaceDir)));
      if (!relation) continue;
      const next = relation.how === "repeat" ? mentioned(relation.fact, now, config) : superseded(relation.fact);
      const edit = await editInPlace(file, (text) => replaceLine(text, relation.fact.line, next));
      if (edit.error !== undefined) {
        if (relation.how === "repeat") return notMentioned(file, edit.error);
        // The new value still goes in: a fact is never dropped because the older line could not be marked.
        warning = `older value in ${file} not marked superseded (${edit.error})`;
        statement = relation.replacement;
        replacing = true;
        break;
      }
      if (!edit.written) break; // edited meanwhile (or deleted by the operator): treat as new
      if (relation.how === "repeat") return { action: "mentioned", line: next, file };
      statement = relation.replacement;
      replacing = true;
      supersededInfo = { supersededIn: file, supersededStatement: relation.fact.statement };
      break;
    }
  }

  const capturedAt = now.toISOString();
  const current: ExtractedFact = { ...fact, statement };
  const lineFor = (text: string) => formatCapturedLine(text, fact.tag, newMeta(current, now), capturedAt);
  const decide = (text: string): Decision => {
    const facts = capturedFacts(text);
    const relation = relate(current, facts);
    if (relation?.how === "repeat") return { kind: "mention", fact: relation.fact };
    if (relation?.how === "change") {
      // Another capture of the same correction may have added the new value already.
      const there = facts.find((f) => !f.superseded && f !== relation.fact && isRepeat(f.statement, relation.replacement));
      if (there) return { kind: "mark", supersede: relation.fact, line: there.line };
      return { kind: "append", line: lineFor(relation.replacement), supersede: relation.fact, replacement: relation.replacement };
    }
    // A correction of nothing we captured: CORRECTIONS.md has it (triage); no fact line.
    if (fact.kind === "correction" && !replacing) return { kind: "ignore" };
    return { kind: "append", line: lineFor(statement) };
  };

  for (let round = 1; ; round++) {
    let decision: Decision = { kind: "ignore" };
    const appended = await appendFileLocked(
      todayFile,
      (text) => {
        decision = decide(text);
        return decision.kind === "append" ? decision.line : null;
      },
      lock,
    );
    const decided = decision as Decision;
    if (decided.kind === "ignore") return { action: "ignored", reason: "correction of no captured fact" };
    if (decided.kind === "mention") {
      // Raise the count of the repeated line as it is now (another capture may have raised it meanwhile).
      let next = "";
      const edit = await editInPlace(todayFile, (text) => {
        const again = relate(current, capturedFacts(text));
        if (again?.how !== "repeat") return null;
        next = mentioned(again.fact, now, config);
        return replaceLine(text, again.fact.line, next);
      });
      if (edit.error !== undefined) return notMentioned(todayFile, edit.error);
      if (edit.written) return { action: "mentioned", line: next, file: todayFile };
      // The line is gone (the operator deleted it meanwhile): decide again, bounded.
      if (round >= MAX_DECIDE_ROUNDS) return { action: "ignored", file: todayFile, reason: "already captured; line changed while its mention count was raised" };
      continue;
    }
    if (decided.kind === "append" && !appended.written) return { action: "ignored", reason: "nothing to write" };
    const { line } = decided;
    if (!decided.supersede) {
      const added: CaptureOutcome = supersededInfo.supersededIn ? { action: "superseded", line, file: todayFile, ...supersededInfo } : { action: "added", line, file: todayFile };
      return warning ? { ...added, warning } : added;
    }
    // A new value of a line in today's file: the new line is in; now mark the older one.
    const older = decided.supersede;
    const edit = await editInPlace(todayFile, (text) => replaceLine(text, older.line, superseded(older)));
    if (edit.error !== undefined) warning = `older value in ${todayFile} not marked superseded (${edit.error})`;
    const warned = warning ? { warning } : {};
    if (edit.written) return { action: "superseded", line, file: todayFile, supersededIn: todayFile, supersededStatement: older.statement, ...warned };
    // Not marked (the failure above, or the older line changed meanwhile): the new value is in all the same.
    if (decided.kind === "mark") return { action: "ignored", file: todayFile, reason: "new value already captured", ...warned };
    return { action: "added", line, file: todayFile, ...warned };
  }
}

export type CapturedToday = { file: string; facts: CapturedFact[] };

/** Facts captured today (status: what `npm run status` lists), oldest first. */
export async function capturedToday(workspaceDir: string, now: Date = new Date()): Promise<CapturedToday> {
  const file = dayFileFor(workspaceDir, now);
  const today = now.toISOString().slice(0, 10);
  const facts = capturedFacts(await readDayFile(file, workspaceDir))
    .filter((fact) => fact.capturedAt.startsWith(today))
    .reverse();
  return { file, facts };
}

/**
 * A memory this turn must not show as current: a captured fact a newer value superseded, or one the
 * turn's own message already says (the capture of "remember that …" landing while the same turn's
 * block is built must not echo it back).
 */
export function leftOutOfTurn(memoryText: string, message: string): boolean {
  return isSupersededEntry(memoryText) || echoesMessage(memoryText, message);
}
