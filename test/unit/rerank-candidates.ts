import { DEFAULT_RERANK_WEIGHTS } from "../../src/memory/rerank.ts";
import type { RerankWeights } from "../../src/memory/rerank.ts";
import type { CandidateTerms, RerankCandidate } from "../../src/memory/candidate.ts";

// Hand-made reranker inputs shared by the ranking tests.

/** Every signal off: each test turns on the one it is about. */
export const OFF: RerankWeights = { ...DEFAULT_RERANK_WEIGHTS, speaker: 0, date: 0, answer: 0, prf: 0, near: 0 };

/** A candidate with a calibrated relevance (raw BM25 ten times it, so ties follow relevance). */
export const candidate = (id: string, text: string, relevance: number, extra: Partial<RerankCandidate> = {}): RerankCandidate => ({
  id,
  text,
  headingPath: [],
  rawScore: relevance * 10,
  relevance,
  ...extra,
});

/** Each listed term once, as an index's forward list would answer for the chunk. */
export const termsOf = (...terms: string[]): CandidateTerms => ({ counts: () => terms.map((t) => [t, 1] as const), has: (term) => terms.includes(term) });

export const order = (results: readonly { id: string }[]) => results.map((r) => r.id);
