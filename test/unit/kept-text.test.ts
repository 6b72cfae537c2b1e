import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { readKeptText } from "../../src/fs/kept-text.ts";
import * as safeRead from "../../src/fs/safe-read.ts";
import { temporaryWorkspace } from "./lifecycle-fixtures.ts";

// Files a turn reads every time (day files, CORRECTIONS.md, the bootstrap files it counts): read
// safely once, then answered by a stat while the file is unchanged and its last change is older
// than the file system's timestamp tick. The clock is faked (how long after the file's change the
// read happened), never waited for.

// Passed through unchanged; counted to show which calls read the file.
vi.mock("../../src/fs/safe-read.ts", async (original) => {
  const actual = await original<typeof import("../../src/fs/safe-read.ts")>();
  return { ...actual, readRegularFile: vi.fn(actual.readRegularFile) };
});

const ws = temporaryWorkspace("kept-text", ["memory"]);
const MAX_BYTES = 1024 * 1024;
const TEXT = "- my locker code is 4312\n- the boat is at slip 14\n";
let file = "";
const reads = () => vi.mocked(safeRead.readRegularFile).mock.calls.filter(([read]) => read === file).length;
const kept = (maxBytes = MAX_BYTES) => readKeptText(file, { root: ws(), maxBytes });
const textOf = async (maxBytes = MAX_BYTES) => {
  const read = await kept(maxBytes);
  return read.ok ? read.text : read.reason;
};
/** Both clocks (the wall clock and the monotonic one) `ms` after the file's last change (its ctime). */
const clockAfterChange = (ms: number) => {
  const at = fs.statSync(file).ctimeMs + ms;
  vi.setSystemTime(at);
  vi.spyOn(performance, "now").mockReturnValue(at - performance.timeOrigin);
};

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  // A new path per test: the module keeps what it read per path.
  file = path.join(ws(), "memory", `2026-11-27-${Math.random().toString(36).slice(2)}.md`);
  fs.writeFileSync(file, TEXT);
  vi.mocked(safeRead.readRegularFile).mockClear();
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("readKeptText", () => {
  it("reads a file once while it stays unchanged and settled, and gives back the same text", async () => {
    clockAfterChange(10_000);
    const first = await kept();
    expect(first).toEqual({ ok: true, text: TEXT, mtimeMs: fs.statSync(file).mtimeMs });
    const again = await kept();
    expect(again).toEqual(first);
    expect(await kept()).toEqual(first);
    expect(reads()).toBe(1);
    // Another bound is another read.
    expect(await textOf(8)).toBe(TEXT.slice(0, 8));
    expect(reads()).toBe(2);
  });

  it("reads again a file read within the settling time of its change: a same-tick rewrite would look unchanged", async () => {
    clockAfterChange(500);
    await kept();
    await kept();
    expect(reads()).toBe(2);
  });

  it("settled means settled by both clocks: a fake or stepped-back wall clock alone does not skip a read", async () => {
    vi.setSystemTime(fs.statSync(file).ctimeMs + 10_000); // the wall clock says long ago, the monotonic one says just now
    vi.spyOn(performance, "now").mockReturnValue(fs.statSync(file).ctimeMs + 100 - performance.timeOrigin);
    await kept();
    await kept();
    expect(reads()).toBe(2);
  });

  it("sees an append, an edit of the same size and a deletion", async () => {
    clockAfterChange(10_000);
    await kept();
    fs.appendFileSync(file, "- the dentist is on Monday\n");
    clockAfterChange(10_000);
    expect(await textOf()).toBe(`${TEXT}- the dentist is on Monday\n`);
    expect(reads()).toBe(2);

    const before = fs.statSync(file);
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("4312", "5580"));
    fs.utimesSync(file, before.atime, new Date(before.mtimeMs + 1_000)); // a later mtime, whatever the tick
    clockAfterChange(10_000);
    const edited = await textOf();
    expect(edited).toContain("- my locker code is 5580");
    expect(edited).not.toContain("4312");
    expect(reads()).toBe(3);

    fs.rmSync(file);
    expect(await textOf()).toBe("missing");
  });

  it("a file swapped for a link out of the workspace is refused, even with the same text", async () => {
    clockAfterChange(10_000);
    await kept();
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "day-file-outside-"));
    try {
      fs.writeFileSync(path.join(outside, "note.md"), TEXT);
      fs.rmSync(file);
      fs.symlinkSync(path.join(outside, "note.md"), file);
      expect(await textOf()).toBe("outside-root");
      expect(reads()).toBe(2);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it("a directory or a FIFO at the path is refused, as by the safe reader", async () => {
    fs.rmSync(file);
    fs.mkdirSync(file);
    expect(await textOf()).toBe("not-a-file");
  });
});
