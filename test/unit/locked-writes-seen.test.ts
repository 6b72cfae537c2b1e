import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { appendFileLockedUnlessSeen, appendLineGrouped } from "../../src/fs/locked-writes.ts";
import * as safeRead from "../../src/fs/safe-read.ts";
import { temporaryWorkspace } from "./lifecycle-fixtures.ts";

// An append that keeps its own account of the file (the capture's fact index, the triage queue's
// groups) reads the file under the lock only when it is not as the last append left it: a burst of
// captures used to read the whole day file, and the whole queue, once per capture. Reads counted
// through a pass-through of the safe reader.

vi.mock("../../src/fs/safe-read.ts", async (original) => {
  const actual = await original<typeof import("../../src/fs/safe-read.ts")>();
  return { ...actual, readRegularFile: vi.fn(actual.readRegularFile) };
});

const ws = temporaryWorkspace("locked-writes-seen");
const readsOf = (file: string) => vi.mocked(safeRead.readRegularFile).mock.calls.filter(([read]) => path.resolve(read) === path.resolve(file)).length;
afterEach(() => vi.mocked(safeRead.readRegularFile).mockClear());

/** Appends `line`, recording what `decide` was given. */
async function append(file: string, seen: Parameters<typeof appendFileLockedUnlessSeen>[1], line: string) {
  const given: (string | undefined)[] = [];
  const result = await appendFileLockedUnlessSeen(file, seen, (text) => (given.push(text), line), { containWithin: ws() });
  return { result, given: given[0] };
}

/** day.md holding "- one", then "- two" appended (read): the file and what that append left it as. */
async function dayFileSeen() {
  const file = path.join(ws(), "day.md");
  fs.writeFileSync(file, "- one\n");
  return { file, seen: (await append(file, undefined, "- two")).result.appended! };
}

describe("appendFileLockedUnlessSeen", () => {
  it("reads the file only when it is not as the last append left it", async () => {
    const file = path.join(ws(), "day.md");
    fs.writeFileSync(file, "- one\n");
    const first = await append(file, undefined, "- two");
    expect(first.given).toBe("- one\n");
    const stat = fs.statSync(file);
    expect(first.result.appended).toEqual({ text: "- two\n", dev: stat.dev, ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs });
    vi.mocked(safeRead.readRegularFile).mockClear();
    const second = await append(file, first.result.appended, "- three");
    expect(second.given).toBeUndefined();
    expect(readsOf(file)).toBe(0);
    expect(fs.readFileSync(file, "utf8")).toBe("- one\n- two\n- three\n");
    // Another writer appended meanwhile: read, and the new text is what decide sees.
    fs.appendFileSync(file, "- four");
    const third = await append(file, second.result.appended, "- five");
    expect(third.given).toBe("- one\n- two\n- three\n- four");
    expect(fs.readFileSync(file, "utf8")).toBe("- one\n- two\n- three\n- four\n- five\n");
  });

  it("a rewrite of the same size, a renamed-in file and a link in its place are read", async () => {
    const file = path.join(ws(), "day.md");
    fs.writeFileSync(file, "- aaaa\n");
    let seen = (await append(file, undefined, "- bbbb")).result.appended;
    // Same size, another time.
    fs.writeFileSync(file, "- cccc\n- bbbb\n");
    fs.utimesSync(file, new Date(Date.now() + 5_000), new Date(Date.now() + 5_000));
    const rewritten = await append(file, seen, "- dddd");
    expect(rewritten.given).toBe("- cccc\n- bbbb\n");
    seen = rewritten.result.appended;
    // Another file renamed into place (another inode), same text, same times.
    const other = path.join(ws(), "other.md");
    fs.copyFileSync(file, other);
    const stat = fs.statSync(file);
    fs.utimesSync(other, stat.atime, stat.mtime);
    fs.renameSync(other, file);
    expect((await append(file, seen, "- eeee")).given).toBe("- cccc\n- bbbb\n- dddd\n");
    // A link to the same file inside the workspace: followed, and read (lstat sees a link).
    const real = path.join(ws(), "real.md");
    fs.renameSync(file, real);
    fs.symlinkSync(real, file);
    const { dev, ino, size, mtimeMs, ctimeMs } = fs.statSync(real);
    const viaLink = await append(file, { dev, ino, size, mtimeMs, ctimeMs }, "- ffff");
    expect(viaLink.given).toBe("- cccc\n- bbbb\n- dddd\n- eeee\n");
    expect(fs.readFileSync(real, "utf8")).toBe("- cccc\n- bbbb\n- dddd\n- eeee\n- ffff\n");
    expect(fs.lstatSync(file).isSymbolicLink()).toBe(true);
  });

  it("any one field of the identity that differs means a read: device, inode, size, mtime, ctime", async () => {
    const start = await dayFileSeen();
    const { file } = start;
    let { seen } = start;
    for (const field of ["dev", "ino", "size", "mtimeMs", "ctimeMs"] as const) {
      const { text: _, ...identity } = seen;
      const given = (await append(file, { ...identity, [field]: identity[field] + 1 }, `- after ${field}`)).given;
      expect(given, field).toBeDefined();
      seen = (await append(file, undefined, `- again ${field}`)).result.appended!;
      expect((await append(file, seen, `- seen ${field}`)).given, field).toBeUndefined();
      seen = (await append(file, undefined, `- last ${field}`)).result.appended!;
    }
  });

  it("a file gone since it was seen is looked for as any missing file: written anew", async () => {
    const { file, seen } = await dayFileSeen();
    fs.rmSync(file);
    const again = await append(file, seen, "- three");
    expect(again.given).toBe("");
    expect(fs.readFileSync(file, "utf8")).toBe("- three\n");
  });

  it("decide's null writes nothing, read or not", async () => {
    const { file, seen } = await dayFileSeen();
    const result = await appendFileLockedUnlessSeen(file, seen, () => null);
    expect(result).toEqual({ written: false });
    expect(fs.readFileSync(file, "utf8")).toBe("- one\n- two\n");
  });
});

describe("appendLineGrouped", () => {
  it("remembers the 64 queue files it wrote last: the oldest beyond them is read again", async () => {
    const files = Array.from({ length: 65 }, (_, i) => path.join(ws(), `queue-${i}.jsonl`));
    for (const file of files) await appendLineGrouped(file, "{}");
    vi.mocked(safeRead.readRegularFile).mockClear();
    await appendLineGrouped(files[1], "{}");
    await appendLineGrouped(files[64], "{}");
    expect(readsOf(files[1]) + readsOf(files[64])).toBe(0);
    await appendLineGrouped(files[0], "{}");
    expect(readsOf(files[0])).toBe(1);
  });

  it("reads the queue for its first group only, while no one else writes to it", async () => {
    const file = path.join(ws(), "queue.jsonl");
    fs.writeFileSync(file, "{}\n".repeat(100));
    for (let i = 0; i < 5; i++) await appendLineGrouped(file, `{"n":${i}}`);
    expect(readsOf(file)).toBe(1);
    fs.appendFileSync(file, '{"other":true}\n');
    await appendLineGrouped(file, '{"n":5}');
    expect(readsOf(file)).toBe(2);
    expect(fs.readFileSync(file, "utf8").split("\n").slice(100)).toEqual(['{"n":0}', '{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}', '{"other":true}', '{"n":5}', ""]);
  });
});
