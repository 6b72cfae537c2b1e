import type { RetrievedMemory } from "../memory/types.ts";

// Story 007's confidence gate, on calibrated scores in [0, 1] (each result's own evidence: what a
// related memory lent it fills the block but never opens the gate, src/memory/rank-pool.ts):
//   top ≥ high (0.75)          → inject every result that clears the gate
//   gate ≤ top < high          → inject only if at least two results clear the gate, one of them
//                                holding two of the query's informative words (`corroboration`)
//   top < gate (0.15) or none  → inject nothing
// plus one rule for small vaults (`single`, default SINGLE_RESULT_MIN when the caller passes it):
//   a lone result ≥ single     → inject it. A 20-line MEMORY.md holds one fact about the cat; that
//                                fact is the whole answer, not a weak match (docs/retrieval.md, "Gate").
// and one for questions about someone the memory knows:
//   a result marked `named`    → inject: the query writes the name its entries are filed under.
// Once a turn injects, what fills the block is decided by the budget, not the gate: every result
// down to `fill` × the top score may fill it, best first (FILL_FLOOR_RATIO, docs/retrieval.md).

type GateTier = "high" | "multiple" | "single" | "named" | "single-below-high" | "below-gate" | "no-results";

/** A lone result at or above this injects (measured: docs/retrieval.md, "Gate sweep"). */
export const SINGLE_RESULT_MIN = 0.35;

/**
 * Once a turn injects, the budget is filled with the next-best results down to this share of the
 * top score, even below the gate: the gate decides *whether* to inject, the budget *how much*
 * (measured: docs/retrieval.md, "Budget fill").
 */
export const FILL_FLOOR_RATIO = 0.05;

/**
 * The `multiple` tier needs one of its results to hold this many of the query's informative words
 * together (measured: docs/retrieval.md, "Gate").
 */
export const CORROBORATING_TERMS = 2;

export type GateDecision = {
  inject: boolean;
  tier: GateTier;
  /** Best score (evidence plus what related memories lent): the fill floor is a share of it. */
  topScore: number;
  /** Best evidence of its own (RetrievedMemory.evidence): the tiers are decided on this. */
  topEvidence: number;
  gate: number;
  high: number;
  /**
   * What may fill the block, best first (empty when `inject` is false): results at or above the
   * gate, and with `fill`, those down to `fill` × the top score.
   */
  passing: RetrievedMemory[];
};

/** The part of a result's score it earned by its own match: only this can open the gate. */
const evidenceOf = (result: RetrievedMemory) => result.evidence ?? result.score;

export function applyConfidenceGate(
  results: readonly RetrievedMemory[],
  thresholds: { gate: number; high: number; single?: number; fill?: number; corroboration?: number },
): GateDecision {
  const { gate, high, single, fill, corroboration } = thresholds;
  const sorted = [...results].sort((a, b) => b.score - a.score);
  const topScore = sorted[0]?.score ?? 0;
  const topEvidence = results.reduce((best, result) => Math.max(best, evidenceOf(result)), 0);
  const passing = sorted.filter((result) => result.score >= gate);
  const floor = fill === undefined ? gate : Math.min(gate, topScore * fill);
  const filling = () => (floor >= gate ? passing : sorted.filter((result) => result.score >= floor && result.score > 0));
  const decide = (inject: boolean, tier: GateTier): GateDecision => ({ inject, tier, topScore, topEvidence, gate, high, passing: inject ? filling() : [] });
  if (sorted.length === 0) return decide(false, "no-results");
  const clearing = results.filter((result) => evidenceOf(result) >= gate);
  if (topEvidence >= high && clearing.length > 0) return decide(true, "high");
  // Two results at or above the gate mean the top one is too; without `single` no lone result is
  // enough. With `corroboration`, one of them must also hold that many of the query's informative
  // words together: two memories that each share one word with a coding question ("process",
  // "run") are two coincidences, not a memory about it.
  const corroborated = corroboration === undefined || clearing.some((result) => result.matchedTerms === undefined || result.matchedTerms >= corroboration);
  if (clearing.length >= 2 && corroborated) return decide(true, "multiple");
  if (topEvidence >= Math.max(single ?? Number.POSITIVE_INFINITY, gate)) return decide(true, "single");
  // The query writes the name of someone the memory files entries under (`## Caroline`, `Caroline: …`):
  // a question about a known person is a memory question even when its other words miss.
  if (sorted.some((result) => result.named)) return decide(true, "named");
  return decide(false, topEvidence >= gate ? "single-below-high" : "below-gate");
}
