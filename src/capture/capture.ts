import path from "node:path";
import { appendFileLockedUnlessSeen } from "../fs/locked-writes.ts";
import type { LockOptions } from "../fs/lock.ts";
import { readRegularFile } from "../fs/safe-read.ts";
import type { MemoryMetadata } from "../memory/confidence.ts";
import type { HygieneConfig } from "../memory/config-md.ts";
import { MEMORY_DIR, factIndexFor } from "./fact-index.ts";
import type { IndexedFact, WorkspaceFacts } from "./fact-index.ts";
import { capturedFacts, formatCapturedLine, isSupersededEntry, parseCapturedLine, replaceLine } from "./fact-line.ts";
import type { CapturedFact } from "./fact-line.ts";
import { analyse, withNewValue } from "./relation.ts";
import type { Shape } from "./relation.ts";
import { echoesOf } from "./statement.ts";
import type { ExtractedFact } from "./statement.ts";
import { isForgotten } from "./forget.ts";
import { pendingEditsOf } from "./pending-edits.ts";
import type { PendingEdits } from "./pending-edits.ts";

export { capturedFacts, formatCapturedLine, isSupersededEntry, parseCapturedLine } from "./fact-line.ts";

// Explicit capture (persistent memory spec §5.1 Core tier, flat files, no LLM): a fact the operator
// asked to keep becomes one line of today's `memory/YYYY-MM-DD.md` (fact-line.ts):
//
//   - my locker code is 4312 #knowledge <!-- confidence: 0.95 source: operator mentions: 1 last: 2026-11-25 captured: 2026-11-25T03:12:09.120Z -->
//
// One list item is one chunk for the memory index and one entry for the recent-memory slot; the
// comment is invisible to the model (rendering drops it) and deleting the line undoes the capture.
// Before writing (§5.1 rule 2): a repeat raises the existing line's mention count (+0.05); a new
// value for the same thing (rule 5, corrections win; relation.ts says what counts) marks the older
// line `status: superseded`, which retrieval leaves out, and adds the new value. Every change takes
// the file's §4.1 lock; locks are taken one after another, never nested. A new line is an O_APPEND
// write (never a rewrite), since OpenClaw's agent appends to the same day file without our lock;
// only the two in-place edits rewrite it (docs/memory-hygiene.md, "Which writes append"), and not
// on the capture's path: the capture commits them as a journal line (pending-edits.ts), and they
// are applied once no capture waits, one rewrite per file.
//
// What was captured before comes from the workspace's fact index (fact-index.ts): read once, then
// only what was appended, so a capture does not reread 30 day files. Every decision is still made
// again under the lock, from the file's text at that moment.

/** Bytes of today's file `capturedToday` reads (the operator's status). */
const MAX_DAY_FILE_BYTES = 256 * 1024;

export function dayFileFor(workspaceDir: string, now: Date): string {
  return path.join(workspaceDir, MEMORY_DIR, `${now.toISOString().slice(0, 10)}.md`);
}

type Relation = { fact: IndexedFact; how: "repeat" } | { fact: IndexedFact; how: "change"; replacement: string };

/**
 * How a new fact relates to the captured facts (the index's newest first), in `onlyFile` or
 * anywhere: a repeat, or a change whose new line is the older statement with the new value put in
 * (a correction) or the new statement as said (a restatement).
 */
function relationOf(index: WorkspaceFacts, fact: ExtractedFact, shape: Shape, onlyFile?: string): Relation | undefined {
  const related = index.relate(shape, fact.kind === "correction", onlyFile);
  if (!related || related.how === "repeat") return related;
  const replacement = fact.kind === "correction" ? withNewValue(related.fact.statement, fact.statement, related.change) : fact.statement;
  return { fact: related.fact, how: "change", replacement };
}

/** Is `line` one whole line of `text`? */
// Stryker disable next-line BlockStatement: its caller reads the file whole again on a no; always no costs time, never changes a decision
function hasLine(text: string, line: string): boolean {
  // Stryker disable next-line StringLiteral: only whether there is a line to replace counts, not what replaces it
  return replaceLine(text, line, "") !== null;
}

type CaptureAction = "added" | "mentioned" | "superseded" | "ignored";

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

/**
 * What today's file calls for, decided under its lock from what it holds at that moment: a new line
 * (and, for a new value of a line there, that older line to mark), only the mark (the new value is
 * there already), a mention for a repeat, or nothing.
 */
type Decision =
  | { kind: "append"; line: string; supersede?: IndexedFact; replacement?: string }
  | { kind: "mark"; supersede: IndexedFact; line: string }
  | { kind: "mention"; fact: IndexedFact }
  | { kind: "ignore" };

