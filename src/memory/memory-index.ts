import crypto from "node:crypto";
import fsCallbacks from "node:fs";
import type { Stats } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import fg from "fast-glob";
import { getLogger } from "../core/log.ts";
import { writeFileAtomicWith } from "../fs/atomic.ts";
import { withFileLock } from "../fs/lock.ts";
import { realPathOrResolved } from "../fs/safe-read.ts";
import { TIMESTAMP_TICK_MS } from "../fs/timestamp-tick.ts";
import type { RetrievedMemory } from "./types.ts";
import { chunkRankingMultiplier } from "./confidence.ts";
import type { ScoringConfig } from "./confidence.ts";
import { applyMemoryConfidence, calibratedScore, inverseDocumentFrequency } from "./calibrate.ts";
import type { CorpusStats } from "./calibrate.ts";
import { ChangeWatch } from "./change-watch.ts";
import { splitMarkdown } from "./chunk.ts";
import type { UnidentifiedChunk } from "./chunk.ts";
import { ChunkStore, distinctTexts } from "./chunk-store.ts";
import type { FileChunkInput, SearchCost, StoredChunk, StoredChunkInput } from "./chunk-store.ts";
import { CACHE_LOCK, decodeIndexCache, writeIndexCache } from "./index-cache.ts";
import type { CacheIdentity } from "./index-cache.ts";
import { ALWAYS_IGNORED, defaultIndexCacheDir, isInside, readMemorySourceFile, sourcesKey } from "./sources.ts";
import type { MemorySourceSpec, MemorySourceText } from "./sources.ts";
import { DEFAULT_RERANK_WEIGHTS, rerank } from "./rerank.ts";
import type { CandidateTerms, RerankCandidate } from "./candidate.ts";
import { analyzeQuery, analyzeText, queryTermWeight, wordsOf } from "./tokenize.ts";

// The embedded retriever's index: markdown chunks from the memory files in a compact store
// (src/memory/chunk-store.ts: typed arrays, numbered terms, packed postings), BM25 for candidates,
// calibrated scores for the gate.
// Refreshing is async and never holds the event loop long: files are read with bounded
// concurrency, and analysis yields every `sliceMs`. Searching is synchronous, touches no disk,
// and its work is bounded (`maxQueryTerms`, `maxPostingsPerQuery`).

// Looked up on each use, so a test (or operator) redirecting log output is honoured.
const log = () => getLogger("ethos-context.memory");

export type MemoryIndexOptions = {
  /** Max characters per chunk before it is split at sentence ends. */
  maxChunkChars?: number;
  /** Files larger than this are skipped (a memory file is small; a huge one is a mistake). */
  maxFileBytes?: number;
  /** At most this many files are indexed (sorted by path). */
  maxFiles?: number;
  /** Folder for the persistent index cache; `false` disables persistence. */
  cacheDir?: string | false;
  /** A refresh within this many ms of the last one is skipped (stat storms on busy sessions). */
  minRefreshIntervalMs?: number;
  /** A build hands the event loop back at least this often (ms of analysis per slice). */
  sliceMs?: number;
  /** A search walks the postings of at most this many query terms (the rarest). */
  maxQueryTerms?: number;
  /** A search visits at most this many postings; commoner terms beyond it are skipped. */
  maxPostingsPerQuery?: number;
  /**
   * Watch the memory folders, so a turn re-checks the files only after something changed
   * (default true; false: every refresh stats every file, as on a file system without events).
   */
  watchForChanges?: boolean;
  /** The index cache is written at most this often (ms; default 5000). */
  minSaveIntervalMs?: number;
};

export type RefreshStats = {
  files: number;
  filesRead: number;
  filesReused: number;
  filesSkipped: number;
  /** Of the files read, those that only grew and had just their new chunks indexed. */
  filesAppended: number;
  /** Chunks analysed (split into words): a file edited in place has only its changed chunks analysed. */
  chunksAnalysed: number;
  chunks: number;
  changed: boolean;
  /** Times the refresh handed the event loop back (analysis and postings slices). */
  yields: number;
  /** False when no file was looked at: the watched folders were quiet, or the last check was too recent. */
  checked: boolean;
};

/** Per-search settings: the workspace's CONFIG.md scoring settings (decay, floor, boosts). */
export type SearchOptions = { confidence?: ScoringConfig };

