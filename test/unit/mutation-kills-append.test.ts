import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { applyConfidenceGate } from "../../src/context/gate.ts";
import { contentHash, MAX_LOCKED_FILE_BYTES } from "../../src/fs/atomic.ts";
import { withFileLock } from "../../src/fs/lock.ts";
import { appendFileLocked, ContentChangedError, updateFileLocked } from "../../src/fs/locked-writes.ts";

// Behaviour the mutation run (`npm run mutation`) showed no test pinned down in the code added after
// the first mutation work: lock.ts's O_APPEND append path, its refusals, the conflict back-off and the
// in-process queue; gate.ts's budget fill floor and tiers at their boundaries.

type LogEntry = { level: number; msg: string; [field: string]: unknown };
let logged: LogEntry[];
let dir: string;
beforeEach(() => {
  logged = [];
  setLogDestination({ write: (line: string) => void logged.push(JSON.parse(line) as LogEntry) });
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "oc-append-")));
});
afterEach(() => {
  vi.restoreAllMocks();
  setLogDestination(undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

const fast = { retryIntervalSeconds: 0.01, maxRetries: 2 };
const read = (file: string) => fs.readFileSync(file, "utf8");
const warnings = () => logged.filter((entry) => entry.level === 40);
/** Paths this process still has a descriptor open on (Linux /proc). */
const openPaths = () =>
  fs.readdirSync("/proc/self/fd").flatMap((fd) => {
    try {
      return [fs.readlinkSync(path.join("/proc/self/fd", fd))];
    } catch {
      return [];
    }
  });

describe("lock.ts: locked appends land once, on their own line", () => {
  it("adds a newline only where the file lacks one, never a blank line", async () => {
    const cases: Array<[string | null, string, string]> = [
      [null, "b", "b\n"],
      ["", "b", "b\n"],
      ["a\n", "b", "a\nb\n"],
      ["a", "b", "a\nb\n"],
      ["a\n", "c\n", "a\nc\n"],
    ];
    for (const [index, [before, entry, after]] of cases.entries()) {
      const file = path.join(dir, `case-${index}.md`);
      if (before !== null) fs.writeFileSync(file, before);
      const result = await appendFileLocked(file, entry, fast);
      expect(read(file)).toBe(after);
      // What was appended (separator included) and the file right after it, for a caller's index.
      const { dev, ino, mtimeMs, ctimeMs } = fs.statSync(file);
      const appended = { text: after.slice((before ?? "").length), dev, ino, size: Buffer.byteLength(after), mtimeMs, ctimeMs };
      expect(result).toEqual({ written: true, hashBefore: contentHash(before ?? ""), hashAfter: contentHash(after), conflicts: 0, appended });
    }
    expect(warnings()).toEqual([]);
  });

  it("an entry decided under the lock sees a missing file as empty", async () => {
    const file = path.join(dir, "new.md");
    const seen: string[] = [];
    await appendFileLocked(file, (current) => (seen.push(current), "- first"), fast);
    expect(seen).toEqual([""]);
    expect(read(file)).toBe("- first\n");
  });

  it("compare-and-swap: a stale expectedHash appends nothing, a current one appends", async () => {
    const file = path.join(dir, "cas.md");
    fs.writeFileSync(file, "a\n");
    const stale = appendFileLocked(file, "b", { ...fast, expectedHash: contentHash("old") });
    await expect(stale).rejects.toBeInstanceOf(ContentChangedError);
    await expect(stale).rejects.toMatchObject({ actualHash: contentHash("a\n") });
    expect(read(file)).toBe("a\n");
    await appendFileLocked(file, "b", { ...fast, expectedHash: contentHash("a\n") });
    expect(read(file)).toBe("a\nb\n");
  });

  it("a plain writer appending right after our write: both kept, counted, hashAfter is what is on disk", async () => {
    const file = path.join(dir, "busy.md");
    fs.writeFileSync(file, "a\n");
    // Their append lands between our write and our look at the size (hooked at our fsync).
    const probe = await fs.promises.open(file, "r");
    const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
    await probe.close();
    const sync = proto.sync;
    let armed = true;
    vi.spyOn(proto, "sync").mockImplementation(async function (this: unknown) {
      if (armed) {
        armed = false;
        fs.appendFileSync(file, "theirs\n");
      }
      return sync.call(this);
    });
    const result = await appendFileLocked(file, "ours", fast);
    expect(read(file)).toBe("a\nours\ntheirs\n");
    expect(result).toEqual({ written: true, hashBefore: contentHash("a\n"), hashAfter: contentHash("a\nours\ntheirs\n"), conflicts: 1 });
    expect(warnings()).toEqual([expect.objectContaining({ file, msg: "another writer appended next to our locked append; both entries kept" })]);
  });

  it("a plain writer's unterminated line before our write: our entry starts on its own line, hashAfter is what is on disk", async () => {
    const file = path.join(dir, "race.md");
    fs.writeFileSync(file, "a\n");
    const result = await appendFileLocked(
      file,
      () => {
        fs.appendFileSync(file, "theirs");
        return "ours";
      },
      fast,
    );
    expect(read(file)).toBe("a\ntheirs\nours\n");
    expect(result).toMatchObject({ written: true, hashBefore: contentHash("a\n"), hashAfter: contentHash("a\ntheirs\nours\n"), conflicts: 0 });
  });

  it("an append that takes the file past the rewrite limit still lands and reports its hash", async () => {
    const file = path.join(dir, "big.md");
    fs.writeFileSync(file, "");
    fs.truncateSync(file, MAX_LOCKED_FILE_BYTES - 1);
    const result = await appendFileLocked(file, "tail", fast);
    expect(fs.statSync(file).size).toBe(MAX_LOCKED_FILE_BYTES - 1 + "\ntail\n".length);
    expect(result.written).toBe(true);
    expect(result.hashAfter).toBe(contentHash(fs.readFileSync(file)));
  });

  it("leaves no descriptor open on the file", async () => {
    const file = path.join(dir, "fd.md");
    await appendFileLocked(file, "one", fast);
    await appendFileLocked(file, "two", fast);
    expect(openPaths()).not.toContain(file);
  });
});

describe("lock.ts: locked appends refuse unsafe targets", () => {
  it("a link leaving containWithin is refused with the read's reason, the outside file untouched", async () => {
    const workspace = path.join(dir, "ws");
    fs.mkdirSync(workspace);
    const outside = path.join(dir, "secret.md");
    fs.writeFileSync(outside, "secret\n");
    const file = path.join(workspace, "CORRECTIONS.md");
    fs.symlinkSync(outside, file);
    const append = appendFileLocked(file, "x", { ...fast, containWithin: workspace });
    await expect(append).rejects.toMatchObject({ message: `${file}: outside-root, not read`, code: "EUNSAFEREAD" });
    expect(read(outside)).toBe("secret\n");
  });

  it("a file over the size bound is refused with its size", async () => {
    const file = path.join(dir, "huge.md");
    fs.writeFileSync(file, "");
    fs.truncateSync(file, MAX_LOCKED_FILE_BYTES + 1);
    const append = appendFileLocked(file, "x", fast);
    await expect(append).rejects.toMatchObject({ message: `${file}: over-cap (${MAX_LOCKED_FILE_BYTES + 1} > ${MAX_LOCKED_FILE_BYTES} bytes), not read`, code: "EUNSAFEREAD" });
    expect(fs.statSync(file).size).toBe(MAX_LOCKED_FILE_BYTES + 1);
  });

  it("a new file in a folder that links out of containWithin is not created; one inside is", async () => {
    const workspace = path.join(dir, "ws");
    const elsewhere = path.join(dir, "elsewhere");
    fs.mkdirSync(workspace);
    fs.mkdirSync(elsewhere);
    fs.symlinkSync(elsewhere, path.join(workspace, "notes"));
    const file = path.join(workspace, "notes", "new.md");
    const append = appendFileLocked(file, "x", { ...fast, containWithin: workspace });
    await expect(append).rejects.toMatchObject({ message: `${file}: outside-root, not written`, code: "EUNSAFEREAD" });
    expect(fs.readdirSync(elsewhere).filter((name) => !name.startsWith("new.md."))).toEqual([]);

    fs.mkdirSync(path.join(workspace, "memory"));
    const inside = path.join(workspace, "memory", "new.md");
    await appendFileLocked(inside, "x", { ...fast, containWithin: workspace });
    expect(read(inside)).toBe("x\n");
  });

  it("a file swapped for a symlink between our read and our write is not written through", async () => {
    const outside = path.join(dir, "secret.md");
    fs.writeFileSync(outside, "secret\n");
    const file = path.join(dir, "swapped.md");
    fs.writeFileSync(file, "a\n");
    const append = appendFileLocked(
      file,
      () => {
        fs.unlinkSync(file);
        fs.symlinkSync(outside, file);
        return "x";
      },
      fast,
    );
    await expect(append).rejects.toMatchObject({ code: "ELOOP" });
    expect(read(outside)).toBe("secret\n");
  });

  it("a file swapped for a FIFO between our read and our write is refused as not-a-file, and closed", async () => {
    const file = path.join(dir, "fifo.md");
    fs.writeFileSync(file, "a\n");
    const append = appendFileLocked(
      file,
      () => {
        fs.unlinkSync(file);
        execFileSync("mkfifo", [file]);
        return "x";
      },
      fast,
    );
    await expect(append).rejects.toMatchObject({ message: `${file}: not-a-file, not written`, code: "EUNSAFEREAD" });
    expect(openPaths()).not.toContain(file);
  });
});

describe("lock.ts: conflicts and queueing", () => {
  it("backs off between conflict retries: doubling from 5 ms, capped at 200 ms, jittered by 0.5–1.5×", async () => {
    const file = path.join(dir, "plain.md");
    fs.writeFileSync(file, "0\n");
    vi.spyOn(Math, "random").mockReturnValue(0.25); // jitter factor 0.75
    const timers = vi.spyOn(globalThis, "setTimeout");
    let edits = 0;
    const result = await updateFileLocked(
      file,
      (current) => {
        // A plain writer edits the file during our first seven attempts.
        if (edits < 7) fs.writeFileSync(file, `${++edits}\n`);
        return `${current}mine\n`;
      },
      { ...fast, maxConflictRetries: 7 },
    );
    expect(result).toMatchObject({ written: true, conflicts: 7 });
    expect(read(file)).toBe("7\nmine\n");
    // Our back-off sleeps are the only short timers (the lock's refresh timer runs every half threshold).
    const backOff = timers.mock.calls.map((call) => call[1]).filter((ms) => typeof ms === "number" && ms < 1000);
    expect(backOff).toEqual([5, 10, 20, 40, 80, 160, 200].map((ms) => ms * 0.75));
  });

  it("a caller arriving while the second of a queue holds the lock waits its turn in memory", async () => {
    const file = path.join(dir, "queued.md");
    const signal = () => {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      return { promise, resolve };
    };
    const [aStarted, aRelease, bStarted, bRelease] = [signal(), signal(), signal(), signal()];
    const order: string[] = [];
    const a = withFileLock(file, async () => (order.push("a"), aStarted.resolve(), aRelease.promise), fast);
    const b = withFileLock(file, async () => (order.push("b"), bStarted.resolve(), bRelease.promise), fast);
    await aStarted.promise;
    aRelease.resolve();
    await bStarted.promise;
    // One attempt only: queued in memory, C never needs a second (a caller that skipped the queue
    // could find B's lock and give up; whether it does is a race, so this pins the queue, not the race).
    const c = withFileLock(file, async () => void order.push("c"), { retryIntervalSeconds: 0.01, maxRetries: 1 });
    bRelease.resolve();
    await expect(Promise.all([a, b, c])).resolves.toBeDefined();
    expect(order).toEqual(["a", "b", "c"]);
  });
});

describe("gate.ts: fill floor and tiers at their boundaries", () => {
  const m = (id: string, score: number) => ({ id, text: id, score, headingPath: [], source: "embedded" }) as never;
  const ids = (decision: ReturnType<typeof applyConfidenceGate>) => decision.passing.map((r: { id: string }) => r.id);

  it("a result exactly at the fill floor fills the block", () => {
    // floor = 0.5 × 0.5 = 0.25, below the gate 0.3
    expect(ids(applyConfidenceGate([m("a", 0.5), m("b", 0.25), m("c", 0.2)], { gate: 0.3, high: 0.4, fill: 0.5 }))).toEqual(["a", "b"]);
  });

  it("results that scored nothing never fill the block, even with no floor", () => {
    const decision = applyConfidenceGate([m("a", 0.8), m("b", 0.3), m("z", 0)], { gate: 0.12, high: 0.75, fill: 0 });
    expect(ids(decision)).toEqual(["a", "b"]);
  });

  it("a gate of 0 lets every result through, with or without a fill", () => {
    const results = [m("a", 0.5), m("b", 0.2), m("z", 0)];
    expect(ids(applyConfidenceGate(results, { gate: 0, high: 0.75 }))).toEqual(["a", "b", "z"]);
    expect(ids(applyConfidenceGate(results, { gate: 0, high: 0.75, fill: 0.5 }))).toEqual(["a", "b", "z"]);
  });

  it("the named tier fills down to the floor too", () => {
    const named = { ...(m("a", 0.1) as object), named: true } as never;
    const results = [named, m("b", 0.08), m("c", 0.001)];
    expect(applyConfidenceGate(results, { gate: 0.12, high: 0.75, fill: 0.5 })).toMatchObject({ inject: true, tier: "named" });
    expect(ids(applyConfidenceGate(results, { gate: 0.12, high: 0.75, fill: 0.5 }))).toEqual(["a", "b"]);
  });

  it("a lone result exactly at the gate is below high, not below the gate", () => {
    expect(applyConfidenceGate([m("a", 0.12)], { gate: 0.12, high: 0.75 })).toMatchObject({ inject: false, tier: "single-below-high" });
  });

  it("`single` of 0 still needs the gate: a lone result at the gate injects, one under it does not", () => {
    expect(applyConfidenceGate([m("a", 0.12)], { gate: 0.12, high: 0.75, single: 0 })).toMatchObject({ inject: true, tier: "single" });
    expect(applyConfidenceGate([m("a", 0.11)], { gate: 0.12, high: 0.75, single: 0 })).toMatchObject({ inject: false, tier: "below-gate" });
  });
});
