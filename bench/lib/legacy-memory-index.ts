// Benchmarks only: the MiniSearch index the bundle shipped before the compact index
// (src/memory/chunk-store.ts), kept so `npm run bench` can print old and new side by side.
// Not used by the hooks.
import fs from "node:fs/promises";
import path from "node:path";
import fg from "fast-glob";
import MiniSearch from "minisearch";
import { getLogger } from "../../src/core/log.ts";
import { writeFileAtomic } from "../../src/fs/atomic.ts";
import { withFileLock } from "../../src/fs/lock.ts";
import type { RetrievedMemory } from "../../src/memory/types.ts";
import { chunkRankingMultiplier } from "../../src/memory/confidence.ts";
import { applyMemoryConfidence, calibratedScore } from "../../src/memory/calibrate.ts";
import type { CorpusStats } from "../../src/memory/calibrate.ts";
import { chunkMarkdown } from "../../src/memory/chunk.ts";
import type { MemoryChunk } from "../../src/memory/chunk.ts";
import { ALWAYS_IGNORED, defaultIndexCacheDir, isInside, sourcesKey } from "../../src/memory/sources.ts";
import type { MemorySourceSpec } from "../../src/memory/sources.ts";
import { analyzeQuery, analyzeText, termFrequencies } from "../../src/memory/tokenize.ts";

// The embedded retriever's index: markdown chunks from the memory files, a MiniSearch (BM25)
// inverted index for candidate retrieval, and calibrated scores for the gate.
// Refreshing is async (glob + stat, re-reading only files whose size or mtime changed);
// searching is synchronous and touches no disk.

// Looked up on each use, so a test (or operator) redirecting log output is honoured.
const log = () => getLogger("ethos-context.memory");
const CACHE_VERSION = 2;

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
};

export type RefreshStats = { files: number; filesRead: number; filesReused: number; filesSkipped: number; chunks: number; changed: boolean };

type IndexedChunk = MemoryChunk & { terms: string[]; headingTerms: string[] };
type FileEntry = { size: number; mtimeMs: number; chunks: IndexedChunk[] };
type CacheFile = { version: number; key: string; rootDir: string; maxChunkChars: number; files: Record<string, FileEntry> };
type SearchDoc = { id: string; terms: string; headingTerms: string };
type ScoringData = { termFrequency: Record<string, number>; length: number };

const DEFAULTS = { maxChunkChars: 1200, maxFileBytes: 2 * 1024 * 1024, maxFiles: 5000, minRefreshIntervalMs: 0 };

function newSearchIndex(): MiniSearch<SearchDoc> {
  // Documents arrive pre-analysed (stemmed, stopwords removed), so MiniSearch only splits on spaces.
  return new MiniSearch<SearchDoc>({
    fields: ["terms", "headingTerms"],
    idField: "id",
    tokenize: (text) => text.split(" ").filter(Boolean),
    processTerm: (term) => term,
    searchOptions: { boost: { terms: 1, headingTerms: 0.5 }, combineWith: "OR", prefix: false, fuzzy: false },
  });
}

export class MemoryIndex {
  readonly spec: MemorySourceSpec;
  readonly cacheFile: string | undefined;
  private readonly options: typeof DEFAULTS;
  private files = new Map<string, FileEntry>();
  private chunksById = new Map<string, IndexedChunk>();
  private scoring = new Map<string, ScoringData>();
  private documentFrequency = new Map<string, number>();
  private averageLength = 0;
  private totalLength = 0;
  private search_ = newSearchIndex();
  private cacheLoaded = false;
  private refreshing: Promise<RefreshStats> | undefined;
  private lastRefreshAt = 0;
  private saving: Promise<void> = Promise.resolve();
  private warnedLargeFiles = new Set<string>();

  constructor(spec: MemorySourceSpec, options: MemoryIndexOptions = {}) {
    this.spec = spec;
    this.options = {
      maxChunkChars: options.maxChunkChars ?? DEFAULTS.maxChunkChars,
      maxFileBytes: options.maxFileBytes ?? DEFAULTS.maxFileBytes,
      maxFiles: options.maxFiles ?? DEFAULTS.maxFiles,
      minRefreshIntervalMs: options.minRefreshIntervalMs ?? DEFAULTS.minRefreshIntervalMs,
    };
    this.cacheFile = resolveCacheFile(spec, options.cacheDir);
  }

  get chunkCount(): number {
    return this.chunksById.size;
  }

  get isWarm(): boolean {
    return this.lastRefreshAt > 0;
  }

