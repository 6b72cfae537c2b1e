import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { capturedFacts, captureFact, dayFileFor, formatCapturedLine, settledCaptures } from "../../src/capture/capture.ts";
import { MAX_DEDUPE_FILES, MAX_INDEXED_WORKSPACES, clearFactIndexes, factIndexFor } from "../../src/capture/fact-index.ts";
import { analyse } from "../../src/capture/relation.ts";
import type { ExtractedFact } from "../../src/capture/statement.ts";
import { HYGIENE_CONFIG_DEFAULTS, lockOptionsFromConfig } from "../../src/memory/config-md.ts";
import { readRegularFile } from "../../src/fs/safe-read.ts";

// The workspace's index of captured facts (issue 24, bounded capture cost): read once, then only
// what was appended; whatever else happens to a day file (an edit in place, a rewrite, a shrink) is
// read again; and a capture never acts on what the index says without checking the file under its
// lock. Counted by what lands in the files, never by the clock.

const NOW = new Date("2026-11-25T10:00:00.000Z");
const DAY = 86_400_000;
const config = HYGIENE_CONFIG_DEFAULTS;
const lock = lockOptionsFromConfig(config, "memory-capture");

let ws: string;
beforeEach(() => {
  ws = fs.mkdtempSync(path.join(os.tmpdir(), "capture-index-"));
  fs.mkdirSync(path.join(ws, "memory"));
  setLogDestination({ write: () => true } as never);
  clearFactIndexes();
});
afterEach(() => {
  setLogDestination(undefined);
  fs.rmSync(ws, { recursive: true, force: true });
});

/** One fact captured, and the in-place edits it recorded applied (pending-edits.ts). */
const remember = async (statement: string, now = NOW, kind: ExtractedFact["kind"] = "memory") => {
  const outcome = await captureFact({ workspaceDir: ws, fact: { kind, statement, tag: "#knowledge", trigger: "remember-that" }, now, config, lock });
  await settledCaptures(ws);
  return outcome;
};
const line = (statement: string, at = NOW, extra = {}) =>
  formatCapturedLine(statement, "#knowledge", { confidence: 0.95, source: "operator", mentions: 1, last: at, ...extra }, at.toISOString());
const today = () => dayFileFor(ws, NOW);
const read = (file = today()) => capturedFacts(fs.readFileSync(file, "utf8")).reverse();

describe("what the index reads", () => {
  it("a fact another writer appended since the last capture is seen (a repeat of it raises its count)", async () => {
    await remember("my locker code is 4312");
    fs.appendFileSync(today(), `${line("the gym closes at 10pm")}\n- an agent note\n`);
    expect((await remember("the gym closes at 10pm")).action).toBe("mentioned");
    expect(read().map((f) => [f.statement, f.meta.mentions])).toEqual([
      ["my locker code is 4312", 1],
      ["the gym closes at 10pm", 2],
    ]);
  });

  it("an unfinished last line is read once it is finished", async () => {
    fs.writeFileSync(today(), `${line("my locker code is 4312")}\n${line("the gym closes at 10pm").slice(0, 40)}`);
    await remember("the pool opens at 7");
    // The append landed after the unfinished text (on its line); the file now ends the line, and the rest is read.
    fs.appendFileSync(today(), `\n${line("the gym closes at 10pm")}\n`);
    expect((await remember("the gym closes at 10pm")).action).toBe("mentioned");
  });

  it("an edit in place, a rewrite (new inode) or a shrink is read whole again", async () => {
    fs.writeFileSync(today(), `${line("my locker code is 4312")}\n${line("the gym closes at 10pm")}\n`);
    await remember("the pool opens at 7");
    // In place, longer: the first line now says something else.
    const edited = fs.readFileSync(today(), "utf8").replace("my locker code is 4312", "my locker code is 55801");
    fs.writeFileSync(today(), edited);
    expect((await remember("my locker code is 55801")).action).toBe("mentioned");
    // A rewrite by rename (an editor's save), same length.
    const renamed = `${today()}.tmp`;
    fs.writeFileSync(renamed, fs.readFileSync(today(), "utf8").replace("the gym closes at 10pm", "the gym closes at 11pm"));
    fs.renameSync(renamed, today());
    expect((await remember("the gym closes at 11pm")).action).toBe("mentioned");
    // A shrink: the operator deleted everything.
    fs.writeFileSync(today(), "");
    expect((await remember("the gym closes at 11pm")).action).toBe("added");
    expect(read().map((f) => f.statement)).toEqual(["the gym closes at 11pm"]);
  });

  it("today's file and the 30 newest older ones, no more; a file that left the window is forgotten", async () => {
    // One fact per day, each about something else ("alpha", "bravo", … by the day's number in letters).
    const about = (d: number) => `${String.fromCharCode(97 + (d % 26))}${String.fromCharCode(97 + Math.floor(d / 26))}word`;
    for (let d = 1; d <= MAX_DEDUPE_FILES + 1; d++) {
      const at = new Date(NOW.getTime() - d * DAY);
      fs.writeFileSync(dayFileFor(ws, at), `${line(`the ${about(d)} thing matters`, at)}\n`);
    }
    const oldest = new Date(NOW.getTime() - (MAX_DEDUPE_FILES + 1) * DAY);
    // Day 31 is out of the window: said again, it is a new fact today.
    expect((await remember(`the ${about(MAX_DEDUPE_FILES + 1)} thing matters`)).action).toBe("added");
    expect((await remember(`the ${about(MAX_DEDUPE_FILES)} thing matters`)).action).toBe("mentioned");
    expect(read(dayFileFor(ws, oldest))[0].meta.mentions).toBe(1);
    expect(factIndexFor(ws).size).toBe(MAX_DEDUPE_FILES + 1); // 30 older facts and today's one
    // Yesterday's file deleted: its fact leaves the index, and day 31 comes back into the window.
    fs.rmSync(dayFileFor(ws, new Date(NOW.getTime() - DAY)));
    const index = factIndexFor(ws);
    await index.refresh("2026-11-25");
    expect(index.size).toBe(MAX_DEDUPE_FILES + 1);
    expect(index.relate(analyse(`the ${about(1)} thing matters`), false)).toBeUndefined();
    expect(index.relate(analyse(`the ${about(MAX_DEDUPE_FILES + 1)} thing matters`), false)?.fact.file).toBe(today());
  });

  it("keeps at most MAX_INDEXED_WORKSPACES workspaces, the least recently used goes", () => {
    const first = factIndexFor(path.join(ws, "w0"));
    for (let i = 1; i <= MAX_INDEXED_WORKSPACES; i++) factIndexFor(path.join(ws, `w${i}`));
    expect(factIndexFor(path.join(ws, "w0"))).not.toBe(first);
    const kept = factIndexFor(path.join(ws, "w4"));
    factIndexFor(path.join(ws, "w9"));
    expect(factIndexFor(path.join(ws, "w4"))).toBe(kept);
  });
});

