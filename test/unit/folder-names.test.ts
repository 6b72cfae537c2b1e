import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { folderNames } from "../../src/fs/folder-names.ts";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "folder-names-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A folder whose mtime is an hour old, so its listing may be kept. */
function settledFolder(name: string, files: string[]): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir);
  for (const file of files) fs.writeFileSync(path.join(dir, file), "x");
  const hourAgo = new Date(Date.now() - 3_600_000);
  fs.utimesSync(dir, hourAgo, hourAgo);
  return dir;
}

const sorted = async (dir: string) => [...(await folderNames(dir))].sort();

describe("folderNames", () => {
  it("lists what readdir lists, and sees every entry added, removed or renamed since", async () => {
    const dir = settledFolder("a", ["2026-11-25.md", "2026-11-26.md"]);
    expect(await sorted(dir)).toEqual(["2026-11-25.md", "2026-11-26.md"]);
    const kept = await folderNames(dir);
    expect(await folderNames(dir)).toBe(kept); // unchanged folder: the same listing, not read again
    fs.writeFileSync(path.join(dir, "2026-11-27.md"), "x");
    expect(await sorted(dir)).toEqual(["2026-11-25.md", "2026-11-26.md", "2026-11-27.md"]);
    fs.renameSync(path.join(dir, "2026-11-25.md"), path.join(dir, "2026-11-24.md"));
    fs.rmSync(path.join(dir, "2026-11-26.md"));
    expect(await sorted(dir)).toEqual(["2026-11-24.md", "2026-11-27.md"]);
  });

  it("does not keep a listing of a folder changed within the last two seconds (coarse timestamps could hide the next change)", async () => {
    const dir = path.join(root, "fresh");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "one.md"), "x");
    // An mtime ahead of the clock is never two seconds old, however slow the machine is.
    const ahead = new Date(Date.now() + 3_600_000);
    fs.utimesSync(dir, ahead, ahead);
    const first = await folderNames(dir);
    expect(await folderNames(dir)).not.toBe(first);
    expect(await sorted(dir)).toEqual(["one.md"]);
  });

  it("sees a folder replaced by another with the same mtime", async () => {
    const dir = settledFolder("b", ["old.md"]);
    const { mtime } = fs.statSync(dir);
    await folderNames(dir);
    fs.renameSync(dir, path.join(root, "b-moved"));
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "new.md"), "x");
    fs.utimesSync(dir, mtime, mtime);
    expect(await sorted(dir)).toEqual(["new.md"]);
  });

  it("throws for a missing folder, as readdir does", async () => {
    await expect(folderNames(path.join(root, "missing"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});
