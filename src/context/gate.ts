import type { RetrievedMemory } from "../memory/types.ts";

// Story 007's confidence gate, on calibrated scores in [0, 1]:
//   top ≥ high (0.75)          → inject every result that clears the gate
//   gate ≤ top < high          → inject only if at least two results clear the gate
//   top < gate (0.12) or none  → inject nothing
// plus one rule for small vaults (`single`, default SINGLE_RESULT_MIN when the caller passes it):
//   a lone result ≥ single     → inject it. A 20-line MEMORY.md holds one fact about the cat; that
//                                fact is the whole answer, not a weak match (docs/retrieval.md, "Gate").

export type GateTier = "high" | "multiple" | "single" | "single-below-high" | "below-gate" | "no-results";

/** A lone result at or above this injects (measured: docs/retrieval.md, "Gate sweep"). */
export const SINGLE_RESULT_MIN = 0.35;

export type GateDecision = {
  inject: boolean;
  tier: GateTier;
  topScore: number;
  gate: number;
  high: number;
  /** Results at or above the gate, best first (empty when `inject` is false). */
  passing: RetrievedMemory[];
};

export function applyConfidenceGate(results: readonly RetrievedMemory[], thresholds: { gate: number; high: number; single?: number }): GateDecision {
  const { gate, high, single } = thresholds;
  const sorted = [...results].sort((a, b) => b.score - a.score);
  const topScore = sorted[0]?.score ?? 0;
  const passing = sorted.filter((result) => result.score >= gate);
  const decide = (inject: boolean, tier: GateTier): GateDecision => ({ inject, tier, topScore, gate, high, passing: inject ? passing : [] });
  if (sorted.length === 0) return decide(false, "no-results");
  if (topScore >= high && passing.length > 0) return decide(true, "high");
  if (topScore >= gate) {
    if (passing.length >= 2) return decide(true, "multiple");
    return single !== undefined && topScore >= Math.max(single, gate) ? decide(true, "single") : decide(false, "single-below-high");
  }
  return decide(false, "below-gate");
}
