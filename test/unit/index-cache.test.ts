import fs from "node:fs";
import type { FileHandle } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { isAtomicTempName, writeFileAtomicWith } from "../../src/fs/atomic.ts";
import { ChunkStore } from "../../src/memory/chunk-store.ts";
import { decodeIndexCache, writeIndexCache } from "../../src/memory/index-cache.ts";
import type { CachePieces } from "../../src/memory/index-cache.ts";
import { MemoryIndex } from "../../src/memory/memory-index.ts";
import { workspaceMemorySources } from "../../src/memory/sources.ts";
import { FIXTURE_IDENTITY, FIXTURE_STORES } from "./index-cache-stores.ts";
import type { FixtureMeta } from "./index-cache-stores.ts";

// The index cache is written in pieces (header, texts a slice at a time, the typed arrays' own
// bytes), never as one buffer of the whole file. The bytes must stay exactly those of format 3:
// index-cache-fixtures/ holds what the one-buffer encoder wrote for the stores of
// index-cache-stores.ts, so caches written before still load and the version need not change.

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "index-cache-fixtures");
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, `${name}.v3.idx`));

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "index-cache-unit-"));
});
afterEach(() => {
  vi.restoreAllMocks();
  setLogDestination(undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The store's cache as the index writes it: into an atomic temp file, renamed into place. */
async function streamed(store: ChunkStore<FixtureMeta>, pieces?: CachePieces): Promise<Buffer> {
  const file = path.join(dir, "store.idx");
  await writeFileAtomicWith(file, (handle) => writeIndexCache(handle, FIXTURE_IDENTITY, store.piecewiseSnapshot(), pieces));
  return fs.readFileSync(file);
}

/** The prototype of Node's FileHandle, whose write() the index cache calls. */
async function fileHandlePrototype(): Promise<{ write: FileHandle["write"] }> {
  const handle = await fs.promises.open(path.join(dir, "probe"), "w");
  await handle.close();
  return Object.getPrototypeOf(handle) as { write: FileHandle["write"] };
}

/** Runs `before(call)` ahead of every FileHandle write (numbered from 1); a throw fails that write. */
async function beforeEachWrite(before: (call: number) => void | Promise<void>): Promise<{ calls: () => number }> {
  const prototype = await fileHandlePrototype();
  const original = prototype.write;
  let calls = 0;
  vi.spyOn(prototype, "write").mockImplementation(function (this: FileHandle, ...args: unknown[]) {
    let ready: void | Promise<void>;
    try {
      ready = before(++calls);
    } catch (error) {
      return Promise.reject(error);
    }
    return Promise.resolve(ready).then(() => (original as (...a: unknown[]) => ReturnType<FileHandle["write"]>).apply(this, args));
  }) as never;
  return { calls: () => calls };
}

/** Every FileHandle write from the `failAt`-th on fails as a full disk does. */
function failWritesFrom(failAt: number): Promise<{ calls: () => number }> {
  return beforeEachWrite((call) => {
    if (call >= failAt) throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  });
}

describe("index cache file format", () => {
  it.each(Object.keys(FIXTURE_STORES))("%s: the streamed file is byte for byte what format 3's one-buffer encoder wrote", async (name) => {
    const expected = fixture(name);
    expect((await streamed(FIXTURE_STORES[name]())).equals(expected)).toBe(true);
  });

  it.each([
    [4, 1],
    [5, 2],
    [7, 3],
    [64, 100],
  ])("written through a buffer of %i bytes (texts split at multi-byte characters and surrogate pairs), headings %i paths a piece: the same bytes", async (bufferBytes, headings) => {
    for (const name of Object.keys(FIXTURE_STORES)) {
      expect((await streamed(FIXTURE_STORES[name](), { bufferBytes, headings })).equals(fixture(name)), name).toBe(true);
    }
  });

  it.each(["plain", "dead-slots", "compacted"])("%s: a store changed while its cache is written (replaced, removed, appended, compacted) is written as it was", async (name) => {
    const store = FIXTURE_STORES[name]();
    const files = [...store.fileNames()];
    const chunk = (text: string) => ({ text, headingPath: ["Changed"], words: text.split(" "), headingWords: ["changed"] });
    const writes = await beforeEachWrite((call) => {
      if (call !== 3) return;
      // Grown past the arrays' room (they are replaced), appended to, files removed, then
      // replaced by one chunk: over a thousand dead slots, and the store compacts (as a refresh
      // ends, in settle).
      store.setFile(files[0], { size: 1, hash: "changed" }, Array.from({ length: 1100 }, (_, i) => chunk(`replaced walnut ${i}`)));
      store.appendToFile(files[0], { size: 2, hash: "grown" }, [chunk("appended falcon")]);
      for (const rel of files.slice(1, -1)) store.deleteFile(rel);
      store.setFile(files[0], { size: 3, hash: "small" }, [chunk("small quartz")]);
      return store.settle(async () => undefined);
    });
    expect((await streamed(store, { bufferBytes: 16, headings: 1 })).equals(fixture(name))).toBe(true);
    expect(writes.calls()).toBeGreaterThan(3);
    expect([...store.fileNames()].sort()).toEqual([files[0], files.at(-1)].sort());
    expect(store.file(files.at(-1)!)!.firstSlot).toBe(0); // compacted: the file kept is renumbered first
  });

  it.each(Object.keys(FIXTURE_STORES))("%s: a cache of format 3 decodes to the store's snapshot, which loads into a store that searches the same", async (name) => {
    const store = FIXTURE_STORES[name]();
    const decoded = await decodeIndexCache<FixtureMeta>(fixture(name), FIXTURE_IDENTITY);
    const snapshot = store.snapshot();
    // Not kept exactly: a title separator in a heading and a lone surrogate in a text come back as
    // U+FFFD (one UTF-16 unit for one, so chunk offsets still hold).
    const headings = snapshot.headings.map((h) => h.map((title) => title.replaceAll("\u0001", "\ufffd")));
    const files = snapshot.files.map((f) => ({ ...f, text: Buffer.from(f.text, "utf8").toString("utf8") }));
    expect(decoded).toEqual({ ...snapshot, files, headings });
    const loaded = await ChunkStore.load(decoded!, async () => undefined);
    const limits = { maxQueryTerms: 32, maxPostings: 100_000, candidates: 50 };
    // Slots are renumbered where the store had dead ones: compared by file and place in it.
    const found = (from: ChunkStore<FixtureMeta>, query: string[]) =>
      from.search(query, limits).candidates.map(({ slot, bm25, termFrequency }) => ({ file: from.chunk(slot).file, position: from.chunk(slot).position, bm25, termFrequency }));
    let matched = 0;
    for (const query of [["harbour"], ["violin", "t3"], ["café", "naïv"], ["glacier", "walnut", "t17"], ["falcon", "copper"]]) {
      expect(found(loaded, query), query.join(" ")).toEqual(found(store, query));
      matched += found(store, query).length;
    }
    expect(matched).toBeGreaterThan(0);
  });
});

describe("a cache write that fails", () => {
  it("leaves the previous cache as it was and no temp file behind", async () => {
    const file = path.join(dir, "store.idx");
    const before = fixture("plain");
    fs.writeFileSync(file, before);
    // The first write (the header) goes through, so the temp file holds part of a cache when the next one fails.
    const writes = await failWritesFrom(2);
    await expect(writeFileAtomicWith(file, (handle) => writeIndexCache(handle, FIXTURE_IDENTITY, FIXTURE_STORES["many-files"]().piecewiseSnapshot(), { bufferBytes: 64, headings: 2 }))).rejects.toThrow("ENOSPC");
    expect(writes.calls()).toBe(2);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(fs.readdirSync(dir).filter(isAtomicTempName)).toEqual([]);
  });

  it("in the memory index: the save is logged as not done, the old cache stays and still serves a warm start", async () => {
    const logLines: string[] = [];
    setLogDestination({ write: (line: string) => logLines.push(line) });
    const ws = path.join(dir, "ws");
    const cacheDir = path.join(dir, "cache");
    fs.mkdirSync(path.join(ws, "memory"), { recursive: true });
    fs.writeFileSync(path.join(ws, "MEMORY.md"), "# Memory\n- Jeff's sailboat is the Halcyon Drift.\n");
    fs.writeFileSync(path.join(ws, "memory", "2026-02-21.md"), "## Work\n- The Harbor Books kickoff is on Monday.\n");
    const first = new MemoryIndex(workspaceMemorySources(ws), { cacheDir, watchForChanges: false, minSaveIntervalMs: 0 });
    await first.refresh();
    await first.whenSaved();
    const cacheFile = first.cacheFile!;
    const saved = fs.readFileSync(cacheFile);

    fs.writeFileSync(path.join(ws, "memory", "2026-02-22.md"), "## Boats\n- The regatta is in June.\n");
    // A small index is written in one piece: its first write fails (the temp file exists by then).
    const writes = await failWritesFrom(1);
    expect(await first.refresh()).toMatchObject({ filesRead: 1, changed: true });
    await first.whenSaved();
    expect(writes.calls()).toBe(1);
    expect(logLines.some((line) => line.includes("memory index cache not saved") && line.includes("ENOSPC"))).toBe(true);
    expect(fs.readFileSync(cacheFile).equals(saved)).toBe(true);
    expect(fs.readdirSync(cacheDir).filter(isAtomicTempName)).toEqual([]);

    vi.restoreAllMocks();
    const warm = new MemoryIndex(workspaceMemorySources(ws), { cacheDir, watchForChanges: false });
    expect(await warm.refresh()).toMatchObject({ files: 3, filesRead: 1, filesReused: 2 });
    expect(warm.search("regatta June", 1)[0]?.text).toContain("regatta");
  });
});
