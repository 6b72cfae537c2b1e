import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import fg from "fast-glob";
import { getLogger } from "../core/log.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { withFileLock } from "../fs/lock.ts";
import type { RetrievedMemory } from "./types.ts";
import { chunkRankingMultiplier } from "../hygiene/confidence.ts";
import { applyMemoryConfidence, calibratedScore } from "./calibrate.ts";
import type { CorpusStats } from "./calibrate.ts";
import { splitMarkdown } from "./chunk.ts";
import { ChunkStore } from "./chunk-store.ts";
import type { SearchCost, StoredChunk, StoredChunkInput } from "./chunk-store.ts";
import { decodeIndexCache, encodeIndexCache } from "./index-cache.ts";
import type { CacheIdentity } from "./index-cache.ts";
import { ALWAYS_IGNORED, defaultIndexCacheDir, isInside, readMemorySourceFile, sourcesKey } from "./sources.ts";
import type { MemorySourceSpec } from "./sources.ts";
import { analyzeQuery, analyzeText } from "./tokenize.ts";

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
};

export type RefreshStats = {
  files: number;
  filesRead: number;
  filesReused: number;
  filesSkipped: number;
  chunks: number;
  changed: boolean;
  /** Times the refresh handed the event loop back (analysis and postings slices). */
  yields: number;
};

/** A ranked chunk with what a reranker needs beyond the calibrated score. */
export type IndexCandidate = {
  memory: RetrievedMemory;
  /** Calibrated relevance before confidence weighting. */
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
  sliceMs: 10,
  maxQueryTerms: 32,
  maxPostingsPerQuery: 100_000,
};