/** A ranked chunk with what a reranker needs beyond the calibrated score. */
export type IndexCandidate = {
  memory: RetrievedMemory;
  /** Calibrated relevance with the confidence weight applied, before reranking. */
  relevance: number;
  /** BM25 over the query terms (also `memory.rawScore`). */
  bm25: number;
  /** Position of the chunk in its file (0-based) and the file's chunk count. */
  position: number;
  chunksInFile: number;
  /** Internal handle for `neighbour()`; valid until the next refresh. */
  slot: number;
};

/** What the index keeps per file to tell whether it changed. */
type FileMeta = { size: number; mtimeMs: number; ctimeMs: number; hash: string; verifiedAtMs: number };

const DEFAULTS = {
  maxChunkChars: 1200,
  maxFileBytes: 2 * 1024 * 1024,
  maxFiles: 5000,
  minRefreshIntervalMs: 0,
  sliceMs: 4,
  maxQueryTerms: 32,
  maxPostingsPerQuery: 100_000,
  minSaveIntervalMs: 5000,
};

/** Files stat'ed or read at the same time during a refresh. */
const IO_CONCURRENCY = 16;
// Text whose analysis identifies the analyser: a cache built by another analyser is not used.
const ANALYSER_PROBE = "Running runners ran; the café's naïve résumés, 42 x-rays, don't we'll SOMETHING Über";

export class MemoryIndex {
  readonly spec: MemorySourceSpec;
  readonly cacheFile: string | undefined;
  private readonly options: typeof DEFAULTS;
  private store = new ChunkStore<FileMeta>();
  private cacheLoaded = false;
  private refreshing: Promise<RefreshStats> | undefined;
  private lastRefreshAt = 0;
  /** The bundle edited the files (dropCache): the next refresh checks them, rate limit or not. */
  private recheckDue = false;
  private saving: Promise<void> = Promise.resolve();
  private saveQueued = false;
  private lastSaveAt = 0;
  private saveNow: (() => void) | undefined;
  private warnedLargeFiles = new Set<string>();
  private lastCost: SearchCost | undefined;
  private readonly changes: ChangeWatch;

  constructor(spec: MemorySourceSpec, options: MemoryIndexOptions = {}) {
    this.spec = spec;
    this.options = {
      maxChunkChars: options.maxChunkChars ?? DEFAULTS.maxChunkChars,
      maxFileBytes: options.maxFileBytes ?? DEFAULTS.maxFileBytes,
      maxFiles: options.maxFiles ?? DEFAULTS.maxFiles,
      minRefreshIntervalMs: options.minRefreshIntervalMs ?? DEFAULTS.minRefreshIntervalMs,
      sliceMs: options.sliceMs ?? DEFAULTS.sliceMs,
      maxQueryTerms: options.maxQueryTerms ?? DEFAULTS.maxQueryTerms,
      maxPostingsPerQuery: options.maxPostingsPerQuery ?? DEFAULTS.maxPostingsPerQuery,
      minSaveIntervalMs: options.minSaveIntervalMs ?? DEFAULTS.minSaveIntervalMs,
    };
    this.cacheFile = resolveCacheFile(spec, options.cacheDir);
    this.changes = new ChangeWatch(spec.rootDir);
    if (options.watchForChanges === false) this.changes.disable();
  }

  get chunkCount(): number {
    return this.store.chunkCount;
  }

  get isWarm(): boolean {
    return this.lastRefreshAt > 0;
  }

  /** True while the first build (cold build or cache load) runs: nothing to serve yet. */
  get isBuilding(): boolean {
    return this.refreshing !== undefined && !this.isWarm;
  }

  /** The work the last search did (terms walked, postings visited): tests and diagnostics. */
  get lastQueryCost(): SearchCost | undefined {
    return this.lastCost;
  }

