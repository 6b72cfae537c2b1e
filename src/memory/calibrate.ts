// Score calibration for the embedded retriever.
//
// BM25 scores are unbounded and depend on the corpus, so story 007's thresholds (0.75 "high",
// 0.12 gate), which were written for cosine similarities in [0, 1], would mean nothing on them.
// The calibrated score answers the question a cosine score answers loosely: "how much of what the
// query is about does this chunk contain?"
//
//   idf(t)     = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))            (BM25 idf, always > 0;
//                                                                      a term absent from the corpus
//                                                                      gets the largest idf)
//   coverage   = Σ_{t ∈ Q ∩ d} idf(t) / Σ_{t ∈ Q} idf(t)               (in [0, 1])
//   sat(t, d)  = tf / (tf + k1·(1 − b + b·len/avgLen))                 (BM25 term saturation, in (0, 1))
//   saturation = Σ_{t ∈ Q ∩ d} idf(t)·sat(t, d) / Σ_{t ∈ Q ∩ d} idf(t)
//   score      = coverage · (1 − λ + λ·saturation)                     (λ = 0.15, so in [0, 1])
//
// So a chunk that holds every informative query term scores about 0.85–1.0, one that holds half
// of the query's information about 0.45, and one that only shares a word every memory contains
// (low idf) stays under the 0.12 gate. docs/retrieval.md shows worked numbers.

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
const SATURATION_WEIGHT = 0.15;

export type CorpusStats = {
  /** Number of chunks in the index. */
  documentCount: number;
  /** Average chunk length in terms. */
  averageLength: number;
  /** Number of chunks containing each term. */
  documentFrequency: (term: string) => number;
  /** The term's inverse document frequency, when the caller keeps it per search (hot path). */
  idf?: (term: string) => number;
};

export type ChunkTerms = { termFrequency: Readonly<Record<string, number>>; length: number };

export function inverseDocumentFrequency(documentFrequency: number, documentCount: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/**
 * Calibrated relevance of a chunk for the distinct query terms, in [0, 1]. `termWeight` scales a
 * term's share of the query's information (question-frame words such as "name" count less: the
 * memory says "called Miso", not "name"); 1 for every term by default.
 */
export function calibratedScore(queryTerms: readonly string[], chunk: ChunkTerms, stats: CorpusStats, termWeight: (term: string) => number = () => 1): number {
  let totalIdf = 0;
  let matchedIdf = 0;
  let weightedSaturation = 0;
  const lengthNorm = 1 - BM25_B + BM25_B * (stats.averageLength > 0 ? chunk.length / stats.averageLength : 1);
  for (let i = 0; i < queryTerms.length; i++) {
    const term = queryTerms[i];
    if (queryTerms.indexOf(term) !== i) continue; // a repeated term counts once (no Set per call: hot path)
    const idf = termWeight(term) * (stats.idf ? stats.idf(term) : inverseDocumentFrequency(Math.min(stats.documentFrequency(term), stats.documentCount), stats.documentCount));
    totalIdf += idf;
    const tf = chunk.termFrequency[term] ?? 0;
    if (tf > 0) {
      matchedIdf += idf;
      weightedSaturation += idf * (tf / (tf + BM25_K1 * lengthNorm));
    }
  }
  if (totalIdf <= 0 || matchedIdf <= 0) return 0;
  const coverage = matchedIdf / totalIdf;
  const saturation = weightedSaturation / matchedIdf;
  const score = coverage * (1 - SATURATION_WEIGHT + SATURATION_WEIGHT * saturation);
  return Math.min(1, Math.max(0, score));
}

/**
 * Where spec 004 §8 confidence metadata enters ranking. `weight` is the memory's retrieval weight
 * (src/memory/confidence.ts `chunkRankingMultiplier`: effective confidence 0.2…1, operator
 * corrections 1.5; 1 when the memory carries no metadata), or a front-matter `confidence`.
 * The relevance score is scaled by 0.75 + 0.25·weight: 0.8× at the 0.2 floor, neutral at 1,
 * 1.125× for corrections at the default 1.5 boost, so a decayed memory ranks below a fresh one with
 * the same words without being hidden outright. Weights above 4 count as 4 (a configured boost
 * cannot make one memory outrank everything). Result clamped to [0, 1].
 */
export function applyMemoryConfidence(score: number, weight: number | undefined): number {
  if (weight === undefined || !Number.isFinite(weight)) return score;
  const w = Math.min(4, Math.max(0, weight));
  return Math.min(1, Math.max(0, score * (0.75 + 0.25 * w)));
}
