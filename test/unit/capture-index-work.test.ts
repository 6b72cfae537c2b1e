import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { captureFact } from "../../src/capture/capture.ts";
import { MAX_DEDUPE_FILES, MAX_INDEXED_WORKSPACES, WorkspaceFacts, clearFactIndexes, factIndexFor } from "../../src/capture/fact-index.ts";
import * as factLine from "../../src/capture/fact-line.ts";
import * as relation from "../../src/capture/relation.ts";
import * as safeRead from "../../src/fs/safe-read.ts";
import { HYGIENE_CONFIG_DEFAULTS, lockOptionsFromConfig } from "../../src/memory/config-md.ts";
import { factLine as line, observedOf, touch } from "./capture-index-fixtures.ts";
import { temporaryWorkspace } from "./lifecycle-fixtures.ts";

// The work the capture index does to stay up to date (issue 24, bounded capture cost): which bytes
// a refresh reads, which lines it parses, which statements it analyses, and how long it parses
// before it lets the event loop run. Counted through pass-throughs of the reader, the line parser
// and the analyser, and a fake clock for the parse slices; never by timing.

vi.mock("../../src/fs/safe-read.ts", async (original) => {
  const actual = await original<typeof import("../../src/fs/safe-read.ts")>();
  return { ...actual, readRegularFile: vi.fn(actual.readRegularFile) };
});
vi.mock("../../src/capture/fact-line.ts", async (original) => {
  const actual = await original<typeof import("../../src/capture/fact-line.ts")>();
  return { ...actual, capturedStatement: vi.fn(actual.capturedStatement) };
});
vi.mock("../../src/capture/relation.ts", async (original) => {
  const actual = await original<typeof import("../../src/capture/relation.ts")>();
  return { ...actual, analyse: vi.fn(actual.analyse), isRepeat: vi.fn(actual.isRepeat) };
});

const ws = temporaryWorkspace("capture-index-work", ["memory"]);
const TODAY = "2026-11-25";
const fileOf = (day: string) => path.join(ws(), "memory", `${day}.md`);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date(`${TODAY}T10:00:00.000Z`));
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** What was done since the last call: reads [day, start], lines parsed, statements analysed. */
function work(): { reads: [string, number][]; parsed: number; analysed: string[] } {
  const reads = vi.mocked(safeRead.readRegularFile).mock.calls.map(([file, options]) => [path.basename(file, ".md"), options.start ?? 0] as [string, number]);
  const parsed = vi.mocked(factLine.capturedStatement).mock.calls.length;
  const analysed = vi.mocked(relation.analyse).mock.calls.map(([statement]) => statement);
  vi.mocked(safeRead.readRegularFile).mockClear();
  vi.mocked(factLine.capturedStatement).mockClear();
  vi.mocked(relation.analyse).mockClear();
  return { reads, parsed, analysed };
}
const relatedTo = (index: WorkspaceFacts, statement: string) => index.relate(relation.analyse(statement), false)?.fact.statement;

/** Today's file holding `statements` as captured lines, and an index that has read it. */
async function indexedTodayWith(...statements: string[]): Promise<{ file: string; index: WorkspaceFacts }> {
  const file = fileOf(TODAY);
  fs.writeFileSync(file, statements.map((statement) => `${line(statement)}\n`).join(""));
  touch(file);
  const index = new WorkspaceFacts(ws());
  await index.refresh(TODAY);
  return { file, index };
}

describe("a refresh parses only what it has not parsed", () => {
  it("an append by another writer: the appended lines only, read from just before the old end", async () => {
    const { file, index } = await indexedTodayWith("my locker code is 4312", "the boat is called Wren");
    expect(work()).toMatchObject({ reads: [[TODAY, 0]], parsed: 2, analysed: ["my locker code is 4312", "the boat is called Wren"] });
    const before = fs.statSync(file).size;
    fs.appendFileSync(file, `${line("the dentist is on Tuesday")}\n- an agent note\n`);
    touch(file);
    await index.refresh(TODAY);
    const { reads, parsed, analysed } = work();
    expect(reads).toHaveLength(1);
    expect(reads[0][1]).toBeGreaterThan(0);
    expect(reads[0][1]).toBeLessThan(before);
    expect([parsed, analysed]).toEqual([2, ["the dentist is on Tuesday"]]);
    expect(relatedTo(index, "the dentist is on Tuesday")).toBe("the dentist is on Tuesday");
  });

  it("a file read whole again (edited in place) analyses only the statements it did not hold", async () => {
    const { file, index } = await indexedTodayWith("my locker code is 4312", "the boat is called Wren", "the dentist is on Tuesday");
    work();
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("called Wren", "called Hern"));
    touch(file);
    await index.refresh(TODAY);
    expect(work()).toMatchObject({ reads: [[TODAY, 0]], parsed: 3, analysed: ["the boat is called Hern"] });
    expect(relatedTo(index, "the boat is called Hern")).toBe("the boat is called Hern");
    expect(relatedTo(index, "my locker code is 4312")).toBe("my locker code is 4312");
  });
});

