// What the benchmarks need from a retriever. The bundle's embedded retriever and pipeline are
// wrapped into this shape in bench/lib/bundle.ts, so the benchmark code never depends on their
// internals and the BM25 baseline can be scored by the same code.

export type RankedChunk = {
  file: string;
  headingPath: string[];
  date?: string;
  /** Original text of the chunk, as it would be quoted in a snippet. */
  text: string;
  score: number;
};

export type TurnOutcome = {
  /** True when the confidence gate let anything through and a block would be injected. */
  injected: boolean;
  /** The exact text the model would see ("" when nothing is injected). */
  block: string;
  /** Why the gate decided as it did, for the JSON results. */
  gate: string;
};

export type IndexUnderTest = {
  chunkCount: number;
  /** Ranked chunks for a user message, after the hook's query extraction, before gate and budget. */
  rank(message: string, limit: number): Promise<RankedChunk[]>;
  /**
   * The adapters' whole same-turn path (the memory-context service) for one message in a fresh main
   * session at a token budget;
   * `confidenceGate` and `searchTopK` override the configured values (gate sweep); `layout:
   * "story-007"` injects story 007's layout instead of the compact one (what the layout costs).
   */
  runTurn(message: string, budgetTokens: number, options?: { confidenceGate?: number; searchTopK?: number; layout?: "story-007" }): Promise<TurnOutcome>;
  /** Refreshes closer together than this are skipped (the hook's stat-storm guard). */
  minRefreshIntervalMs: number;
  /** Bring the index up to date after files changed (re-reads only what changed, via the cache). */
  refresh(): Promise<void>;
  /** Resolves when background work (the index cache write) has finished. */
  flush(): Promise<void>;
  /**
   * Checks every memory file for changes, as every turn did before the folder watch (and still
   * does where no watch is possible). Stops the watch for good: call it after the turns.
   */
  fullCheck(): Promise<void>;
};

export type RetrieverUnderTest = {
  name: string;
  /** Index a workspace (MEMORY.md + memory/*.md) exactly as the hook would. */
  openIndex(workspaceDir: string, options: { cacheDir: string }): Promise<IndexUnderTest>;
};
