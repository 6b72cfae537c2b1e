// Scale benchmark: synthetic vaults of growing size, each measured in fresh child processes
// (cold build + queries + incremental update, then a warm start from the on-disk cache).
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describeGrowth, logLogSlope } from "../lib/metrics.ts";
import { REPO_ROOT } from "../lib/paths.ts";
import { markdownTable } from "../lib/table.ts";
import { INDEX_KINDS, awaitTimeoutMs, bundleChunkCounter } from "../lib/bundle.ts";
import type { IndexKind } from "../lib/bundle.ts";
import { generateVault } from "./vault.ts";
import type { WorkerResult } from "./worker.ts";

const run = promisify(execFile);
const WORKER = path.join(REPO_ROOT, "bench", "scale", "worker.ts");
/** The Node that runs the workers: this one, or the gateway's (`OPENCLAW_CONTEXT_BENCH_NODE=/path/to/node`). */
export const WORKER_NODE = process.env.OPENCLAW_CONTEXT_BENCH_NODE || process.execPath;
const WORKER_TIMEOUT_MS = 8 * 60_000;

export type ScaleRow = {
  /** Which index: the bundle's compact index, or the MiniSearch index it replaced. */
  index: IndexKind;
  /** Target chunk count of the vault (1k, 10k, 100k), in the bundle chunker's chunks. */
  targetChunks: number;
  generatedSections: number;
  files: number;
  vaultMB: number;
  cold: WorkerResult;
  warm: WorkerResult;
  buildMBps: number;
};

export type ScaleFit = { metric: string; slope: number; r2: number; reading: string };

async function runWorker(vault: string, cache: string, phase: string, queries: number, index: IndexKind = "compact"): Promise<WorkerResult> {
  const { stdout } = await run(WORKER_NODE, ["--import", "tsx", WORKER, "--vault", vault, "--cache", cache, "--phase", phase, "--queries", String(queries), "--index", index], {
    cwd: REPO_ROOT,
    timeout: WORKER_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
    env: { ...process.env, OPENCLAW_CONTEXT_LOG_LEVEL: "error" },
  });
  const line = stdout.trim().split("\n").pop() ?? "";
  return JSON.parse(line) as WorkerResult;
}

export type ScaleResults = { rows: ScaleRow[]; fits: ScaleFit[]; emptyWorkerRssMB: number; markdown: string };

