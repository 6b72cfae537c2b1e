import type { RankPool } from "./rank-pool.ts";
import type { RerankCandidate } from "./candidate.ts";

// Neighbours in the same exchange (issue 29, multi-hop): the chunks just before and after one of
// the best hits, in the same file and under the same heading, are the rest of that exchange: the
// turn that prompted it, the reply, the next fact the same person told in the same session ("plans
// for the summer" matches the kids' summer break; the adoption plans told in the same breath share
// no word with the question). Each of the `hits` best candidates lends `share` of its score to the
// chunks up to `span` places away, less with distance (share / distance). The loan is added to
// what a chunk scores on its own (RankPool.lend), so a neighbour that also matches the query rises
// most, and it counts for the block's fill, never for the gate (rank-pool.ts).
// Cost: at most hits × 2 × span lookups of adjacent slots, whatever the vault's size.

export type NeighbourWeights = {
  /** Share of a hit's score lent to its immediate neighbours (0 = off). */
  share: number;
  /** How many of the best candidates lend. */
  hits: number;
  /** How far (in chunks) a loan reaches on each side. */
  span: number;
};

/** The chunk `offset` places from `id`, in the same file and section; undefined at an edge. */
export type NeighbourLookup = (id: string, offset: number) => RerankCandidate | undefined;

/** Lends to the neighbours of the `hits` best candidates in `order` (positions in the pool, best first). */
export function lendToNeighbours(pool: RankPool, order: readonly number[], near: NeighbourLookup, weights: NeighbourWeights): void {
  if (weights.share <= 0 || weights.hits <= 0 || weights.span <= 0) return;
  // Loans are worked out from the scores before any of them is paid, so the order of the hits
  // does not matter and a neighbour never lends on what it was lent.
  const loans: [RerankCandidate, number][] = [];
  for (const hit of order.slice(0, weights.hits)) {
    const score = pool.scores[hit];
    if (score <= 0) continue;
    const id = pool.candidates[hit].id;
    for (let distance = 1; distance <= weights.span; distance++) {
      for (const offset of [-distance, distance]) {
        const neighbour = near(id, offset);
        if (neighbour) loans.push([neighbour, (weights.share * score) / distance]);
      }
    }
  }
  for (const [neighbour, amount] of loans) pool.lend(neighbour, amount, "add");
}
