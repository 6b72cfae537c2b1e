// Child process for one vault size, so its peak RSS is its own. Prints one JSON line on stdout.
//   node --import tsx bench/scale/worker.ts --vault <dir> --cache <dir> --phase cold|warm-start|empty [--index compact|legacy]
// `empty` loads the same modules and opens nothing: the RSS floor of a worker.
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { awaitTimeoutMs, loadBundle } from "../lib/bundle.ts";
import type { IndexKind } from "../lib/bundle.ts";
import { percentile } from "../lib/metrics.ts";
import { generateQueries, touchOneFile } from "./vault.ts";

export type WorkerResult = {
  phase: string;
  chunks: number;
  openMs: number;
  queryP50Ms?: number;
  queryP95Ms?: number;
  /** The first pipeline turn of the process (code paths not yet compiled). */
  firstTurnMs?: number;
  turnP50Ms?: number;
  turnP95Ms?: number;
  /** CPU time of the process per timed turn (mean), which machine load inflates much less than wall time. */
  turnCpuMs?: number;
  /** One check of every memory file for changes, p50 (what a turn costs without the folder watch). */
  fullCheckP50Ms?: number;
  /** Fraction of pipeline turns slower than the hook's await budget (they would inject nothing). */
  turnsOverAwaitBudget?: number;
  incrementalMs?: number;
  /** Longest event-loop stall while the index opened and saved (CPU-bounded, see below). */
  maxStallMs?: number;
  /** The same in wall time, however the process was scheduled. */
  maxWallGapMs?: number;
  cacheBytes: number;
  maxRssMB: number;
};

function directoryBytes(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += fs.statSync(path.join(entry.parentPath ?? entry.path, entry.name)).size;
  }
  return total;
}

async function timeEach(items: readonly string[], run: (item: string) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (const item of items) {
    const start = performance.now();
    await run(item);
    times.push(performance.now() - start);
  }
  return times;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { vault: { type: "string" }, cache: { type: "string" }, phase: { type: "string" }, queries: { type: "string" }, index: { type: "string" } } });
  const vault = values.vault!;
  const cacheDir = values.cache!;
  const phase = values.phase ?? "cold";
  const queryCount = Number(values.queries ?? 200);
  const bundle = await loadBundle((values.index ?? "compact") as IndexKind);
  if (phase === "empty") {
    const floor: WorkerResult = { phase, chunks: 0, openMs: 0, cacheBytes: 0, maxRssMB: process.resourceUsage().maxRSS / 1024 };
    process.stdout.write(`${JSON.stringify(floor)}\n`);
    return;
  }

  // How long the event loop was held at a time while the index opened: a 5 ms interval whose
  // late firings are the stalls a concurrent turn would see. On a busy machine a late firing can
  // also mean the process was not scheduled at all, so a gap counts only as much CPU time as the
  // process used during it (user + system, all threads): "descheduled" is not "blocked".
  let maxStallMs = 0;
  let maxWallGapMs = 0;
  let lastTick = performance.now();
  let lastCpu = process.cpuUsage();
  const sample = () => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    const gap = now - lastTick - 5;
    maxWallGapMs = Math.max(maxWallGapMs, gap);
    maxStallMs = Math.max(maxStallMs, Math.min(gap, (cpu.user + cpu.system) / 1000));
    lastTick = now;
    lastCpu = process.cpuUsage();
  };
  const ticker = setInterval(sample, 5);
  const openStart = performance.now();
  const index = await bundle.openIndex(vault, { cacheDir });
  const openMs = performance.now() - openStart;
  await index.flush(); // the background cache write after a build can stall too
  clearInterval(ticker);
  sample();
  const result: WorkerResult = { phase, chunks: index.chunkCount, openMs, maxStallMs, maxWallGapMs, cacheBytes: 0, maxRssMB: 0 };

  if (phase === "cold") {
    const queries = generateQueries(queryCount);
    await timeEach(queries.slice(0, 10), (q) => index.rank(q, 10)); // warm-up: JIT and lazy structures
    const rankTimes = await timeEach(queries, (q) => index.rank(q, 10));
    // The first turns of a process compile the service's code paths: the first is reported on its
    // own, it and the next nine are warm-up (as for the queries), then 100 are timed.
    const [firstTurnMs] = await timeEach(queries.slice(0, 1), (q) => index.runTurn(q, 1000));
    await timeEach(queries.slice(1, 10), (q) => index.runTurn(q, 1000));
    const timedTurns = queries.slice(10, Math.min(110, queries.length));
    const cpuBefore = process.cpuUsage();
    const turnTimes = await timeEach(timedTurns, (q) => index.runTurn(q, 1000));
    const cpuUsed = process.cpuUsage(cpuBefore);
    // CPU time is what the bundle itself spends; wall time adds waiting for a CPU on a busy machine.
    result.turnCpuMs = (cpuUsed.user + cpuUsed.system) / 1000 / timedTurns.length;
    result.firstTurnMs = firstTurnMs;
    result.queryP50Ms = percentile(rankTimes, 50);
    result.queryP95Ms = percentile(rankTimes, 95);
    result.turnP50Ms = percentile(turnTimes, 50);
    result.turnP95Ms = percentile(turnTimes, 95);
    result.turnsOverAwaitBudget = turnTimes.filter((ms) => ms > awaitTimeoutMs()).length / turnTimes.length;
    // What each turn would add if it checked every file (no folder watch): 20 full checks.
    result.fullCheckP50Ms = percentile(await timeEach(Array.from({ length: 20 }, () => ""), () => index.fullCheck()), 50);
    // Past the hook's refresh interval, so the refresh below really re-reads (untimed wait).
    await new Promise((resolve) => setTimeout(resolve, index.minRefreshIntervalMs + 20));
    touchOneFile(vault);
    const incrementalStart = performance.now();
    await index.refresh();
    result.incrementalMs = performance.now() - incrementalStart;
  }
  await index.flush();
  result.cacheBytes = directoryBytes(cacheDir);
  result.maxRssMB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`scale worker failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