  /**
   * Bring the index up to date with the files on disk. Concurrent calls share one refresh. While
   * the watched folders are quiet (src/memory/change-watch.ts) nothing is checked and the turn goes
   * on at once; a due background check is started without waiting for it.
   */
  async refresh(): Promise<RefreshStats> {
    if (this.changes.watching && this.isWarm) {
      // A change event already queued (a file written just before this turn) is read in the
      // event loop's poll phase: two immediates guarantee that one poll phase runs in between.
      await nextLoopTurn();
      await nextLoopTurn();
      if (this.changes.quiet()) {
        if (!this.refreshing && this.changes.verifyDue()) void this.startRefresh().catch(() => undefined);
        return this.unchangedStats();
      }
      // Changed since the check under way started: check again once it ends.
      if (this.refreshing) return this.refreshing.then(() => this.refresh());
    }
    // A check under way may have read a file before the bundle edited it (dropCache): check again after it.
    if (this.refreshing) return this.recheckDue ? this.refreshing.then(() => this.refresh()) : this.refreshing;
    // Without watches (none possible, or none yet), checks are rate-limited as by polling.
    if (!this.changes.watching && !this.recheckDue && this.lastRefreshAt > 0 && Date.now() - this.lastRefreshAt < this.options.minRefreshIntervalMs) {
      return this.unchangedStats();
    }
    return this.startRefresh();
  }

  /**
   * The bundle itself removed text from the memory files (forget): the next refresh checks every
   * file, whatever the watch saw, and the saved cache, which holds the old text, is deleted (the
   * next save, after that refresh, holds the files as they are).
   */
  async dropCache(): Promise<void> {
    this.changes.markDirty();
    this.recheckDue = true;
    await this.whenSaved();
    const cacheFile = this.cacheFile;
    if (cacheFile) await withFileLock(cacheFile, () => fs.rm(cacheFile, { force: true }), { ...CACHE_LOCK, maxRetries: 20 });
  }

  /** Stop watching the memory folders (tests, shutdown). The index stays usable, checking in full. */
  close(): void {
    this.changes.disable();
  }

  private startRefresh(): Promise<RefreshStats> {
    this.recheckDue = false;
    const checked = this.doRefresh().catch((error: unknown) => {
      this.changes.markDirty(); // a check that failed half-way proves nothing
      throw error;
    });
    this.refreshing = checked.finally(() => {
      this.refreshing = undefined;
      this.lastRefreshAt = Date.now();
    });
    return this.refreshing;
  }

  private unchangedStats(): RefreshStats {
    const files = this.store.fileCount;
    return { files, filesRead: 0, filesReused: files, filesSkipped: 0, filesAppended: 0, chunksAnalysed: 0, chunks: this.chunkCount, changed: false, yields: 0, checked: false };
  }

  /** Writes a queued cache save now, and resolves when the last one finished (tests, scripts, forget). */
  whenSaved(): Promise<void> {
    this.saveNow?.();
    return this.saving;
  }