export async function runScale(options: { sizes: number[]; queries: number; indexes?: readonly IndexKind[]; log: (line: string) => void }): Promise<ScaleResults> {
  const indexes = options.indexes ?? INDEX_KINDS;
  const loadAtStart = os.loadavg()[0];
  const rows: ScaleRow[] = [];
  const emptyRoot = fs.mkdtempSync(path.join(os.tmpdir(), "occ-bench-scale-empty-"));
  let emptyWorkerRssMB: number;
  try {
    emptyWorkerRssMB = (await runWorker(emptyRoot, path.join(emptyRoot, "cache"), "empty", 0)).maxRssMB;
  } finally {
    fs.rmSync(emptyRoot, { recursive: true, force: true });
  }
  for (const size of options.sizes) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), `occ-bench-scale-${size}-`));
    try {
      const vaultDir = path.join(root, "workspace");
      const info = generateVault(vaultDir, size, 42, bundleChunkCounter);
      const vaultMB = info.bytes / 1024 / 1024;
      for (const index of indexes) {
        // Each index gets its own cache folder and sees the vault as generated (the cold phase
        // appends one section; the next index's cold build then reads that too, a 0.05% change).
        const cacheDir = path.join(root, `cache-${index}`);
        const cold = await runWorker(vaultDir, cacheDir, "cold", options.queries, index);
        const warm = await runWorker(vaultDir, cacheDir, "warm-start", options.queries, index);
        rows.push({ index, targetChunks: size, generatedSections: info.sections, files: info.files, vaultMB, cold, warm, buildMBps: vaultMB / (cold.openMs / 1000) });
        options.log(`scale: ${size} chunks, ${index} index done (cold build ${(cold.openMs / 1000).toFixed(2)} s)`);
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
  const fit = (metric: string, value: (row: ScaleRow) => number | undefined): ScaleFit => {
    const compact = rows.filter((row) => row.index === "compact");
    const { slope, r2 } = logLogSlope(compact.map((row) => ({ x: row.targetChunks, y: value(row) ?? 0 })));
    return { metric, slope, r2, reading: describeGrowth(slope) };
  };
  // Growth of the bundle's (compact) index.
  const fits = [
    fit("cold build time", (r) => r.cold.openMs),
    fit("warm start (load cache)", (r) => r.warm.openMs),
    fit("query p50", (r) => r.cold.queryP50Ms),
    fit("pipeline turn p50", (r) => r.cold.turnP50Ms),
    fit("incremental update", (r) => r.cold.incrementalMs),
    fit("cache size", (r) => r.cold.cacheBytes),
    fit("peak RSS above an empty worker", (r) => r.cold.maxRssMB - emptyWorkerRssMB),
  ];
  const workerNode = (await run(WORKER_NODE, ["--version"])).stdout.trim();
  const load = `${loadAtStart.toFixed(1)} at start, ${os.loadavg()[0].toFixed(1)} at the end, on ${os.cpus().length} CPUs; workers ran on Node ${workerNode}`;
  return { rows, fits, emptyWorkerRssMB, markdown: renderScale(rows, fits, emptyWorkerRssMB, load) };
}

const ms = (value: number | undefined) => (value === undefined ? "n/a" : value < 10 ? value.toFixed(2) : value.toFixed(0));

export function renderScale(rows: readonly ScaleRow[], fits: readonly ScaleFit[], emptyWorkerRssMB: number, loadAverage?: string): string {
  const out: string[] = [
    "### Latency and scale (synthetic vaults, seed 42)",
    "",
    `Times in ms. "legacy" = the MiniSearch index the bundle used before, "compact" = today's index, same vaults, same run. "query" = retriever search (top 10), after 10 warm-up queries; "turn" = the whole pipeline for one message, as a gateway turn runs it (the index checks for changed files first), after 10 warm-up turns; "turn CPU" = the process's CPU time per timed turn (the bundle's own cost; wall time adds waiting for a CPU); "first turn" = the process's first, code not yet compiled; "full file check" = one check of every memory file for changes (p50 of 20), what each turn paid before the folder watch and still pays where no watch is possible; "turns over the wait" = turns slower than the ${awaitTimeoutMs()} ms agent:bootstrap waits (they would inject nothing); "longest stall" = the longest the event loop was held at once while the index was built (cold) or loaded (warm) and its cache written, counting a timer's late firing only as far as the process used CPU meanwhile (on a busy machine a late timer may just be a process waiting for a CPU; the JSON results also keep the wall-clock gap). "RSS added" = peak RSS above an empty worker (Node + tsx + the bundle's modules, ${emptyWorkerRssMB.toFixed(0)} MB).${loadAverage ? ` Machine load (1-minute average): ${loadAverage}; timings of a busy machine are slower, RSS is not.` : ""}`,
    "",
  ];
  out.push(
    markdownTable(
      ["target chunks", "index", "bundle chunks", "files", "vault MB", "RSS added MB (cold / warm)", "query p50", "query p95", "first turn", "turn p50", "turn p95", "turn CPU (mean)", "turns over the wait", "full file check", "warm start", "cold build", "build MB/s", "longest stall (cold / warm)", "incremental update", "cache MB"],
      rows.map((r) => [
        r.targetChunks,
        r.index,
        r.cold.chunks,
        r.files,
        r.vaultMB.toFixed(1),
        `${(r.cold.maxRssMB - emptyWorkerRssMB).toFixed(0)} / ${(r.warm.maxRssMB - emptyWorkerRssMB).toFixed(0)}`,
        ms(r.cold.queryP50Ms),
        ms(r.cold.queryP95Ms),
        ms(r.cold.firstTurnMs),
        ms(r.cold.turnP50Ms),
        ms(r.cold.turnP95Ms),
        ms(r.cold.turnCpuMs),
        r.cold.turnsOverAwaitBudget === undefined ? "n/a" : `${(r.cold.turnsOverAwaitBudget * 100).toFixed(0)}%`,
        ms(r.cold.fullCheckP50Ms),
        ms(r.warm.openMs),
        ms(r.cold.openMs),
        r.buildMBps.toFixed(2),
        `${ms(r.cold.maxStallMs)} / ${ms(r.warm.maxStallMs)}`,
        ms(r.cold.incrementalMs),
        (r.cold.cacheBytes / 1024 / 1024).toFixed(1),
      ]),
    ),
  );
  out.push("");
  out.push("Growth fit of the compact index: least squares of log(cost) on log(chunks); slope 1 = linear.");
  out.push("");
  out.push(markdownTable(["metric", "log-log slope", "R²", "reading"], fits.map((f) => [f.metric, Number.isFinite(f.slope) ? f.slope.toFixed(2) : "n/a", Number.isFinite(f.r2) ? f.r2.toFixed(3) : "n/a", f.reading])));
  return out.join("\n");
}
