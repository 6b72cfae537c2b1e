import fs from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { readRegularFile, realPathOrResolved } from "../fs/safe-read.ts";
import { folderNames } from "../fs/folder-names.ts";
import { identityOf } from "../fs/file-identity.ts";
import type { FileIdentity } from "../fs/file-identity.ts";
import { capturedStatement } from "./fact-line.ts";
import { VALUE, analyse, changeOf, flagOf, isRepeat } from "./relation.ts";
import type { Change, Shape } from "./relation.ts";

// The facts captured in a workspace's day files, kept in process so that a capture costs the same
// with 40 facts or 40,000: today's file and the MAX_DEDUPE_FILES newest older ones are read once,
// then only what was appended since (a file grows at its end: OpenClaw's agent and the capture
// only ever append, docs/memory-hygiene.md). A file is read whole again when it was rewritten
// (another inode: an in-place edit, ours or the operator's), shrank, changed without growing, or no
// longer ends with the text read last. Each fact is analysed once (relation.ts) and filed under
// the keys a relation needs, so a capture looks at a handful of candidates, not at every fact.
//
// The index only proposes: every write still decides under the file's lock from the file's bytes
// as they are then (capture.ts syncs the index from that text first, and checks the line it will
// edit is there). Captures of one workspace run one at a time (`exclusive`), which keeps the
// index consistent and a burst of captures from flooding the thread pool a turn's reads need.

export const MEMORY_DIR = "memory";
/** Older day files searched for a repeat or an outdated value (newest first). */
export const MAX_DEDUPE_FILES = 30;
/** Bytes of one day file the index reads; captured lines after that are not seen. */
export const MAX_INDEXED_DAY_FILE_BYTES = 1024 * 1024;
/** Workspaces kept indexed at once (least recently used goes first). */
export const MAX_INDEXED_WORKSPACES = 4;
/** Characters at the end of what was read that must still be there for a file to count as appended to. */
const TAIL_CHARS = 64;
/** How long an older day file's last look stays good (today's file is looked at on every capture). */
const OLDER_RECHECK_MS = 1_000;
/** Longest stretch of parsing between two yields to the event loop. */
const SLICE_MS = 4;
const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.md$/;
/** A correction this short may name only the attribute and the value (relation.ts, ellipticChange: at most 3 words and a value). */
const ELLIPTIC_KEYS = 4;

/**
 * A captured line as the index keeps it: small (a vault may hold tens of thousands), the rest of
 * the line's fields are parsed again from `line` when a capture edits it.
 */
export type IndexedFact = { line: string; statement: string; superseded: boolean; file: string; day: string; seq: number; shape: Shape };

export type Related = { fact: IndexedFact; how: "repeat" } | { fact: IndexedFact; how: "change"; change: Change };


type FileEntry = {
  file: string;
  day: string;
  /** What was read: bytes and characters through the last complete line, and its last characters. */
  bytes: number;
  chars: number;
  tail: string;
  /** The file as it was when everything in it (up to `bytes`) had been read. */
  observed?: FileIdentity;
  facts: IndexedFact[];
  nextSeq: number;
  /** When the file was last compared with the disk (Date.now()). */
  checkedAt?: number;
};

/**
 * Key → facts, for the keys of keysOf. Keys are kept as 32-bit hashes (FNV-1a): a vault of 40,000
 * facts files each under about five keys, and a number costs less than a string. A collision only
 * adds a candidate, which the relation check then turns down. Most keys have one fact: kept
 * without a collection then.
 */
class Lookup {
  private readonly map = new Map<number, IndexedFact | IndexedFact[]>();
  add(key: number, fact: IndexedFact): void {
    const there = this.map.get(key);
    if (there === undefined) this.map.set(key, fact);
    else if (Array.isArray(there)) there.push(fact);
    else this.map.set(key, [there, fact]);
  }
  remove(key: number, fact: IndexedFact): void {
    const there = this.map.get(key);
    if (there === fact) this.map.delete(key);
    else if (Array.isArray(there)) {
      const at = there.indexOf(fact);
      if (at !== -1) there.splice(at, 1);
      if (there.length === 1) this.map.set(key, there[0]);
    }
  }
  get(key: number): readonly IndexedFact[] {
    const there = this.map.get(key);
    return there === undefined ? [] : Array.isArray(there) ? there : [there];
  }
}