  /** Waits out what is left of the interval since the last save, unless whenSaved() asks for it now. */
  private saveInterval(): Promise<void> {
    const wait = this.lastSaveAt + this.options.minSaveIntervalMs - performance.now();
    if (this.lastSaveAt === 0 || wait <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.saveNow = undefined;
        resolve();
      };
      // unref: a save waiting here never keeps a process (a CLI run, a test) alive.
      const timer = setTimeout(done, wait);
      timer.unref();
      this.saveNow = done;
    });
  }

  /**
   * Ranked chunks for `query`, calibrated scores in [0, 1], best first. Synchronous.
   * `confidence`: the workspace's CONFIG.md scoring settings (decay, floor, boosts); defaults when absent.
   */
  search(query: string, limit: number, options: SearchOptions = {}): RetrievedMemory[] {
    return this.searchCandidates(query, limit, options).map((candidate) => candidate.memory);
  }

  /**
   * `search` with each result's BM25, calibrated relevance and place in its file. BM25 candidates
   * from the store are calibrated and confidence-weighted here, then ordered by the reranker
   * (src/memory/rerank.ts: speaker, date, reply-to-question, pseudo-relevance feedback).
   */
  searchCandidates(query: string, limit: number, options: SearchOptions = {}): IndexCandidate[] {
    const queryTerms = analyzeQuery(query);
    if (queryTerms.length === 0 || this.store.chunkCount === 0 || limit <= 0) return [];
    const { candidates, cost } = this.store.search(queryTerms, {
      maxQueryTerms: this.options.maxQueryTerms,
      maxPostings: this.options.maxPostingsPerQuery,
      candidates: Math.max(limit * 5, 200),
    });
    this.lastCost = cost;
    // Asked once per candidate and term: each term's frequency and idf are looked up once per search.
    const documentCount = this.store.chunkCount;
    const frequencies = new Map<string, number>();
    const idfs = new Map<string, number>();
    const documentFrequency = (term: string) => {
      let df = frequencies.get(term);
      if (df === undefined) frequencies.set(term, (df = this.store.documentFrequencyOf(term)));
      return df;
    };
    const idf = (term: string) => {
      let value = idfs.get(term);
      if (value === undefined) idfs.set(term, (value = inverseDocumentFrequency(Math.min(documentFrequency(term), documentCount), documentCount)));
      return value;
    };
    const stats: CorpusStats = { documentCount, averageLength: this.store.averageLength, documentFrequency, idf };
    const now = new Date();
    // While ranking, a candidate is known by its slot (as a string): the stable chunk id is a hash
    // of file and text, derived only for the results. Candidates tied on every score keep the
    // store's order (file path, then position in the file).
    const compareIds = (a: string, b: string) => Number(a) - Number(b);
    const bm25Of = new Map<number, number>();
    const toCandidate = (slot: number, chunk: StoredChunk, termFrequency: Readonly<Record<string, number>>, relevance: number, bm25: number): RerankCandidate => {
      const weighted = applyMemoryConfidence(relevance, rankingWeight(chunk, now, options.confidence));
      bm25Of.set(slot, bm25);
      const candidate: RerankCandidate = { id: String(slot), text: chunk.text, file: chunk.file, headingPath: chunk.headingPath, rawScore: bm25, relevance: weighted, terms: new SlotTerms(this.store, slot), matchedTerms: informativeTerms(termFrequency) };
      if (chunk.date) candidate.date = chunk.date;
      return candidate;
    };
    const pool: RerankCandidate[] = [];
    for (const candidate of candidates) {
      const relevance = calibratedScore(queryTerms, candidate, stats, queryTermWeight);
      if (relevance <= 0) continue;
      const scored = toCandidate(candidate.slot, this.store.chunk(candidate.slot), candidate.termFrequency, relevance, candidate.bm25);
      if (scored.relevance > 0) pool.push(scored);
    }
    // A chunk next to a candidate (same file; `sameSection`: under the same headings too), scored
    // for the query on its own: the reply to a question, the rest of an exchange.
    const adjacent = (key: string, offset: number, sameSection: boolean): RerankCandidate | undefined => {
      const slot = Number(key);
      const chunk = this.store.neighbour(slot, offset);
      if (!chunk || (sameSection && !this.store.sameSection(slot, slot + offset))) return undefined;
      const terms = { termFrequency: this.store.countsOf(slot + offset, queryTerms), length: this.store.lengthOf(slot + offset) };
      return toCandidate(slot + offset, chunk, terms.termFrequency, calibratedScore(queryTerms, terms, stats, queryTermWeight), 0);
    };
    const next = (key: string) => adjacent(key, 1, false);
    const near = (key: string, offset: number) => adjacent(key, offset, true);
    return rerank(pool, { query, queryTerms, idf, next, near, compareIds }, DEFAULT_RERANK_WEIGHTS, limit)
      .filter((result) => result.score > 0)
      .map((result) => {
        const slot = Number(result.id);
        const chunk = this.store.chunk(slot);
        const bm25 = bm25Of.get(slot) ?? 0;
        const memory = toMemory(this.store.chunkId(slot), chunk, result.score, bm25);
        if (result.named) memory.named = true;
        memory.evidence = result.evidence;
        if (result.matchedTerms !== undefined) memory.matchedTerms = result.matchedTerms;
        return { memory, relevance: result.relevance, bm25, position: chunk.position, chunksInFile: chunk.chunksInFile, slot };
      });
  }

  /** The chunk before (-1) or after (+1) a candidate in the same file, if any. */
  neighbour(candidate: IndexCandidate, offset: number): RetrievedMemory | undefined {
    const chunk = this.store.neighbour(candidate.slot, offset);
    return chunk && chunk.file === candidate.memory.file ? toMemory(this.store.chunkId(candidate.slot + offset), chunk, 0, 0) : undefined;
  }

  private async doRefresh(): Promise<RefreshStats> {
    this.changes.beginCheck();
    if (!this.cacheLoaded) {
      this.cacheLoaded = true;
      await this.loadCache();
    }
    const found = await fg(this.spec.patterns, {
      cwd: this.spec.rootDir,
      onlyFiles: true,
      dot: false,
      followSymbolicLinks: false,
      suppressErrors: true,
      unique: true,
      ignore: ALWAYS_IGNORED,
    });
    found.sort();
    const relPaths = found.slice(0, this.options.maxFiles);
    const stats: RefreshStats = { files: 0, filesRead: 0, filesReused: 0, filesSkipped: 0, filesAppended: 0, chunksAnalysed: 0, chunks: 0, changed: false, yields: 0, checked: true };
    const slicer = new Slicer(this.options.sliceMs);
    const keep = new Set<string>();
    let metaChanged = false;

    // 1. Stat every file; a file whose size, mtime and ctime are unchanged is reused unread.
    const statted = await statEach(relPaths.map((rel) => path.join(this.spec.rootDir, rel)), IO_CONCURRENCY);
    const toRead: { rel: string; size: number; mtimeMs: number; ctimeMs: number; known: FileMeta | undefined }[] = [];
    relPaths.forEach((rel, i) => {
      const stat = statted[i];
      if (!stat) {
        stats.filesSkipped++; // vanished between glob and stat: try again next refresh
        return;
      }
      if (!stat.isFile()) return;
      const known = this.store.file(rel)?.meta;
      if (known && known.size === stat.size && known.mtimeMs === stat.mtimeMs && known.ctimeMs === stat.ctimeMs && !mayHideRewrite(known)) {
        keep.add(rel);
        stats.filesReused++;
        return;
      }
      if (stat.size > this.options.maxFileBytes) {
        if (!this.warnedLargeFiles.has(rel)) {
          this.warnedLargeFiles.add(rel);
          log().warn({ file: rel, size: stat.size, maxFileBytes: this.options.maxFileBytes }, "memory file too large, not indexed");
        }
        stats.filesSkipped++;
        return;
      }
      toRead.push({ rel, size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, known });
    });

    // 2. Read what may have changed (a few files ahead of the analysis), compare content hashes:
    //    the same bytes under a new ctime (chmod, `cp -p`, `touch -r`) cost a read, not a re-index.
    const realRoot = toRead.length > 0 ? await realPathOrResolved(this.spec.rootDir) : this.spec.rootDir;
    const reads = prefetch(toRead, IO_CONCURRENCY, (file) => readMemoryFile(this.spec.rootDir, path.join(this.spec.rootDir, file.rel), this.options.maxFileBytes, realRoot));
    for (const [i, file] of toRead.entries()) {
      const read = await reads.get(i);
      if (read === undefined) {
        stats.filesSkipped++; // unreadable or vanished: try again next refresh
        continue;
      }
      const meta: FileMeta = { size: file.size, mtimeMs: file.mtimeMs, ctimeMs: file.ctimeMs, hash: contentHash(read.bytes), verifiedAtMs: Date.now() };
      keep.add(file.rel);
      if (file.known && file.known.hash === meta.hash) {
        this.store.setMeta(file.rel, meta);
        metaChanged = true;
        stats.filesReused++;
        continue;
      }
      // The read may have waited on the disk while other work ran: the split starts a fresh slice when this one is used up.
      if (slicer.due()) await slicer.yieldNow();
      const chunks = splitMarkdown(read.text, file.rel, { maxChunkChars: this.options.maxChunkChars });
      const added = file.known ? this.appendedChunks(file.rel, file.known, read.bytes, chunks) : undefined;
      if (added) {
        // Only text was added at the end (a capture, the agent's note): the file's earlier chunks
        // stay as they are, so a day file growing line by line costs its new lines, not its size.
        const analysed = await analyseChunks(added, slicer);
        stats.chunksAnalysed += added.length;
        if (this.store.isLastFile(file.rel)) this.store.appendToFile(file.rel, meta, analysed);
        else await slicer.run(this.store.growFileSteps(file.rel, meta, analysed));
        stats.filesAppended++;
      } else {
        // Changed in place: the chunks the store holds as they are keep their analysis.
        const reused = this.store.analysedSlots(file.rel, chunks);
        const changed = chunks.filter((_, i) => reused[i] < 0);
        const analysed = await analyseChunks(changed, slicer);
        stats.chunksAnalysed += changed.length;
        let next = 0;
        const inputs = chunks.map((chunk, i): FileChunkInput => (reused[i] < 0 ? analysed[next++] : { text: chunk.text, slot: reused[i] }));
        // In slices: a day file of thousands of captured facts is thousands of chunks.
        await slicer.run(this.store.setFileSteps(file.rel, meta, inputs));
      }
      stats.filesRead++;
      stats.changed = true;
    }

    // 3. Files that left (deleted, no longer matched, grown past the size cap).
    // A copy: deleteFile changes (and, compacting, replaces) the map being listed.
    for (const rel of Array.from(this.store.fileNames())) {
      if (keep.has(rel)) continue;
      this.store.deleteFile(rel);
      stats.changed = true;
    }
    if (stats.changed) await this.store.settle(() => slicer.yieldNow());
    this.changes.watchFor(this.spec.patterns, this.store.fileNames());
    stats.files = this.store.fileCount;
    stats.chunks = this.store.chunkCount;
    if (stats.changed || metaChanged) this.scheduleSave();
    // The search a turn runs after this refresh is synchronous: it starts in a slice of its own,
    // not right after this one's last step.
    if (stats.changed) await slicer.yieldNow();
    stats.yields = slicer.yields;
    return stats;
  }

  /**
   * The chunks `bytes` adds to what the store holds for `rel`, when the file only grew: its old bytes
   * are unchanged and the new file's chunks begin with exactly the stored ones. An append that
   * continued the last entry, or changed what the front matter says, splits differently: then the
   * file is indexed again in full. (The store grows its last file in place; any other has its
   * analysed chunks moved to the end.)
   */
  private appendedChunks(rel: string, known: FileMeta, bytes: Buffer, chunks: readonly UnidentifiedChunk[]): UnidentifiedChunk[] | undefined {
    const stored = this.store.file(rel);
    if (!stored || bytes.length <= known.size) return undefined;
    if (contentHash(bytes.subarray(0, known.size)) !== known.hash) return undefined;
    const kept = distinctTexts(chunks);
    let prefixLength = 0;
    let count = 0;
    while (count < kept.length && prefixLength < stored.text.length) prefixLength += kept[count++].text.length;
    if (count !== stored.count || prefixLength !== stored.text.length) return undefined;
    if (!this.store.startsWith(rel, kept.slice(0, count))) return undefined;
    // `kept` is distinct over the whole file: a repeated chunk is left out, as a full index leaves it.
    return kept.slice(count);
  }

  private async loadCache(): Promise<void> {
    if (!this.cacheFile) return;
    try {
      const data = await fs.readFile(this.cacheFile);
      const snapshot = await decodeIndexCache<FileMeta>(data, this.cacheIdentity());
      if (!snapshot) return;
      for (const file of snapshot.files) {
        const m = file.meta;
        if (!m || typeof m.size !== "number" || typeof m.mtimeMs !== "number" || typeof m.ctimeMs !== "number" || typeof m.hash !== "string") return;
      }
      this.store = await ChunkStore.load(snapshot, () => new Promise<void>((resolve) => setImmediate(resolve)));
    } catch {
      // Missing or corrupt cache: a cold build rewrites it.
    }
  }

  private cacheIdentity(): CacheIdentity {
    return { key: sourcesKey(this.spec), rootDir: this.spec.rootDir, maxChunkChars: this.options.maxChunkChars, analyser: analyserFingerprint() };
  }

  /**
   * Writes the cache in the background; saves requested while one is queued are merged, and a save
   * starts at most every `minSaveIntervalMs` (a burst of captures changes the index many times a
   * second, and each save encodes the whole index). A save not yet written when the process ends
   * costs the next start a check of the files changed since the last one.
   */
  private scheduleSave(): void {
    const cacheFile = this.cacheFile;
    if (!cacheFile || this.saveQueued) return;
    this.saveQueued = true;
    this.saving = this.saving.then(async () => {
      await this.saveInterval();
      this.saveQueued = false;
      this.lastSaveAt = performance.now();
      try {
        await fs.mkdir(path.dirname(cacheFile), { recursive: true });
        // Another gateway process may share the cache: one writer at a time, and never wait long
        // (a skipped write only costs a re-read next start). The snapshot is taken when the write
        // runs, so it holds the newest state, and is written in pieces (src/memory/index-cache.ts).
        await withFileLock(
          cacheFile,
          async () => {
            const snapshot = this.store.piecewiseSnapshot();
            await writeFileAtomicWith(cacheFile, (handle) => writeIndexCache(handle, this.cacheIdentity(), snapshot));
          },
          CACHE_LOCK,
        );
        // The JSON cache of earlier versions, same key: never read again.
        await fs.rm(cacheFile.replace(/\.idx$/, ".json"), { force: true });
      } catch (error) {
        log().warn({ cacheFile, err: (error as Error).message }, "memory index cache not saved");
      }
    });
  }
}