describe("the capture's own writes", () => {
  it("our append: only the new line is parsed, and the next refresh reads nothing", async () => {
    const { file, index } = await indexedTodayWith("my locker code is 4312", "the boat is called Wren");
    const text = fs.readFileSync(file, "utf8");
    index.syncText(file, TODAY, text);
    work();
    const added = `${line("the dentist is on Tuesday")}\n`;
    fs.appendFileSync(file, added);
    touch(file);
    index.appended(file, TODAY, text, added, observedOf(file));
    expect(work()).toMatchObject({ reads: [], parsed: 1, analysed: ["the dentist is on Tuesday"] });
    await index.refresh(TODAY);
    expect(work()).toMatchObject({ reads: [], parsed: 0, analysed: [] });
    expect(relatedTo(index, "the dentist is on Tuesday")).toBe("the dentist is on Tuesday");
  });

  it("our append to a file the index had not synced to: the index matches the file all the same", async () => {
    const { file, index } = await indexedTodayWith("my locker code is 4312");
    // Another writer's line, which the index never saw, then ours.
    fs.appendFileSync(file, `${line("the boat is called Wren")}\n`);
    const text = fs.readFileSync(file, "utf8");
    const added = `${line("the dentist is on Tuesday")}\n`;
    fs.appendFileSync(file, added);
    touch(file);
    index.appended(file, TODAY, text, added, observedOf(file));
    expect(index.size).toBe(3);
    for (const statement of ["my locker code is 4312", "the boat is called Wren", "the dentist is on Tuesday"]) expect(relatedTo(index, statement)).toBe(statement);
    work();
    await index.refresh(TODAY);
    expect(work().reads).toEqual([]);
  });

  it("our rewrite of one line: that line alone is parsed, nothing is analysed, the next refresh reads nothing", async () => {
    const file = fileOf(TODAY);
    const [a, b, c] = ["my locker code is 4312", "the boat is called Wren", "the dentist is on Tuesday"].map((statement) => line(statement));
    fs.writeFileSync(file, `${a}\n${b}\n${c}\n`);
    touch(file);
    const index = new WorkspaceFacts(ws());
    await index.refresh(TODAY);
    const text = fs.readFileSync(file, "utf8");
    index.syncText(file, TODAY, text);
    work();
    const marked = line("the boat is called Wren", true);
    const rewritten = text.replace(b, marked);
    fs.writeFileSync(file, rewritten);
    touch(file);
    await index.rewritten(file, TODAY, rewritten, b, marked);
    expect(work()).toMatchObject({ reads: [], parsed: 1, analysed: [] });
    expect(relatedTo(index, "the boat is called Wren")).toBeUndefined();
    expect(relatedTo(index, "the dentist is on Tuesday")).toBe("the dentist is on Tuesday");
    await index.refresh(TODAY);
    expect(work()).toMatchObject({ reads: [], parsed: 0 });
  });
});

