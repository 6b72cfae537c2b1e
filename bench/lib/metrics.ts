// Pure metric helpers shared by the benchmark scripts (unit-tested in test/unit/bench-metrics.test.ts).

/** 1-based rank of the first relevant item in `ranking`, or undefined when none is relevant. */
export function firstRelevantRank<T>(ranking: readonly T[], isRelevant: (item: T) => boolean): number | undefined {
  const index = ranking.findIndex(isRelevant);
  return index < 0 ? undefined : index + 1;
}

/** Hit at k: the first relevant item sits within the top k. */
export function hitAtK(rank: number | undefined, k: number): boolean {
  return rank !== undefined && rank <= k;
}

/** Reciprocal rank cut at `cutoff` (MRR@10 uses cutoff 10): 1/rank, or 0 when outside. */
export function reciprocalRankAt(rank: number | undefined, cutoff: number): number {
  return rank !== undefined && rank <= cutoff ? 1 / rank : 0;
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return 0;
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

/** Nearest-rank percentile (p in 0..100) of an unsorted sample. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Sample standard deviation. */
export function stddev(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const m = mean(values);
  let sum = 0;
  for (const value of values) sum += (value - m) ** 2;
  return Math.sqrt(sum / (values.length - 1));
}

/**
 * Least-squares fit of log(y) = slope * log(x) + c. A slope near 1 means cost grows linearly with
 * size, near 0 constant, near 2 quadratic.
 */
export function logLogSlope(points: readonly { x: number; y: number }[]): { slope: number; r2: number } {
  const usable = points.filter((p) => p.x > 0 && p.y > 0);
  if (usable.length < 2) return { slope: Number.NaN, r2: Number.NaN };
  const xs = usable.map((p) => Math.log(p.x));
  const ys = usable.map((p) => Math.log(p.y));
  const mx = mean(xs);
  const my = mean(ys);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < xs.length; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
    syy += (ys[i] - my) ** 2;
  }
  const slope = sxy / sxx;
  const r2 = syy === 0 ? 1 : (sxy * sxy) / (sxx * syy);
  return { slope, r2 };
}

/** Plain-words reading of a log-log slope. */
export function describeGrowth(slope: number): string {
  if (!Number.isFinite(slope)) return "n/a";
  if (slope < 0.2) return "about constant";
  if (slope < 0.8) return "sub-linear";
  if (slope <= 1.2) return "about linear";
  if (slope <= 1.6) return "super-linear (n log n or worse)";
  return "quadratic or worse";
}

/** Percentage with one decimal, as the reference tables print it. */
export function pct(fraction: number): string {
  return Number.isFinite(fraction) ? (fraction * 100).toFixed(1) : "n/a";
}

/** Ratio a/b with two decimals; "n/a" when b is 0. */
export function ratio(a: number, b: number): string {
  return b === 0 || !Number.isFinite(a / b) ? "n/a" : (a / b).toFixed(2);
}
