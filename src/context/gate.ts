import type { RetrievedMemory } from "../memory/types.ts";

// Story 007's confidence gate, on calibrated scores in [0, 1]:
//   top ≥ high (0.75)          → inject every result that clears the gate
//   gate ≤ top < high          → inject only if at least two results clear the gate
//   top < gate (0.12) or none  → inject nothing

export type GateTier = "high" | "multiple" | "single-below-high" | "below-gate" | "no-results";

export type GateDecision = {
  inject: boolean;
  tier: GateTier;
  topScore: number;
  gate: number;
  high: number;
  /** Results at or above the gate, best first (empty when `inject` is false). */
  passing: RetrievedMemory[];
};

export function applyConfidenceGate(results: readonly RetrievedMemory[], thresholds: { gate: number; high: number }): GateDecision {
  const { gate, high } = thresholds;
  const sorted = [...results].sort((a, b) => b.score - a.score);
  const topScore = sorted[0]?.score ?? 0;
  const passing = sorted.filter((result) => result.score >= gate);
  const decide = (inject: boolean, tier: GateTier): GateDecision => ({ inject, tier, topScore, gate, high, passing: inject ? passing : [] });
  if (sorted.length === 0) return decide(false, "no-results");
  if (topScore >= high && passing.length > 0) return decide(true, "high");
  if (topScore >= gate) return passing.length >= 2 ? decide(true, "multiple") : decide(false, "single-below-high");
  return decide(false, "below-gate");
}
