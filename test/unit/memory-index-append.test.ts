import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { MemoryIndex } from "../../src/memory/memory-index.ts";
import { workspaceMemorySources } from "../../src/memory/sources.ts";
import { seededRandom } from "../../bench/scale/vault.ts";

// A day file that grows at its end (captures, the agent's notes) has only its new chunks indexed.
// Whatever the append looks like, the index must hold what a fresh build of the same files holds.

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), "memory-index-append-"));
let ws: string;
const TODAY = "memory/2026-11-26.md";

beforeEach(() => {
  ws = fs.mkdtempSync(path.join(tmpRoot, "ws-"));
  fs.mkdirSync(path.join(ws, "memory"));
  fs.writeFileSync(path.join(ws, "MEMORY.md"), "# Memory\n- Jeff's favourite coffee is a cortado.\n");
  fs.writeFileSync(path.join(ws, "memory/2026-11-25.md"), "- Drafted the harbor brief, token0.\n");
  fs.writeFileSync(path.join(ws, TODAY), "## Captured\n- The first note mentions token1.\n");
});
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

function append(text: string) {
  fs.appendFileSync(path.join(ws, TODAY), text);
}

/** Every chunk that holds one of `tokens`, as a fresh index (cold build) of the same files ranks it. */
function chunksFor(index: MemoryIndex, tokens: readonly string[]) {
  return tokens.map((token) =>
    index
      .search(token, 50)
      .map((m) => ({ file: m.file, text: m.text, headingPath: m.headingPath, date: m.date, confidence: m.confidence, score: Number(m.score.toFixed(9)) }))
      .sort((a, b) => `${a.file}\u0000${a.text}`.localeCompare(`${b.file}\u0000${b.text}`)),
  );
}

async function freshIndex() {
  const index = new MemoryIndex(workspaceMemorySources(ws), { cacheDir: false, watchForChanges: false });
  await index.refresh();
  return index;
}

