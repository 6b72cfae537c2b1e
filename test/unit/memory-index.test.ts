import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { flushContextFileWrites, writeContextFile } from "../../src/context/context-file.ts";
import { MemoryIndex, buildMemoryIndex } from "../../src/memory/memory-index.ts";
import { folderMemorySources, workspaceMemorySources } from "../../src/memory/sources.ts";

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), "memory-index-"));
let ws: string;
let cacheDir: string;
let logLines: string[] = [];

function write(rel: string, content: string, mtime?: Date) {
  const file = path.join(ws, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  if (mtime) fs.utimesSync(file, mtime, mtime);
}

beforeEach(() => {
  ws = fs.mkdtempSync(path.join(tmpRoot, "ws-"));
  cacheDir = fs.mkdtempSync(path.join(tmpRoot, "cache-"));
  logLines = [];
  setLogDestination(new Writable({ write: (chunk, _enc, cb) => (logLines.push(String(chunk)), cb()) }) as never);
  write("MEMORY.md", "# Memory\n- Jeff's favourite coffee is a cortado.\n- Jeff lives in Oakland.\n");
  write("memory/2026-02-22.md", "## Personal\nJeff's sailboat is named Halcyon Drift; it is moored at slip 14 in Sausalito.\n");
  write("memory/2026-02-21.md", "## Done\n- Drafted the Harbor Books kickoff brief.\n");
});
afterEach(() => setLogDestination(undefined));
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

describe("MemoryIndex", () => {
  it("indexes MEMORY.md and memory/*.md and ranks the relevant chunk first, with file, headings and date", async () => {
    const index = await buildMemoryIndex(workspaceMemorySources(ws), { cacheDir: false });
    const [top] = index.search("What is my sailboat named and where is it moored?", 3);
    expect(top.text).toBe("Jeff's sailboat is named Halcyon Drift; it is moored at slip 14 in Sausalito.");
    expect(top.file).toBe("memory/2026-02-22.md");
    expect(top.headingPath).toEqual(["Personal"]);
    expect(top.date).toBe("2026-02-22");
    expect(top.score).toBeGreaterThanOrEqual(0.75);
    expect(top.score).toBeLessThanOrEqual(1);
  });

  it("never indexes ETHOS_CONTEXT.md, even when an extra glob matches it, and honours extra globs", async () => {
    write("ETHOS_CONTEXT.md", "1. **[2026-02-22]** zebra unicorn fact *(score: 0.9)*\n");
    write("notes/zebra.md", "A zebra unicorn sighting in the notes folder.\n");
    const index = await buildMemoryIndex(workspaceMemorySources(ws, ["*.md", "notes/**/*.md", "../outside/*.md", "/etc/*.md"]), { cacheDir: false });
    const files = index.search("zebra unicorn", 5).map((r) => r.file);
    expect(files).toEqual(["notes/zebra.md"]);
  });

  it("survives regex metacharacters in queries", async () => {
    write("memory/2026-03-01.md", "We migrated the c++ build (cmake) to [bazel] at $HOME/src.\n");
    const index = await buildMemoryIndex(workspaceMemorySources(ws), { cacheDir: false });
    for (const q of ["c++ (cmake)? [bazel]* $HOME/src", ".*+?^${}()|[]\\", "(((", "[a-", "\\d+$"]) {
      expect(() => index.search(q, 3)).not.toThrow();
    }
    expect(index.search("c++ (cmake)? [bazel]*", 3)[0]?.text).toContain("bazel");
    expect(index.search(".*+?^${}()|[]\\", 3)).toEqual([]);
  });

  it("skips files over maxFileBytes with one warning", async () => {
    write("memory/huge.md", "sailboat ".repeat(500));
    const index = new MemoryIndex(workspaceMemorySources(ws), { cacheDir: false, maxFileBytes: 1024 });
    const first = await index.refresh();
    await index.refresh();
    expect(first.filesSkipped).toBe(1);
    expect(index.search("sailboat", 5).map((r) => r.file)).not.toContain("memory/huge.md");
    expect(logLines.filter((l) => l.includes("memory file too large"))).toHaveLength(1);
  });

  it("applies inline confidence metadata in ranking", async () => {
    write("memory/2026-04-01.md", "- Jeff's tea preference is oolong. <!-- confidence: 0.2 source: inferred last: 2026-04-01 -->\n- Jeff's tea preference is sencha.\n");
    const index = await buildMemoryIndex(workspaceMemorySources(ws), { cacheDir: false });
    const [first, second] = index.search("Jeff tea preference", 2);
    expect(first.text).toContain("sencha");
    expect(second.text).toContain("oolong");
    expect(second.score).toBeLessThan(first.score);
  });
});

describe("persistent index cache (path + size + mtime)", () => {
  it("cold build reads every file; a new process with the cache re-reads nothing", async () => {
    const cold = await new MemoryIndex(workspaceMemorySources(ws), { cacheDir }).refresh();
    expect(cold).toMatchObject({ files: 3, filesRead: 3, filesReused: 0 });
    const first = new MemoryIndex(workspaceMemorySources(ws), { cacheDir });
    await first.refresh();
    await first.whenSaved();
    expect(fs.readdirSync(cacheDir).filter((f) => f.endsWith(".idx"))).toHaveLength(1);

    const warm = new MemoryIndex(workspaceMemorySources(ws), { cacheDir });
    const stats = await warm.refresh();
    expect(stats).toMatchObject({ files: 3, filesRead: 0, filesReused: 3 });
    expect(warm.search("sailboat moored", 1)[0]?.text).toContain("Halcyon Drift");
  });

  it("re-reads only the changed file, drops removed files, and persists the change", async () => {
    const index = new MemoryIndex(workspaceMemorySources(ws), { cacheDir });
    await index.refresh();
    write("memory/2026-02-22.md", "## Personal\nThe sailboat was renamed Blue Heron.\n", new Date(Date.now() + 5000));
    fs.rmSync(path.join(ws, "memory/2026-02-21.md"));
    const stats = await index.refresh();
    expect(stats).toMatchObject({ files: 2, filesRead: 1, filesReused: 1, changed: true });
    expect(index.search("sailboat renamed", 1)[0]?.text).toContain("Blue Heron");
    expect(index.search("Harbor Books kickoff", 3)).toEqual([]);
    await index.whenSaved();

    const restarted = new MemoryIndex(workspaceMemorySources(ws), { cacheDir });
    expect(await restarted.refresh()).toMatchObject({ filesRead: 0, filesReused: 2 });
  });

  it("an incremental update ranks exactly like a fresh build of the same files", async () => {
    const index = await buildMemoryIndex(workspaceMemorySources(ws), { cacheDir: false });
    write("memory/2026-02-22.md", "## Personal\nJeff's sailboat Halcyon Drift is now moored at slip 22 in Sausalito.\n", new Date(Date.now() + 5000));
    write("memory/2026-02-23.md", "## Boats\n- The sailboat needs new sails before the regatta.\n- Coffee at the marina is a cortado.\n");
    fs.rmSync(path.join(ws, "memory/2026-02-21.md"));
    const stats = await index.refresh();
    expect(stats).toMatchObject({ filesRead: 2, changed: true, files: 3 });
    const fresh = await buildMemoryIndex(workspaceMemorySources(ws), { cacheDir: false });
    expect(index.chunkCount).toBe(fresh.chunkCount);
    for (const query of ["Where is the sailboat moored?", "Harbor Books kickoff brief", "cortado coffee", "regatta sails"]) {
      const strip = (results: ReturnType<typeof index.search>) => results.map((r) => ({ id: r.id, score: r.score }));
      expect(strip(index.search(query, 10)), query).toEqual(strip(fresh.search(query, 10)));
    }
    expect(index.search("Harbor Books kickoff brief", 3)).toEqual([]);
    expect(index.search("Where is the sailboat moored?", 1)[0].text).toContain("slip 22");
  });

  it("ignores a corrupt cache file and rebuilds it", async () => {
    const index = new MemoryIndex(workspaceMemorySources(ws), { cacheDir });
    await index.refresh();
    await index.whenSaved();
    const [cacheFile] = fs.readdirSync(cacheDir).filter((f) => f.endsWith(".idx"));
    const good = fs.readFileSync(path.join(cacheDir, cacheFile));
    fs.writeFileSync(path.join(cacheDir, cacheFile), good.subarray(0, good.length - 40));
    const again = new MemoryIndex(workspaceMemorySources(ws), { cacheDir });
    expect(await again.refresh()).toMatchObject({ filesRead: 3 });
    await again.whenSaved();
    const restarted = new MemoryIndex(workspaceMemorySources(ws), { cacheDir });
    expect(await restarted.refresh()).toMatchObject({ filesRead: 0, filesReused: 3 });
  });

  it("refuses a cache folder inside the memory root", () => {
    const index = new MemoryIndex(folderMemorySources(ws), { cacheDir: path.join(ws, "memory", ".cache") });
    expect(index.cacheFile === undefined || !index.cacheFile.startsWith(ws)).toBe(true);
    expect(logLines.some((l) => l.includes("inside the memory root"))).toBe(true);
  });

  it("shares one refresh between concurrent callers", async () => {
    const index = new MemoryIndex(workspaceMemorySources(ws), { cacheDir: false });
    const [a, b] = await Promise.all([index.refresh(), index.refresh()]);
    expect(a).toBe(b);
  });
});

describe("change watching (a turn checks the files only after something changed)", () => {
  const open: MemoryIndex[] = [];
  afterEach(() => open.splice(0).forEach((index) => index.close()));
  const watched = async (spec = workspaceMemorySources(ws)) => {
    const index = new MemoryIndex(spec, { cacheDir: false });
    open.push(index);
    await index.refresh();
    // The first check starts the watches; one more settles them (a folder watched only from now
    // on may have changed unseen, so that check is not skipped).
    expect(await index.refresh()).toMatchObject({ checked: true });
    return index;
  };

  it("a quiet vault is not checked again; an edit, a new file and a removal each are seen by the next refresh", async () => {
    const index = await watched();
    expect(await index.refresh()).toMatchObject({ checked: false, files: 3, filesRead: 0 });
    // What no pattern can match does not count: the per-turn ETHOS_CONTEXT.md (written atomically,
    // through a hidden temp file), other workspace files, editor swap files.
    await writeContextFile(ws, "Relevant memories: none");
    await flushContextFileWrites();
    write("AGENTS.md", "# Agents\n");
    write("memory/.2026-02-22.md.swp", "swap");
    expect(await index.refresh()).toMatchObject({ checked: false });

    fs.appendFileSync(path.join(ws, "memory/2026-02-22.md"), "Jeff's kayak is yellow.\n");
    expect(await index.refresh()).toMatchObject({ checked: true, filesRead: 1, changed: true });
    expect(index.search("kayak", 1)[0]?.text).toContain("yellow");
    expect(await index.refresh()).toMatchObject({ checked: false });

    write("memory/2026-03-01.md", "- Jeff booked the dentist for March 9.\n");
    expect(await index.refresh()).toMatchObject({ checked: true, files: 4 });
    expect(index.search("dentist", 1)[0]?.file).toBe("memory/2026-03-01.md");

    fs.rmSync(path.join(ws, "MEMORY.md"));
    expect(await index.refresh()).toMatchObject({ checked: true, files: 3, changed: true });
    expect(index.search("cortado", 3)).toEqual([]);
  });

  it("a file in a new sub-folder of a ** pattern's folder is seen (the parent's watch notices the folder)", async () => {
    write("notes/a.md", "- Jeff prefers window seats.\n");
    const index = await watched(workspaceMemorySources(ws, ["notes/**/*.md"]));
    expect(await index.refresh()).toMatchObject({ checked: false });
    write("notes/trips/2026/lisbon.md", "- The Lisbon trip is booked for May.\n");
    // The folder appeared: the next check finds the file (and watches its folders from then on).
    expect(await index.refresh()).toMatchObject({ checked: true });
    expect(index.search("Lisbon trip", 1)[0]?.file).toBe("notes/trips/2026/lisbon.md");
  });

  it("a pattern's folder that does not exist yet (Archive/) keeps no quiet vault busy, and is seen when it appears", async () => {
    const index = await watched();
    expect(await index.refresh()).toMatchObject({ checked: false });
    // The maintenance pass moves a day file into Archive/Chronicles/ (a new folder tree at once).
    fs.mkdirSync(path.join(ws, "Archive", "Chronicles"), { recursive: true });
    write("Archive/Chronicles/2026-February.md", "## 2026-02-22 · memory/2026-02-22.md\n\n- Jeff's kayak is moored at pier 9.\n");
    expect(await index.refresh()).toMatchObject({ checked: true });
    expect(index.search("kayak pier", 1)[0]?.file).toBe("Archive/Chronicles/2026-February.md");
  });

  it("more folders than it may watch (128): no watches, every refresh checks, and changes are seen", async () => {
    for (let i = 0; i < 130; i++) write(`notes/n${i}/a.md`, `- note ${i}\n`);
    const index = new MemoryIndex(workspaceMemorySources(ws, ["notes/**/*.md"]), { cacheDir: false });
    open.push(index);
    await index.refresh();
    await index.refresh();
    // Nothing changed, yet it checks: it polls instead of watching.
    expect(await index.refresh()).toMatchObject({ checked: true, filesRead: 0 });
    write("notes/n7/b.md", "- The piano tuner comes on Friday.\n");
    expect(await index.refresh()).toMatchObject({ checked: true });
    expect(index.search("piano tuner", 1)[0]?.file).toBe("notes/n7/b.md");
  });

  it("a memory root that does not exist yet is polled (at most once per minRefreshIntervalMs) until it does", async () => {
    const later = path.join(ws, "later");
    const index = new MemoryIndex(folderMemorySources(later), { cacheDir: false, minRefreshIntervalMs: 60_000 });
    open.push(index);
    expect(await index.refresh()).toMatchObject({ checked: true, files: 0 });
    expect(await index.refresh()).toMatchObject({ checked: false }); // within the interval: no stat storm
    const polled = new MemoryIndex(folderMemorySources(later), { cacheDir: false });
    open.push(polled);
    await polled.refresh();
    fs.mkdirSync(later);
    fs.writeFileSync(path.join(later, "a.md"), "- The boiler was serviced in May.\n");
    expect(await polled.refresh()).toMatchObject({ checked: true, files: 1 });
    expect(polled.search("boiler serviced", 1)).toHaveLength(1);
  });

  it("watchForChanges: false checks every file on every refresh", async () => {
    const index = new MemoryIndex(workspaceMemorySources(ws), { cacheDir: false, watchForChanges: false });
    await index.refresh();
    await index.refresh();
    expect(await index.refresh()).toMatchObject({ checked: true, filesReused: 3 });
  });

  it("close() stops watching: the index stays usable and checks in full", async () => {
    const index = await watched();
    index.close();
    expect(await index.refresh()).toMatchObject({ checked: true });
    write("memory/2026-03-02.md", "- Jeff's bike is at the shop.\n");
    expect(await index.refresh()).toMatchObject({ checked: true, files: 4 });
  });
});