describe("the index only proposes: the file under its lock decides", () => {
  it("a line changed in place with size and times put back (the index cannot see it) is still found under the lock", async () => {
    fs.writeFileSync(today(), `${line("my locker code is 4312")}\n`);
    await remember("the pool opens at 7");
    // A whole second, which the file's time keeps exactly (a time read from stat does not round-trip
    // through utimes), seen by the index before the edit and put back after it.
    const second = new Date("2026-11-25T09:00:00.000Z");
    fs.utimesSync(today(), second, second);
    await factIndexFor(ws).refresh("2026-11-25");
    fs.writeFileSync(today(), fs.readFileSync(today(), "utf8").replace("4312", "9999"));
    fs.utimesSync(today(), second, second);
    // The index still holds "4312" and would call this a new value; the file says it is a repeat.
    expect((await remember("my locker code is 9999")).action).toBe("mentioned");
    expect(read().map((f) => [f.statement, f.superseded, f.meta.mentions])).toEqual([
      ["my locker code is 9999", false, 2],
      ["the pool opens at 7", false, 1],
    ]);
  });

  it("our own edits keep the index right without reading the file again: a third telling counts 3, a second correction supersedes the first", async () => {
    await remember("my locker code is 4312");
    await remember("my locker code is 4312");
    expect((await remember("my locker code is 4312")).action).toBe("mentioned");
    expect(read()[0].meta.mentions).toBe(3);
    await remember("my locker code is 5580", NOW, "correction");
    await remember("my locker code is 6671", NOW, "correction");
    expect(read().map((f) => [f.statement, f.superseded])).toEqual([
      ["my locker code is 4312", true],
      ["my locker code is 5580", true],
      ["my locker code is 6671", false],
    ]);
  });

  it("an appended line past the indexed bound (1 MiB of a day file) is left out as syncText leaves it out", () => {
    const filler = `${"x".repeat(1023)}\n`.repeat(1024 - 1); // 1 KiB short of the bound
    const appended = `${line("the boat is called Wren")}\n${"y".repeat(2048)}\n${line("the dock is in Mystic")}\n`;
    const observed = { dev: 1, ino: 1, size: Buffer.byteLength(filler + appended), mtimeMs: 1, ctimeMs: 1 };
    const viaAppend = factIndexFor(path.join(ws, "a"));
    viaAppend.syncText("a.md", "2026-02-22", filler);
    viaAppend.appended("a.md", "2026-02-22", filler, appended, observed);
    const viaSync = factIndexFor(path.join(ws, "b"));
    viaSync.syncText("a.md", "2026-02-22", filler + appended);
    for (const [statement, indexed] of [["the boat is called Wren", true], ["the dock is in Mystic", false]] as const) {
      expect(viaAppend.relate(analyse(statement), false) !== undefined).toBe(indexed);
      expect(viaSync.relate(analyse(statement), false) !== undefined).toBe(indexed);
    }
  });

  it("our own new line is in the index as soon as it is written; a line someone else appends after it is still seen", async () => {
    await remember("the pool opens at 7");
    // No refresh in between: the capture told the index what it appended.
    expect(factIndexFor(ws).relate(analyse("the pool opens at 7"), false)).toMatchObject({ how: "repeat", fact: { file: today() } });
    fs.appendFileSync(today(), `${line("my locker code is 4312")}\n`);
    expect((await remember("my locker code is 4312")).action).toBe("mentioned");
    expect(read().map((f) => [f.statement, f.meta.mentions])).toEqual([
      ["the pool opens at 7", 1],
      ["my locker code is 4312", 2],
    ]);
  });

  it("an older day's line marked superseded meanwhile: the value said again is added today instead", async () => {
    const yesterday = new Date(NOW.getTime() - DAY);
    const older = dayFileFor(ws, yesterday);
    fs.writeFileSync(older, `${line("my locker code is 4312", yesterday)}\n`);
    await remember("the pool opens at 7");
    fs.writeFileSync(older, `${line("my locker code is 4312", yesterday).replace("mentions: 1", "mentions: 1 status: superseded")}\n`);
    fs.utimesSync(older, fs.statSync(older).atime, new Date(0));
    // Recorded as a repeat (the index could not see the mark); when it is applied, the line is found marked.
    expect((await remember("my locker code is 4312")).action).toBe("mentioned");
    expect(read(older).map((f) => [f.superseded, f.meta.mentions])).toEqual([[true, 1]]);
    expect(read().map((f) => [f.statement, f.superseded])).toEqual([
      ["the pool opens at 7", false],
      ["my locker code is 4312", false],
    ]);
  });

  it("captures of one workspace run one at a time, in order", async () => {
    const order: number[] = [];
    const index = factIndexFor(ws);
    await Promise.all(
      [3, 1, 2].map((delay, i) =>
        index.exclusive(async () => {
          await new Promise((resolve) => setImmediate(resolve));
          order.push(i);
          if (delay === 3) throw new Error("a failing capture does not stop the next");
        }).catch(() => undefined),
      ),
    );
    expect(order).toEqual([0, 1, 2]);
  });
});

