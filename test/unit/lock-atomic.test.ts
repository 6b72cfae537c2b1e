import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { contentHash, isAtomicTempName, writeFileAtomic } from "../../src/fs/atomic.ts";
import { LockUnavailableError, lockPathFor, ownerPathFor, parseOwner, readLockOwner, withFileLock } from "../../src/fs/lock.ts";
import { ContentChangedError, appendFileLocked, appendText, updateFileLocked } from "../../src/fs/locked-writes.ts";

const fast = { retryIntervalSeconds: 0.01, maxRetries: 3 };
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lock-unit-"));
  setLogDestination({ write: () => undefined });
});
afterEach(() => {
  setLogDestination(undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});
const names = () => fs.readdirSync(dir, { recursive: true }).map(String).sort();

describe("writeFileAtomic", () => {
  it("creates parent directories and replaces content without leaving temp files", async () => {
    const file = path.join(dir, "memory", "2026-02-22.md");
    await writeFileAtomic(file, "one\n");
    await writeFileAtomic(file, "two\n");
    expect(fs.readFileSync(file, "utf8")).toBe("two\n");
    expect(names()).toEqual(["memory", path.join("memory", "2026-02-22.md")]);
  });

  it("keeps the old content and removes the temp file when the commit check fails", async () => {
    const file = path.join(dir, "MEMORY.md");
    fs.writeFileSync(file, "old\n");
    await expect(writeFileAtomic(file, "new\n", { beforeCommit: async () => { throw new Error("veto"); } })).rejects.toThrow("veto");
    expect(fs.readFileSync(file, "utf8")).toBe("old\n");
    expect(names().filter(isAtomicTempName)).toEqual([]);
    expect(names()).toEqual(["MEMORY.md"]);
  });

  it("keeps an existing file's mode", async () => {
    const file = path.join(dir, "USER.md");
    fs.writeFileSync(file, "x", { mode: 0o600 });
    fs.chmodSync(file, 0o600);
    await writeFileAtomic(file, "y");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe("withFileLock", () => {
  it("records PID, agent and ISO timestamp while held and cleans up afterwards", async () => {
    const file = path.join(dir, "MEMORY.md");
    const seen = await withFileLock(file, async () => {
      expect(fs.statSync(lockPathFor(file)).isDirectory()).toBe(true);
      return readLockOwner(file);
    }, { agentName: "memory-miner" });
    expect(seen).toMatchObject({ pid: process.pid, agent: "memory-miner" });
    expect(seen!.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(fs.existsSync(lockPathFor(file))).toBe(false);
    expect(fs.existsSync(ownerPathFor(file))).toBe(false);
  });

  it("releases in finally when the write throws", async () => {
    const file = path.join(dir, "CORRECTIONS.md");
    await expect(withFileLock(file, async () => { throw new Error("disk full"); })).rejects.toThrow("disk full");
    expect(names()).toEqual([]);
    await expect(withFileLock(file, async () => "again", fast)).resolves.toBe("again");
  });

  it("aborts without running the write when another holder keeps the lock", async () => {
    const file = path.join(dir, "MEMORY.md");
    fs.mkdirSync(lockPathFor(file)); // a fresh foreign lock (e.g. another tool using proper-lockfile)
    let ran = false;
    const attempt = withFileLock(file, async () => void (ran = true), fast);
    await expect(attempt).rejects.toBeInstanceOf(LockUnavailableError);
    await expect(attempt).rejects.toMatchObject({ attempts: 3, code: "ELOCKUNAVAILABLE" });
    expect(ran).toBe(false);
    expect(fs.existsSync(lockPathFor(file))).toBe(true); // not stolen
  });

  it("serialises callers inside one process without spending lock retries", async () => {
    const file = path.join(dir, "MEMORY.md");
    const order: string[] = [];
    // maxRetries 1: a second caller spinning on the on-disk lock would fail at once.
    await Promise.all(
      ["a", "b", "c", "d"].map((name) =>
        withFileLock(file, async () => {
          order.push(`${name}:in`);
          await new Promise((resolve) => setTimeout(resolve, 5));
          order.push(`${name}:out`);
        }, { maxRetries: 1, retryIntervalSeconds: 0.001 }),
      ),
    );
    expect(order).toEqual(["a:in", "a:out", "b:in", "b:out", "c:in", "c:out", "d:in", "d:out"]);
  });

  it("keeps separate files independent", async () => {
    const memory = path.join(dir, "MEMORY.md");
    const corrections = path.join(dir, "CORRECTIONS.md");
    const inner = await withFileLock(memory, async () => withFileLock(corrections, async () => "both held", fast), fast);
    expect(inner).toBe("both held");
  });

  it("parses the owner sidecar format of spec §4.1", () => {
    expect(parseOwner("PID: 42\nAGENT: soul-keeper\nTIMESTAMP: 2026-02-22T02:30:00.000Z\n")).toEqual({
      pid: 42, agent: "soul-keeper", timestamp: "2026-02-22T02:30:00.000Z", host: undefined, token: undefined,
    });
    expect(parseOwner("garbage")).toBeNull();
  });
});

describe("locked appends and read-modify-write", () => {
  it("appends with exactly one newline between entries", () => {
    expect(appendText("", "a")).toBe("a\n");
    expect(appendText("a\n", "b")).toBe("a\nb\n");
    expect(appendText("a", "b\n")).toBe("a\nb\n");
  });

  it("skipIfPresent makes a retried append idempotent", async () => {
    const file = path.join(dir, "MEMORY.md");
    expect((await appendFileLocked(file, "- fact one", { skipIfPresent: true })).written).toBe(true);
    expect((await appendFileLocked(file, "- fact one", { skipIfPresent: true })).written).toBe(false);
    expect(fs.readFileSync(file, "utf8")).toBe("- fact one\n");
  });

  it("an entry decided under the lock: sees the file as it is, null appends nothing, a separator when needed", async () => {
    const file = path.join(dir, "MEMORY.md");
    fs.writeFileSync(file, "- by hand, no newline");
    const seen: string[] = [];
    const once = (current: string) => (seen.push(current), current.includes("- decided") ? null : "- decided");
    const results = await Promise.all([appendFileLocked(file, once), appendFileLocked(file, once)]);
    expect(results.map((r) => r.written)).toEqual([true, false]);
    expect(seen).toEqual(["- by hand, no newline", "- by hand, no newline\n- decided\n"]);
    expect(fs.readFileSync(file, "utf8")).toBe("- by hand, no newline\n- decided\n");
  });

  it("redoes the append when an unlocked writer changes the file mid-write, keeping their edit", async () => {
    const file = path.join(dir, "MEMORY.md");
    fs.writeFileSync(file, "- original\n");
    let calls = 0;
    const result = await updateFileLocked(file, (current) => {
      calls++;
      // Simulates the agent's edit tool (which does not take our lock) writing right now.
      if (calls === 1) fs.writeFileSync(file, `${current}- edited by agent\n`);
      return appendText(current, "- ours");
    });
    expect(result).toMatchObject({ written: true, conflicts: 1 });
    expect(calls).toBe(2);
    expect(fs.readFileSync(file, "utf8")).toBe("- original\n- edited by agent\n- ours\n");
    expect(names()).toEqual(["MEMORY.md"]);
  });

  it("gives up after maxConflictRetries when the file keeps changing", async () => {
    const file = path.join(dir, "MEMORY.md");
    fs.writeFileSync(file, "start\n");
    let n = 0;
    await expect(
      updateFileLocked(file, (current) => {
        fs.writeFileSync(file, `${current}external ${n++}\n`);
        return `${current}ours\n`;
      }, { maxConflictRetries: 2 }),
    ).rejects.toMatchObject({ code: "ECONCURRENTEDIT" });
    expect(n).toBe(3);
    expect(fs.readFileSync(file, "utf8")).not.toContain("ours");
  });

  it("compare-and-swap: expectedHash mismatch aborts the write", async () => {
    const file = path.join(dir, "MEMORY.md");
    fs.writeFileSync(file, "v1\n");
    const seen = contentHash("v1\n");
    fs.writeFileSync(file, "v2\n");
    const attempt = updateFileLocked(file, () => "v3\n", { expectedHash: seen });
    await expect(attempt).rejects.toBeInstanceOf(ContentChangedError);
    expect(fs.readFileSync(file, "utf8")).toBe("v2\n");
    const ok = await updateFileLocked(file, () => "v3\n", { expectedHash: contentHash("v2\n") });
    expect(ok).toMatchObject({ written: true, hashAfter: contentHash("v3\n") });
  });
});

describe("interop with spec-format lock files (operator shell scripts)", () => {
  const specLock = (pid: number, at: Date) => `PID: ${pid}\nAGENT: backup.sh\nTIMESTAMP: ${at.toISOString()}\n`;

  it("a fresh PID/AGENT/TIMESTAMP lock file is honoured and its owner reported", async () => {
    const file = path.join(dir, "MEMORY.md");
    fs.writeFileSync(lockPathFor(file), specLock(4242, new Date()));
    const attempt = withFileLock(file, async () => "no", fast);
    await expect(attempt).rejects.toMatchObject({ code: "ELOCKUNAVAILABLE", owner: { pid: 4242, agent: "backup.sh" } });
    expect(fs.readFileSync(lockPathFor(file), "utf8")).toContain("PID: 4242");
  });

  it("a lock file whose TIMESTAMP is older than the threshold is overridden with a warning", async () => {
    const lines: string[] = [];
    setLogDestination({ write: (line: string) => void lines.push(line) });
    const file = path.join(dir, "MEMORY.md");
    fs.writeFileSync(lockPathFor(file), specLock(4242, new Date(Date.now() - 2 * 3600_000)));
    await expect(withFileLock(file, async () => "yes", fast)).resolves.toBe("yes");
    expect(lines.some((l) => l.includes("Stale lock detected from backup.sh"))).toBe(true);
    expect(names()).toEqual([]);
  });
});