  /** Bring the index up to date with the files on disk. Concurrent calls share one refresh. */
  refresh(): Promise<RefreshStats> {
    if (this.refreshing) return this.refreshing;
    if (this.lastRefreshAt > 0 && Date.now() - this.lastRefreshAt < this.options.minRefreshIntervalMs) {
      return Promise.resolve({ files: this.files.size, filesRead: 0, filesReused: this.files.size, filesSkipped: 0, chunks: this.chunkCount, changed: false });
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
    const queryTerms = analyzeQuery(query);
    if (queryTerms.length === 0 || this.chunksById.size === 0 || limit <= 0) return [];
    const candidates = this.search_.search(queryTerms.join(" ")).slice(0, Math.max(limit * 20, 200));
    const stats: CorpusStats = {
      documentCount: this.chunksById.size,
      averageLength: this.averageLength,
      documentFrequency: (term) => this.documentFrequency.get(term) ?? 0,
    };
    const ranked: RetrievedMemory[] = [];
    const now = new Date();
    for (const candidate of candidates) {
      const chunk = this.chunksById.get(String(candidate.id));
      const scoring = this.scoring.get(String(candidate.id));
      if (!chunk || !scoring) continue;
      const relevance = calibratedScore(queryTerms, scoring, stats);
      const score = applyMemoryConfidence(relevance, rankingWeight(chunk, now));
      if (score <= 0) continue;
      const memory: RetrievedMemory = {
        id: chunk.id,
        text: chunk.text,
        score,
        rawScore: candidate.score,
        file: chunk.file,
        headingPath: chunk.headingPath,
        source: "embedded",
      };
      if (chunk.date) memory.date = chunk.date;
      if (chunk.confidence !== undefined) memory.confidence = chunk.confidence;
      ranked.push(memory);
    }
    ranked.sort((a, b) => b.score - a.score || (b.rawScore ?? 0) - (a.rawScore ?? 0) || a.id.localeCompare(b.id));
    return ranked.slice(0, limit);
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
    const next = new Map<string, FileEntry>();
    const stats: RefreshStats = { files: 0, filesRead: 0, filesReused: 0, filesSkipped: 0, chunks: 0, changed: false };
    for (const rel of relPaths) {
      const abs = path.join(this.spec.rootDir, rel);
      try {
        const stat = await fs.stat(abs);
        if (!stat.isFile()) continue;
        const known = this.files.get(rel);
        if (known && known.size === stat.size && known.mtimeMs === stat.mtimeMs) {
          next.set(rel, known);
          stats.filesReused++;
          continue;
        }
        if (stat.size > this.options.maxFileBytes) {
          if (!this.warnedLargeFiles.has(rel)) {
            this.warnedLargeFiles.add(rel);
            log().warn({ file: rel, size: stat.size, maxFileBytes: this.options.maxFileBytes }, "memory file too large, not indexed");
          }
          stats.filesSkipped++;
          continue;
        }
        const raw = await fs.readFile(abs, "utf8");
        next.set(rel, { size: stat.size, mtimeMs: stat.mtimeMs, chunks: indexChunks(raw, rel, this.options.maxChunkChars) });
        stats.filesRead++;
      } catch {
        stats.filesSkipped++; // vanished or unreadable between glob and read: try again next refresh
      }
    }
    // What left the index (removed files, old versions of changed files) and what joins it.
    const outgoing: FileEntry[] = [];
    const incoming: FileEntry[] = [];
    for (const [rel, entry] of this.files) if (next.get(rel) !== entry) outgoing.push(entry);
    for (const [rel, entry] of next) if (this.files.get(rel) !== entry) incoming.push(entry);
    stats.changed = outgoing.length > 0 || incoming.length > 0;
    stats.files = next.size;
    const firstBuild = this.chunksById.size === 0 && next.size > 0;
    this.files = next;
    if (firstBuild) this.rebuild();
    else if (stats.changed) this.update(outgoing, incoming);
    if (stats.changed) this.scheduleSave();
    stats.chunks = this.chunksById.size;
    return stats;
  }

  /** Index every known file from scratch (first build, or after the cache was loaded). */
  private rebuild(): void {
    this.chunksById = new Map();
    this.scoring = new Map();
    this.documentFrequency = new Map();
    this.totalLength = 0;
    this.search_ = newSearchIndex();
    this.update([], [...this.files.values()]);
  }

  /** Incremental: only the chunks of changed files leave and join, so one edit costs one file. */
  private update(outgoing: readonly FileEntry[], incoming: readonly FileEntry[]): void {
    for (const entry of outgoing) for (const chunk of entry.chunks) this.removeChunk(chunk.id);
    for (const entry of incoming) for (const chunk of entry.chunks) this.addChunk(chunk);
    this.averageLength = this.chunksById.size > 0 ? this.totalLength / this.chunksById.size : 0;
  }

  private addChunk(chunk: IndexedChunk): void {
    if (this.chunksById.has(chunk.id)) return; // the same text twice in one file: one chunk
    const all = [...chunk.terms, ...chunk.headingTerms];
    const termFrequency = termFrequencies(all);
    this.chunksById.set(chunk.id, chunk);
    this.scoring.set(chunk.id, { termFrequency, length: all.length });
    this.totalLength += all.length;
    for (const term of Object.keys(termFrequency)) this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
    this.search_.add({ id: chunk.id, terms: chunk.terms.join(" "), headingTerms: chunk.headingTerms.join(" ") });
  }

  private removeChunk(id: string): void {
    const scoring = this.scoring.get(id);
    if (!scoring) return;
    for (const term of Object.keys(scoring.termFrequency)) {
      const count = (this.documentFrequency.get(term) ?? 1) - 1;
      if (count > 0) this.documentFrequency.set(term, count);
      else this.documentFrequency.delete(term);
    }
    this.totalLength -= scoring.length;
    this.scoring.delete(id);
    this.chunksById.delete(id);
    this.search_.discard(id);
  }

  private async loadCache(): Promise<void> {
    if (!this.cacheFile) return;
    try {
      const parsed = JSON.parse(await fs.readFile(this.cacheFile, "utf8")) as Partial<CacheFile>;
      if (
        parsed.version !== CACHE_VERSION ||
        parsed.key !== sourcesKey(this.spec) ||
        parsed.maxChunkChars !== this.options.maxChunkChars ||
        typeof parsed.files !== "object" ||
        parsed.files === null
      ) {
        return;
      }
      for (const [rel, entry] of Object.entries(parsed.files)) {
        if (entry && typeof entry.size === "number" && typeof entry.mtimeMs === "number" && Array.isArray(entry.chunks)) {
          this.files.set(rel, entry);
        }
      }
    } catch {
      // Missing or corrupt cache: a cold build rewrites it.
    }
  }

  private scheduleSave(): void {
    const cacheFile = this.cacheFile;
    if (!cacheFile) return;
    const snapshot: CacheFile = {
      version: CACHE_VERSION,
      key: sourcesKey(this.spec),
      rootDir: this.spec.rootDir,
      maxChunkChars: this.options.maxChunkChars,
      files: Object.fromEntries(this.files),
    };
    this.saving = this.saving.then(async () => {
      try {
        await fs.mkdir(path.dirname(cacheFile), { recursive: true });
        // Another gateway process may share the cache: one writer at a time, and never wait long
        // (a skipped write only costs a re-read next start).
        await withFileLock(cacheFile, () => writeFileAtomic(cacheFile, JSON.stringify(snapshot)), {
          maxRetries: 1,
          retryIntervalSeconds: 0.05,
          staleThresholdSeconds: 30,
        });
      } catch (error) {
        log().warn({ cacheFile, err: (error as Error).message }, "memory index cache not saved");
      }
    });
  }
}

const HTML_COMMENT = /<!--[\s\S]*?-->/g;

/**
 * Confidence metadata of a chunk (spec 004 §8): inline `<!-- confidence: … source: … -->` entries
 * through the hygiene scorer, else a front-matter `confidence`, else none (neutral).
 */
function rankingWeight(chunk: MemoryChunk, now: Date): number | undefined {
  if (chunk.text.includes("<!--") || chunk.text.includes("#correction")) {
    const weight = chunkRankingMultiplier(chunk.text, now);
    if (weight !== 1) return weight;
  }
  return chunk.confidence;
}

function indexChunks(raw: string, rel: string, maxChunkChars: number): IndexedChunk[] {
  return chunkMarkdown(raw, rel, { maxChunkChars }).map((chunk) => ({
    ...chunk,
    // Metadata comments are invisible in rendered markdown: not searchable words.
    terms: analyzeText(chunk.text.replace(HTML_COMMENT, " ")),
    headingTerms: analyzeText(chunk.headingPath.join(" ")),
  }));
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
  return path.join(path.resolve(dir), `${sourcesKey(spec)}.json`);
}
