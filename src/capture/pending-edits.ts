import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { getLogger } from "../core/log.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { appendBytes, updateFileLocked } from "../fs/locked-writes.ts";
import type { LockOptions } from "../fs/lock.ts";
import { isPathInside, readRegularFile, realPathOrResolved } from "../fs/safe-read.ts";
import { recordMention } from "../memory/confidence.ts";
import type { MemoryMetadata } from "../memory/confidence.ts";
import { HYGIENE_CONFIG_DEFAULTS } from "../memory/config-md.ts";
import type { HygieneConfig } from "../memory/config-md.ts";
import { MEMORY_DIR } from "./fact-index.ts";
import type { IndexedFact, WorkspaceFacts } from "./fact-index.ts";
import { SUPERSEDED, formatCapturedLine, parseCapturedLine } from "./fact-line.ts";
import type { CapturedFact } from "./fact-line.ts";
import { factId } from "./memory-facts.ts";

// The two in-place edits of a capture (a repeat's mention count raised, an older value marked
// superseded) are committed as a write-ahead record and applied to the day file later, off the
// capture's path (docs/memory-hygiene.md, "In-place edits are written ahead"). Rewriting a day file
// of a thousand facts durably (temp file, fsync, rename, fsync of the folder) took most of an
// edit's time; one small O_APPEND write with an fsync takes a tenth of it.
//
// - The record: one JSON line per edit in `memory/.capture-pending-<pid>.jsonl`, this process's
//   journal (nobody else appends to it, so no lock). It names the fact by its day, its capture time
//   and its `memory list` id (a hash): never its words, so a forgotten fact leaves nothing here.
// - Applying: when no capture of the workspace is waiting (or once MAX_PENDING_EDITS wait), one
//   file's edits at a time, in one locked rewrite, each decided again from the line as it is then.
//   A line that is gone (forgotten, deleted by hand) drops its edits; a repeat's fact is then
//   written again, once, unless it was forgotten. The journal is removed once everything in it is
//   applied.
// - Edits are idempotent: a mention names the count it brings the line to, a mark is a mark. A
//   journal left by a process that stopped (or by this process's previous run under the same pid)
//   is applied before the workspace's next capture; applying an edit twice changes nothing.

/** Edits waiting before they are applied even though captures are queued (a burst). */
const MAX_PENDING_EDITS = 64;
/** Attempts to apply one file's edits before they are dropped (the failure is logged each time). */
const MAX_APPLY_ATTEMPTS = 3;
/** Bytes of a journal read back (a journal holds at most a few hundred short lines). */
const MAX_JOURNAL_BYTES = 1024 * 1024;
const JOURNAL = /^\.capture-pending-(\d+)\.jsonl$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

const log = () => getLogger("openclaw-context.hygiene");

const target = { day: z.string().regex(DAY), at: z.string().min(1).max(64), id: z.string().regex(/^f-[0-9a-f]{10}$/) };
const pendingEditSchema = z.discriminatedUnion("edit", [
  z.object({ edit: z.literal("mention"), ...target, mentions: z.number().int().min(2), on: z.string().datetime() }),
  z.object({ edit: z.literal("supersede"), ...target }),
]);

/** One in-place edit of a captured line, as the journal records it. */
export type PendingEdit = z.infer<typeof pendingEditSchema>;

function journalName(pid: number): string {
  return `.capture-pending-${pid}.jsonl`;
}

/** Is this a journal's file name (memory/.capture-pending-<pid>.jsonl)? */
export function isPendingJournalName(name: string): boolean {
  return JOURNAL.test(name);
}

/** Is the process `pid` running (on this machine)? */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // Stryker disable next-line all: EPERM is another user's process, which a test running as root never meets
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The entries of a journal's text; a line that is not one (a torn last write) is skipped. */
export function parseJournal(text: string): PendingEdit[] {
  const edits: PendingEdit[] = [];
  for (const line of text.split("\n")) {
    try {
      const parsed = pendingEditSchema.safeParse(JSON.parse(line));
      if (parsed.success) edits.push(parsed.data);
    } catch {
      // A line cut short by a crash (the edit it began was never reported as done), or an empty one.
    }
  }
  return edits;
}

/** Where in `text` the captured line of `edit` is: the line whose capture time and id are the edit's. */
function findLine(text: string, edit: PendingEdit): { start: number; end: number; fact: CapturedFact } | undefined {
  const needle = `captured: ${edit.at}`;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
    const start = text.lastIndexOf("\n", at) + 1;
    const lineEnd = text.indexOf("\n", at);
    const line = text.slice(start, lineEnd === -1 ? text.length : lineEnd).replace(/\r$/, "");
    const fact = parseCapturedLine(line);
    if (fact && fact.capturedAt === edit.at && factId(fact.statement) === edit.id) return { start, end: start + line.length, fact };
  }
  return undefined;
}