describe("relate: newest first, a repeat before a change", () => {
  it("prefers today's file, then the newer day; within a day a repeat", async () => {
    const days = [2, 1].map((d) => new Date(NOW.getTime() - d * DAY));
    fs.writeFileSync(dayFileFor(ws, days[0]), `${line("my locker code is 1111", days[0])}\n`);
    fs.writeFileSync(dayFileFor(ws, days[1]), `${line("my locker code is 2222", days[1])}\n${line("my locker code is 3333", days[1])}\n`);
    const index = factIndexFor(ws);
    await index.refresh("2026-11-25");
    expect(index.relate(analyse("my locker code is 9999"), false)?.fact.statement).toBe("my locker code is 3333");
    expect(index.relate(analyse("my locker code is 2222"), false)).toMatchObject({ how: "repeat", fact: { statement: "my locker code is 2222" } });
    expect(index.relate(analyse("my locker code is 1111"), false, dayFileFor(ws, days[1]))).toMatchObject({ how: "change", fact: { statement: "my locker code is 3333" } });
    expect(index.relate(analyse("the"), false)).toBeUndefined();
  });

  it("a correction naming only the attribute and value looks at the last two days only", async () => {
    const old = new Date(NOW.getTime() - 5 * DAY);
    fs.writeFileSync(dayFileFor(ws, old), `${line("my sailboat is moored at slip 14", old)}\n`);
    const index = factIndexFor(ws);
    await index.refresh("2026-11-25");
    expect(index.relate(analyse("it's slip 22"), true)).toBeUndefined();
    fs.writeFileSync(today(), `${line("my kayak is moored at slip 3")}\n`);
    await index.refresh("2026-11-25");
    expect(index.relate(analyse("it's slip 22"), true)).toMatchObject({ how: "change", fact: { statement: "my kayak is moored at slip 3" } });
  });
});

describe("readRegularFile from an offset", () => {
  it("reads from `start`, caps from there, and reports the whole file's size", async () => {
    const file = path.join(ws, "f.txt");
    fs.writeFileSync(file, "0123456789");
    const read = await readRegularFile(file, { maxBytes: 4, start: 3, truncate: true, root: ws });
    expect(read).toMatchObject({ ok: true, size: 10, truncated: true });
    expect(read.ok && read.bytes.toString()).toBe("3456");
    const whole = await readRegularFile(file, { maxBytes: 7, start: 3, root: ws });
    expect(whole.ok && whole.bytes.toString()).toBe("3456789");
    expect(await readRegularFile(file, { maxBytes: 6, start: 3, root: ws })).toMatchObject({ ok: false, reason: "over-cap" });
    const past = await readRegularFile(file, { maxBytes: 4, start: 20, root: ws });
    expect(past.ok && past.bytes.length).toBe(0);
  });
});