describe("MemoryIndex: a file that only grew", () => {
  it("indexes just the appended chunks of the index's last file, and finds them", async () => {
    const index = await freshIndex();
    append("- A second note about the sailboat, token2.\n- A third about the garden, token3.\n");
    const stats = await index.refresh();
    expect(stats).toMatchObject({ filesRead: 1, filesAppended: 1, changed: true });
    expect(index.search("sailboat", 3)[0]?.text).toBe("- A second note about the sailboat, token2.");
    expect(index.chunkCount).toBe((await freshIndex()).chunkCount);
  });

  it("indexes the whole file again when the append continued its last entry, and adds nothing for a repeated entry", async () => {
    const index = await freshIndex();
    fs.writeFileSync(path.join(ws, TODAY), "## Captured\n- The first note mentions token1");
    expect((await index.refresh()).filesAppended).toBe(0); // rewritten, not grown
    append(" and token9 on the same line.\n");
    expect(await index.refresh()).toMatchObject({ filesRead: 1, filesAppended: 0 });
    expect(index.search("token9", 3).map((m) => m.text)).toEqual(["- The first note mentions token1 and token9 on the same line."]);
    // A repeated entry: a full index keeps the text once, and so does the append.
    const before = index.chunkCount;
    append("- The first note mentions token1 and token9 on the same line.\n");
    expect(await index.refresh()).toMatchObject({ filesRead: 1, filesAppended: 1 });
    expect(index.chunkCount).toBe(before);
    expect(chunksFor(index, ["token1", "token9"])).toEqual(chunksFor(await freshIndex(), ["token1", "token9"]));
  });

  it("a file that is not the index's last: only its appends are analysed (its chunks move to the end as they were)", async () => {
    const index = await freshIndex();
    fs.appendFileSync(path.join(ws, "memory/2026-11-25.md"), "- Yesterday's late note, token4.\n");
    expect(await index.refresh()).toMatchObject({ filesRead: 1, filesAppended: 1 });
    fs.appendFileSync(path.join(ws, "memory/2026-11-25.md"), "- Yesterday's later note, token5.\n");
    expect(await index.refresh()).toMatchObject({ filesRead: 1, filesAppended: 1 });
    // Today's file is no longer the last either: its append moves it back.
    append("- Today's second note, token6.\n");
    expect(await index.refresh()).toMatchObject({ filesRead: 1, filesAppended: 1 });
    const tokens = ["token0", "token1", "token4", "token5", "token6"];
    expect(chunksFor(index, tokens)).toEqual(chunksFor(await freshIndex(), tokens));
    expect(index.chunkCount).toBe((await freshIndex()).chunkCount);
  });

  it("appends to two files in turn, with rewrites of one between them, hold what a fresh build holds", async () => {
    const index = await freshIndex();
    const random = seededRandom(8);
    const yesterday = path.join(ws, "memory/2026-11-25.md");
    const tokens = ["token0", "token1"];
    let appended = 0;
    for (let step = 0; step < 40; step++) {
      const token = `token${tokens.length}`;
      tokens.push(token);
      const roll = random();
      if (roll < 0.45) append(`- Note ${step} about ${token}.\n`);
      else if (roll < 0.85) fs.appendFileSync(yesterday, `- Yesterday's note ${step} about ${token}.\n`);
      else fs.writeFileSync(yesterday, fs.readFileSync(yesterday, "utf8").replace("Drafted", `Drafted ${token} and`));
      const stats = await index.refresh();
      appended += stats.filesAppended;
      expect(chunksFor(index, tokens), `step ${step}`).toEqual(chunksFor(await freshIndex(), tokens));
    }
    expect(appended).toBeGreaterThan(25);
  });

  it("after any sequence of appends holds what a fresh build holds, and so does its saved cache", async () => {
    const cacheDir = fs.mkdtempSync(path.join(tmpRoot, "cache-"));
    const index = new MemoryIndex(workspaceMemorySources(ws), { cacheDir, watchForChanges: false });
    await index.refresh();
    const random = seededRandom(7);
    const tokens = ["token0", "token1"];
    let appended = 0;
    for (let step = 0; step < 60; step++) {
      const token = `token${tokens.length}`;
      tokens.push(token);
      const roll = random();
      // New entries mostly; now and then a continuation line, a new dated heading, a paragraph, a
      // repeated line, a line without its newline (the next append continues it), a long entry.
      if (roll < 0.5) append(`- Note ${step} about ${token}.\n`);
      else if (roll < 0.6) append(`  continued with ${token}\n`);
      else if (roll < 0.67) append(`\n## 2026-11-${10 + (step % 15)} ${token}\n`);
      else if (roll < 0.75) append(`\nA paragraph with ${token}.\n`);
      else if (roll < 0.82) append("- The first note mentions token1.\n");
      else if (roll < 0.9) append(`- Unfinished ${token}`);
      else append(`- Long ${token} ${"sentence with words. ".repeat(80)}\n`);
      const stats = await index.refresh();
      appended += stats.filesAppended;
      expect(chunksFor(index, tokens)).toEqual(chunksFor(await freshIndex(), tokens));
    }
    expect(appended).toBeGreaterThan(20); // the path under test was taken, and so was the full one
    expect(appended).toBeLessThan(60);
    await index.whenSaved();
    const restarted = new MemoryIndex(workspaceMemorySources(ws), { cacheDir, watchForChanges: false });
    expect(await restarted.refresh()).toMatchObject({ filesRead: 0 });
    expect(chunksFor(restarted, tokens)).toEqual(chunksFor(await freshIndex(), tokens));
  });
});