/** FNV-1a over the parts (each ended by a NUL), from a seed per kind of key. */
function hash(seed: number, ...parts: string[]): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) h = Math.imul(h ^ part.charCodeAt(i), 0x01000193);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Keys a fact is filed under, one lookup each:
 *   content   the same words and values (repeats, and the other polarity);
 *   words     the same words around values (a new number);
 *   aligned   what two statements differing in one short value still share: the first two keys,
 *             or the first and the last, or (for a short one) the first alone;
 *   attribute a word right before a value ("slip" in "… at slip 14"), for a correction that names
 *             only the attribute and the value.
 */
function keysOf(shape: Shape): number[] {
  const { keys } = shape;
  const filed = [hash(1, shape.content)];
  if (shape.words) filed.push(hash(2, shape.words));
  if (keys.length >= 2) filed.push(hash(3, keys[0], keys[1]), hash(4, keys[0], keys[keys.length - 1]));
  if (keys.length >= 1 && keys.length <= 3) filed.push(hash(5, keys[0]));
  return filed;
}

/** Attribute keys: a word right before a value. */
function attributesOf(shape: Shape): number[] {
  const attributes: number[] = [];
  for (let i = 0; i + 1 < shape.keys.length; i++) if (!(flagOf(shape, i) & VALUE) && flagOf(shape, i + 1) & VALUE) attributes.push(hash(6, shape.keys[i]));
  return attributes;
}

/** Run parsing steps to the end at once (under a lock, inside a synchronous callback). */
function drain(steps: Generator<void>): void {
  for (const _ of steps);
}

/** Run parsing steps to the end, giving the event loop a turn every SLICE_MS (reads from disk). */
async function drainSliced(steps: Generator<void>): Promise<void> {
  let sliceStart = performance.now();
  for (const _ of steps) {
    if (performance.now() - sliceStart < SLICE_MS) continue;
    await new Promise<void>((resolve) => setImmediate(resolve));
    sliceStart = performance.now();
  }
}

export class WorkspaceFacts {
  readonly workspaceDir: string;
  private readonly files = new Map<string, FileEntry>();
  private readonly byKey = new Lookup();
  private readonly byAttribute = new Lookup();
  private queue: Promise<unknown> = Promise.resolve();
  /** Tasks queued or running (`exclusive`). */
  private queued = 0;
  /** The day before the `today` of the last refresh: a correction naming only a value looks back to it. */
  private yesterday = "";

  constructor(workspaceDir: string) {
    this.workspaceDir = workspaceDir;
  }

  /** Run `task` after every task queued before it for this workspace (one capture at a time). */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    this.queued++;
    const run = this.queue.then(task, task).finally(() => this.queued--);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** No task is queued or running: background work may take the queue without delaying a capture. */
  get idle(): boolean {
    return this.queued === 0;
  }

  /** Facts indexed in all files. */
  get size(): number {
    let n = 0;
    for (const entry of this.files.values()) n += entry.facts.length;
    return n;
  }

