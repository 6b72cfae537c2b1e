import type { RerankCandidate } from "./candidate.ts";

// The candidates a reranking works on, with two scores each:
//   - `evidence`: what the chunk earned by its own match with the query (calibrated relevance times
//     its own signals: speaker, date, feedback, subject). The confidence gate decides on this.
//   - `score`: evidence plus what it was lent by a related chunk (the question it answers, the hit
//     next to it in the same exchange). The budget fills the block by this.
// Lending can also bring in a chunk the index did not return (a reply that shares no query word).
// Keeping the two apart means a lent score can fill the block of a turn that injects, but can
// never make a turn inject: one weak hit and its neighbours are still one weak hit.

export class RankPool {
  readonly candidates: RerankCandidate[] = [];
  readonly scores: number[] = [];
  readonly evidence: number[] = [];
  private readonly at = new Map<string, number>();

  get size(): number {
    return this.candidates.length;
  }

  indexOf(id: string): number | undefined {
    return this.at.get(id);
  }

  /** Adds a candidate with its own score; the same id again replaces the first, in its place. */
  add(candidate: RerankCandidate, score: number): number {
    const known = this.at.get(candidate.id);
    const at = known ?? this.candidates.length;
    if (known === undefined) this.at.set(candidate.id, at);
    this.candidates[at] = candidate;
    this.scores[at] = clamp(score);
    this.evidence[at] = clamp(score);
    return at;
  }

  /**
   * Lends `amount` (a share of a related chunk's score) to `candidate`: added to what it has, so a
   * chunk that matches on its own and sits next to a hit rises above either alone, and never past 1.
   * A candidate not in the pool yet comes in with its calibrated relevance as its own evidence.
   */
  lend(candidate: RerankCandidate, amount: number, combine: "max" | "add"): number {
    let at = this.at.get(candidate.id);
    if (at === undefined) at = this.add(candidate, candidate.relevance);
    const score = this.scores[at];
    this.scores[at] = clamp(combine === "max" ? Math.max(score, amount) : score + amount * (1 - score));
    return at;
  }

  /** Positions best first: score, then raw BM25, then `compareIds`. */
  order(compareIds: (a: string, b: string) => number): number[] {
    const { candidates, scores } = this;
    return candidates.map((_, i) => i).sort((a, b) => scores[b] - scores[a] || candidates[b].rawScore - candidates[a].rawScore || compareIds(candidates[a].id, candidates[b].id));
  }
}

function clamp(score: number): number {
  return Math.min(1, Math.max(0, score));
}
