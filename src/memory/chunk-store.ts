import { BM25_B, BM25_K1, inverseDocumentFrequency } from "./calibrate.ts";
import { chunkId } from "./chunk.ts";
import { termOf } from "./tokenize.ts";
import { boundedMemo } from "../core/memo.ts";
import { BestSlots } from "./best-slots.ts";

// The compact in-memory representation of the embedded index (docs/retrieval.md, "The index"):
//   - chunks live in numbered slots; per-slot facts (text offsets, heading, date, confidence,
//     length) sit in typed arrays, one entry per slot, not in one object per chunk;
//   - the text of a file's chunks is one string per file; a chunk is an offset and a length in it;
//   - terms are numbered; each slot's distinct terms and their counts form a forward list, and the
//     postings (term → slots) are one packed array rebuilt from the forward lists (CSR), plus a
//     small map for slots added since;
//   - chunk ids (a hash of file and text) are not stored: they are derived for returned chunks;
//   - a file's chunks occupy consecutive slots, so a chunk's neighbours are the adjacent slots;
//   - removing a file only marks its slots dead; once dead slots outnumber a quarter of the live
//     ones, everything is renumbered in one pass (compaction).

/**
 * One chunk, as the store takes it in. `words` and `headingWords` are the analyser's words
 * (`wordsOf` in src/memory/tokenize.ts) of the searchable body and of the headings; the store
 * turns them into terms through its word → term-id table (`termOf` on a word it has not seen).
 */
export type StoredChunkInput = {
  text: string;
  headingPath: string[];
  date?: string;
  confidence?: number;
  words: readonly string[];
  headingWords: readonly string[];
};

/**
 * A chunk of a file set again that the file's current version already holds as it is (the same
 * text, headings, date and confidence: `analysedSlots`): its analysis is copied from `slot`.
 */
type ReusedChunkInput = { text: string; slot: number };

/** What setFileSteps takes: chunks analysed now, and chunks whose analysis is reused. */
export type FileChunkInput = StoredChunkInput | ReusedChunkInput;

/** The parts of a chunk that decide whether a stored slot holds it as it is. */
export type ChunkPlace = { text: string; headingPath: readonly string[]; date?: string; confidence?: number };

/** A file's place in the store. `meta` belongs to the caller (size, mtime, hash…). */
export type StoredFile<M> = { rel: string; meta: M; text: string; firstSlot: number; count: number };

/** `chunks` without a text seen before in them: the same text twice in a file is kept once. */
export function distinctTexts<T extends { text: string }>(chunks: readonly T[]): T[] {
  const seen = new Set<string>();
  return chunks.filter((chunk) => !seen.has(chunk.text) && seen.add(chunk.text));
}

export type StoredChunk = {
  file: string;
  text: string;
  headingPath: string[];
  date?: string;
  confidence?: number;
  /** Position of the chunk in its file (0-based) and the file's chunk count. */
  position: number;
  chunksInFile: number;
};

/** A candidate from the postings: its slot, BM25 over the query terms, and what calibration needs. */
export type StoreCandidate = { slot: number; bm25: number; termFrequency: Record<string, number>; length: number };

/** What one search did: the work is bounded by `maxPostings` and `maxQueryTerms`. */
export type SearchCost = { queryTerms: number; termsTraversed: number; termsSkipped: number; postingsVisited: number; candidates: number };

export type SearchLimits = {
  /** At most this many query terms walk their postings, rarest first. */
  maxQueryTerms: number;
  /** At most this many postings are visited per search; commoner terms beyond it are skipped. */
  maxPostings: number;
  /** Candidates kept (by BM25) for calibrated scoring. */
  candidates: number;
};

const MAX_TF = 0xffff;
const DROPPED_WORD = -1;
const MAX_WORD_IDS = 500_000;
/** Slots processed between hand-backs when a store is loaded (a few ms of work). */
const STEP_SLOTS = 8192;
/** Terms numbered per step of a load (a Map insert each). */
const STEP_TERMS = 16_384;
/** Chunks added per step of setFileSteps (their words looked up, their postings listed: a few ms). */
const STEP_CHUNKS = 256;
// A slot's state (`alive`).
const DEAD = 0;
const LIVE = 1;
const PENDING = 2;
const NO_DATE = 0;
/**
 * Slots scored at a time in a search: the slice's scores, lengths and flags stay in the CPU cache
 * while every query term adds to them (at 100k chunks, the whole score array does not).
 */
const SCORE_SLICE = 4096;

/** One query term's postings a search walks: packed ones [next, end), then recent (slot, tf) pairs [recentNext, recentEnd). */
type TermWalk = { idf: number; next: number; end: number; recent: readonly number[]; recentNext: number; recentEnd: number };

type GrowableArray = Int32Array | Uint32Array | Uint16Array | Float32Array | Uint8Array;

/** The same typed array with room for `need` entries: grows by doubling, so appends are amortised O(1). */
function grow<T extends GrowableArray>(array: T, need: number): T {
  if (need <= array.length) return array;
  const next = new (array.constructor as new (length: number) => T)(Math.max(need, array.length * 2, 64));
  next.set(array as never);
  return next;
}

/** One term's BM25 part for a chunk of `length` terms. */
function bm25Part(tf: number, idf: number, length: number, averageLength: number): number {
  const norm = BM25_K1 * (1 - BM25_B + (BM25_B * length) / averageLength);
  return (idf * (tf * (BM25_K1 + 1))) / (tf + norm);
}

function dateToNumber(date: string | undefined): number {
  if (!date) return NO_DATE;
  const n = Number(date.replaceAll("-", ""));
  return Number.isInteger(n) && n > 0 ? n : NO_DATE;
}

// Dates repeat across chunks: each number's string is built once (bounded).
const dateString = boundedMemo(4096, (n: number) => {
  const s = String(n).padStart(8, "0");
  return `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}`;
});

function numberToDate(n: number): string | undefined {
  return n === NO_DATE ? undefined : dateString(n);
}

const HEADING_KEY_SEPARATOR = "\u0000";

/**
 * The heading path to keep, its titles cut from `key` (the path joined, which the store keeps
 * anyway as its map key). A title the chunker cut from a file's text is, in V8, a view of that
 * whole text: kept as it is, every heading would keep its file's original text alive (at 100k
 * chunks 26 MB, twice the vault, once any character outside Latin-1 makes it a two-byte string).
 * A title holding the separator itself is kept as it came.
 */