/**
 * The one place memory files are read: regular files only, bounded, never a link out of the root,
 * no binary files (src/memory/sources.ts). Undefined when the file cannot or must not be read.
 */
async function readMemoryFile(rootDir: string, abs: string, maxBytes: number, realRoot: string): Promise<MemorySourceText | undefined> {
  try {
    return await readMemorySourceFile(rootDir, abs, maxBytes, realRoot);
  } catch {
    return undefined;
  }
}

/** SHA-1 of the file's bytes (for valid UTF-8 the same as of its text, which earlier caches hashed). */
function contentHash(bytes: Buffer): string {
  return crypto.createHash("sha1").update(bytes).digest("base64");
}

/**
 * True when the file system's timestamps are coarse (whole seconds) and the file was last
 * verified within one tick of its change time: a rewrite in that tick would keep size, mtime and
 * ctime, so the content must be checked again.
 */
function mayHideRewrite(meta: FileMeta): boolean {
  return meta.ctimeMs % 1000 === 0 && meta.verifiedAtMs - meta.ctimeMs < TIMESTAMP_TICK_MS;
}

let analyserId: string | undefined;
function analyserFingerprint(): string {
  analyserId ??= crypto.createHash("sha1").update(JSON.stringify([analyzeText(ANALYSER_PROBE), analyzeQuery(ANALYSER_PROBE)])).digest("hex").slice(0, 16);
  return analyserId;
}

const nextLoopTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Hands the event loop back once `sliceMs` of work has passed since the last hand-back. */
class Slicer {
  yields = 0;
  private readonly sliceMs: number;
  private sliceStart = performance.now();

  constructor(sliceMs: number) {
    this.sliceMs = sliceMs;
  }

  /** The slice is used up: hand the event loop back (`await slicer.yieldNow()`) before going on. */
  due(): boolean {
    return performance.now() - this.sliceStart >= this.sliceMs;
  }

  /** Runs `steps`, handing the event loop back between two of them whenever the slice is used up. */
  async run(steps: Generator<void>): Promise<void> {
    for (const _ of steps) if (this.due()) await this.yieldNow();
  }

  async yieldNow(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.yields++;
    this.sliceStart = performance.now();
  }
}

/**
 * `fs.stat` of every file, at most `limit` in flight, results in input order (undefined: gone or
 * unreadable). Callbacks, not `fs.promises`: every turn re-checks every memory file, and the
 * promise API costs the event loop about twice as much per call (measured: 2,225 files,
 * 30 ms → 12 ms).
 */
function statEach(files: readonly string[], limit: number): Promise<(Stats | undefined)[]> {
  return new Promise((resolve) => {
    const results = Array.from<Stats | undefined>({ length: files.length });
    if (files.length === 0) return resolve(results);
    let next = 0;
    let done = 0;
    const start = () => {
      const i = next++;
      if (i >= files.length) return;
      fsCallbacks.stat(files[i], (error, stat) => {
        results[i] = error ? undefined : stat;
        if (++done === files.length) resolve(results);
        else start();
      });
    };
    for (let k = 0; k < Math.min(limit, files.length); k++) start();
  });
}

