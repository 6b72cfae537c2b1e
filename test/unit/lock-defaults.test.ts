import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { LockUnavailableError, lockPathFor, withFileLock } from "../../src/fs/lock.ts";

// The lock defaults (spec 004 §4.1: 5 attempts, 2 s apart, stale after 1 h) shown by behaviour,
// not by reading the defaults object. Held locks are plain lock folders made by the test; their
// age is set on their mtime, and the 2 s pauses between attempts are recorded, not waited for.
//
// Mutations this file kills: LOCK_DEFAULTS.maxRetries changed (→ "gives up after exactly 5
// attempts…"), LOCK_DEFAULTS.retryIntervalSeconds changed (same test), LOCK_DEFAULTS
// .staleThresholdSeconds changed by more than a minute either way (→ the two stale-threshold tests).

let dir: string;
let target: string;
let logLines: string[];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lock-defaults-"));
  target = path.join(dir, "MEMORY.md");
  logLines = [];
  setLogDestination({ write: (line: string) => void logLines.push(line) });
});
afterEach(() => {
  vi.restoreAllMocks();
  setLogDestination(undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Someone else's lock on `target`, last refreshed `ageSeconds` ago. */
function foreignLock(ageSeconds: number): void {
  fs.mkdirSync(lockPathFor(target));
  const when = new Date(Date.now() - ageSeconds * 1000);
  fs.utimesSync(lockPathFor(target), when, when);
}

describe("lock defaults, by behaviour", () => {
  it("gives up after exactly 5 attempts, pausing about 2 s between them, and writes nothing", async () => {
    foreignLock(0);
    // Pauses of a second or more are recorded and skipped; everything else runs on real timers.
    const realSetTimeout = globalThis.setTimeout;
    const pauses: number[] = [];
    vi.spyOn(globalThis, "setTimeout").mockImplementation(((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
      if ((ms ?? 0) >= 1000) {
        pauses.push(ms!);
        return realSetTimeout(callback, 0, ...args);
      }
      return realSetTimeout(callback, ms, ...args);
    }) as typeof setTimeout);
    let ran = false;
    const attempt = withFileLock(target, async () => void (ran = true));
    await expect(attempt).rejects.toBeInstanceOf(LockUnavailableError);
    await expect(attempt).rejects.toMatchObject({ attempts: 5 });
    expect(pauses).toHaveLength(4); // 5 attempts, a pause between each two
    for (const pause of pauses) {
      expect(pause).toBeGreaterThanOrEqual(2000);
      expect(pause).toBeLessThanOrEqual(2500); // up to 25 % jitter
    }
    expect(ran).toBe(false);
    expect(fs.existsSync(target)).toBe(false);
  });

  it("a lock refreshed 59 minutes ago is still held (default stale threshold 1 h)", async () => {
    foreignLock(3600 - 60);
    await expect(withFileLock(target, async () => "stolen", { retryIntervalSeconds: 0.001, maxRetries: 2 })).rejects.toBeInstanceOf(LockUnavailableError);
    expect(logLines.some((line) => line.includes("Stale lock detected"))).toBe(false);
  });

  it("a lock last refreshed 61 minutes ago is stale: overridden, with a warning", async () => {
    foreignLock(3600 + 60);
    await expect(withFileLock(target, async () => "wrote", { retryIntervalSeconds: 0.001, maxRetries: 2 })).resolves.toBe("wrote");
    const warning = logLines.map((line) => JSON.parse(line)).find((entry) => /Stale lock detected/.test(entry.msg));
    expect(warning).toMatchObject({ level: 40 });
    expect(fs.existsSync(lockPathFor(target))).toBe(false); // released afterwards
  });
});
