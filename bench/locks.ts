// Advisory lock and locked-append costs (persistent memory spec §4.1).
//   npx tsx bench/locks.ts [--iterations 300] [--processes 1,2,4,8] [--appends 200] [--mixed-appends 100] [--mixed-paths append,rewrite] [--json]
// The mixed-writer table: our locked appends next to a plain writer that ignores the lock (as
// OpenClaw's own writers do), for today's O_APPEND path and the read-modify-write + rename path it
// replaced. Counts, not times, are the result: what landed, what failed loudly, what was lost.
// Exports measureLocks() for the benchmark runner.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath, pathToFileURL } from "node:url";
import { setLogDestination } from "../src/core/log.ts";
import { withFileLock } from "../src/fs/lock.ts";
import { appendFileLocked, appendText, updateFileLocked } from "../src/fs/locked-writes.ts";
import { markdownTable } from "./lib/table.ts";
import { percentile } from "./lib/metrics.ts";
import { timeAsync } from "./lib/timing.ts";

export type LockTiming = { what: string; n: number; medianUs: number; p99Us: number; perSecond: number };
export type MixedWriterResult = {
  path: string;
  lockedProcesses: number;
  lockedAttempted: number;
  lockedLanded: number;
  /** Appends that threw (the caller knows: not silent). */
  lockedFailed: number;
  /** Reported written but not in the file. */
  lockedLost: number;
  plainWritten: number;
  plainLanded: number;
  plainLost: number;
  /** Blank lines before one of our entries: our separator after a line seen half-written. */
  blankLines: number;
  tornLines: number;
  seconds: number;
};
export type ContentionResult = { processes: number; appendsEach: number; totalAppends: number; seconds: number; appendsPerSecond: number; intact: boolean };

// Contended runs use a short retry interval: the spec's 2 s default measures the sleep, not the lock.
const FAST_RETRY = { retryIntervalSeconds: 0.005, maxRetries: 10_000, agentName: "bench-locks" };
const SELF = fileURLToPath(import.meta.url);
const PLAIN = /^plain \d+$/;
const OURS = /^- \[p\d+-\d+\] benchmark entry$/;
/** A blank line right before one of our entries: our separator after a line seen half-written. */
const isOurBlank = (line: string, i: number, lines: readonly string[]) => line === "" && OURS.test(lines[i + 1] ?? "");

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

type MixedPath = "append" | "rewrite";

function mixedPaths(list: string): MixedPath[] {
  const paths = list.split(",");
  const unknown = paths.filter((p) => p !== "append" && p !== "rewrite");
  if (unknown.length > 0) throw new Error(`--mixed-paths: unknown path ${unknown.join(", ")} (append, rewrite)`);
  return paths as MixedPath[];
}

