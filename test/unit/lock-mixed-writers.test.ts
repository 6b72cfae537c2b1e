import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { appendFileLocked } from "../../src/fs/lock.ts";

// Issue 20: a writer that ignores our lock appends to the same memory file (as OpenClaw's own
// writers do). Nothing may be lost and our appends must make progress. Bounded by counts: the
// plain writer is made to write between our appends (we wait for its progress reports, not for
// time), and the test ends when both writers have done their share.

const appender = path.join(path.dirname(fileURLToPath(import.meta.url)), "plain-appender.ts");
/** Progress, not a clock, bounds the attempts: a busy machine only makes them slower. */
const PATIENT = { retryIntervalSeconds: 0.005, maxRetries: Number.MAX_SAFE_INTEGER, agentName: "mixed-test" };
const LOCKED = 300;

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lock-mixed-"));
  setLogDestination({ write: () => undefined });
});
afterEach(() => {
  setLogDestination(undefined);
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
});

function startPlainWriter(file: string) {
  const child = spawn(process.execPath, ["--import", "tsx", appender, file], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let wrote = 0;
  const listeners = new Set<() => void>();
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
    for (const match of String(chunk).matchAll(/wrote (\d+)/g)) wrote = Math.max(wrote, Number(match[1]));
    for (const listener of listeners) listener();
  });
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  /** Resolves once the writer has written more than `count` lines (it reports every 10). */
  const passed = (count: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (wrote > count) (listeners.delete(check), resolve());
      };
      listeners.add(check);
      void exited.then(() => reject(new Error(`plain writer exited early: ${stderr}`)));
      check();
    });
  const stop = async () => {
    child.stdin.end("stop\n");
    await exited;
    return Number(/done (\d+)/.exec(stdout)?.[1] ?? Number.NaN);
  };
  return { passed, stop, written: () => wrote, stderr: () => stderr };
}

describe("locked appends next to a plain (unlocked) appender", () => {
  it(
    "every line of both writers lands exactly once, intact, and every locked append succeeds",
    async () => {
      const file = path.join(dir, "MEMORY.md");
      fs.writeFileSync(file, "# Memory\n");
      const plain = startPlainWriter(file);
      await plain.passed(0);
      const results = [];
      for (let i = 0; i < LOCKED; i++) {
        // Every 25 appends, wait until the plain writer has written more: the writes interleave.
        if (i % 25 === 0) await plain.passed(plain.written());
        results.push(await appendFileLocked(file, `- [l${i}] locked entry`, PATIENT));
      }
      const plainCount = await plain.stop();
      expect(plainCount, plain.stderr()).toBeGreaterThan(LOCKED / 25);

      expect(results.every((result) => result.written)).toBe(true);
      const lines = fs.readFileSync(file, "utf8").split("\n");
      expect(lines.shift()).toBe("# Memory");
      expect(lines.pop()).toBe("");
      const plainIds: number[] = [];
      const lockedIds: number[] = [];
      for (const line of lines) {
        const match = /^(?:plain (\d+)|- \[l(\d+)\] locked entry)$/.exec(line);
        expect(match, `torn or merged line: ${JSON.stringify(line)}`).not.toBeNull();
        if (match![1] !== undefined) plainIds.push(Number(match![1]));
        else lockedIds.push(Number(match![2]));
      }
      // Nothing lost, nothing twice, each writer's lines in its own order.
      expect(lockedIds).toEqual(Array.from({ length: LOCKED }, (_, i) => i));
      expect(plainIds).toEqual(Array.from({ length: plainCount }, (_, i) => i));
      // And they really were interleaved: plain lines sit between the first and last locked entry.
      const first = lines.indexOf("- [l0] locked entry");
      const last = lines.indexOf(`- [l${LOCKED - 1}] locked entry`);
      expect(lines.slice(first, last).filter((line) => line.startsWith("plain")).length).toBeGreaterThan(0);
    },
    // Generous: bounded by the counts above, not by the clock.
    30 * 60_000,
  );
});