/** The metadata of a line after one edit (the same when the line has it already). */
function edited(meta: MemoryMetadata, edit: PendingEdit, config: HygieneConfig): MemoryMetadata {
  if (edit.edit === "supersede") return { ...meta, status: SUPERSEDED };
  return (meta.mentions ?? 1) < edit.mentions ? recordMention(meta, new Date(edit.on), config) : meta;
}

type LineChange = { oldLine: string; newLine: string };

export type AppliedEdits = { text: string; changes: LineChange[]; missing: PendingEdit[] };

/** `text` with `edits` applied (in order): the lines changed, and the edits whose line is not there. */
export function applyEdits(text: string, edits: readonly PendingEdit[], config: HygieneConfig): AppliedEdits {
  const lines = new Map<number, { end: number; fact: CapturedFact; meta: MemoryMetadata }>();
  const missing: PendingEdit[] = [];
  for (const edit of edits) {
    const found = findLine(text, edit);
    const line = found ? (lines.get(found.start) ?? { end: found.end, fact: found.fact, meta: found.fact.meta }) : undefined;
    // A value said again after it was superseded is current again: not a mention of the old line.
    // Stryker disable next-line ConditionalExpression: a mark of a line marked already, counted missing, changes nothing either way
    if (!line || (edit.edit === "mention" && line.meta.status === SUPERSEDED)) {
      missing.push(edit);
      continue;
    }
    line.meta = edited(line.meta, edit, config);
    lines.set((found as { start: number }).start, line);
  }
  const changes: (LineChange & { start: number; end: number })[] = [];
  for (const [start, { end, fact, meta }] of lines) {
    const newLine = formatCapturedLine(fact.statement, fact.tag, meta, fact.capturedAt);
    if (newLine !== fact.line) changes.push({ start, end, oldLine: fact.line, newLine });
  }
  changes.sort((a, b) => a.start - b.start);
  let next = "";
  let from = 0;
  for (const change of changes) {
    next += text.slice(from, change.start) + change.newLine;
    from = change.end;
  }
  return { text: next + text.slice(from), changes: changes.map(({ oldLine, newLine }) => ({ oldLine, newLine })), missing };
}

/** The identity of a fact's line in the journal and in `projected`. */
function keyOf(edit: Pick<PendingEdit, "day" | "at" | "id">): string {
  return `${edit.day}\u0000${edit.at}\u0000${edit.id}`;
}

/** An indexed fact's line, parsed (the index holds captured lines only), and where it is. */
function targetOf(fact: IndexedFact): { line: CapturedFact; at: { day: string; at: string; id: string } } {
  const line = parseCapturedLine(fact.line) as CapturedFact;
  return { line, at: { day: fact.day, at: line.capturedAt, id: factId(line.statement) } };
}

/**
 * Said again while its line went away (deleted by hand before the mention was applied): the line as
 * the mention would have left it, and when it was said. The capture writes it again (unless it was
 * forgotten), as it did when the edit ran at once.
 */
export type Recapture = (index: WorkspaceFacts, line: string, saidAt: Date, config: HygieneConfig, lock: LockOptions) => Promise<void>;

/** The pending edits of one workspace in this process (one per fact index: the same lifetime). */
export class PendingEdits {
  private readonly index: WorkspaceFacts;
  private readonly recapture: Recapture;
  private readonly journal: string;
  private edits: PendingEdit[] = [];
  /** A fact's line as its pending mentions will leave it (the next mention counts from there). */
  private readonly projected = new Map<string, string>();
  private readonly attempts = new Map<string, number>();
  private config: HygieneConfig = HYGIENE_CONFIG_DEFAULTS;
  private lock: LockOptions = {};
  private recovered: Promise<void> | undefined;
  /** Facts written again once because their line went away (never twice: a line that keeps going away is left). */
  private readonly recaptured = new Set<string>();
  private scheduled = false;
  /** Lines in this process's journal (applied ones included, until it is removed or compacted). */
  private journalLines = 0;

  constructor(index: WorkspaceFacts, recapture: Recapture) {
    this.index = index;
    this.recapture = recapture;
    this.journal = path.join(index.workspaceDir, MEMORY_DIR, journalName(process.pid));
  }

  /**
   * Before this process records an edit in the workspace: the journals a stopped process left
   * (this pid's included: nothing is recorded in it yet) are applied, once. Runs in the queue.
   */
  recover(config: HygieneConfig, lock: LockOptions): Promise<void> {
    this.config = config;
    this.lock = lock;
    // Stryker disable BlockStatement,ObjectLiteral,StringLiteral: reached only when a journal cannot be removed after it was applied
    this.recovered ??= this.adoptLeftJournals().catch((error: unknown) => {
      log().warn({ workspaceDir: this.index.workspaceDir, error: (error as Error).message }, "capture: pending edits left by an earlier run not applied");
    });
    // Stryker restore all
    return this.recovered;
  }

