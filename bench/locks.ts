// Advisory lock and locked-append costs (persistent memory spec §4.1).
//   npx tsx bench/locks.ts [--iterations 300] [--processes 1,2,4,8] [--appends 200] [--json]
// Exports measureLocks() for the benchmark runner.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath, pathToFileURL } from "node:url";
import { setLogDestination } from "../src/core/log.ts";
import { appendFileLocked, withFileLock } from "../src/fs/lock.ts";
import { markdownTable } from "./lib/table.ts";
import { percentile } from "./lib/metrics.ts";
import { timeAsync } from "./lib/timing.ts";

export type LockTiming = { what: string; n: number; medianUs: number; p99Us: number; perSecond: number };
export type ContentionResult = { processes: number; appendsEach: number; totalAppends: number; seconds: number; appendsPerSecond: number; intact: boolean };

// Contended runs use a short retry interval: the spec's 2 s default measures the sleep, not the lock.
const FAST_RETRY = { retryIntervalSeconds: 0.005, maxRetries: 10_000, agentName: "bench-locks" };
const SELF = fileURLToPath(import.meta.url);

function summarise(what: string, samples: number[]): LockTiming {
  const total = samples.reduce((a, b) => a + b, 0);
  return { what, n: samples.length, medianUs: percentile(samples, 50), p99Us: percentile(samples, 99), perSecond: samples.length / (total / 1e6) };
}

/** One process: uncontended lock round trips and appends to files of different sizes. */
export async function measureUncontended(options: { iterations?: number } = {}): Promise<LockTiming[]> {
  const n = options.iterations ?? 300;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-locks-"));
  setLogDestination({ write: () => undefined });
  try {
    const target = path.join(dir, "MEMORY.md");
    const results = [summarise("withFileLock acquire + release (no write)", await timeAsync(n, () => withFileLock(target, async () => undefined)))];
    results.push(summarise("appendFileLocked, file grows from 0", await timeAsync(n, (i) => appendFileLocked(target, `- entry ${i} lorem ipsum dolor sit amet`))));
    const big = path.join(dir, "big.md");
    fs.writeFileSync(big, "- existing memory entry with some words in it\n".repeat(Math.ceil(200_000 / 46)));
    results.push(summarise("appendFileLocked to a 200 kB file", await timeAsync(n, (i) => appendFileLocked(big, `- entry ${i}`))));
    return results;
  } finally {
    setLogDestination(undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function runWorker(file: string, id: number, count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", SELF, "--worker", String(id), "--appends", String(count), "--file", file], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`worker ${id} exited ${code}: ${stderr.slice(-500)}`))));
  });
}

/** N OS processes appending to the same file at once. */
export async function measureContention(options: { processes?: number[]; appendsEach?: number } = {}): Promise<ContentionResult[]> {
  const results: ContentionResult[] = [];
  for (const processes of options.processes ?? [1, 2, 4, 8]) {
    const appendsEach = options.appendsEach ?? 200;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-locks-mp-"));
    try {
      const file = path.join(dir, "MEMORY.md");
      const start = process.hrtime.bigint();
      await Promise.all(Array.from({ length: processes }, (_, id) => runWorker(file, id, appendsEach)));
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const lines = fs.readFileSync(file, "utf8").trim().split("\n");
      const intact = lines.length === processes * appendsEach && new Set(lines).size === lines.length && fs.readdirSync(dir).length === 1;
      results.push({ processes, appendsEach, totalAppends: processes * appendsEach, seconds, appendsPerSecond: (processes * appendsEach) / seconds, intact });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  return results;
}

export function locksTables(uncontended: readonly LockTiming[], contention: readonly ContentionResult[]): string {
  const us = (v: number) => (v >= 1000 ? `${(v / 1000).toFixed(2)} ms` : `${v.toFixed(0)} µs`);
  return [
    markdownTable(["operation (one process)", "n", "p50", "p99", "ops/s"], uncontended.map((r) => [r.what, r.n, us(r.medianUs), us(r.p99Us), r.perSecond.toFixed(0)])),
    "",
    markdownTable(
      ["processes", "appends each", "total", "wall time", "appends/s", "every entry once, no leftovers"],
      contention.map((r) => [r.processes, r.appendsEach, r.totalAppends, `${r.seconds.toFixed(2)} s`, r.appendsPerSecond.toFixed(0), r.intact ? "yes" : "NO"]),
    ),
  ].join("\n");
}

async function worker(id: string, appends: number, file: string): Promise<void> {
  for (let i = 0; i < appends; i++) await appendFileLocked(file, `- [p${id}-${i}] benchmark entry`, FAST_RETRY);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      worker: { type: "string" },
      file: { type: "string" },
      appends: { type: "string" },
      iterations: { type: "string" },
      processes: { type: "string" },
      json: { type: "boolean" },
    },
  });
  if (values.worker !== undefined) return worker(values.worker, Number(values.appends ?? 200), values.file!);
  const uncontended = await measureUncontended({ iterations: values.iterations ? Number(values.iterations) : undefined });
  const contention = await measureContention({
    processes: values.processes ? values.processes.split(",").map(Number) : undefined,
    appendsEach: values.appends ? Number(values.appends) : undefined,
  });
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ uncontended, contention }, null, 2)}\n`);
    return;
  }
  process.stdout.write(`### Advisory locks and locked appends (Node ${process.version}, ${os.cpus().length} CPUs, ${os.tmpdir()})\n\n${locksTables(uncontended, contention)}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