/**
 * Write one extracted fact. Adding a line, the common case, is an O_APPEND write under today's
 * lock (`appendFileLockedUnlessSeen`): it never rewrites the file, so it lands however busy the agent's own
 * unlocked appends to the same file are. Whether to add is decided under that lock from what the
 * file holds at that moment, so concurrent captures of the same words never add two lines. The
 * in-place edits (a repeat's mention count, an older value marked superseded) are recorded ahead
 * (pending-edits.ts) and rewrite the file after the capture; a new value is appended *before* its
 * older line's mark is recorded, so a failure or a crash in between leaves both values, never
 * neither. The outcome says what was recorded; an edit that then fails to apply is logged with its
 * file (pending-edits.ts), and the fact is kept: a repeat is already there, a new value is added.
 * Captures of one workspace run one at a time (the index's queue).
 * Throws only when the new line itself cannot be written (the caller reports it; the turn never
 * waits for this).
 */
export function captureFact(input: CaptureInput): Promise<CaptureOutcome> {
  const index = factIndexFor(input.workspaceDir);
  const captured = index.exclusive(() => captureWith(index, input));
  // The in-place edits it recorded are applied once no capture waits (pending-edits.ts).
  const applySoon = () => pendingOf(index).soon();
  captured.then(applySoon, applySoon);
  return captured;
}

/** A repeat whose line went away before its mention landed, captured again (pending-edits.ts). */
async function recapture(index: WorkspaceFacts, line: string, saidAt: Date, config: HygieneConfig, lock: LockOptions): Promise<void> {
  const said = parseCapturedLine(line);
  // Forgotten meanwhile ("forget that …" right after it was said again): not brought back.
  if (!said || (await isForgotten(index.workspaceDir, said.statement))) return;
  const fact: ExtractedFact = { kind: "memory", statement: said.statement, tag: said.tag, trigger: "remember-that" };
  await captureWith(index, { workspaceDir: index.workspaceDir, fact, now: saidAt, config, lock });
}

/** The workspace's pending in-place edits. */
function pendingOf(index: WorkspaceFacts): PendingEdits {
  return pendingEditsOf(index, recapture);
}

/**
 * Every capture of the workspace queued so far done, and every in-place edit they recorded applied
 * to its day file (operator commands, tests and benches that read the files right after).
 */
export async function settledCaptures(workspaceDir: string): Promise<void> {
  const index = factIndexFor(workspaceDir);
  const pending = pendingOf(index);
  await index.exclusive(() => pending.applyAll());
}

async function captureWith(index: WorkspaceFacts, input: CaptureInput): Promise<CaptureOutcome> {
  const { workspaceDir, fact, now, config } = input;
  const todayFile = dayFileFor(workspaceDir, now);
  const lock = { ...input.lock, containWithin: workspaceDir };
  const pending = pendingOf(index);
  await pending.recover(config, lock);
  await index.refresh(path.basename(todayFile, ".md"));

  // An older day's fact said again: its mention count is raised there (its own lock). Given a new
  // value: the new value goes into today's file first, then the older line is marked (below).
  const shape = analyse(fact.statement);
  let statement = fact.statement;
  /** The statement replaces an older value (marked or not): a correction is written even so. */
  let replacing = false;
  let olderValue: IndexedFact | undefined;
  const relation = relationOf(index, fact, shape);
  if (relation?.how === "repeat" && relation.fact.file !== todayFile) {
    // Recorded ahead; a line gone by the time it is applied is written again (pending-edits.ts).
    return { action: "mentioned", line: await pending.mention(relation.fact, now), file: relation.fact.file };
  } else if (relation?.how === "change" && relation.fact.file !== todayFile) {
    statement = relation.replacement;
    replacing = true;
    olderValue = relation.fact;
  }
  const { outcome, inToday } = await captureIntoToday(index, pending, input, lock, statement === fact.statement ? shape : analyse(statement), statement, replacing);
  if (!olderValue || !inToday) return outcome;
  // The new value is in today's file (added, or there already): only now is the older line's mark
  // recorded, so a failure or a crash in between leaves both values, never neither.
  await pending.supersede(olderValue);
  return outcome.action === "added" ? { ...outcome, action: "superseded", supersededIn: olderValue.file, supersededStatement: olderValue.statement } : outcome;
}

/**
 * The part of a capture that concerns today's file: `statement` (the fact as said, or the new value
 * of an older day's fact when `replacing`) added, counted as a repeat, or put in place of an older
 * value there. `inToday`: today's file holds the statement now (added, or there already).
 */