function titlesOf(key: string, headingPath: string[]): string[] {
  const titles = key.split(HEADING_KEY_SEPARATOR);
  return titles.length === headingPath.length ? titles : headingPath;
}

/** The flat, serialisable form of a store (the on-disk cache holds exactly this). */
export type StoreSnapshot<M> = {
  files: { rel: string; meta: M; text: string; count: number }[];
  terms: string[];
  headings: string[][];
  textStart: Int32Array;
  textLength: Int32Array;
  heading: Int32Array;
  date: Int32Array;
  confidence: Float32Array;
  length: Int32Array;
  forwardLength: Int32Array;
  forwardTerm: Uint32Array;
  forwardTf: Uint16Array;
};

/** A live numbering under way (livePiecesSteps): old ids' new numbers, what was kept, the forward runs. */
type LiveNumbering = { termNumbers: Int32Array; headingNumbers: Int32Array; terms: string[]; headings: string[][]; forwardRuns: [number, number][]; forwardEntries: number };

/** Runs a generator's steps at once and returns its value. */
function finish<T>(steps: Generator<void, T>): T {
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/** Runs a generator's steps with `pause` after each and returns its value. */
async function finishPausing<T>(steps: Generator<void, T>, pause: () => Promise<void>): Promise<T> {
  let step = steps.next();
  for (; !step.done; step = steps.next()) await pause();
  return step.value;
}

/** The typed arrays of a snapshot, each of its own type. */
const SNAPSHOT_ARRAYS = {
  textStart: Int32Array,
  textLength: Int32Array,
  heading: Int32Array,
  date: Int32Array,
  confidence: Float32Array,
  length: Int32Array,
  forwardLength: Int32Array,
  forwardTerm: Uint32Array,
  forwardTf: Uint16Array,
} as const;
export type SnapshotArrayName = keyof typeof SNAPSHOT_ARRAYS;
type SnapshotArray = StoreSnapshot<unknown>[SnapshotArrayName];

/**
 * One array of a snapshot as pieces which, one after the other, are the whole array: views of the
 * store's own arrays, or runs of them renumbered into a scratch array that the next piece reuses
 * (so a piece is valid only until the next one is asked for).
 */
type ArrayPieces = { byteLength: number; pieces: () => Iterable<SnapshotArray> };

/** A snapshot whose arrays come in pieces: what a cache write reads, without a copy of the store. */
export type PiecewiseSnapshot<M> = Pick<StoreSnapshot<M>, "files" | "terms" | "headings"> & { arrays: Record<SnapshotArrayName, ArrayPieces> };

/** Entries renumbered at a time into a piece's scratch array. */
const SCRATCH_ENTRIES = 16_384;

/** A snapshot's arrays, each as one piece. */
function piecewise<M>(snapshot: StoreSnapshot<M>): PiecewiseSnapshot<M> {
  const arrays = {} as PiecewiseSnapshot<M>["arrays"];
  for (const name of Object.keys(SNAPSHOT_ARRAYS) as SnapshotArrayName[]) {
    const array = snapshot[name];
    arrays[name] = { byteLength: array.byteLength, pieces: () => [array] };
  }
  return { files: snapshot.files, terms: snapshot.terms, headings: snapshot.headings, arrays };
}

/** The snapshot with each array copied together from its pieces (a step per piece). */
function* materialiseSteps<M>(snapshot: PiecewiseSnapshot<M>): Generator<void, StoreSnapshot<M>> {
  const arrays = {} as Record<SnapshotArrayName, SnapshotArray>;
  for (const name of Object.keys(SNAPSHOT_ARRAYS) as SnapshotArrayName[]) {
    const type = SNAPSHOT_ARRAYS[name];
    const array = new type(snapshot.arrays[name].byteLength / type.BYTES_PER_ELEMENT);
    let at = 0;
    for (const piece of snapshot.arrays[name].pieces()) {
      array.set(piece, at);
      at += piece.length;
      yield;
    }
    arrays[name] = array;
  }
  return { files: snapshot.files, terms: snapshot.terms, headings: snapshot.headings, ...(arrays as Pick<StoreSnapshot<M>, SnapshotArrayName>) };
}

/** Ranges [from, to) of an array, in order, as views. */
function* runsOf<T extends SnapshotArray>(array: T, runs: readonly (readonly [number, number])[]): Generator<T> {
  for (const [from, to] of runs) yield array.subarray(from, to) as T;
}

/** Ranges [from, to) of an array of ids, in order, each id replaced by `numbers[id]`, a scratch array at a time. */
function* renumbered<T extends Int32Array | Uint32Array>(array: T, runs: readonly (readonly [number, number])[], numbers: Int32Array): Generator<T> {
  const scratch = new (array.constructor as new (length: number) => T)(SCRATCH_ENTRIES);
  for (const [from, to] of runs) {
    for (let at = from; at < to; at += SCRATCH_ENTRIES) {
      const n = Math.min(SCRATCH_ENTRIES, to - at);
      for (let i = 0; i < n; i++) scratch[i] = numbers[array[at + i]];
      yield scratch.subarray(0, n) as T;
    }
  }
}

/** Appends [from, to) to `runs`, joined to the last run where it goes on from it. */
function addRun(runs: [number, number][], from: number, to: number): void {
  if (to <= from) return;
  const last = runs.at(-1);
  if (last && last[1] === from) last[1] = to;
  else runs.push([from, to]);
}

export class ChunkStore<M> {
  // Files, by path, and the file of each slot.
  private files = new Map<string, StoredFile<M>>();
  private slotFile: (StoredFile<M> | undefined)[] = [];
  // Per-slot facts.
  private slots = 0;
  private textStart: Int32Array = new Int32Array(0);
  private textLength: Int32Array = new Int32Array(0);
  private heading: Int32Array = new Int32Array(0);
  private date: Int32Array = new Int32Array(0);
  private confidence: Float32Array = new Float32Array(0);
  private length: Int32Array = new Int32Array(0);
  // DEAD, LIVE or PENDING (setFileSteps: added, not yet searched).
  private alive: Uint8Array = new Uint8Array(0);
  private forwardStart: Int32Array = new Int32Array(0);
  private forwardLength: Int32Array = new Int32Array(0);
  // Forward lists: distinct term ids of each slot and their counts.
  private forwardUsed = 0;
  private forwardTerm: Uint32Array = new Uint32Array(0);
  private forwardTf: Uint16Array = new Uint16Array(0);
  // Terms and heading paths, numbered.
  private termIds = new Map<string, number>();
  // Word → term id (DROPPED_WORD for stopwords), a cache in front of the analyser (bounded).
  private wordIds = new Map<string, number>();
  private terms: string[] = [];
  private documentFrequency: Int32Array = new Int32Array(0);
  private headingIds = new Map<string, number>();
  private headings: string[][] = [];
  // Postings: CSR over slots [0, indexedSlots), a map for slots added later.
  private postingStart: Int32Array = new Int32Array(1);
  private postingSlot: Uint32Array = new Uint32Array(0);
  private postingTf: Uint16Array = new Uint16Array(0);
  private indexedSlots = 0;
  private indexedTerms = 0;
  private recent = new Map<number, number[]>(); // term id → [slot, tf, slot, tf, …]
  private recentPostings = 0;
  // Corpus statistics over live slots.
  private liveSlots = 0;
  private deadSlots = 0;
  private pendingSlots = 0;
  private totalLength = 0;
  // Query scratch space, reused (sized to the slot count).
  private scratchScore: Float64Array = new Float64Array(0);
  private scratchSeen: Uint8Array = new Uint8Array(0);
  private scratchTouched: Int32Array = new Int32Array(0);
  private scratchCount: Int32Array = new Int32Array(0);

  get chunkCount(): number {
    return this.liveSlots;
  }

  get averageLength(): number {
    return this.liveSlots > 0 ? this.totalLength / this.liveSlots : 0;
  }

  /** Number of live chunks that contain `term`. */
  documentFrequencyOf(term: string): number {
    const id = this.termIds.get(term);
    return id === undefined ? 0 : this.documentFrequency[id];
  }

  file(rel: string): StoredFile<M> | undefined {
    return this.files.get(rel);
  }

  fileNames(): IterableIterator<string> {
    return this.files.keys();
  }

  get fileCount(): number {
    return this.files.size;
  }

  /** Replace (or add) one file and its chunks. The same text twice in the file is kept once. */
  setFile(rel: string, meta: M, chunks: readonly StoredChunkInput[]): void {
    finish(this.setFileSteps(rel, meta, chunks));
  }

  /**
   * setFile a slice of chunks per step, for a caller that hands the event loop back in between (a
   * day file of thousands of captured facts took tens of ms in one piece). Until the last step the
   * new chunks are pending: searches skip them and the corpus statistics leave them out, while the
   * file's old chunks still answer; then, at once, the new take the old ones' place. Abandoned
   * before that, the pending chunks are dead slots (compacted like any).
   */
  *setFileSteps(rel: string, meta: M, chunks: readonly FileChunkInput[]): Generator<void> {
    yield* this.replaceSteps({ rel, meta, text: "", firstSlot: this.slots, count: 0 }, undefined, distinctTexts(chunks));
  }

  /**
   * For each chunk, the slot of `rel`'s current version that holds it as it is (the same text under
   * the same headings, with the same date and confidence), or -1. A day file edited in place (a
   * mention count raised, a fact marked superseded) then has only its changed chunks analysed
   * again: the others go to setFileSteps as `ReusedChunkInput`, within the same refresh.
   */
  analysedSlots(rel: string, chunks: readonly ChunkPlace[]): number[] {
    const found = chunks.map(() => -1);
    const file = this.files.get(rel);
    if (!file) return found;
    const byText = new Map<string, number>();
    for (let slot = file.firstSlot; slot < file.firstSlot + file.count; slot++) {
      const start = this.textStart[slot];
      byText.set(file.text.slice(start, start + this.textLength[slot]), slot);
    }
    const holds = this.slotHolds();
    for (const [i, chunk] of chunks.entries()) {
      const slot = byText.get(chunk.text);
      if (slot !== undefined && holds(slot, chunk)) found[i] = slot;
    }
    return found;
  }

  /**
   * Does `rel` hold `chunks` as its first chunks, in order, as they are (text, headings, date and
   * confidence)? Compared in place, without a copy of each stored chunk: a growing day file is
   * checked this way on every refresh.
   */
  startsWith(rel: string, chunks: readonly ChunkPlace[]): boolean {
    const file = this.files.get(rel);
    if (!file || chunks.length > file.count) return false;
    const holds = this.slotHolds();
    return chunks.every((chunk, i) => {
      const slot = file.firstSlot + i;
      return this.textLength[slot] === chunk.text.length && file.text.startsWith(chunk.text, this.textStart[slot]) && holds(slot, chunk);
    });
  }

  /** A test of a slot's headings, date and confidence against a chunk's (neighbours mostly share their heading path: looked up once). */
  private slotHolds(): (slot: number, chunk: ChunkPlace) => boolean {
    let lastPath: readonly string[] | undefined;
    let lastHeading: number | undefined;
    return (slot, chunk) => {
      if (chunk.headingPath !== lastPath) {
        lastPath = chunk.headingPath;
        lastHeading = this.headingIds.get(chunk.headingPath.join(HEADING_KEY_SEPARATOR));
      }
      const confidence = chunk.confidence === undefined ? Number.NaN : Math.fround(chunk.confidence);
      const sameConfidence = Number.isNaN(confidence) ? Number.isNaN(this.confidence[slot]) : this.confidence[slot] === confidence;
      return this.heading[slot] === lastHeading && this.date[slot] === dateToNumber(chunk.date) && sameConfidence;
    };
  }

  /** True when `rel`'s slots are the store's last ones, so the file can grow in place. */
  isLastFile(rel: string): boolean {
    const file = this.files.get(rel);
    return file !== undefined && file.firstSlot + file.count === this.slots;
  }

  /**
   * Add chunks at the end of `rel`, the store's last file (isLastFile), and update its metadata.
   * The caller has left out texts the file already holds, as setFile would.
   */
  appendToFile(rel: string, meta: M, chunks: readonly StoredChunkInput[]): void {
    const file = this.files.get(rel);
    if (!file || !this.isLastFile(rel)) throw new Error(`${rel} is not the index's last file`);
    file.meta = meta;
    this.appendChunks(file, chunks, LIVE);
  }

  /**
   * appendToFile for a file that is no longer the store's last (a file changed after it; in a burst
   * of captures, an older day file where a fact was superseded): its chunks are copied to the end as
   * they were analysed (no new analysis), the added chunks after them, pending as in setFileSteps,
   * and then they replace the old ones at once. Rewriting the file instead analysed every chunk of
   * a day file again, dozens of times a burst.
   */
  *growFileSteps(rel: string, meta: M, added: readonly StoredChunkInput[]): Generator<void> {
    const old = this.files.get(rel);
    if (!old) throw new Error(`${rel} is not in the index`);
    yield* this.replaceSteps({ rel, meta, text: old.text, firstSlot: this.slots, count: 0 }, old, added);
  }

  /**
   * `file`, new at the store's end, built pending a step at a time (the slots of `copied` as they
   * were analysed, then `added`), then put in place of the file of its name at once.
   */
  private *replaceSteps(file: StoredFile<M>, copied: StoredFile<M> | undefined, added: readonly FileChunkInput[]): Generator<void> {
    let live = false;
    try {
      const copiedEnd = copied ? copied.firstSlot + copied.count : 0;
      for (let from = copied?.firstSlot ?? 0; from < copiedEnd; from += STEP_CHUNKS) {
        this.copySlots(file, from, Math.min(copiedEnd, from + STEP_CHUNKS));
        this.pendingSlots = file.count;
        yield;
      }
      for (let from = 0; from < added.length; from += STEP_CHUNKS) {
        this.appendChunks(file, added.slice(from, from + STEP_CHUNKS), PENDING);
        this.pendingSlots = file.count;
        yield;
      }
      this.deleteFile(file.rel);
      this.files.set(file.rel, file);
      for (let slot = file.firstSlot; slot < file.firstSlot + file.count; slot++) this.bringToLife(slot);
      live = true;
    } finally {
      this.pendingSlots = 0;
      if (!live) this.abandon(file);
    }
  }

  /** Copies of the slots [from, to) at the end of `file`, pending, their text where it was. */
  private copySlots(file: StoredFile<M>, from: number, to: number): void {
    for (let slot = from; slot < to; slot++) {
      this.copySlot(file, slot, this.textStart[slot], PENDING);
      file.count++;
    }
  }

  /** A copy of `slot`'s analysis at the end of `file`, its text at `textStart` in the file's text. */
  private copySlot(file: StoredFile<M>, slot: number, textStart: number, state: typeof LIVE | typeof PENDING): void {
    const start = this.forwardStart[slot];
    const distinct = Array.from(this.forwardTerm.subarray(start, start + this.forwardLength[slot]));
    for (let i = 0; i < distinct.length; i++) this.scratchCount[distinct[i]] = this.forwardTf[start + i];
    this.appendSlot(file, textStart, this.textLength[slot], this.heading[slot], this.date[slot], this.confidence[slot], this.length[slot], distinct, state);
  }

  /** Slots of a file that never came to life: dead, to be compacted. */
  private abandon(file: StoredFile<M>): void {
    for (let slot = file.firstSlot; slot < file.firstSlot + file.count; slot++) this.alive[slot] = DEAD;
    this.deadSlots += file.count;
  }

  private appendChunks(file: StoredFile<M>, chunks: readonly FileChunkInput[], state: typeof LIVE | typeof PENDING): void {
    let offset = file.text.length;
    file.text += chunks.map((chunk) => chunk.text).join("");
    file.count += chunks.length;
    // Neighbouring chunks mostly share their heading path (the same array) and date: looked up once.
    let lastPath: readonly string[] | undefined;
    let lastHeading = 0;
    let lastDate: string | undefined;
    let lastDateNumber = NO_DATE;
    for (const chunk of chunks) {
      if ("slot" in chunk) {
        // Analysed before, in the file's version being replaced (still there until the replacement lands).
        if (this.alive[chunk.slot] !== LIVE || this.slotFile[chunk.slot]?.rel !== file.rel) throw new Error(`slot ${chunk.slot} no longer holds a chunk of ${file.rel}`);
        this.copySlot(file, chunk.slot, offset, state);
        offset += chunk.text.length;
        continue;
      }
      // Term counts in a reused array (no Map per chunk: a cold build adds 100k chunks).
      const distinct: number[] = [];
      const length = this.countTerms(chunk.words, distinct) + this.countTerms(chunk.headingWords, distinct);
      if (chunk.headingPath !== lastPath) {
        lastPath = chunk.headingPath;
        lastHeading = this.headingId(chunk.headingPath);
      }
      if (chunk.date !== lastDate) {
        lastDate = chunk.date;
        lastDateNumber = dateToNumber(chunk.date);
      }
      this.appendSlot(file, offset, chunk.text.length, lastHeading, lastDateNumber, chunk.confidence, length, distinct, state);
      offset += chunk.text.length;
    }
  }

  /** Update a file's caller metadata without touching its chunks (content unchanged). */
  setMeta(rel: string, meta: M): void {
    const file = this.files.get(rel);
    if (file) file.meta = meta;
  }

  deleteFile(rel: string): void {
    const file = this.files.get(rel);
    if (!file) return;
    this.files.delete(rel);
    for (let slot = file.firstSlot; slot < file.firstSlot + file.count; slot++) this.killSlot(slot);
  }

  /** Dead slots (of deleted or rewritten files) worth a compaction: over 1,024 and a fifth of all. */
  private compactionDue(): boolean {
    return this.deadSlots > 1024 && this.deadSlots * 4 > this.liveSlots;
  }

  chunk(slot: number): StoredChunk {
    const file = this.slotFile[slot]!;
    const start = this.textStart[slot];
    const stored: StoredChunk = {
      file: file.rel,
      text: file.text.slice(start, start + this.textLength[slot]),
      headingPath: this.headings[this.heading[slot]],
      position: slot - file.firstSlot,
      chunksInFile: file.count,
    };
    const date = numberToDate(this.date[slot]);
    if (date) stored.date = date;
    const confidence = this.confidence[slot];
    if (!Number.isNaN(confidence)) stored.confidence = confidence;
    return stored;
  }

  /** The chunk at `position` (0-based) in `rel`. */
  chunkAt(rel: string, position: number): StoredChunk {
    const file = this.files.get(rel);
    if (!file || position < 0 || position >= file.count) throw new RangeError(`${rel} has no chunk ${position}`);
    return this.chunk(file.firstSlot + position);
  }

  /** The stable id of the chunk in `slot` (the same text in the same file, the same id). */
  chunkId(slot: number): string {
    const file = this.slotFile[slot]!;
    const start = this.textStart[slot];
    return chunkId(file.rel, file.text.slice(start, start + this.textLength[slot]));
  }

  /** Every analysed term of the chunk in `slot` with its count (pseudo-relevance feedback, best hits only). */
  termFrequencies(slot: number): Record<string, number> {
    const termFrequency: Record<string, number> = {};
    const start = this.forwardStart[slot];
    for (let i = start; i < start + this.forwardLength[slot]; i++) termFrequency[this.terms[this.forwardTerm[i]]!] = this.forwardTf[i];
    return termFrequency;
  }

  /** Does the chunk in `slot` hold the analysed `term`? (A scan of its forward list: no table built.) */
  hasTerm(slot: number, term: string): boolean {
    const id = this.termIds.get(term);
    if (id === undefined) return false;
    const { forwardTerm } = this;
    const end = this.forwardStart[slot] + this.forwardLength[slot];
    for (let i = this.forwardStart[slot]; i < end; i++) if (forwardTerm[i] === id) return true;
    return false;
  }

  /** The counts of `terms` (analysed query terms) in the chunk in `slot`; absent terms are left out. */
  countsOf(slot: number, terms: readonly string[]): Record<string, number> {
    const wanted = new Map<number, string>();
    for (const term of terms) {
      const id = this.termIds.get(term);
      if (id !== undefined) wanted.set(id, term);
    }
    return this.matchedCounts(slot, wanted);
  }

  /** Length of the chunk in `slot`, in analysed terms (calibration). */
  lengthOf(slot: number): number {
    return this.length[slot];
  }

  /** Do two slots sit under the same heading path (the same section of a file)? */
  sameSection(a: number, b: number): boolean {
    return this.heading[a] === this.heading[b];
  }

  /** The chunk `offset` places away from `slot` in the same file (-1 = previous), if any. */
  neighbour(slot: number, offset: number): StoredChunk | undefined {
    const file = this.slotFile[slot];
    const target = slot + offset;
    if (!file || this.alive[slot] !== LIVE || target < file.firstSlot || target >= file.firstSlot + file.count) return undefined;
    return this.chunk(target);
  }

  /**
   * BM25 candidates for distinct analysed query terms, with bounded work: terms walk their postings
   * rarest first; a term whose postings would push the visit count past `maxPostings` is skipped
   * (it still counts in each candidate's term frequencies, read from its forward list). If even the
   * rarest term is over the budget, only its first `maxPostings` postings are visited.
   */
  search(queryTerms: readonly string[], limits: SearchLimits): { candidates: StoreCandidate[]; cost: SearchCost } {
    this.ensurePostings();
    const cost: SearchCost = { queryTerms: queryTerms.length, termsTraversed: 0, termsSkipped: 0, postingsVisited: 0, candidates: 0 };
    const known = queryTerms
      .map((term) => ({ term, id: this.termIds.get(term) }))
      .filter((t): t is { term: string; id: number } => t.id !== undefined && this.documentFrequency[t.id] > 0)
      .sort((a, b) => this.documentFrequency[a.id] - this.documentFrequency[b.id] || (a.term < b.term ? -1 : 1));
    if (known.length === 0 || this.liveSlots === 0) return { candidates: [], cost };
    if (this.scratchScore.length < this.slots) {
      this.scratchScore = new Float64Array(this.slots);
      this.scratchSeen = new Uint8Array(this.slots);
      this.scratchTouched = new Int32Array(this.slots);
    }
    const walks = this.termWalks(known, limits, cost);
    // Postings list their slots in ascending order (packed, then recent), so a slice of slots is a
    // stretch of each term's postings. Within a slice the terms add their parts rarest first, as a
    // walk of one term after another over all slots would: every score is the same sum.
    const best = new BestSlots(limits.candidates);
    const { scratchScore: score, scratchSeen: seen, scratchTouched: touched } = this;
    const averageLength = this.averageLength || 1;
    let floor = best.floor;
    for (let from = 0; from < this.slots; from += SCORE_SLICE) {
      const to = Math.min(this.slots, from + SCORE_SLICE);
      let touchedCount = 0;
      for (const walk of walks) touchedCount = this.addParts(walk, to, averageLength, touchedCount);
      for (let i = 0; i < touchedCount; i++) {
        const slot = touched[i];
        if (score[slot] >= floor) {
          best.offer(slot, score[slot]);
          floor = best.floor;
        }
        score[slot] = 0;
        seen[slot] = 0;
      }
    }
    const wanted = new Map(known.map(({ term, id }) => [id, term]));
    const candidates = best.ranked().map(({ slot, score: bm25 }): StoreCandidate => ({ slot, bm25, termFrequency: this.matchedCounts(slot, wanted), length: this.length[slot] }));
    cost.candidates = candidates.length;
    return { candidates, cost };
  }

  /** The postings each query term walks (rarest first), within `limits`; counts the work in `cost`. */
  private termWalks(known: readonly { id: number }[], limits: SearchLimits, cost: SearchCost): TermWalk[] {
    const walks: TermWalk[] = [];
    for (const [rank, { id }] of known.entries()) {
      const postings = this.postingCount(id);
      const overBudget = cost.postingsVisited + postings > limits.maxPostings;
      if (rank >= limits.maxQueryTerms || (overBudget && cost.termsTraversed > 0)) {
        cost.termsSkipped++;
        continue;
      }
      const budget = limits.maxPostings - cost.postingsVisited;
      const next = id < this.indexedTerms ? this.postingStart[id] : 0;
      const end = id < this.indexedTerms ? Math.min(this.postingStart[id + 1], next + budget) : 0;
      const recent = this.recent.get(id) ?? [];
      const recentEnd = 2 * Math.min(recent.length / 2, budget - (end - next));
      walks.push({ idf: inverseDocumentFrequency(this.documentFrequency[id], this.liveSlots), next, end, recent, recentNext: 0, recentEnd });
      cost.postingsVisited += end - next + recentEnd / 2;
      cost.termsTraversed++;
    }
    return walks;
  }

  /** Adds `walk`'s BM25 parts to the scores of its live slots below `to`, listing first-touched slots; returns their count. */
  private addParts(walk: TermWalk, to: number, averageLength: number, touchedCount: number): number {
    const { alive, length, postingSlot, postingTf, scratchScore: score, scratchSeen: seen, scratchTouched: touched } = this;
    const { idf, end, recent, recentEnd } = walk;
    let i = walk.next;
    for (; i < end && postingSlot[i] < to; i++) {
      const slot = postingSlot[i];
      if (alive[slot] !== LIVE) continue;
      if (!seen[slot]) {
        seen[slot] = 1;
        touched[touchedCount++] = slot;
      }
      score[slot] += bm25Part(postingTf[i], idf, length[slot], averageLength);
    }
    walk.next = i;
    let r = walk.recentNext;
    for (; r < recentEnd && recent[r] < to; r += 2) {
      const slot = recent[r];
      if (alive[slot] !== LIVE) continue;
      if (!seen[slot]) {
        seen[slot] = 1;
        touched[touchedCount++] = slot;
      }
      score[slot] += bm25Part(recent[r + 1], idf, length[slot], averageLength);
    }
    walk.recentNext = r;
    return touchedCount;
  }

  /**
   * The flat form of the live store (a compacted copy if slots are dead). The arrays are views of
   * the store's own: they stay valid (appends and compaction replace the arrays rather than
   * overwrite the viewed range), so the snapshot may be written in slices.
   */
  snapshot(): StoreSnapshot<M> {
    if (this.deadSlots > 0 || this.pendingSlots > 0) return finish(this.liveSnapshotSteps());
    const n = this.slots;
    return {
      files: [...this.files.values()].sort((a, b) => a.firstSlot - b.firstSlot).map((f) => ({ rel: f.rel, meta: f.meta, text: f.text, count: f.count })),
      terms: this.terms.slice(),
      headings: this.headings.slice(),
      textStart: this.textStart.subarray(0, n),
      textLength: this.textLength.subarray(0, n),
      heading: this.heading.subarray(0, n),
      date: this.date.subarray(0, n),
      confidence: this.confidence.subarray(0, n),
      length: this.length.subarray(0, n),
      forwardLength: this.forwardLength.subarray(0, n),
      forwardTerm: this.forwardTerm.subarray(0, this.forwardUsed),
      forwardTf: this.forwardTf.subarray(0, this.forwardUsed),
    };
  }

  /**
   * The live store as the on-disk cache holds it, arrays in pieces: the same as `snapshot()`, but
   * with dead (or pending) slots it is not copied (at 100k chunks that copy was ~14 MB at every
   * save after an edit, until the store compacts); its live runs are read from the store's arrays
   * as written.
   */
  piecewiseSnapshot(): PiecewiseSnapshot<M> {
    return this.deadSlots > 0 || this.pendingSlots > 0 ? finish(this.livePiecesSteps()) : piecewise(this.snapshot());
  }

  /** A store from a snapshot, handing the event loop back between steps (warm start, compaction). */
  static async load<M>(snapshot: StoreSnapshot<M>, pause: () => Promise<void>): Promise<ChunkStore<M>> {
    const store = new ChunkStore<M>();
    await finishPausing(store.loadSteps(snapshot), pause);
    return store;
  }

  /** Fills an empty store from a snapshot (whose arrays it adopts), yielding between slices of slots. */
  private *loadSteps(snapshot: StoreSnapshot<M>): Generator<void> {
    const n = snapshot.textStart.length;
    const expected = snapshot.files.reduce((sum, f) => sum + f.count, 0);
    const forwardTotal = snapshot.forwardLength.reduce((sum, l) => sum + l, 0);
    if (expected !== n || forwardTotal !== snapshot.forwardTerm.length || forwardTotal !== snapshot.forwardTf.length) {
      throw new Error("index snapshot is inconsistent");
    }
    for (const array of [snapshot.textStart, snapshot.textLength, snapshot.heading, snapshot.date, snapshot.confidence, snapshot.length, snapshot.forwardLength]) {
      if (array.length !== n) throw new Error("index snapshot is inconsistent");
    }
    this.terms = snapshot.terms.slice();
    for (let from = 0; from < this.terms.length; from += STEP_TERMS) {
      this.numberTerms(from, Math.min(this.terms.length, from + STEP_TERMS));
      yield;
    }
    this.documentFrequency = new Int32Array(this.terms.length);
    this.scratchCount = new Int32Array(this.terms.length);
    this.headings = snapshot.headings.slice();
    this.headings.forEach((h, id) => this.headingIds.set(h.join(HEADING_KEY_SEPARATOR), id));
    this.textStart = snapshot.textStart;
    this.textLength = snapshot.textLength;
    this.heading = snapshot.heading;
    this.date = snapshot.date;
    this.confidence = snapshot.confidence;
    this.length = snapshot.length;
    this.forwardLength = snapshot.forwardLength;
    this.forwardTerm = snapshot.forwardTerm;
    this.forwardTf = snapshot.forwardTf;
    this.forwardUsed = forwardTotal;
    this.forwardStart = new Int32Array(n);
    this.alive = new Uint8Array(n).fill(LIVE);
    this.slotFile = Array.from({ length: n });
    let slot = 0;
    for (const f of snapshot.files) {
      const file: StoredFile<M> = { rel: f.rel, meta: f.meta, text: f.text, firstSlot: slot, count: f.count };
      this.files.set(f.rel, file);
      for (let i = 0; i < f.count; i++) this.slotFile[slot + i] = file;
      slot += f.count;
    }
    // The loops live in plain methods (V8 optimises them better than a generator body).
    let offset = 0;
    for (let from = 0; from < n; from += STEP_SLOTS) {
      offset = this.indexLoadedSlots(from, Math.min(n, from + STEP_SLOTS), offset);
      yield;
    }
    this.slots = n;
    this.liveSlots = n;
    yield* this.rebuildPostingsSteps();
  }

  /** Term ids of the loaded terms [from, to). */
  private numberTerms(from: number, to: number): void {
    for (let id = from; id < to; id++) this.termIds.set(this.terms[id], id);
  }

  /** Forward-list starts, document frequencies and total length for loaded slots [from, to). */
  private indexLoadedSlots(from: number, to: number, offset: number): number {
    const { forwardStart, forwardLength, forwardTerm, documentFrequency, heading, textStart, textLength, slotFile } = this;
    const termCount = this.terms.length;
    const headingCount = this.headings.length;
    let total = 0;
    for (let s = from; s < to; s++) {
      forwardStart[s] = offset;
      if (heading[s] < 0 || heading[s] >= headingCount || textStart[s] < 0 || textStart[s] + textLength[s] > slotFile[s]!.text.length) {
        throw new Error("index snapshot is inconsistent");
      }
      const end = offset + forwardLength[s];
      for (let i = offset; i < end; i++) {
        const term = forwardTerm[i];
        if (term >= termCount) throw new Error("index snapshot is inconsistent");
        documentFrequency[term]++;
      }
      offset = end;
      total += this.length[s];
    }
    this.totalLength += total;
    return offset;
  }

  /** Counts of the wanted term ids (id → term) in the chunk in `slot`. */
  private matchedCounts(slot: number, wanted: ReadonlyMap<number, string>): Record<string, number> {
    const termFrequency: Record<string, number> = {};
    const end = this.forwardStart[slot] + this.forwardLength[slot];
    for (let i = this.forwardStart[slot]; i < end; i++) {
      const term = wanted.get(this.forwardTerm[i]);
      if (term !== undefined) termFrequency[term] = this.forwardTf[i];
    }
    return termFrequency;
  }

  /** Counts the terms of `words` into `scratchCount`, listing new term ids in `distinct`; returns how many terms. */
  private countTerms(words: readonly string[], distinct: number[]): number {
    let length = 0;
    for (const word of words) {
      let id = this.wordIds.get(word);
      if (id === undefined) {
        const term = termOf(word);
        id = term === null ? DROPPED_WORD : this.termId(term);
        if (this.wordIds.size >= MAX_WORD_IDS) this.wordIds.clear();
        this.wordIds.set(word, id);
      }
      if (id === DROPPED_WORD) continue;
      length++;
      if (this.scratchCount[id]++ === 0) distinct.push(id);
    }
    return length;
  }

  private termId(term: string): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.terms.push(term);
      this.termIds.set(term, id);
      this.documentFrequency = grow(this.documentFrequency, id + 1);
      this.scratchCount = grow(this.scratchCount, id + 1);
    }
    return id;
  }

  private headingId(headingPath: string[]): number {
    const key = headingPath.join(HEADING_KEY_SEPARATOR);
    let id = this.headingIds.get(key);
    if (id === undefined) {
      id = this.headings.length;
      this.headings.push(titlesOf(key, headingPath));
      this.headingIds.set(key, id);
    }
    return id;
  }

  /**
   * Appends one chunk; its term counts are in `scratchCount` at the `distinct` term ids (reset here).
   * A pending chunk is counted in the corpus statistics only when it comes to life.
   */
  private appendSlot(file: StoredFile<M>, start: number, textLength: number, heading: number, date: number, confidence: number | undefined, length: number, distinct: readonly number[], state: typeof LIVE | typeof PENDING): void {
    const slot = this.slots++;
    const need = slot + 1;
    // The per-slot arrays always grow together (by doubling): one check for all of them.
    if (need > this.textStart.length) {
      this.textStart = grow(this.textStart, need);
      this.textLength = grow(this.textLength, need);
      this.heading = grow(this.heading, need);
      this.date = grow(this.date, need);
      this.confidence = grow(this.confidence, need);
      this.length = grow(this.length, need);
      this.alive = grow(this.alive, need);
      this.forwardStart = grow(this.forwardStart, need);
      this.forwardLength = grow(this.forwardLength, need);
    }
    if (this.forwardUsed + distinct.length > this.forwardTerm.length) {
      this.forwardTerm = grow(this.forwardTerm, this.forwardUsed + distinct.length);
      this.forwardTf = grow(this.forwardTf, this.forwardUsed + distinct.length);
    }
    this.slotFile[slot] = file;
    this.textStart[slot] = start;
    this.textLength[slot] = textLength;
    this.heading[slot] = heading;
    this.date[slot] = date;
    this.confidence[slot] = confidence ?? Number.NaN;
    this.length[slot] = length;
    this.alive[slot] = state;
    this.forwardStart[slot] = this.forwardUsed;
    this.forwardLength[slot] = distinct.length;
    const tracked = this.indexedSlots > 0 || this.postingSlot.length > 0;
    for (const term of distinct) {
      const capped = Math.min(this.scratchCount[term], MAX_TF);
      this.scratchCount[term] = 0;
      this.forwardTerm[this.forwardUsed] = term;
      this.forwardTf[this.forwardUsed] = capped;
      this.forwardUsed++;
      if (state === LIVE) this.documentFrequency[term]++;
      if (tracked) {
        let list = this.recent.get(term);
        if (!list) this.recent.set(term, (list = []));
        list.push(slot, capped);
        this.recentPostings++;
      }
    }
    if (state === LIVE) {
      this.liveSlots++;
      this.totalLength += length;
    }
  }

  /** A pending slot becomes live: counted in the corpus statistics, found by searches. */
  private bringToLife(slot: number): void {
    this.alive[slot] = LIVE;
    const start = this.forwardStart[slot];
    for (let i = start; i < start + this.forwardLength[slot]; i++) this.documentFrequency[this.forwardTerm[i]]++;
    this.liveSlots++;
    this.totalLength += this.length[slot];
  }

  private killSlot(slot: number): void {
    if (this.alive[slot] !== LIVE) return;
    this.alive[slot] = DEAD;
    this.slotFile[slot] = undefined;
    const start = this.forwardStart[slot];
    for (let i = start; i < start + this.forwardLength[slot]; i++) this.documentFrequency[this.forwardTerm[i]]--;
    this.liveSlots--;
    this.deadSlots++;
    this.totalLength -= this.length[slot];
  }

  private postingCount(term: number): number {
    const inCsr = term < this.indexedTerms ? this.postingStart[term + 1] - this.postingStart[term] : 0;
    return inCsr + (this.recent.get(term)?.length ?? 0) / 2;
  }

  /** Postings are rebuilt in one pass once the recent map holds more than an eighth of them. */
  private postingsStale(): boolean {
    const indexed = this.postingSlot.length;
    if (this.indexedSlots === this.slots && this.recentPostings === 0 && indexed > 0) return false;
    return !(this.indexedSlots > 0 && this.recentPostings <= Math.max(4096, indexed / 8));
  }

  private ensurePostings(): void {
    if (this.postingsStale()) this.rebuildPostings();
  }

  /**
   * After changes: compacts once dead slots pile up, else rebuilds stale postings, in slices (the
   * caller hands the event loop back in `pause`), so that the next search need not. Compaction
   * used to run inside deleteFile, in one piece: with a day file rewritten again and again (a burst
   * of captures) that held the event loop for tens of ms at 40,000 facts. Searches in between use
   * the store as it was; the caller makes no other change until this returns.
   */
  async settle(pause: () => Promise<void>): Promise<void> {
    if (this.compactionDue()) Object.assign(this, await ChunkStore.load(await finishPausing(this.liveSnapshotSteps(), pause), pause));
    else if (this.postingsStale()) await finishPausing(this.rebuildPostingsSteps(), pause);
  }

  private rebuildPostings(): void {
    for (const _ of this.rebuildPostingsSteps());
  }

  /** CSR postings over every live slot: count per term, prefix sums, fill in slot order. */
  private *rebuildPostingsSteps(): Generator<void> {
    const termCount = this.terms.length;
    const start = new Int32Array(termCount + 1);
    for (let from = 0; from < this.slots; from += STEP_SLOTS) {
      this.countPostings(start, from, Math.min(this.slots, from + STEP_SLOTS));
      yield;
    }
    for (let t = 0; t < termCount; t++) start[t + 1] += start[t];
    const total = start[termCount];
    const fill = start.slice(0, termCount);
    const postingSlot = new Uint32Array(total);
    const postingTf = new Uint16Array(total);
    for (let from = 0; from < this.slots; from += STEP_SLOTS) {
      this.fillPostings(fill, postingSlot, postingTf, from, Math.min(this.slots, from + STEP_SLOTS));
      yield;
    }
    this.postingStart = start;
    this.postingSlot = postingSlot;
    this.postingTf = postingTf;
    this.indexedSlots = this.slots;
    this.indexedTerms = termCount;
    this.recent = new Map();
    this.recentPostings = 0;
  }

  /** Postings per term (shifted by one, for the prefix sums) of the live and pending slots [from, to). */
  private countPostings(start: Int32Array, from: number, to: number): void {
    const { alive, forwardStart, forwardLength, forwardTerm } = this;
    for (let slot = from; slot < to; slot++) {
      if (alive[slot] === DEAD) continue;
      const end = forwardStart[slot] + forwardLength[slot];
      for (let i = forwardStart[slot]; i < end; i++) start[forwardTerm[i] + 1]++;
    }
  }

  /** Writes the postings of the live and pending slots [from, to) at each term's fill position. */
  private fillPostings(fill: Int32Array, postingSlot: Uint32Array, postingTf: Uint16Array, from: number, to: number): void {
    const { alive, forwardStart, forwardLength, forwardTerm, forwardTf } = this;
    for (let slot = from; slot < to; slot++) {
      if (alive[slot] === DEAD) continue;
      const end = forwardStart[slot] + forwardLength[slot];
      for (let i = forwardStart[slot]; i < end; i++) {
        const at = fill[forwardTerm[i]]++;
        postingSlot[at] = slot;
        postingTf[at] = forwardTf[i];
      }
    }
  }

  /** A copy of the live slots, renumbered densely, with unused terms and headings dropped: the generator's value. */
  private *liveSnapshotSteps(): Generator<void, StoreSnapshot<M>> {
    return yield* materialiseSteps(yield* this.livePiecesSteps());
  }

  /**
   * The live slots, renumbered densely (terms and headings in order of first use, unused ones
   * dropped), as pieces of the store's arrays: the generator's value, numbered a slice of slots per
   * step. What the pieces read is taken at the start: changes made while they are read (a refresh
   * during a cache write) replace arrays or write past it.
   */
  private *livePiecesSteps(): Generator<void, PiecewiseSnapshot<M>> {
    const { textStart, textLength, heading, date, confidence, length, forwardLength, forwardTerm, forwardTf } = this;
    const live = [...this.files.values()].sort((a, b) => a.firstSlot - b.firstSlot);
    const slotRuns: [number, number][] = [];
    for (const file of live) addRun(slotRuns, file.firstSlot, file.firstSlot + file.count);
    const numbering: LiveNumbering = { termNumbers: new Int32Array(this.terms.length).fill(-1), headingNumbers: new Int32Array(this.headings.length).fill(-1), terms: [], headings: [], forwardRuns: [], forwardEntries: 0 };
    let slots = 0;
    for (const [from, to] of slotRuns) {
      for (let at = from; at < to; at += STEP_SLOTS) {
        this.numberLiveSlots(numbering, at, Math.min(to, at + STEP_SLOTS));
        yield;
      }
      slots += to - from;
    }
    const { termNumbers, headingNumbers, forwardRuns, forwardEntries } = numbering;
    const perSlot = <T extends SnapshotArray>(array: T, pieces: () => Iterable<T> = () => runsOf(array, slotRuns)): ArrayPieces => ({ byteLength: slots * array.BYTES_PER_ELEMENT, pieces });
    return {
      files: live.map((f) => ({ rel: f.rel, meta: f.meta, text: f.text, count: f.count })),
      terms: numbering.terms,
      headings: numbering.headings,
      arrays: {
        textStart: perSlot(textStart),
        textLength: perSlot(textLength),
        heading: perSlot(heading, () => renumbered(heading, slotRuns, headingNumbers)),
        date: perSlot(date),
        confidence: perSlot(confidence),
        length: perSlot(length),
        forwardLength: perSlot(forwardLength),
        forwardTerm: { byteLength: forwardEntries * forwardTerm.BYTES_PER_ELEMENT, pieces: () => renumbered(forwardTerm, forwardRuns, termNumbers) },
        forwardTf: { byteLength: forwardEntries * forwardTf.BYTES_PER_ELEMENT, pieces: () => runsOf(forwardTf, forwardRuns) },
      },
    };
  }

  /** livePiecesSteps' numbering of the live slots [from, to): their headings and terms, their forward runs. */
  private numberLiveSlots(numbering: LiveNumbering, from: number, to: number): void {
    const { heading, forwardStart, forwardLength, forwardTerm } = this;
    const { termNumbers, headingNumbers, terms, headings, forwardRuns } = numbering;
    for (let slot = from; slot < to; slot++) {
      if (headingNumbers[heading[slot]] === -1) headingNumbers[heading[slot]] = headings.push(this.headings[heading[slot]]) - 1;
      const start = forwardStart[slot];
      const end = start + forwardLength[slot];
      for (let i = start; i < end; i++) if (termNumbers[forwardTerm[i]] === -1) termNumbers[forwardTerm[i]] = terms.push(this.terms[forwardTerm[i]]) - 1;
      addRun(forwardRuns, start, end);
      numbering.forwardEntries += end - start;
    }
  }
}
