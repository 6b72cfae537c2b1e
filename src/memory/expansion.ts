import type { RankPool } from "./rank-pool.ts";
import type { CandidateTerms, RerankCandidate } from "./rerank.ts";

// Query expansion by pseudo-relevance feedback (RM3-like, issue 29, multi-hop): the vocabulary of
// the best hits (src/memory/rerank.ts `feedbackTerms`) is searched for once more, so memories that
// complete the best hits without sharing a word with the question come in ("Where did Caroline move
// from?" finds "my home country"; the memory that names Sweden shares "grandmother" and
// "necklace" with it, not the question). What the second search finds is lent a share of the top
// score in proportion to the feedback weight it holds: it fills the block of a turn that injects,
// never opens the gate (src/memory/rank-pool.ts). Cost: one more search over at most `terms`
// terms, bounded like the first (postings budget), and `limit` candidates scored.

export type Feedback = { terms: string[]; shares: number[] };

/** A second search over the feedback terms: at most `limit` chunks, scored for the original query. */
export type ExpansionSearch = (terms: readonly string[], limit: number) => RerankCandidate[];

export type ExpansionWeights = {
  /** Share of the top score lent to a chunk that holds all of the feedback weight (0 = off). */
  share: number;
  /** How many chunks the second search brings in. */
  limit: number;
};

/** Share of the feedback terms' weight that the chunk holds, in [0, 1]. */
export function feedbackOverlap(terms: CandidateTerms, feedback: Feedback): number {
  let share = 0;
  for (let i = 0; i < feedback.terms.length; i++) if (terms.has(feedback.terms[i])) share += feedback.shares[i];
  return share;
}

export function lendToExpansion(pool: RankPool, feedback: Feedback, search: ExpansionSearch, weights: ExpansionWeights): void {
  if (weights.share <= 0 || weights.limit <= 0) return;
  const top = pool.evidence.reduce((best, score) => Math.max(best, score), 0);
  if (top <= 0) return;
  for (const found of search(feedback.terms, weights.limit)) {
    if (!found.terms) continue;
    const amount = weights.share * top * feedbackOverlap(found.terms, feedback);
    if (amount > 0) pool.lend(found, amount, "add");
  }
}