describe("MemoryIndex: a file edited in place", () => {
  const dayFile = () => path.join(ws, TODAY);
  const line = (i: number, mentions = 1) => `- Fact ${i} about token${i} <!-- mentions: ${mentions} -->`;

  it("analyses only the chunks that changed: one raised mention count in a file of 40 facts is one chunk", async () => {
    fs.writeFileSync(dayFile(), `## Captured\n${Array.from({ length: 40 }, (_, i) => line(i)).join("\n")}\n`);
    const index = await freshIndex();
    fs.writeFileSync(dayFile(), fs.readFileSync(dayFile(), "utf8").replace(line(17), line(17, 2)));
    expect(await index.refresh()).toMatchObject({ filesRead: 1, filesAppended: 0, chunksAnalysed: 1 });
    const tokens = Array.from({ length: 40 }, (_, i) => `token${i}`);
    expect(chunksFor(index, tokens)).toEqual(chunksFor(await freshIndex(), tokens));
    expect(index.search("token17", 1)[0]?.text).toBe(line(17, 2));
  });

  it("after any sequence of edits holds what a fresh build holds", async () => {
    const lines = Array.from({ length: 30 }, (_, i) => line(i));
    const write = (header: string) => fs.writeFileSync(dayFile(), `${header}${lines.join("\n")}\n`);
    let header = "## Captured\n";
    write(header);
    const index = await freshIndex();
    const random = seededRandom(11);
    const tokens = Array.from({ length: 60 }, (_, i) => `token${i}`);
    let analysed = 0;
    let chunks = 0;
    for (let step = 0; step < 60; step++) {
      const roll = random();
      const at = Math.floor(random() * lines.length);
      // A mention raised, a line deleted, inserted, repeated or moved; now and then a change that
      // touches every chunk (another heading, a front-matter date or confidence).
      if (roll < 0.35) lines[at] = lines[at].replace(/mentions: (\d+)/, (_, n: string) => `mentions: ${Number(n) + 1}`);
      else if (roll < 0.5 && lines.length > 5) lines.splice(at, 1);
      else if (roll < 0.65) lines.splice(at, 0, line(30 + (step % 30)));
      else if (roll < 0.72) lines.splice(at, 0, lines[(at + 3) % lines.length]);
      else if (roll < 0.8) lines.push(...lines.splice(at, 1));
      else if (roll < 0.86) header = header.startsWith("##") ? "# Other\n" : "## Captured\n";
      else if (roll < 0.93) header = `---\ndate: 2026-11-${10 + (step % 15)}\n---\n${header.replace(/^---[\s\S]*?---\n/, "")}`;
      else header = `---\nconfidence: 0.${5 + (step % 4)}\n---\n${header.replace(/^---[\s\S]*?---\n/, "")}`;
      write(header);
      const stats = await index.refresh();
      analysed += stats.chunksAnalysed;
      chunks += index.chunkCount;
      expect(chunksFor(index, tokens), `step ${step}`).toEqual(chunksFor(await freshIndex(), tokens));
      expect(index.chunkCount, `step ${step}`).toBe((await freshIndex()).chunkCount);
    }
    expect(analysed).toBeGreaterThan(60); // the whole-file changes were analysed again
    expect(analysed * 3).toBeLessThan(chunks); // the others reused what was analysed
  });
});

describe("MemoryIndex: cache writes", () => {
  it("writes the cache at most once per interval, and at once when asked (whenSaved)", async () => {
    const cacheDir = fs.mkdtempSync(path.join(tmpRoot, "cache-"));
    const options = { cacheDir, watchForChanges: false, minSaveIntervalMs: 3_600_000 };
    const index = new MemoryIndex(workspaceMemorySources(ws), options);
    await index.refresh();
    await index.whenSaved(); // the first save is not held back
    // A restart from a copy of the saved cache (its own saves must not count as the first index's).
    const restart = async () => {
      const copy = fs.mkdtempSync(path.join(tmpRoot, "cache-copy-"));
      fs.cpSync(cacheDir, copy, { recursive: true });
      return (await new MemoryIndex(workspaceMemorySources(ws), { ...options, cacheDir: copy }).refresh()).filesRead;
    };
    expect(await restart()).toBe(0);
    append("- A note after the first save, token2.\n");
    await index.refresh();
    // Within the interval the saved cache is the first one: a restart reads the changed file again.
    expect(await restart()).toBe(1);
    await index.whenSaved();
    expect(await restart()).toBe(0);
  });
});