/** Files stat'ed or read at the same time during a refresh. */
const IO_CONCURRENCY = 16;
/** Coarse file systems (1–2 s timestamps) can hide a rewrite in the same tick as the last read. */
const COARSE_TIMESTAMP_WINDOW_MS = 2000;
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
  private saving: Promise<void> = Promise.resolve();
  private saveQueued = false;
  private warnedLargeFiles = new Set<string>();
  private lastCost: SearchCost | undefined;

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
    };
    this.cacheFile = resolveCacheFile(spec, options.cacheDir);
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

  /** Bring the index up to date with the files on disk. Concurrent calls share one refresh. */
  refresh(): Promise<RefreshStats> {
    if (this.refreshing) return this.refreshing;
    if (this.lastRefreshAt > 0 && Date.now() - this.lastRefreshAt < this.options.minRefreshIntervalMs) {
      const files = this.store.fileCount;
      return Promise.resolve({ files, filesRead: 0, filesReused: files, filesSkipped: 0, chunks: this.chunkCount, changed: false, yields: 0 });
    }
    this.refreshing = this.doRefresh().finally(() => {
      this.refreshing = undefined;
      this.lastRefreshAt = Date.now();
    });
    return this.refreshing;
  }

  /** Resolves when the last background cache write finished (tests, scripts). */
  whenSaved(): Promise<void> {
    return this.saving;
  }

  /** Ranked chunks for `query`, calibrated scores in [0, 1], best first. Synchronous. */
  search(query: string, limit: number): RetrievedMemory[] {
    return this.searchCandidates(query, limit).map((candidate) => candidate.memory);
  }

  /** `search` with each result's BM25, calibrated relevance and place in its file (for rerankers). */
  searchCandidates(query: string, limit: number): IndexCandidate[] {
    const queryTerms = analyzeQuery(query);
    if (queryTerms.length === 0 || this.store.chunkCount === 0 || limit <= 0) return [];
    const { candidates, cost } = this.store.search(queryTerms, {
      maxQueryTerms: this.options.maxQueryTerms,
      maxPostings: this.options.maxPostingsPerQuery,
      candidates: Math.max(limit * 20, 200),
    });
    this.lastCost = cost;
    const frequencies = new Map<string, number>();
    const stats: CorpusStats = {
      documentCount: this.store.chunkCount,
      averageLength: this.store.averageLength,
      documentFrequency: (term) => {
        // Asked once per candidate and term: look each term up once per search.
        let df = frequencies.get(term);
        if (df === undefined) frequencies.set(term, (df = this.store.documentFrequencyOf(term)));
        return df;
      },
    };
    const scored: { slot: number; chunk: StoredChunk; relevance: number; score: number; bm25: number }[] = [];
    const now = new Date();
    for (const candidate of candidates) {
      const relevance = calibratedScore(queryTerms, candidate, stats);
      if (relevance <= 0) continue;
      const chunk = this.store.chunk(candidate.slot);
      const score = applyMemoryConfidence(relevance, rankingWeight(chunk, now));
      if (score <= 0) continue;
      scored.push({ slot: candidate.slot, chunk, relevance, score, bm25: candidate.bm25 });
    }
    // Ids (a hash) are derived only where needed: exact ties, and the results returned.
    const ids = new Map<number, string>();
    const idOf = (slot: number) => ids.get(slot) ?? ids.set(slot, this.store.chunkId(slot)).get(slot)!;
    scored.sort((a, b) => b.score - a.score || b.bm25 - a.bm25 || idOf(a.slot).localeCompare(idOf(b.slot)));
    return scored.slice(0, limit).map(({ slot, chunk, relevance, score, bm25 }) => ({
      memory: toMemory(idOf(slot), chunk, score, bm25),
      relevance,
      bm25,
      position: chunk.position,
      chunksInFile: chunk.chunksInFile,
      slot,
    }));
  }

  /** The chunk before (-1) or after (+1) a candidate in the same file, if any. */
  neighbour(candidate: IndexCandidate, offset: number): RetrievedMemory | undefined {
    const chunk = this.store.neighbour(candidate.slot, offset);
    return chunk && chunk.file === candidate.memory.file ? toMemory(this.store.chunkId(candidate.slot + offset), chunk, 0, 0) : undefined;
  }

  private async doRefresh(): Promise<RefreshStats> {
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
    const stats: RefreshStats = { files: 0, filesRead: 0, filesReused: 0, filesSkipped: 0, chunks: 0, changed: false, yields: 0 };
    const slicer = new Slicer(this.options.sliceMs);
    const keep = new Set<string>();
    let metaChanged = false;

    // 1. Stat every file; a file whose size, mtime and ctime are unchanged is reused unread.
    const statted = await mapLimit(relPaths, IO_CONCURRENCY, (rel) => fs.stat(path.join(this.spec.rootDir, rel)).catch(() => undefined));
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
    const reads = prefetch(toRead, IO_CONCURRENCY, (file) => readMemoryFile(this.spec.rootDir, path.join(this.spec.rootDir, file.rel), this.options.maxFileBytes));
    for (const [i, file] of toRead.entries()) {
      const raw = await reads.get(i);
      if (raw === undefined) {
        stats.filesSkipped++; // unreadable or vanished: try again next refresh
        continue;
      }
      const meta: FileMeta = { size: file.size, mtimeMs: file.mtimeMs, ctimeMs: file.ctimeMs, hash: contentHash(raw), verifiedAtMs: Date.now() };
      keep.add(file.rel);
      if (file.known && file.known.hash === meta.hash) {
        this.store.setMeta(file.rel, meta);
        metaChanged = true;
        stats.filesReused++;
        continue;
      }
      const chunks = await analyseFile(raw, file.rel, this.options.maxChunkChars, slicer);
      this.store.setFile(file.rel, meta, chunks);
      stats.filesRead++;
      stats.changed = true;
    }

    // 3. Files that left (deleted, no longer matched, grown past the size cap).
    for (const rel of [...this.store.fileNames()]) {
      if (keep.has(rel)) continue;
      this.store.deleteFile(rel);
      stats.changed = true;
    }
    if (stats.changed) await this.store.settle(() => slicer.yieldNow());
    stats.files = this.store.fileCount;
    stats.chunks = this.store.chunkCount;
    stats.yields = slicer.yields;
    if (stats.changed || metaChanged) this.scheduleSave();
    return stats;
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

  /** Writes the cache in the background; saves requested while one is queued are merged. */
  private scheduleSave(): void {
    const cacheFile = this.cacheFile;
    if (!cacheFile || this.saveQueued) return;
    this.saveQueued = true;
    this.saving = this.saving.then(async () => {
      this.saveQueued = false;
      try {
        // Encoded when the write runs, so it holds the newest state.
        const data = await encodeIndexCache(this.cacheIdentity(), this.store.snapshot());
        await fs.mkdir(path.dirname(cacheFile), { recursive: true });
        // Another gateway process may share the cache: one writer at a time, and never wait long
        // (a skipped write only costs a re-read next start).
        await withFileLock(cacheFile, () => writeFileAtomic(cacheFile, data), {
          maxRetries: 1,
          retryIntervalSeconds: 0.05,
          staleThresholdSeconds: 30,
        });
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
async function readMemoryFile(rootDir: string, abs: string, maxBytes: number): Promise<string | undefined> {
  try {
    return await readMemorySourceFile(rootDir, abs, maxBytes);
  } catch {
    return undefined;
  }
}

function contentHash(raw: string): string {
  return crypto.createHash("sha1").update(raw).digest("base64");
}

/**
 * True when the file system's timestamps are coarse (whole seconds) and the file was last
 * verified within one tick of its change time: a rewrite in that tick would keep size, mtime and
 * ctime, so the content must be checked again.
 */
function mayHideRewrite(meta: FileMeta): boolean {
  return meta.ctimeMs % 1000 === 0 && meta.verifiedAtMs - meta.ctimeMs < COARSE_TIMESTAMP_WINDOW_MS;
}

let analyserId: string | undefined;
function analyserFingerprint(): string {
  analyserId ??= crypto.createHash("sha1").update(JSON.stringify([analyzeText(ANALYSER_PROBE), analyzeQuery(ANALYSER_PROBE)])).digest("hex").slice(0, 16);
  return analyserId;
}

/** Hands the event loop back once `sliceMs` of work has passed since the last hand-back. */
class Slicer {
  yields = 0;
  private readonly sliceMs: number;
  private sliceStart = performance.now();

  constructor(sliceMs: number) {
    this.sliceMs = sliceMs;
  }

  async pause(): Promise<void> {
    if (performance.now() - this.sliceStart < this.sliceMs) return;
    await this.yieldNow();
  }

  async yieldNow(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.yields++;
    this.sliceStart = performance.now();
  }
}

/** Runs `work` over `items` with at most `limit` in flight; results in input order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]);
    }
  });
  await Promise.all(runners);
  return results;
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

/** Chunks of one file with their terms; yields between chunks when the slice is used up. */
async function analyseFile(raw: string, rel: string, maxChunkChars: number, slicer: Slicer): Promise<StoredChunkInput[]> {
  const chunks = splitMarkdown(raw, rel, { maxChunkChars });
  const headingTerms = new Map<string, string[]>();
  const analysed: StoredChunkInput[] = [];
  for (const chunk of chunks) {
    await slicer.pause();
    const headingKey = chunk.headingPath.join("\u0000");
    let headings = headingTerms.get(headingKey);
    if (!headings) headingTerms.set(headingKey, (headings = analyzeText(chunk.headingPath.join(" "))));
    // Metadata comments are invisible in rendered markdown: not searchable words.
    const body = analyzeText(chunk.text.includes("<!--") ? chunk.text.replace(HTML_COMMENT, " ") : chunk.text);
    const input: StoredChunkInput = { text: chunk.text, headingPath: chunk.headingPath, terms: body.concat(headings) };
    if (chunk.date) input.date = chunk.date;
    if (chunk.confidence !== undefined) input.confidence = chunk.confidence;
    analysed.push(input);
  }
  return analysed;
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
function rankingWeight(chunk: StoredChunk, now: Date): number | undefined {
  if (chunk.text.includes("<!--") || chunk.text.includes("#correction")) {
    const weight = chunkRankingMultiplier(chunk.text, now);
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

/** Tests: forget every shared index. */
export function resetSharedMemoryIndexes(): void {
  sharedIndexes.clear();
}
