// What the index hands the second-stage ranking for one chunk. Its own module so the ranking
// (rerank.ts) and the parts it works with (rank-pool.ts, neighbours.ts) share it without importing
// each other in a circle.

export type RerankCandidate = {
  id: string;
  /** Original chunk text. */
  text: string;
  file?: string;
  headingPath: readonly string[];
  /** YYYY-MM-DD when known (dated heading, entry or file name). */
  date?: string;
  /** The index's raw BM25 score (0 for a neighbour that matched no query term). */
  rawScore: number;
  /** Calibrated relevance in [0, 1], confidence weight applied. */
  relevance: number;
  /** The chunk's analysed terms (pseudo-relevance feedback). */
  terms?: CandidateTerms;
  /** How many of the query's informative terms the chunk holds (the gate's corroboration rule). */
  matchedTerms?: number;
};

/**
 * A candidate's analysed terms, read on demand: feedback lists the terms of the best few hits in
 * full and asks every other candidate only whether it holds each chosen term (an index answers
 * that from its forward list without building a table per candidate).
 */
export type CandidateTerms = {
  counts(): Iterable<readonly [string, number]>;
  has(term: string): boolean;
};