  /** Bring today's file and the MAX_DEDUPE_FILES newest older day files up to date from disk. */
  async refresh(today: string): Promise<void> {
    this.yesterday = new Date(Date.parse(`${today}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    const dir = path.join(this.workspaceDir, MEMORY_DIR);
    const names = await folderNames(dir).catch(() => [] as string[]);
    const days = names
      .map((name) => DAY_FILE.exec(name)?.[1])
      .filter((day): day is string => day !== undefined && day <= today)
      .sort()
      .reverse()
      .slice(0, MAX_DEDUPE_FILES + (names.includes(`${today}.md`) ? 1 : 0));
    const wanted = new Set(days.map((day) => path.join(dir, `${day}.md`)));
    for (const file of this.files.keys()) if (!wanted.has(file)) this.forget(file);
    // Today's file is looked at on every capture; older ones (edited rarely, and only ever acted on
    // after a check under their lock) at most every OLDER_RECHECK_MS, so a burst of captures costs
    // one stat per capture, not thirty-one.
    const checkedAt = Date.now();
    const due = days.filter((day) => day === today || !(checkedAt - (this.files.get(path.join(dir, `${day}.md`))?.checkedAt ?? -Infinity) < OLDER_RECHECK_MS));
    const realRoot = await realPathOrResolved(this.workspaceDir);
    const stats = await Promise.all(due.map((day) => fs.stat(path.join(dir, `${day}.md`)).catch(() => undefined)));
    for (const [i, day] of due.entries()) {
      const file = path.join(dir, `${day}.md`);
      const stat = stats[i];
      if (!stat) {
        this.forget(file);
        continue;
      }
      const entry = this.entry(file, day);
      await this.refreshFile(entry, stat, realRoot);
      if (this.files.get(file) === entry) entry.checkedAt = checkedAt;
    }
  }

  private entry(file: string, day: string): FileEntry {
    let entry = this.files.get(file);
    // Stryker disable next-line StringLiteral: a new entry is read whole through reread(), which empties the tail; the one look before that (appended() after an empty read) only picks one of two ways to parse the same text
    if (!entry) this.files.set(file, (entry = { file, day, bytes: 0, chars: 0, tail: "", facts: [], nextSeq: 0 }));
    return entry;
  }

  private async refreshFile(entry: FileEntry, now: Pick<FileIdentity, "ino" | "size" | "mtimeMs">, realRoot: string): Promise<void> {
    const seen = entry.observed;
    if (seen && seen.ino === now.ino && seen.size === now.size && seen.mtimeMs === now.mtimeMs) return;
    // Appended to since: the same file, another size (the same size with another time is an edit
    // in place), still holding what was read (checked on its tail).
    const appended = entry.chars > 0 && now.size >= entry.bytes && (!seen || (seen.ino === now.ino && now.size !== seen.size));
    if (appended) {
      const tailBytes = Buffer.byteLength(entry.tail);
      const start = entry.bytes - tailBytes;
      const read = await readRegularFile(entry.file, { maxBytes: Math.max(0, MAX_INDEXED_DAY_FILE_BYTES - start), root: this.workspaceDir, realRoot, truncate: true, start });
      if (!read.ok) return this.forget(entry.file);
      const text = read.bytes.toString("utf8");
      if (text.startsWith(entry.tail)) {
        await drainSliced(this.readMore(entry, text.slice(entry.tail.length)));
        entry.observed = identityOf(read);
        return;
      }
    }
    const read = await readRegularFile(entry.file, { maxBytes: MAX_INDEXED_DAY_FILE_BYTES, root: this.workspaceDir, realRoot, truncate: true });
    if (!read.ok) return this.forget(entry.file);
    await drainSliced(this.reread(entry, read.bytes.toString("utf8")));
    entry.observed = identityOf(read);
  }

  /**
   * The index of `file` made to match `text`, the file's whole content as just read under its
   * lock: only the part after what was read is parsed when the text still holds that; else (or
   * with `whole`) all of it.
   */
  syncText(file: string, day: string, text: string, whole = false): void {
    // The same bound as a read from disk: captured lines past it are not compared.
    drain(this.stepsToMatch(this.entry(file, day), text.slice(0, MAX_INDEXED_DAY_FILE_BYTES), whole));
  }

  /**
   * The file as the index last read it whole (or our last append left it), when the index holds
   * all of it: a capture's look under the lock that finds exactly this need not read the file
   * (`appendFileLockedUnlessSeen`).
   */
  seen(file: string): FileIdentity | undefined {
    const entry = this.files.get(file);
    // A last line without its newline yet is not in the index: such a file is read.
    return entry?.observed && entry.bytes === entry.observed.size ? entry.observed : undefined;
  }

  /**
   * After our own append of `text` to `file`, whose content under the lock was `read` (undefined:
   * the file was what `seen` recorded, unread): the index made to match both, and the file
   * recorded as it was right after the write, so the next refresh reads nothing unless someone
   * else wrote to it since.
   */
  appended(file: string, day: string, read: string | undefined, text: string, observed: FileIdentity): void {
    const entry = this.entry(file, day);
    // The index was synced to `read` under the lock (or held the whole file, unchanged): only the
    // appended text is parsed (no copy of the file's text), up to the bound syncText keeps, so both
    // ways index the same lines.
    const inStep = read === undefined || (entry.chars === read.length && read.endsWith(entry.tail));
    if (!inStep) this.syncText(file, day, read + text);
    else if (entry.chars < MAX_INDEXED_DAY_FILE_BYTES) drain(this.readMore(entry, text.slice(0, MAX_INDEXED_DAY_FILE_BYTES - entry.chars)));
    entry.observed = entry.bytes === observed.size ? observed : undefined;
  }

  private stepsToMatch(entry: FileEntry, text: string, whole: boolean): Generator<void> {
    const extends_ = !whole && entry.chars > 0 && text.length >= entry.chars && text.startsWith(entry.tail, entry.chars - entry.tail.length);
    return extends_ ? this.readMore(entry, text.slice(entry.chars)) : this.reread(entry, text);
  }

  /**
   * After our own rewrite of `file` to `text`, which replaced the whole line `oldLine` by `newLine`
   * in the text the index had just been synced to: that one fact is updated in place (no reparse),
   * and the file as it is now is recorded if it is still `text`.
   */
  rewritten(file: string, day: string, text: string, oldLine: string, newLine: string): Promise<void> {
    return this.rewrittenLines(file, day, text, [{ oldLine, newLine }]);
  }

  /** rewritten() for a rewrite that replaced several whole lines at once (the pending edits of one file). */
  async rewrittenLines(file: string, day: string, text: string, changes: readonly { oldLine: string; newLine: string }[]): Promise<void> {
    const entry = this.entry(file, day);
    const edited = changes.map((change) => ({ ...change, fact: entry.facts.find((f) => f.line === change.oldLine) }));
    let end = entry.chars;
    for (const change of changes) end += change.newLine.length - change.oldLine.length;
    if (edited.every((change) => change.fact) && end > 0 && text[end - 1] === "\n") {
      for (const { fact, oldLine, newLine } of edited) {
        const indexed = fact as IndexedFact;
        indexed.line = newLine;
        indexed.superseded = capturedStatement(newLine)?.superseded ?? indexed.superseded;
        entry.bytes += Buffer.byteLength(newLine) - Buffer.byteLength(oldLine);
      }
      entry.chars = end;
      entry.tail = text.slice(Math.max(0, end - TAIL_CHARS), end);
    } else {
      await drainSliced(this.stepsToMatch(entry, text.slice(0, MAX_INDEXED_DAY_FILE_BYTES), true));
    }
    const stat = await fs.stat(file).catch(() => undefined);
    entry.observed = stat && stat.size === Buffer.byteLength(text) ? identityOf(stat) : undefined;
  }

  /**
   * A fact whose older value is recorded as superseded (a pending edit, pending-edits.ts) is left
   * out of relations from now on, before its line is marked on disk.
   */
  markSuperseded(fact: IndexedFact): void {
    fact.superseded = true;
  }

  /** Drop a file from the index (it is read whole next time). */
  forget(file: string): void {
    const entry = this.files.get(file);
    if (!entry) return;
    for (const fact of entry.facts) this.unfile(fact);
    this.files.delete(file);
  }

  /** Everything read from `file` is forgotten and `text` read instead (analyses of the same statements reused). */
  private *reread(entry: FileEntry, text: string): Generator<void> {
    const known = new Map(entry.facts.map((fact) => [fact.statement, fact.shape]));
    for (const fact of entry.facts) this.unfile(fact);
    Object.assign(entry, { bytes: 0, chars: 0, tail: "", facts: [], observed: undefined });
    yield* this.readMore(entry, text, known);
  }

  /** Parse the complete lines of `chunk` (the text right after what was read) into the index, one step per line. */
  private *readMore(entry: FileEntry, chunk: string, known?: Map<string, Shape>): Generator<void> {
    const end = chunk.lastIndexOf("\n");
    if (end === -1) return;
    const complete = chunk.slice(0, end + 1);
    entry.chars += complete.length;
    entry.bytes += Buffer.byteLength(complete);
    entry.tail = (entry.tail + complete).slice(-TAIL_CHARS);
    for (let from = 0; from <= end; ) {
      const to = complete.indexOf("\n", from);
      const line = complete.slice(from, to).replace(/\r$/, "");
      const fact = capturedStatement(line);
      from = to + 1;
      if (fact) this.file(entry, line, fact, known?.get(fact.statement));
      yield;
    }
  }

  private file(entry: FileEntry, line: string, fact: { statement: string; superseded: boolean }, shape: Shape = analyse(fact.statement)): void {
    const indexed: IndexedFact = { line, statement: fact.statement, superseded: fact.superseded, file: entry.file, day: entry.day, seq: entry.nextSeq++, shape };
    entry.facts.push(indexed);
    for (const key of keysOf(shape)) this.byKey.add(key, indexed);
    for (const attribute of attributesOf(shape)) this.byAttribute.add(attribute, indexed);
  }

  private unfile(fact: IndexedFact): void {
    for (const key of keysOf(fact.shape)) this.byKey.remove(key, fact);
    for (const attribute of attributesOf(fact.shape)) this.byAttribute.remove(attribute, fact);
  }

  /**
   * How a statement of this shape relates to the current captured facts, newest first: the newest
   * day with a related fact, a repeat there before a change, the lowest line first. `onlyFile`
   * limits the search to one file.
   */
  relate(shape: Shape, correction: boolean, onlyFile?: string): Related | undefined {
    if (shape.keys.length === 0) return undefined;
    let best: Related | undefined;
    const consider = (fact: IndexedFact) => {
      if (fact.superseded || (onlyFile !== undefined && fact.file !== onlyFile)) return;
      let related: Related | undefined;
      if (isRepeat(fact.shape, shape)) related = { fact, how: "repeat" };
      else {
        const change = changeOf(fact.shape, shape, correction);
        if (change) related = { fact, how: "change", change };
      }
      if (related && (!best || newer(related, best))) best = related;
    };
    for (const key of keysOf(shape)) for (const fact of this.byKey.get(key)) consider(fact);
    if (correction && shape.keys.length <= ELLIPTIC_KEYS) {
      // "it's slip 22 now" names what was said recently: today's and yesterday's facts.
      for (const attribute of attributesOf(shape)) for (const fact of this.byAttribute.get(attribute)) if (fact.day >= this.yesterday) consider(fact);
    }
    return best;
  }
}

/** The one to act on of two relations: the newer day, then a repeat over a change, then the lower line. */
function newer(a: Related, b: Related): boolean {
  if (a.fact.day !== b.fact.day) return a.fact.day > b.fact.day;
  if (a.how !== b.how) return a.how === "repeat";
  return a.fact.seq > b.fact.seq;
}

const indexes = new Map<string, WorkspaceFacts>();

/** The index of a workspace's captured facts (one per workspace in this process, bounded). */
export function factIndexFor(workspaceDir: string): WorkspaceFacts {
  const key = path.resolve(workspaceDir);
  let index = indexes.get(key);
  if (index) indexes.delete(key);
  else index = new WorkspaceFacts(key);
  indexes.set(key, index); // most recently used last
  while (indexes.size > MAX_INDEXED_WORKSPACES) indexes.delete(indexes.keys().next().value as string);
  return index;
}

/** Forget every index (tests, and a process that wants its memory back). */
export function clearFactIndexes(): void {
  indexes.clear();
}
