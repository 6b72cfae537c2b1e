import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { chunkId } from "../../src/memory/chunk.ts";
import { MemoryIndex, buildMemoryIndex } from "../../src/memory/memory-index.ts";
import { createEmbeddedRetriever } from "../../src/memory/retriever.ts";
import { workspaceMemorySources } from "../../src/memory/sources.ts";

// The index's guarantees beyond ranking: builds hand the event loop back, a query's work is
// bounded, a rewrite that keeps size and mtime is still noticed, compaction changes nothing.

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), "memory-bounds-"));
let ws: string;

function write(rel: string, content: string, mtime?: Date) {
  const file = path.join(ws, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  if (mtime) fs.utimesSync(file, mtime, mtime);
}

/** A daily file of `n` bullets that all share the words "project update meeting". */
function dailyFile(day: number, n: number, extra = ""): string {
  const lines = Array.from({ length: n }, (_, i) => `- Project update meeting ${day}-${i}: item${day}x${i} reviewed ${extra}`);
  return `# Day ${day}\n\n${lines.join("\n")}\n`;
}

beforeEach(() => {
  ws = fs.mkdtempSync(path.join(tmpRoot, "ws-"));
});
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

describe("a build never holds the event loop for long", () => {
  it("hands the event loop back between chunks: immediates run while one big file is analysed", async () => {
    write("MEMORY.md", dailyFile(1, 400));
    // sliceMs 0: a hand-back after every chunk, whatever the machine's speed.
    const index = new MemoryIndex(workspaceMemorySources(ws), { cacheDir: false, sliceMs: 0 });
    let ticks = 0;
    let done = false;
    const tick = () => {
      ticks++;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    const stats = await index.refresh();
    done = true;
    expect(stats.chunks).toBe(400);
    expect(stats.yields).toBeGreaterThanOrEqual(400);
    // The file is read in one call: only slicing can give the loop 400 turns before the build ends.
    expect(ticks).toBeGreaterThanOrEqual(400);
  });

  it("a turn that arrives during the first build gets no memory at once, then memory once built", async () => {
    write("MEMORY.md", dailyFile(1, 300, "with the sailboat"));
    const index = new MemoryIndex(workspaceMemorySources(ws), { cacheDir: false, sliceMs: 0 });
    const retriever = createEmbeddedRetriever(index);
    const build = index.refresh();
    expect(index.isBuilding).toBe(true);
    const during = await retriever.search("sailboat item1x7", 3);
    expect(during).toEqual([]);
    expect(index.isWarm).toBe(false); // answered before the build finished
    await build;
    expect(index.isBuilding).toBe(false);
    expect((await retriever.search("sailboat item1x7", 3))[0]?.text).toContain("item1x7");
  });
});

describe("a query's work is bounded", () => {
  it("visits at most maxPostingsPerQuery postings when every chunk shares the query's words", async () => {
    for (let day = 1; day <= 20; day++) write(`memory/2026-01-${String(day).padStart(2, "0")}.md`, dailyFile(day, 50));
    const index = await buildMemoryIndex(workspaceMemorySources(ws), { cacheDir: false, maxPostingsPerQuery: 300 });
    expect(index.chunkCount).toBe(1000);
    const results = index.search("project update meeting", 5);
    expect(results.length).toBe(5);
    expect(index.lastQueryCost!.postingsVisited).toBeLessThanOrEqual(300);

    // A rare term is walked first; the common words that would blow the budget are skipped, and
    // the chunk with the rare term still ranks first with its full calibrated score.
    const rare = index.search("project update meeting item7x13", 3);
    expect(rare[0].text).toContain("item7x13");
    expect(index.lastQueryCost!.postingsVisited).toBeLessThanOrEqual(300);
    expect(index.lastQueryCost!.termsSkipped).toBeGreaterThanOrEqual(1);
    const unbounded = await buildMemoryIndex(workspaceMemorySources(ws), { cacheDir: false });
    expect(rare[0].score).toBeCloseTo(unbounded.search("project update meeting item7x13", 1)[0].score, 10);
    expect(unbounded.lastQueryCost!.postingsVisited).toBeGreaterThan(300);
  });

  it("walks the postings of at most maxQueryTerms query terms", async () => {
    write("MEMORY.md", dailyFile(1, 60));
    const index = await buildMemoryIndex(workspaceMemorySources(ws), { cacheDir: false, maxQueryTerms: 4 });
    const query = Array.from({ length: 40 }, (_, i) => `item1x${i}`).join(" ");
    index.search(query, 5);
    expect(index.lastQueryCost!.queryTerms).toBe(40);
    expect(index.lastQueryCost!.termsTraversed).toBeLessThanOrEqual(4);
  });
});

describe("content check (same size, same mtime)", () => {
  it("serves the new fact after a same-size rewrite that keeps the mtime (cp -p)", async () => {
    const mtime = new Date("2026-01-05T10:00:00Z");
    write("memory/2026-01-05.md", "- The gate code is 4417 for the garage.\n", mtime);
    const index = new MemoryIndex(workspaceMemorySources(ws), { cacheDir: false });
    await index.refresh();
    expect(index.search("gate code garage", 1)[0].text).toContain("4417");
    const before = fs.statSync(path.join(ws, "memory/2026-01-05.md"));
    write("memory/2026-01-05.md", "- The gate code is 9052 for the garage.\n", mtime);
    const after = fs.statSync(path.join(ws, "memory/2026-01-05.md"));
    expect([after.size, after.mtimeMs]).toEqual([before.size, before.mtimeMs]);

    const stats = await index.refresh();
    expect(stats).toMatchObject({ filesRead: 1, changed: true });
    const [top] = index.search("gate code garage", 1);
    expect(top.text).toContain("9052");
    expect(index.search("4417", 3)).toEqual([]);
  });

  it("a metadata-only change (chmod) costs a read and a hash, not a re-index", async () => {
    write("MEMORY.md", "- Jeff's favourite coffee is a cortado.\n");
    const index = new MemoryIndex(workspaceMemorySources(ws), { cacheDir: false });
    await index.refresh();
    fs.chmodSync(path.join(ws, "MEMORY.md"), 0o600);
    const stats = await index.refresh();
    expect(stats).toMatchObject({ filesRead: 0, filesReused: 1, changed: false });
    expect(index.search("coffee", 1)[0].text).toContain("cortado");
  });
});

describe("warm start from the cache", () => {
  it("an index loaded from the cache, then edited, ranks exactly like a fresh build", async () => {
    const cacheDir = fs.mkdtempSync(path.join(tmpRoot, "cache-"));
    for (let day = 1; day <= 5; day++) write(`memory/2026-03-0${day}.md`, dailyFile(day, 10));
    const first = await buildMemoryIndex(workspaceMemorySources(ws), { cacheDir });
    await first.whenSaved();
    const warm = new MemoryIndex(workspaceMemorySources(ws), { cacheDir });
    expect(await warm.refresh()).toMatchObject({ filesRead: 0, filesReused: 5 });
    // Known terms ("project", "item2x3") and a new one ("lighthouse") in an edited file.
    write("memory/2026-03-02.md", dailyFile(2, 10, "near the lighthouse"), new Date(Date.now() + 10_000));
    expect(await warm.refresh()).toMatchObject({ filesRead: 1, changed: true });
    const fresh = await buildMemoryIndex(workspaceMemorySources(ws), { cacheDir: false });
    for (const query of ["lighthouse item2x3", "item2x0", "project update meeting", "item4x9"]) {
      const strip = (results: ReturnType<typeof warm.search>) => results.map((r) => ({ id: r.id, score: r.score, text: r.text }));
      expect(strip(warm.search(query, 10)), query).toEqual(strip(fresh.search(query, 10)));
    }
    expect(warm.search("lighthouse item2x3", 1)[0].text).toContain("item2x3 reviewed near the lighthouse");
    expect(warm.search("item4x9", 1)[0]).toMatchObject({ headingPath: ["Day 4"], file: "memory/2026-03-04.md", date: "2026-03-04" });
  });
});

describe("compaction", () => {
  it("after many rewrites (dead slots compacted) ranks exactly like a fresh build", async () => {
    for (let day = 1; day <= 40; day++) write(`memory/2026-02-${String(day).padStart(2, "0")}.md`, dailyFile(day, 40));
    const index = await buildMemoryIndex(workspaceMemorySources(ws), { cacheDir: false });
    const later = new Date(Date.now() + 10_000);
    for (let day = 1; day <= 35; day++) write(`memory/2026-02-${String(day).padStart(2, "0")}.md`, dailyFile(day, 40, "after the rewrite"), later);
    fs.rmSync(path.join(ws, "memory/2026-02-40.md"));
    const stats = await index.refresh();
    expect(stats).toMatchObject({ filesRead: 35, files: 39, chunks: 39 * 40 });
    const fresh = await buildMemoryIndex(workspaceMemorySources(ws), { cacheDir: false });
    for (const query of ["project update meeting", "rewrite item3x7", "item40x1", "item38x39 reviewed"]) {
      const strip = (results: ReturnType<typeof index.search>) => results.map((r) => ({ id: r.id, score: r.score, text: r.text }));
      expect(strip(index.search(query, 10)), query).toEqual(strip(fresh.search(query, 10)));
    }
    expect(index.search("item40x1", 3)).toEqual([]);
  });

  it("gives rerankers each result's place in its file and its neighbours", async () => {
    write("MEMORY.md", "# Boat\n\n- The sailboat is named Halcyon Drift.\n- It is moored at slip 14.\n- The sails are new.\n");
    const index = await buildMemoryIndex(workspaceMemorySources(ws), { cacheDir: false });
    const [top] = index.searchCandidates("moored slip", 1);
    expect(top).toMatchObject({ position: 1, chunksInFile: 3 });
    expect(top.memory.id).toBe(chunkId("MEMORY.md", "- It is moored at slip 14."));
    expect(top.bm25).toBeGreaterThan(0);
    expect(index.neighbour(top, -1)?.text).toContain("Halcyon Drift");
    expect(index.neighbour(top, 1)?.text).toContain("sails are new");
    expect(index.neighbour(top, 2)).toBeUndefined();
  });
});