async function captureIntoToday(
  index: WorkspaceFacts,
  pending: PendingEdits,
  input: CaptureInput,
  lock: LockOptions,
  currentShape: Shape,
  statement: string,
  replacing: boolean,
): Promise<{ outcome: CaptureOutcome; inToday: boolean }> {
  const { workspaceDir, fact, now } = input;
  const todayFile = dayFileFor(workspaceDir, now);
  const today = path.basename(todayFile, ".md");
  const there = (outcome: CaptureOutcome) => ({ outcome, inToday: true });

  const capturedAt = now.toISOString();
  const current: ExtractedFact = { ...fact, statement };
  const lineFor = (text: string) => formatCapturedLine(text, fact.tag, newMeta(current, now), capturedAt);
  /**
   * How the fact relates to today's file as `text` holds it (the index synced to it, the line
   * checked); undefined: the file is as the index last saw it whole, unread.
   */
  const relationInToday = (text: string | undefined): Relation | undefined => {
    if (text === undefined) return relationOf(index, current, currentShape, todayFile);
    index.syncText(todayFile, today, text);
    let found = relationOf(index, current, currentShape, todayFile);
    if (found && !hasLine(text, found.fact.line)) {
      // Changed in place without moving its end: read the file whole and decide again.
      index.syncText(todayFile, today, text, true);
      found = relationOf(index, current, currentShape, todayFile);
    }
    return found;
  };
  const decide = (text: string | undefined): Decision => {
    const found = relationInToday(text);
    if (found?.how === "repeat") return { kind: "mention", fact: found.fact };
    if (found?.how === "change") {
      // Another capture of the same correction may have added the new value already.
      // Stryker disable next-line BooleanLiteral: only a repeat counts here, and a repeat shares the content key, so the correction-only candidates add nothing
      const there = index.relate(analyse(found.replacement), false, todayFile);
      if (there?.how === "repeat" && there.fact !== found.fact) return { kind: "mark", supersede: found.fact, line: there.fact.line };
      return { kind: "append", line: lineFor(found.replacement), supersede: found.fact, replacement: found.replacement };
    }
    // A correction of nothing we captured: CORRECTIONS.md has it (triage); no fact line.
    if (fact.kind === "correction" && !replacing) return { kind: "ignore" };
    return { kind: "append", line: lineFor(statement) };
  };

  // Stryker disable next-line ObjectLiteral,StringLiteral: set by the transform, which appendFileLockedUnlessSeen calls before it returns (else it throws)
  let decision: Decision = { kind: "ignore" };
  let read: string | undefined;
  // A burst appends back to back: the file is read only when it is not as our last append left it.
  const appended = await appendFileLockedUnlessSeen(
    todayFile,
    index.seen(todayFile),
    (text) => {
      read = text;
      decision = decide(text);
      return decision.kind === "append" ? decision.line : null;
    },
    lock,
  );
  // Our own line goes into the index now, and the next capture does not read the file again for it.
  if (appended.appended) {
    const { text, ...observed } = appended.appended;
    index.appended(todayFile, today, read, text, observed);
  }
  const decided = decision as Decision;
  if (decided.kind === "ignore") return { outcome: { action: "ignored", reason: "correction of no captured fact" }, inToday: false };
  // The repeated line as found under the lock just now.
  if (decided.kind === "mention") return there({ action: "mentioned", line: await pending.mention(decided.fact, now), file: todayFile });
  const { line } = decided;
  if (!decided.supersede) return there({ action: "added", line, file: todayFile });
  // A new value of a line in today's file: the new line is in; now the older one's mark is recorded.
  await pending.supersede(decided.supersede);
  return there({ action: "superseded", line, file: todayFile, supersededIn: todayFile, supersededStatement: decided.supersede.statement });
}

/** The captured facts of a day file (its first MAX_DAY_FILE_BYTES); none when it cannot be read. */
async function factsOfDayFile(file: string, workspaceDir: string): Promise<CapturedFact[]> {
  const read = await readRegularFile(file, { maxBytes: MAX_DAY_FILE_BYTES, root: workspaceDir, truncate: true });
  return read.ok ? capturedFacts(read.bytes.toString("utf8")) : [];
}

export type CapturedToday = { file: string; facts: CapturedFact[] };

/** Facts captured today (status: what `npm run status` lists), oldest first. */
export async function capturedToday(workspaceDir: string, now: Date = new Date()): Promise<CapturedToday> {
  const file = dayFileFor(workspaceDir, now);
  const today = now.toISOString().slice(0, 10);
  const facts = (await factsOfDayFile(file, workspaceDir))
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
  return leftOutOfTurnOf(message)(memoryText);
}

/** leftOutOfTurn for one message and many memories (the message is analysed once). */
export function leftOutOfTurnOf(message: string): (memoryText: string) => boolean {
  const echoes = echoesOf(message);
  return (memoryText) => isSupersededEntry(memoryText) || echoes(memoryText);
}
