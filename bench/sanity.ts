// What makes a benchmark run "broken" (non-zero exit), so `npm run bench:smoke` in CI keeps the
// benchmarks from rotting. Bounds are deliberately loose: they catch a dead retriever, a broken
// loader or a gate that injects everything, not normal variation.
import type { LocomoSummary } from "./locomo/evaluate.ts";
import type { ScaleRow } from "./scale/run.ts";
import type { HooksResults } from "./hooks/run.ts";

export function sanityProblems(results: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [set, entry] of [["locomo", results.locomo], ["locomo notes", results.locomoNotes]] as const) {
    const summary = (entry as { skipped?: boolean; summary?: LocomoSummary } | undefined)?.summary;
    if (summary) problems.push(...locomoProblems(summary).map((problem) => problem.replace(/^locomo:/, `${set}:`)));
  }
  const scale = results.scale as { rows: ScaleRow[] } | undefined;
  for (const row of scale?.rows ?? []) {
    if (!(row.cold.chunks > 0)) problems.push(`scale ${row.targetChunks} ${row.index}: no chunks indexed`);
    if (!Number.isFinite(row.cold.queryP50Ms)) problems.push(`scale ${row.targetChunks} ${row.index}: no query timings`);
    if (!Number.isFinite(row.cold.incrementalMs)) problems.push(`scale ${row.targetChunks} ${row.index}: no incremental timing`);
    if (!(row.warm.chunks > 0)) problems.push(`scale ${row.targetChunks} ${row.index}: warm start lost the index`);
  }
  const hooks = results.hooks as HooksResults | undefined;
  if (hooks) {
    problems.push(...hooks.problems);
    const questions = hooks.inProcess?.sets.find((set) => set.messages === "memory questions");
    if (hooks.inProcess && !(questions && questions.injectedRate >= 0.3)) {
      problems.push(`hooks: the ethos-context handler injected memory on ${((questions?.injectedRate ?? 0) * 100).toFixed(0)}% of sample-workspace memory questions (expected most)`);
    }
    if (hooks.gateway && !hooks.gateway.enabled.some((turn) => turn.memoryBlockTokens > 0)) {
      problems.push("hooks: no gateway turn with the bundle enabled carried a memory record in its system prompt");
    }
  }
  const cache = results.cache as { problems: string[] } | undefined;
  if (cache) problems.push(...cache.problems);
  const capture = results.capture as { tuning?: { precision: number; recall: number }; cost?: { facts: number; p95Ms: number }[] } | undefined;
  if (capture?.tuning && !(capture.tuning.precision > 0.5 && capture.tuning.recall > 0.5)) {
    problems.push(`capture: precision ${capture.tuning.precision.toFixed(2)} / recall ${capture.tuning.recall.toFixed(2)} on the tuning set (a working capture is far above both)`);
  }
  for (const row of capture?.cost ?? []) if (!Number.isFinite(row.p95Ms)) problems.push(`capture cost ${row.facts} facts: no timings`);
  return problems;
}

/** A LoCoMo set's run is broken (not merely worse) when one of these holds. */
function locomoProblems(s: LocomoSummary): string[] {
  const problems: string[] = [];
  const bundle = s.bundle[0];
  const baseline = s.baseline[0];
  if (s.questions === 0) problems.push("locomo: no questions evaluated");
  if (s.chunks === 0) problems.push("locomo: the bundle indexed no chunks");
  if (!(baseline.r5 >= 0.3 && baseline.r5 <= 0.85)) problems.push(`locomo: BM25 baseline R@5 ${baseline.r5.toFixed(3)} is outside 0.30..0.85 (loader or baseline broken)`);
  if (!(bundle.r5 >= 0.25)) problems.push(`locomo: bundle R@5 ${bundle.r5.toFixed(3)} < 0.25 (retriever broken)`);
  if (!(bundle.injectedRate > 0.2)) problems.push(`locomo: bundle injected for only ${(bundle.injectedRate * 100).toFixed(1)}% of questions (gate or pipeline broken)`);
  if (!(bundle.inContext["1000"] > 0.1)) problems.push(`locomo: gold text reached the 1,000-token block for only ${(bundle.inContext["1000"] * 100).toFixed(1)}% (formatting broken)`);
  const nonMemory = s.nonMemory.find((r) => r.kind === "all");
  if (!nonMemory || nonMemory.runs === 0) problems.push("locomo: non-memory prompts were not run");
  else if (nonMemory.injectedRate > 0.5) problems.push(`locomo: ${(nonMemory.injectedRate * 100).toFixed(1)}% of non-memory prompts injected (gate broken)`);
  return problems;
}
