import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { dayFileEntries } from "../../src/memory/day-file-entries.ts";
import { parseMemoryEntries } from "../../src/memory/confidence.ts";
import * as safeRead from "../../src/fs/safe-read.ts";
import { temporaryWorkspace } from "./lifecycle-fixtures.ts";

// The Recent-memory slot's day files: read safely once, then answered by a stat while the file is
// unchanged and its last change is older than the file system's timestamp tick. The clock is faked
// (how long after the file's change the read happened), never waited for.

// Passed through unchanged; counted to show which calls read the file.
vi.mock("../../src/fs/safe-read.ts", async (original) => {
  const actual = await original<typeof import("../../src/fs/safe-read.ts")>();
  return { ...actual, readRegularFile: vi.fn(actual.readRegularFile) };
});

const ws = temporaryWorkspace("day-file-entries", ["memory"]);
const MAX_BYTES = 1024 * 1024;
const TEXT = "- my locker code is 4312\n- the boat is at slip 14\n";
let file = "";
const reads = () => vi.mocked(safeRead.readRegularFile).mock.calls.filter(([read]) => read === file).length;
const texts = (result: Awaited<ReturnType<typeof dayFileEntries>>) => result?.entries.map((entry) => entry.text);
/** The clock `ms` after the file's last change (its ctime). */
const clockAfterChange = (ms: number) => vi.setSystemTime(fs.statSync(file).ctimeMs + ms);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  // A new path per test: the module keeps what it read per path.
  file = path.join(ws(), "memory", `2026-11-27-${Math.random().toString(36).slice(2)}.md`);
  fs.writeFileSync(file, TEXT);
  vi.mocked(safeRead.readRegularFile).mockClear();
});
afterEach(() => vi.useRealTimers());

describe("dayFileEntries", () => {
  it("reads a file once while it stays unchanged and settled; the entries are the file's", async () => {
    clockAfterChange(10_000);
    const first = await dayFileEntries(file, ws(), MAX_BYTES);
    expect(texts(first)).toEqual(parseMemoryEntries(TEXT).map((entry) => entry.text));
    expect(first?.mtimeMs).toBe(fs.statSync(file).mtimeMs);
    expect(await dayFileEntries(file, ws(), MAX_BYTES)).toBe(first);
    expect(await dayFileEntries(file, ws(), MAX_BYTES)).toBe(first);
    expect(reads()).toBe(1);
  });

  it("reads again a file read within the settling time of its change: a same-tick rewrite would look unchanged", async () => {
    clockAfterChange(500);
    await dayFileEntries(file, ws(), MAX_BYTES);
    await dayFileEntries(file, ws(), MAX_BYTES);
    expect(reads()).toBe(2);
  });

  it("sees an append, an edit of the same size and a deletion", async () => {
    clockAfterChange(10_000);
    await dayFileEntries(file, ws(), MAX_BYTES);
    fs.appendFileSync(file, "- the dentist is on Monday\n");
    clockAfterChange(10_000);
    expect(texts(await dayFileEntries(file, ws(), MAX_BYTES))).toContain("- the dentist is on Monday");
    expect(reads()).toBe(2);

    const before = fs.statSync(file);
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("4312", "5580"));
    fs.utimesSync(file, before.atime, new Date(before.mtimeMs + 1_000)); // a later mtime, whatever the tick
    clockAfterChange(10_000);
    const edited = texts(await dayFileEntries(file, ws(), MAX_BYTES));
    expect(edited).toContain("- my locker code is 5580");
    expect(edited).not.toContain("- my locker code is 4312");
    expect(reads()).toBe(3);

    fs.rmSync(file);
    expect(await dayFileEntries(file, ws(), MAX_BYTES)).toBeUndefined();
  });

  it("a file swapped for a link out of the workspace is refused, even with the same text", async () => {
    clockAfterChange(10_000);
    await dayFileEntries(file, ws(), MAX_BYTES);
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "day-file-outside-"));
    try {
      fs.writeFileSync(path.join(outside, "note.md"), TEXT);
      fs.rmSync(file);
      fs.symlinkSync(path.join(outside, "note.md"), file);
      expect(await dayFileEntries(file, ws(), MAX_BYTES)).toBeUndefined();
      expect(reads()).toBe(2);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it("reads at most the bound from the file's start", async () => {
    fs.writeFileSync(file, `- first note\n- ${"x".repeat(200)}\n- last note\n`);
    clockAfterChange(10_000);
    const result = texts(await dayFileEntries(file, ws(), 64));
    expect(result?.[0]).toBe("- first note");
    expect(result?.join("\n")).not.toContain("last note");
  });
});