function spawnWorker(args: string[]) {
  const child = spawn(process.execPath, ["--import", "tsx", SELF, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<string>((resolve, reject) =>
    child.on("exit", (code) => (code === 0 ? resolve(stdout) : reject(new Error(`worker exited ${code}: ${stderr.slice(-500)}`)))),
  );
  return { child, exited, stdout: () => stdout };
}

/**
 * One plain writer (fs.appendFile in a loop, no lock) and `lockedProcesses` processes doing
 * `appendsEach` locked appends each, all on one file; the plain writer stops when they are done.
 */
export async function measureMixedWriters(options: { paths?: MixedPath[]; lockedProcesses?: number; appendsEach?: number } = {}): Promise<MixedWriterResult[]> {
  const results: MixedWriterResult[] = [];
  const lockedProcesses = options.lockedProcesses ?? 2;
  const appendsEach = options.appendsEach ?? 100;
  for (const mode of options.paths ?? ["rewrite", "append"]) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-locks-mixed-"));
    try {
      const file = path.join(dir, "MEMORY.md");
      fs.writeFileSync(file, "# Memory\n");
      const start = process.hrtime.bigint();
      const plain = spawnWorker(["--plain", "--file", file]);
      // The plain writer is running before the locked writers start.
      await new Promise<void>((resolve) => {
        const check = () => (plain.stdout().includes("started") ? resolve() : undefined);
        plain.child.stdout.on("data", check);
        check();
      });
      const locked = Array.from({ length: lockedProcesses }, (_, id) => spawnWorker(["--worker", String(id), "--mode", mode, "--appends", String(appendsEach), "--file", file]));
      const reports = (await Promise.all(locked.map((w) => w.exited))).map((out) => JSON.parse(out.trim().split("\n").pop()!) as { written: string[]; failed: number });
      plain.child.stdin.end("stop\n");
      const plainWritten = Number(/done (\d+)/.exec(await plain.exited)?.[1] ?? 0);
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      // The header and the final newline's empty tail are not lines; every other blank line counts.
      const lines = fs.readFileSync(file, "utf8").split("\n").slice(1, -1);
      const present = new Set(lines);
      const written = reports.flatMap((r) => r.written);
      const plainLanded = Array.from({ length: plainWritten }, (_, i) => `plain ${i}`).filter((line) => present.has(line)).length;
      const lockedLanded = written.filter((line) => present.has(line)).length;
      results.push({
        path: mode === "append" ? "O_APPEND write under the lock (today)" : "read-modify-write + rename under the lock (before)",
        lockedProcesses,
        lockedAttempted: lockedProcesses * appendsEach,
        lockedLanded,
        lockedFailed: reports.reduce((sum, r) => sum + r.failed, 0),
        lockedLost: written.length - lockedLanded,
        plainWritten,
        plainLanded,
        plainLost: plainWritten - plainLanded,
        blankLines: lines.filter(isOurBlank).length,
        tornLines: lines.filter((line, i, all) => !isOurBlank(line, i, all) && !PLAIN.test(line) && !OURS.test(line)).length,
        seconds,
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
    }
  }
  return results;
}

export function mixedWritersTable(rows: readonly MixedWriterResult[]): string {
  return markdownTable(
    ["locked append path", "locked processes", "locked attempted", "landed", "failed (reported)", "lost silently", "plain appends", "plain landed", "plain lost", "blank lines", "torn lines", "wall time"],
    rows.map((r) => [r.path, r.lockedProcesses, r.lockedAttempted, r.lockedLanded, r.lockedFailed, r.lockedLost, r.plainWritten, r.plainLanded, r.plainLost, r.blankLines, r.tornLines, `${r.seconds.toFixed(1)} s`]),
  );
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

async function worker(id: string, appends: number, file: string, mode: string | undefined): Promise<void> {
  if (mode === undefined) {
    for (let i = 0; i < appends; i++) await appendFileLocked(file, `- [p${id}-${i}] benchmark entry`, FAST_RETRY);
    return;
  }
  // Mixed-writer run: report what was written and how many appends failed (threw).
  const written: string[] = [];
  let failed = 0;
  for (let i = 0; i < appends; i++) {
    const line = `- [p${id}-${i}] benchmark entry`;
    try {
      if (mode === "rewrite") await updateFileLocked(file, (current) => appendText(current, line), FAST_RETRY);
      else await appendFileLocked(file, line, FAST_RETRY);
      written.push(line);
    } catch {
      failed += 1;
    }
  }
  process.stdout.write(`${JSON.stringify({ written, failed })}\n`);
}

/** A writer that ignores our lock (fs.appendFile, like OpenClaw's own), until stdin says stop. */
async function plainWriter(file: string): Promise<void> {
  let stop = false;
  process.stdin.on("data", (chunk) => (stop ||= String(chunk).includes("stop")));
  let n = 0;
  while (!stop) {
    await fs.promises.appendFile(file, `plain ${n}\n`);
    n += 1;
    if (n === 1) process.stdout.write("started\n");
    await new Promise((resolve) => setImmediate(resolve));
  }
  process.stdout.write(`done ${n}\n`);
  process.stdin.destroy();
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      worker: { type: "string" },
      mode: { type: "string" },
      plain: { type: "boolean" },
      "mixed-appends": { type: "string" },
      "mixed-paths": { type: "string" },
      file: { type: "string" },
      appends: { type: "string" },
      iterations: { type: "string" },
      processes: { type: "string" },
      json: { type: "boolean" },
    },
  });
  if (values.plain) return plainWriter(values.file!);
  if (values.worker !== undefined) return worker(values.worker, Number(values.appends ?? 200), values.file!, values.mode);
  const uncontended = await measureUncontended({ iterations: values.iterations ? Number(values.iterations) : undefined });
  const contention = await measureContention({
    processes: values.processes ? values.processes.split(",").map(Number) : undefined,
    appendsEach: values.appends ? Number(values.appends) : undefined,
  });
  const mixed = await measureMixedWriters({
    appendsEach: values["mixed-appends"] ? Number(values["mixed-appends"]) : undefined,
    paths: values["mixed-paths"] ? mixedPaths(values["mixed-paths"]) : undefined,
  });
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ uncontended, contention, mixed }, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    `### Advisory locks and locked appends (Node ${process.version}, ${os.cpus().length} CPUs, ${os.tmpdir()})\n\n${locksTables(uncontended, contention)}\n\n` +
      `#### Locked appends next to a plain writer that ignores the lock\n\n${mixedWritersTable(mixed)}\n`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
