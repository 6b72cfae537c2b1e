import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { isAtomicTempName } from "../../src/fs/atomic.ts";
import { LockUnavailableError, lockPathFor, ownerPathFor, readLockOwner, withFileLock } from "../../src/fs/lock.ts";

// Small enough to keep the tests short, large enough that a loaded CI machine's timer delays
// (the holder refreshes its lock every THRESHOLD/2 s) cannot make a live lock look stale.
const THRESHOLD = 4;
const worker = path.join(path.dirname(fileURLToPath(import.meta.url)), "lock-worker.ts");

function startWorker(args: string[]) {
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
afterEach(() => {
  setLogDestination(undefined);
  fs.rmSync(dir, { recursive: true, force: true });
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
    300_000,
  );

  it(
    "a lock left by a killed process blocks until the stale threshold, then is overridden with a warning",
    async () => {
      const target = path.join(dir, "CORRECTIONS.md");
      const holder = startWorker(["hold", target, String(THRESHOLD)]);
      await holder.printed("locked");
      const owner = await readLockOwner(target);
      expect(owner).toMatchObject({ pid: holder.child.pid, agent: "holder" });
      expect(new Date(owner!.timestamp).toISOString()).toBe(owner!.timestamp);
      holder.child.kill("SIGKILL");
      await holder.exited;
      expect(fs.existsSync(lockPathFor(target))).toBe(true); // SIGKILL: no cleanup ran

      // Fresh (younger than the threshold): not stolen, the write is aborted and the holder reported.
      let ran = false;
      const blocked = withFileLock(target, async () => void (ran = true), { staleThresholdSeconds: THRESHOLD, retryIntervalSeconds: 0.02, maxRetries: 3 });
      await expect(blocked).rejects.toBeInstanceOf(LockUnavailableError);
      await expect(blocked).rejects.toMatchObject({ attempts: 3, owner: { pid: holder.child.pid, agent: "holder" } });
      expect(ran).toBe(false);

      // After the threshold: recovered. (proper-lockfile may date a new lock up to 1 s ahead, so wait threshold + 1 s.)
      await new Promise((resolve) => setTimeout(resolve, THRESHOLD * 1000 + 1200));
      const result = await withFileLock(target, async () => {
        expect((await readLockOwner(target))?.pid).toBe(process.pid);
        return "wrote";
      }, { staleThresholdSeconds: THRESHOLD, retryIntervalSeconds: 0.02, maxRetries: 3, agentName: "recall-validator" });
      expect(result).toBe("wrote");
      const warning = logLines.map((line) => JSON.parse(line)).find((entry) => /Stale lock detected from holder/.test(entry.msg));
      expect(warning).toMatchObject({ level: 40, ownerPid: holder.child.pid });
      expect(leftovers(dir)).toEqual([]);
    },
    30_000,
  );

  it(
    "a live holder keeps its lock past the threshold (its heartbeat keeps the lock fresh)",
    async () => {
      const target = path.join(dir, "MEMORY.md");
      const holder = startWorker(["hold", target, String(THRESHOLD)]);
      try {
        await holder.printed("locked");
        // Past the threshold: the holder refreshes every THRESHOLD/2 s, so its lock stays fresh.
        await new Promise((resolve) => setTimeout(resolve, THRESHOLD * 1000 + 1500));
        await expect(
          withFileLock(target, async () => "stolen", { staleThresholdSeconds: THRESHOLD, retryIntervalSeconds: 0.05, maxRetries: 4 }),
        ).rejects.toBeInstanceOf(LockUnavailableError);
        expect(fs.existsSync(ownerPathFor(target))).toBe(true);
      } finally {
        holder.child.kill("SIGKILL");
        await holder.exited;
      }
    },
    30_000,
  );
});