/** Starts `work` for up to `ahead` items beyond the one being consumed (reads overlap analysis). */
function prefetch<T, R>(items: readonly T[], ahead: number, work: (item: T) => Promise<R>): { get(i: number): Promise<R> } {
  const started = new Map<number, Promise<R>>();
  const start = (i: number) => {
    if (i < items.length && !started.has(i)) started.set(i, work(items[i]));
  };
  return {
    get(i) {
      for (let j = i; j <= i + ahead; j++) start(j);
      const result = started.get(i)!;
      started.delete(i);
      return result;
    },
  };
}

const HTML_COMMENT = /<!--[\s\S]*?-->/g;

/** Chunks of one file with their words; yields between chunks when the slice is used up. */
async function analyseChunks(chunks: readonly UnidentifiedChunk[], slicer: Slicer): Promise<StoredChunkInput[]> {
  // Chunks under the same headings share one heading-path array: its words are split once.
  const headingWords = new Map<readonly string[], string[]>();
  const analysed: StoredChunkInput[] = [];
  for (const chunk of chunks) {
    if (slicer.due()) await slicer.yieldNow();
    let headings = headingWords.get(chunk.headingPath);
    if (!headings) headingWords.set(chunk.headingPath, (headings = wordsOf(chunk.headingPath.join(" "))));
    // Metadata comments are invisible in rendered markdown: not searchable words.
    const words = wordsOf(chunk.text.includes("<!--") ? chunk.text.replace(HTML_COMMENT, " ") : chunk.text);
    const input: StoredChunkInput = { text: chunk.text, headingPath: chunk.headingPath, words, headingWords: headings };
    if (chunk.date) input.date = chunk.date;
    if (chunk.confidence !== undefined) input.confidence = chunk.confidence;
    analysed.push(input);
  }
  return analysed;
}

