import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { isAtomicTempName } from "../../src/fs/atomic.ts";
import { LockUnavailableError, lockPathFor, ownerPathFor, readLockOwner, withFileLock } from "../../src/fs/lock.ts";

// Stale threshold of the live-holder test: the holder refreshes its lock every THRESHOLD/2 s, and
// the test attempts right after it has SEEN a refresh, so only a stall of several seconds between
// two statements could make the live lock look stale.
// No test here is bounded by the clock: the append test ends when every worker has written its
// share (workers retry as long as others make progress); the limits below only end a hung run.
const THRESHOLD = 10;
const worker = path.join(path.dirname(fileURLToPath(import.meta.url)), "lock-worker.ts");

/** Every worker this file started: teardown waits for each to exit before removing their folder. */
const started = new Set<ReturnType<typeof startWorker>>();

function startWorker(args: string[]) {
  const worker = spawnWorker(args);
  started.add(worker);
  return worker;
}

function spawnWorker(args: string[]) {
  const child = spawn(process.execPath, ["--import", "tsx", worker, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const printed = (text: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => (stdout.includes(text) ? resolve() : undefined);
      child.stdout.on("data", check);
      child.on("exit", () => (stdout.includes(text) ? resolve() : reject(new Error(`worker exited before "${text}": ${stderr}`))));
      check();
    });
  return { child, exited, printed, output: () => ({ stdout, stderr }) };
}

function leftovers(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.name.endsWith(".lock") || entry.name.endsWith(".lock.owner") || isAtomicTempName(entry.name)) found.push(entry.name);
  }
  return found;
}

let dir: string;
let logLines: string[];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lock-mp-"));
  logLines = [];
  setLogDestination({ write: (line: string) => void logLines.push(line) });
});
afterEach(async () => {
  setLogDestination(undefined);
  // A test that failed early may leave workers writing into `dir`: end them and wait for their exit.
  for (const worker of started) if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill("SIGKILL");
  await Promise.all([...started].map((worker) => worker.exited));
  started.clear();
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

describe("advisory locks across OS processes", () => {
  it(
    "8 processes x 500 appends to MEMORY.md and a daily file: every entry exactly once, nothing left behind",
    async () => {
      const memoryFile = path.join(dir, "MEMORY.md");
      const dailyFile = path.join(dir, "memory", "2026-02-22.md");
      const workers = Array.from({ length: 8 }, (_, id) => startWorker(["append", String(id), "500", memoryFile, dailyFile]));
      const codes = await Promise.all(workers.map((w) => w.exited));
      expect(codes, JSON.stringify(workers.map((w) => w.output().stderr))).toEqual(Array(8).fill(0));

      for (const file of [memoryFile, dailyFile]) {
        const lines = fs.readFileSync(file, "utf8").split("\n");
        expect(lines.pop()).toBe(""); // ends with exactly one newline
        // "files parse": every line is one whole entry, none torn or interleaved
        for (const line of lines) expect(line).toMatch(/^- .*\[w\d-e\d+\] [^[]*$/);
        const ids = lines.map((line) => /\[(w\d-e\d+)\]/.exec(line)![1]);
        expect(ids).toHaveLength(4000);
        expect(new Set(ids).size).toBe(4000);
        for (let w = 0; w < 8; w++) {
          // each worker's own entries appear in the order it wrote them
          const mine = ids.filter((id) => id.startsWith(`w${w}-`)).map((id) => Number(id.split("-e")[1]));
          expect(mine).toEqual(Array.from({ length: 500 }, (_, i) => i));
        }
      }
      expect(leftovers(dir)).toEqual([]);
    },
    30 * 60_000,
  );

  it(
    "a lock left by a killed process blocks until the stale threshold, then is overridden with a warning",
    async () => {
      const target = path.join(dir, "CORRECTIONS.md");
      const holder = startWorker(["hold", target, "3600"]);
      await holder.printed("locked");
      const owner = await readLockOwner(target);
      expect(owner).toMatchObject({ pid: holder.child.pid, agent: "holder" });
      expect(new Date(owner!.timestamp).toISOString()).toBe(owner!.timestamp);
      holder.child.kill("SIGKILL");
      await holder.exited;
      expect(fs.existsSync(lockPathFor(target))).toBe(true); // SIGKILL: no cleanup ran

      // Fresh (seconds old, default threshold 1 h): not stolen, the write is aborted and the holder reported.
      let ran = false;
      const blocked = withFileLock(target, async () => void (ran = true), { retryIntervalSeconds: 0.02, maxRetries: 3 });
      await expect(blocked).rejects.toBeInstanceOf(LockUnavailableError);
      await expect(blocked).rejects.toMatchObject({ attempts: 3, owner: { pid: holder.child.pid, agent: "holder" } });
      expect(ran).toBe(false);

      // Nobody refreshes it any more: once its last refresh is older than the threshold, it is
      // recovered. The lock's age is set on its mtime (what every reader judges by), not waited for.
      const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
      fs.utimesSync(lockPathFor(target), twoHoursAgo, twoHoursAgo);
      const result = await withFileLock(target, async () => {
        expect((await readLockOwner(target))?.pid).toBe(process.pid);
        return "wrote";
      }, { retryIntervalSeconds: 0.02, maxRetries: 3, agentName: "recall-validator" });
      expect(result).toBe("wrote");
      const warning = logLines.map((line) => JSON.parse(line)).find((entry) => /Stale lock detected from holder/.test(entry.msg));
      expect(warning).toMatchObject({ level: 40, ownerPid: holder.child.pid });
      expect(leftovers(dir)).toEqual([]);
    },
    300_000,
  );

  it(
    "a live holder keeps its lock past the threshold (its heartbeat keeps the lock fresh)",
    async () => {
      const target = path.join(dir, "MEMORY.md");
      const holder = startWorker(["hold", target, String(THRESHOLD)]);
      try {
        await holder.printed("locked");
        // Wait until the holder's own refreshes show it has held the lock longer than the threshold
        // (its mtime moved on by more than THRESHOLD), then try at once: the lock is still fresh.
        const lockPath = lockPathFor(target);
        const acquiredAt = fs.statSync(lockPath).mtimeMs;
        await vi.waitFor(() => expect(fs.statSync(lockPath).mtimeMs - acquiredAt).toBeGreaterThan(THRESHOLD * 1000), { timeout: 240_000, interval: 20 });
        await expect(
          withFileLock(target, async () => "stolen", { staleThresholdSeconds: THRESHOLD, retryIntervalSeconds: 0.05, maxRetries: 4 }),
        ).rejects.toBeInstanceOf(LockUnavailableError);
        expect(fs.existsSync(ownerPathFor(target))).toBe(true);
      } finally {
        holder.child.kill("SIGKILL");
        await holder.exited;
      }
    },
    300_000,
  );
});