describe("parsing a long file gives the event loop a turn every few milliseconds", () => {
  it("with each line costing 1 ms, other work runs after every 4 lines parsed (the 4 ms slice)", async () => {
    const file = fileOf(TODAY);
    const lines = 60;
    fs.writeFileSync(file, Array.from({ length: lines }, (_, i) => `${line(`the locker ${i} code is ${1000 + i}`)}\n`).join(""));
    const index = new WorkspaceFacts(ws());
    work();
    // Every look at the clock is one millisecond later than the one before.
    let clock = 0;
    vi.spyOn(performance, "now").mockImplementation(() => ++clock);
    // Lines parsed by the time each turn of the event loop came.
    const parsedAtTurns: number[] = [];
    let running = true;
    const tick = () => {
      parsedAtTurns.push(vi.mocked(factLine.capturedStatement).mock.calls.length);
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    await index.refresh(TODAY);
    running = false;
    expect(index.size).toBe(lines);
    const counts = [...new Set(parsedAtTurns)];
    const between = counts.slice(1).map((count, i) => count - counts[i]);
    expect(between).toEqual(Array.from({ length: lines / 4 }, () => 4));
  });
});

describe("our rewrite, then others' appends", () => {
  it("after our rewrite of one line, another writer's append is read from where the index stopped", async () => {
    const file = fileOf(TODAY);
    const [a, b] = ["my locker code is 4312", "the boat is called Wren"].map((statement) => line(statement));
    fs.writeFileSync(file, `${a}\n${b}\n`);
    const index = new WorkspaceFacts(ws());
    await index.refresh(TODAY);
    const text = fs.readFileSync(file, "utf8");
    index.syncText(file, TODAY, text);
    // A mention raised: the new line is longer than the old one.
    const raised = line("my locker code is 4312", false, 12);
    const rewritten = text.replace(a, raised);
    fs.writeFileSync(file, rewritten);
    touch(file);
    await index.rewritten(file, TODAY, rewritten, a, raised);
    fs.appendFileSync(file, `${line("the dentist is on Tuesday")}\n`);
    touch(file);
    work();
    await index.refresh(TODAY);
    const { reads, parsed } = work();
    expect(reads).toHaveLength(1);
    expect(reads[0][1]).toBeGreaterThan(Buffer.byteLength(raised));
    expect(parsed).toBe(1);
    expect(relatedTo(index, "the dentist is on Tuesday")).toBe("the dentist is on Tuesday");
    expect(index.size).toBe(3);
  });

  it("a rewrite of a line the index never held, whose end falls on a line end the index knows: read from the text", async () => {
    const file = fileOf(TODAY);
    const a = line("my locker code is 4312");
    fs.writeFileSync(file, `${a}\n`);
    const index = new WorkspaceFacts(ws());
    await index.refresh(TODAY);
    // Another writer's line of the same length as ours, then our rewrite of it (never indexed).
    const theirs = line("the boat is called Wren");
    const ours = line("the boat is called Hern");
    expect(ours.length).toBe(theirs.length);
    const text = `${a}\n${ours}\n`;
    fs.writeFileSync(file, text);
    await index.rewritten(file, TODAY, text, theirs, ours);
    expect(index.size).toBe(2);
    expect(relatedTo(index, "the boat is called Hern")).toBe("the boat is called Hern");
  });

  it("a rewrite the index cannot apply in place reads the text written whole, up to the 1 MiB bound", async () => {
    const file = fileOf(TODAY);
    const [x, b, c] = ["my locker code is 4312", "the boat is called Wren", "the dentist is on Tuesday"].map((statement) => line(statement));
    fs.writeFileSync(file, `${x}\n${b}\n`);
    const index = new WorkspaceFacts(ws());
    await index.refresh(TODAY);
    index.syncText(file, TODAY, fs.readFileSync(file, "utf8"));
    // Meanwhile: the first line edited in place by someone else, and a line appended; our rewrite is of that line.
    const y = line("my locker code is 5580");
    const marked = line("the dentist is on Tuesday", true);
    const text = `${y}\n${b}\n${marked}\n`;
    fs.writeFileSync(file, text);
    await index.rewritten(file, TODAY, text, c, marked);
    expect(relatedTo(index, "my locker code is 5580")).toBe("my locker code is 5580");
    expect(index.relate(relation.analyse("my locker code is 5580"), false)?.how).toBe("repeat");
    expect(index.size).toBe(3);
    // Past the bound: a captured line there is left out, as a read of the file leaves it out.
    const filler = `${"x".repeat(1023)}\n`.repeat(1024);
    const long = `${filler}${line("Alice works on the mobile app")}\n`;
    const unread = new WorkspaceFacts(ws());
    fs.writeFileSync(file, long);
    await unread.rewritten(file, TODAY, long, c, marked);
    expect(relatedTo(unread, "Alice works on the mobile app")).toBeUndefined();
    expect(unread.size).toBe(0);
  });
});

describe("what a refresh takes for unchanged", () => {
  it("a file renamed into place with the same size and time is read again (another inode)", async () => {
    const { file, index } = await indexedTodayWith("the boat is called Wren");
    const before = fs.statSync(file);
    fs.writeFileSync(`${file}.tmp`, fs.readFileSync(file, "utf8").replace("Wren", "Hern"));
    fs.utimesSync(`${file}.tmp`, before.atime, before.mtime);
    fs.renameSync(`${file}.tmp`, file);
    expect(fs.statSync(file).mtimeMs).toBe(before.mtimeMs);
    await index.refresh(TODAY);
    expect(relatedTo(index, "the boat is called Hern")).toBe("the boat is called Hern");
  });

  it("an append whose writer put the old time back is read (the size changed)", async () => {
    const { file, index } = await indexedTodayWith("the boat is called Wren");
    const before = fs.statSync(file);
    fs.appendFileSync(file, `${line("the dentist is on Tuesday")}\n`);
    fs.utimesSync(file, before.atime, before.mtime);
    await index.refresh(TODAY);
    expect(relatedTo(index, "the dentist is on Tuesday")).toBe("the dentist is on Tuesday");
  });

  it("an unfinished last line taken back: nothing to parse, read from the end only", async () => {
    const file = fileOf(TODAY);
    const whole = `${line("my locker code is 4312")}\n${line("the boat is called Wren")}\n`;
    fs.writeFileSync(file, `${whole}${line("the dentist is on Tuesday").slice(0, 40)}`);
    touch(file);
    const index = new WorkspaceFacts(ws());
    await index.refresh(TODAY);
    fs.writeFileSync(file, whole);
    touch(file);
    work();
    await index.refresh(TODAY);
    const { reads, parsed } = work();
    expect(reads).toHaveLength(1);
    expect(reads[0][1]).toBeGreaterThan(0);
    expect(parsed).toBe(0);
    expect(index.size).toBe(2);
  });

  it("a one-character line another writer appended is parsed by the refresh that sees it, once", async () => {
    const { file, index } = await indexedTodayWith("my locker code is 4312");
    for (const appended of ["-\n", `${line("the boat is called Wren")}\n`]) {
      fs.appendFileSync(file, appended);
      touch(file);
      work();
      await index.refresh(TODAY);
      expect(work().parsed).toBe(1);
    }
  });

  it("a day file that is a dangling link from the start is left out, the others read", async () => {
    fs.symlinkSync(path.join(ws(), "nowhere.md"), fileOf(TODAY));
    fs.writeFileSync(fileOf("2026-11-24"), `${line("the boat is called Wren")}\n`);
    const index = new WorkspaceFacts(ws());
    await index.refresh(TODAY);
    expect(index.size).toBe(1);
  });

  it("the window is the 30 newest older days, however the folder lists them", async () => {
    // 45 older days written in a shuffled order.
    const days = Array.from({ length: 45 }, (_, i) => new Date(Date.parse(`${TODAY}T00:00:00Z`) - (i + 1) * 86_400_000).toISOString().slice(0, 10));
    const order = days.map((day, i) => ({ day, key: (i * 17) % 45 })).sort((p, q) => p.key - q.key);
    // Each about something else ("aa", "ba", … by the day's place), so no two relate.
    const about = (i: number) => `the ${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}word thing matters`;
    for (const { day } of order) fs.writeFileSync(fileOf(day), `${line(about(days.indexOf(day)))}\n`);
    const index = new WorkspaceFacts(ws());
    await index.refresh(TODAY);
    expect(index.size).toBe(MAX_DEDUPE_FILES);
    for (const i of days.keys()) expect(index.relate(relation.analyse(about(i)), false)?.fact.day, days[i]).toBe(i < MAX_DEDUPE_FILES ? days[i] : undefined);
  });
});

describe("syncing to the text read under the lock", () => {
  it("parses only what the text holds past what the index read; nothing when it holds nothing more", async () => {
    const file = fileOf(TODAY);
    const first = `${line("my locker code is 4312")}\n${line("the boat is called Wren")}\n`;
    fs.writeFileSync(file, first);
    const index = new WorkspaceFacts(ws());
    await index.refresh(TODAY);
    work();
    index.syncText(file, TODAY, first);
    expect(work().parsed).toBe(0);
    const more = `${first}${line("the dentist is on Tuesday")}\n`;
    index.syncText(file, TODAY, more);
    expect(work()).toMatchObject({ parsed: 1, analysed: ["the dentist is on Tuesday"] });
    // Asked to read it whole: every line again.
    index.syncText(file, TODAY, more, true);
    expect(work().parsed).toBe(3);
    expect(index.size).toBe(3);
  });
});

describe("relate looks at a handful of candidates, not at every fact", () => {
  it("facts sharing only a first word, an attribute word or no words at all are not compared", async () => {
    const noise: string[] = [];
    for (let i = 0; i < 40; i++) {
      // Letters only (a word with a digit is a value): unique per fact and position.
      const letter = (k: number) => String.fromCharCode(97 + (k % 26));
      const word = (n: number) => `${letter(n)}${letter(i)}${letter(Math.floor(i / 26) + n * 3)}ez`;
      // The same first word, nothing else shared; the same attribute word before a value; no words at all.
      noise.push(`alice ${word(1)} ${word(2)} ${word(3)} ${word(4)}`, `${word(5)} ${word(6)} berth ${100 + i}`, "the");
    }
    fs.writeFileSync(fileOf(TODAY), noise.map((statement) => `${line(statement)}\n`).join(""));
    const index = new WorkspaceFacts(ws());
    await index.refresh(TODAY);
    expect(index.size).toBe(noise.length);
    for (const [statement, correction] of [
      ["alice plays chess every sunday", false],
      ["alice plays chess", true],
      ["berth 99", false],
      ["moved the boat over to berth 99 today", true],
      ["the", false],
      ["bob likes tea", true],
    ] as const) {
      vi.mocked(relation.isRepeat).mockClear();
      index.relate(relation.analyse(statement), correction);
      expect(vi.mocked(relation.isRepeat).mock.calls.length, statement).toBeLessThan(5);
    }
  });
});

describe("within a day a repeat comes before a change, whichever was found first", () => {
  it("the other polarity on an earlier line, the repeat on a later one", async () => {
    fs.writeFileSync(fileOf(TODAY), `${line("the gym is open on Friday")}\n${line("the gym is not open on Friday")}\n`);
    const index = new WorkspaceFacts(ws());
    await index.refresh(TODAY);
    expect(index.relate(relation.analyse("the gym is not open on Friday"), false)).toMatchObject({ how: "repeat", fact: { statement: "the gym is not open on Friday" } });
    expect(index.relate(relation.analyse("the gym is open on Friday"), false)).toMatchObject({ how: "repeat", fact: { statement: "the gym is open on Friday" } });
  });
});

describe("the indexes kept in process", () => {
  it("four workspaces stay indexed; forgetting them all starts anew", () => {
    clearFactIndexes();
    const first = factIndexFor(path.join(ws(), "w0"));
    for (let i = 1; i < MAX_INDEXED_WORKSPACES; i++) factIndexFor(path.join(ws(), `w${i}`));
    expect(factIndexFor(path.join(ws(), "w0"))).toBe(first);
    clearFactIndexes();
    expect(factIndexFor(path.join(ws(), "w0"))).not.toBe(first);
  });
});

describe("captures one after another", () => {
  const config = HYGIENE_CONFIG_DEFAULTS;
  const capture = (statement: string) =>
    captureFact({ workspaceDir: ws(), fact: { kind: "memory", statement, tag: "#knowledge", trigger: "remember-that" }, now: new Date(`${TODAY}T10:00:00.000Z`), config, lock: lockOptionsFromConfig(config, "memory-capture") });
  const readsOfToday = () => work().reads.filter(([day]) => day === TODAY);

  it("read today's file once; after another writer's append, from where the index stopped, never whole under the lock", async () => {
    clearFactIndexes();
    const file = fileOf(TODAY);
    fs.writeFileSync(file, `${line("my locker code is 4312")}\n`);
    work();
    expect(await capture("the boat is called Wren")).toMatchObject({ action: "added" });
    expect(readsOfToday()).toEqual([[TODAY, 0]]);
    for (const statement of ["the dentist is on Tuesday", "the gate code is 1234", "my sister lives in Oslo"]) expect(await capture(statement)).toMatchObject({ action: "added" });
    expect(readsOfToday()).toEqual([]);
    const before = fs.statSync(file).size;
    fs.appendFileSync(file, `${line("the cat is called Miso")}\n`);
    expect(await capture("the dog is called Pip")).toMatchObject({ action: "added" });
    const reads = readsOfToday();
    expect(reads).toHaveLength(1);
    expect(reads[0][1]).toBeGreaterThan(0);
    expect(reads[0][1]).toBeLessThan(before);
    expect(await capture("the cat is called Miso")).toMatchObject({ action: "mentioned" });
    const statements = fs.readFileSync(file, "utf8").trim().split("\n").map((text) => factLine.capturedStatement(text)?.statement);
    expect(statements).toEqual(["my locker code is 4312", "the boat is called Wren", "the dentist is on Tuesday", "the gate code is 1234", "my sister lives in Oslo", "the cat is called Miso", "the dog is called Pip"]);
  });

  it("a last line another writer left without its newline is read under the lock, so the next capture knows it", async () => {
    clearFactIndexes();
    const file = fileOf(TODAY);
    fs.writeFileSync(file, `${line("my locker code is 4312")}\n${line("the cat is called Miso")}`);
    expect(await capture("the boat is called Wren")).toMatchObject({ action: "added" });
    expect(await capture("the cat is called Miso")).toMatchObject({ action: "mentioned" });
    const statements = fs.readFileSync(file, "utf8").trim().split("\n").map((text) => factLine.capturedStatement(text)?.statement);
    expect(statements).toEqual(["my locker code is 4312", "the cat is called Miso", "the boat is called Wren"]);
  });
});