  private async adoptLeftJournals(): Promise<void> {
    for (const { file, pid, edits } of await journalsIn(this.index.workspaceDir)) {
      if (pid !== process.pid && isRunning(pid)) continue;
      log().info({ file, edits: edits.length }, "capture: applying the pending edits an earlier run left");
      this.edits.push(...edits);
      await this.applyAll();
      // Everything applied (or dropped after its attempts, logged): the journal has done its work.
      await fs.unlink(file);
    }
  }

  /** Record that `fact` was said again: its mention count is raised. Returns the line as it will be. */
  async mention(fact: IndexedFact, now: Date): Promise<string> {
    const { line: indexed, at } = targetOf(fact);
    const key = keyOf(at);
    // Counted from what the mentions still pending will leave (the same words and capture time).
    const projected = this.projected.get(key);
    const base = projected === undefined ? indexed : (parseCapturedLine(projected) as CapturedFact);
    const meta = recordMention(base.meta, now, this.config);
    const line = formatCapturedLine(base.statement, base.tag, meta, base.capturedAt);
    await this.record({ edit: "mention", ...at, mentions: meta.mentions ?? 2, on: now.toISOString() });
    this.projected.set(key, line);
    return line;
  }

  /** Record that `fact` has a newer value: its line is marked superseded. */
  async supersede(fact: IndexedFact): Promise<void> {
    await this.record({ edit: "supersede", ...targetOf(fact).at });
    this.index.markSuperseded(fact);
  }

  /**
   * One journal line, written and synced: the edit is committed when this returns. When the journal
   * cannot be written, the edit is still applied from memory (a crash before that loses it: logged).
   */
  private async record(edit: PendingEdit): Promise<void> {
    try {
      await this.appendToJournal(edit);
      this.journalLines++;
    } catch (error) {
      log().warn({ file: this.journal, error: (error as Error).message }, "capture: edit not recorded ahead; applied from memory");
    }
    this.edits.push(edit);
  }

  /** The shared unlocked append (a regular file, no link, no FIFO), inside the workspace only. */
  private async appendToJournal(edit: PendingEdit): Promise<void> {
    const [root, folder] = await Promise.all([realPathOrResolved(this.index.workspaceDir), realPathOrResolved(path.dirname(this.journal))]);
    if (!isPathInside(root, folder)) throw new Error(`${path.dirname(this.journal)}: outside the workspace, not written`);
    await appendBytes(this.journal, `${JSON.stringify(edit)}\n`);
  }