/** A candidate's terms, read from the store's forward list only when the reranker asks. */
class SlotTerms implements CandidateTerms {
  private readonly store: ChunkStore<FileMeta>;
  private readonly slot: number;

  constructor(store: ChunkStore<FileMeta>, slot: number) {
    this.store = store;
    this.slot = slot;
  }

  counts(): Iterable<readonly [string, number]> {
    return Object.entries(this.store.termFrequencies(this.slot));
  }

  has(term: string): boolean {
    return this.store.hasTerm(this.slot, term);
  }
}

/** How many of the query's informative terms (question-frame words left out) a chunk holds. */
function informativeTerms(termFrequency: Readonly<Record<string, number>>): number {
  let count = 0;
  for (const term in termFrequency) if (termFrequency[term] > 0 && queryTermWeight(term) === 1) count++;
  return count;
}

function toMemory(id: string, chunk: StoredChunk, score: number, rawScore: number): RetrievedMemory {
  const memory: RetrievedMemory = { id, text: chunk.text, score, rawScore, file: chunk.file, headingPath: chunk.headingPath, source: "embedded" };
  if (chunk.date) memory.date = chunk.date;
  if (chunk.confidence !== undefined) memory.confidence = chunk.confidence;
  return memory;
}

/**
 * Confidence metadata of a chunk (spec 004 §8): inline `<!-- confidence: … source: … -->` entries
 * through the hygiene scorer, else a front-matter `confidence`, else none (neutral).
 */
function rankingWeight(chunk: StoredChunk, now: Date, config: ScoringConfig | undefined): number | undefined {
  if (chunk.text.includes("<!--") || chunk.text.includes("#correction")) {
    const weight = chunkRankingMultiplier(chunk.text, now, config);
    if (weight !== 1) return weight;
  }
  return chunk.confidence;
}

function resolveCacheFile(spec: MemorySourceSpec, cacheDir: string | false | undefined): string | undefined {
  if (cacheDir === false) return undefined;
  let dir = cacheDir ?? defaultIndexCacheDir();
  if (isInside(dir, spec.rootDir)) {
    // A cache inside the memory root could be picked up by the host's own memory indexer.
    log().warn({ cacheDir: dir, rootDir: spec.rootDir }, "index cache dir is inside the memory root, using the default location");
    dir = defaultIndexCacheDir();
    if (isInside(dir, spec.rootDir)) return undefined;
  }
  return path.join(path.resolve(dir), `${sourcesKey(spec)}.idx`);
}

/** Build (or load from cache) the index for a folder exactly as the hook does, and refresh it once. */
export async function buildMemoryIndex(spec: MemorySourceSpec, options: MemoryIndexOptions = {}): Promise<MemoryIndex> {
  const index = new MemoryIndex(spec, options);
  await index.refresh();
  return index;
}

// One warm index per source set, shared by every turn of the gateway process.
const sharedIndexes = new Map<string, MemoryIndex>();

export function sharedMemoryIndex(spec: MemorySourceSpec, options: MemoryIndexOptions = {}): MemoryIndex {
  const key = JSON.stringify([sourcesKey(spec), options.maxChunkChars, options.maxFileBytes, options.maxFiles, options.cacheDir]);
  let index = sharedIndexes.get(key);
  if (!index) {
    index = new MemoryIndex(spec, options);
    sharedIndexes.set(key, index);
  }
  return index;
}

/** The bundle edited memory files under `rootDir`: every shared index over it re-checks them and drops its saved cache. */
export async function memoryFilesEdited(rootDir: string): Promise<void> {
  const root = path.resolve(rootDir);
  for (const index of sharedIndexes.values()) if (index.spec.rootDir === root) await index.dropCache();
}

/** Tests: forget every shared index. */
export function resetSharedMemoryIndexes(): void {
  for (const index of sharedIndexes.values()) index.close();
  sharedIndexes.clear();
}
