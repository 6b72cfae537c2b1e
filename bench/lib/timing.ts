// Sampling helpers shared by the benchmark scripts: microseconds per call, after a JIT warm-up.

export function timeSync(n: number, fn: () => void, warmup = Math.min(50, n)): number[] {
  for (let i = 0; i < warmup; i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  return samples;
}

/** `fn` gets the iteration index; warm-up calls get negative indices so they never collide. */
export async function timeAsync(n: number, fn: (i: number) => Promise<unknown>, warmup = Math.min(20, n)): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn(-1 - i);
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    await fn(i);
    samples.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  return samples;
}