  /**
   * After a capture: apply the pending edits when no capture waits, else leave them to the last
   * capture of the run (or apply a file's worth now, when MAX_PENDING_EDITS wait). Never awaited.
   */
  soon(): void {
    // Stryker disable next-line ConditionalExpression,LogicalOperator,BooleanLiteral: the flag only spares duplicate wake-ups; an extra one finds nothing to do or applies a file sooner
    if (this.edits.length === 0 || this.scheduled) return;
    // Stryker disable next-line BooleanLiteral: as above
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.edits.length === 0 || (!this.index.idle && this.edits.length < MAX_PENDING_EDITS)) return;
      void this.index.exclusive(() => this.applyNextFile()).then(
        () => this.soon(),
        // Stryker disable next-line ArrowFunction: applyNextFile never rejects
        () => this.soon(),
      );
    });
  }

  /** Apply every pending edit (the queue is held meanwhile). */
  async applyAll(): Promise<void> {
    while (this.edits.length > 0) await this.applyNextFile();
  }

  /** Apply the edits of the file of the oldest pending edit, in one rewrite; never throws. */
  private async applyNextFile(): Promise<void> {
    // Stryker disable next-line OptionalChaining,ConditionalExpression: a task queued after another applied everything finds nothing (a wake-up racing settledCaptures)
    const day = this.edits[0]?.day;
    // Stryker disable next-line ConditionalExpression: as above
    if (day === undefined) return;
    const file = path.join(this.index.workspaceDir, MEMORY_DIR, `${day}.md`);
    const edits = this.edits.filter((edit) => edit.day === day);
    const taken = new Set(edits);
    const others = () => this.edits.filter((edit) => !taken.has(edit));
    let applied: AppliedEdits | undefined;
    try {
      const result = await updateFileLocked(
        file,
        (text) => {
          this.index.syncText(file, day, text);
          applied = applyEdits(text, edits, this.config);
          // The same text is not written (updateFileLocked).
          return applied.text;
        },
        { ...this.lock, containWithin: this.index.workspaceDir },
      );
      const done = applied as unknown as AppliedEdits;
      // Stryker disable next-line ConditionalExpression: a rewrite of nothing updates the index with nothing
      if (result.written) await this.index.rewrittenLines(file, day, done.text, done.changes);
    } catch (error) {
      applied = undefined;
      const attempts = (this.attempts.get(day) ?? 0) + 1;
      log().warn({ file, edits: edits.length, attempts, error: (error as Error).message }, `capture: pending edits of ${file} not applied`);
      if (attempts < MAX_APPLY_ATTEMPTS) {
        this.attempts.set(day, attempts);
        // Tried again after the other files' edits.
        this.edits = [...others(), ...edits];
        return;
      }
      // Dropped: the index forgets the marks it took ahead, and reads the file as it is.
      this.index.forget(file);
    }
    this.attempts.delete(day);
    this.edits = others();
    const vanished = this.vanishedLines((applied as AppliedEdits | undefined)?.missing ?? []);
    for (const edit of edits) this.projected.delete(keyOf(edit));
    await this.recaptureVanished(vanished);
    // Stryker disable next-line ConditionalExpression: only keeps the set small; a fact that goes away again later is then written again once more
    if (this.edits.length === 0) this.recaptured.clear();
    await this.compactJournal();
  }

  /** The lines (as their mentions would have left them) of repeated facts whose line went away. */
  private vanishedLines(missing: readonly PendingEdit[]): Map<string, { line: string; saidAt: Date }> {
    const vanished = new Map<string, { line: string; saidAt: Date }>();
    for (const edit of missing) {
      if (edit.edit !== "mention") continue;
      const line = this.projected.get(keyOf(edit));
      if (line !== undefined) vanished.set(keyOf(edit), { line, saidAt: new Date(edit.on) });
    }
    return vanished;
  }

  /** Repeated facts whose line went away: written again, once (a recovered journal holds no words, so none of its facts). */
  private async recaptureVanished(vanished: Map<string, { line: string; saidAt: Date }>): Promise<void> {
    for (const [key, { line, saidAt }] of vanished) {
      if (this.recaptured.has(key)) {
        log().warn({ workspaceDir: this.index.workspaceDir }, "capture: a repeated fact's line went away again; left as it is");
        continue;
      }
      this.recaptured.add(key);
      try {
        await this.recapture(this.index, line, saidAt, this.config, this.lock);
        // Stryker disable BlockStatement,ObjectLiteral,StringLiteral: the capture throws only when its new line cannot be written, which its own append reports too
      } catch (error) {
        log().warn({ workspaceDir: this.index.workspaceDir, error: (error as Error).message }, "capture: a repeated fact whose line went away was not written again");
      }
      // Stryker restore all
    }
  }

  /**
   * The journal removed once everything in it is applied; rewritten with what is still pending
   * when captures never pause long enough for that (it stays small either way).
   */
  private async compactJournal(): Promise<void> {
    try {
      if (this.edits.length === 0) await fs.rm(this.journal, { force: true });
      else if (this.journalLines > 4 * MAX_PENDING_EDITS) await writeFileAtomic(this.journal, this.edits.map((edit) => `${JSON.stringify(edit)}\n`).join(""));
      else return;
      this.journalLines = this.edits.length;
    } catch (error) {
      log().warn({ file: this.journal, error: (error as Error).message }, "capture: journal of pending edits not compacted");
    }
  }
}

/** The journals in a workspace's memory folder that can be read (regular files, the first MiB), with their writer's pid and edits. */
async function journalsIn(workspaceDir: string): Promise<{ file: string; pid: number; edits: PendingEdit[] }[]> {
  const dir = path.join(workspaceDir, MEMORY_DIR);
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const journals: { file: string; pid: number; edits: PendingEdit[] }[] = [];
  for (const name of names) {
    const pid = JOURNAL.exec(name)?.[1];
    if (pid === undefined) continue;
    const file = path.join(dir, name);
    const read = await readRegularFile(file, { maxBytes: MAX_JOURNAL_BYTES, root: workspaceDir, truncate: true });
    if (read.ok) journals.push({ file, pid: Number(pid), edits: parseJournal(read.bytes.toString("utf8")) });
  }
  return journals;
}

export type PendingJournal = { file: string; edits: number; writerRunning: boolean };

/** The journals in a workspace and how many edits each holds (the operator's status): none once applied. */
export async function pendingJournals(workspaceDir: string): Promise<PendingJournal[]> {
  return (await journalsIn(workspaceDir)).map(({ file, pid, edits }) => ({ file, edits: edits.length, writerRunning: pid !== process.pid && isRunning(pid) }));
}

const pendingByIndex = new WeakMap<WorkspaceFacts, PendingEdits>();

/** The pending edits of a workspace's fact index. */
export function pendingEditsOf(index: WorkspaceFacts, recapture: Recapture): PendingEdits {
  let pending = pendingByIndex.get(index);
  if (!pending) pendingByIndex.set(index, (pending = new PendingEdits(index, recapture)));
  return pending;
}
