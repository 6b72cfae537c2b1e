import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { seededRandom } from "../../bench/scale/vault.ts";
import { MAX_DEDUPE_FILES, WorkspaceFacts } from "../../src/capture/fact-index.ts";
import type { Related } from "../../src/capture/fact-index.ts";
import { capturedStatement } from "../../src/capture/fact-line.ts";
import { analyse, changeOf, isRepeat } from "../../src/capture/relation.ts";
import type { Shape } from "../../src/capture/relation.ts";
import * as safeRead from "../../src/fs/safe-read.ts";
import { factLine, observedOf, touch } from "./capture-index-fixtures.ts";
import { temporaryWorkspace } from "./lifecycle-fixtures.ts";

// The fact index read incrementally (appends, our own appends and rewrites, edits, shrinks,
// renames, deletions, unfinished lines) must answer exactly as an index built afresh from the same
// files, and that one as a plain scan of every captured line would (the keys only narrow the
// search). Sequences of writes are drawn from a seeded generator, so a failure names its seed and
// step. The older files' recheck interval is driven by a fake Date.now(), never by waiting.

// Passed through unchanged; counted to show which refreshes read a file.
vi.mock("../../src/fs/safe-read.ts", async (original) => {
  const actual = await original<typeof import("../../src/fs/safe-read.ts")>();
  return { ...actual, readRegularFile: vi.fn(actual.readRegularFile) };
});

const ws = temporaryWorkspace("capture-index-incremental", ["memory"]);
const TODAY = "2026-11-25";
/** How long an older day file's last look stays good (OLDER_RECHECK_MS in fact-index.ts). */
const OLDER_RECHECK_MS = 1_000;
const MAX_INDEXED_DAY_FILE_BYTES = 1024 * 1024;
/** Today, yesterday, two older days, and a day after today (never indexed). */
const DAYS = [TODAY, "2026-11-24", "2026-11-23", "2026-11-19", "2026-11-26"] as const;
const fileOf = (day: string) => path.join(ws(), "memory", `${day}.md`);
/** A fresh index of the workspace's day files as they are now. */
async function indexedToday(): Promise<WorkspaceFacts> {
  const index = new WorkspaceFacts(ws());
  await index.refresh(TODAY);
  return index;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date(`${TODAY}T10:00:00.000Z`));
  vi.mocked(safeRead.readRegularFile).mockClear();
});
afterEach(() => {
  vi.useRealTimers();
});
/** Let every older file's recheck come due (exactly the interval: it is due then). */
const passRecheckInterval = () => vi.setSystemTime(Date.now() + OLDER_RECHECK_MS);

// Statements that repeat, change a number, a name after a relation word, a short value, a
// polarity, or name only an attribute and its value (corrections), in several wordings.
const STATEMENTS = [
  ...["4312", "5580", "6671"].flatMap((code) => [`my locker code is ${code}`, `${code} is my locker code`, `code ${code} 1111`]),
  ...["Wren", "Heron"].flatMap((name) => [`the boat is called ${name}`, `boat ${name}`]),
  ...["Tuesday", "Friday"].flatMap((day) => [`the dentist is on ${day}`, `dentist ${day} 3pm`, `dentist ${day} 4pm`, `the gym is open on ${day}`, `the gym is not open on ${day}`]),
  ...["14", "22"].map((slip) => `my sailboat is moored at slip ${slip}`),
  "Alice works on the billing migration",
  "Alice works on the mobile app",
  "5580 1111",
  "5580 4312",
  "Wren",
];
const PROBES = [...STATEMENTS, "it's slip 3", "it's slip 14", "the slip is 22 now", "actually slip 3 for the boat", "code 9999 1111", "my locker code is 9999", "the", "boat Osprey", "dentist Monday"].map(
  (statement) => ({ statement, shape: analyse(statement) }),
);

const textOf = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "");

type Answer = { how: string; file: string; day: string; line: string; statement: string; change?: unknown } | undefined;
const answer = (related: Related | undefined): Answer =>
  related && { how: related.how, file: related.fact.file, day: related.fact.day, line: related.fact.line, statement: related.fact.statement, change: related.how === "change" ? related.change : undefined };

type ScannedFact = { file: string; day: string; line: string; statement: string; superseded: boolean; shape: Shape };
/** Every captured fact in the day files an index reads (today and the newest older ones), in file order. */
function scan(): ScannedFact[] {
  const names = fs.readdirSync(path.join(ws(), "memory"));
  const days = names
    .map((name) => /^(\d{4}-\d{2}-\d{2})\.md$/.exec(name)?.[1])
    .filter((day): day is string => day !== undefined && day <= TODAY)
    .sort()
    .reverse()
    .slice(0, MAX_DEDUPE_FILES + 1);
  const facts: ScannedFact[] = [];
  for (const day of days) {
    const text = fs.readFileSync(fileOf(day)).subarray(0, MAX_INDEXED_DAY_FILE_BYTES).toString("utf8");
    // Only complete lines count: an unfinished last line is still being written.
    for (const raw of text.slice(0, text.lastIndexOf("\n") + 1).split("\n")) {
      const line = raw.replace(/\r$/, "");
      const fact = capturedStatement(line);
      if (fact) facts.push({ file: fileOf(day), day, line, ...fact, shape: analyse(fact.statement) });
    }
  }
  return facts;
}

/** What relate() must answer (for a statement that is not a correction), by looking at every fact. */
function expectedRelation(facts: readonly ScannedFact[], shape: Shape): Answer {
  let best: { fact: ScannedFact; how: string; change?: unknown; at: number } | undefined;
  facts.forEach((fact, at) => {
    if (fact.superseded || shape.keys.length === 0) return;
    const change = isRepeat(fact.shape, shape) ? undefined : changeOf(fact.shape, shape, false);
    if (!isRepeat(fact.shape, shape) && !change) return;
    const how = change ? "change" : "repeat";
    // The newest day; within it a repeat before a change; then the line lowest in the file.
    const better = !best || (fact.day !== best.fact.day ? fact.day > best.fact.day : how !== best.how ? how === "repeat" : at > best.at);
    if (better) best = { fact, how, change, at };
  });
  return best && { how: best.how, file: best.fact.file, day: best.fact.day, line: best.fact.line, statement: best.fact.statement, change: best.change };
}

/** The index answers as one built afresh from the files, and as a scan of every fact. */
async function expectMatchesFiles(index: WorkspaceFacts, context: string): Promise<void> {
  const fresh = await indexedToday();
  const facts = scan();
  expect(fresh.size, context).toBe(facts.length);
  expect(index.size, context).toBe(facts.length);
  for (const { statement, shape } of PROBES) {
    const expected = expectedRelation(facts, shape);
    expect(answer(fresh.relate(shape, false)), `${context}: fresh, "${statement}"`).toEqual(expected);
    expect(answer(index.relate(shape, false)), `${context}: "${statement}"`).toEqual(expected);
    expect(answer(index.relate(shape, true)), `${context}: "${statement}" as a correction`).toEqual(answer(fresh.relate(shape, true)));
    for (const day of [TODAY, "2026-11-24"]) {
      expect(answer(index.relate(shape, false, fileOf(day))), `${context}: "${statement}" in ${day}`).toEqual(answer(fresh.relate(shape, false, fileOf(day))));
    }
  }
}

const OPS = ["append", "append-crlf", "unfinished", "edit", "rename", "shrink", "delete", "our-append", "our-rewrite", "sync"] as const;

/** A random sequence of writes by others and by the capture, the index refreshed now and then. */
async function runSequence(seed: number, steps: number): Promise<void> {
  const rng = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rng() * items.length)];
  // Not a day file: never indexed.
  fs.writeFileSync(path.join(ws(), "memory", "notes.md"), `${factLine(pick(STATEMENTS))}\n`);
  const index = await indexedToday();
  // Whether a file changed behind the index's back since its last refresh.
  let changedByOthers = false;
  for (let step = 0; step < steps; step++) {
    const op = pick(OPS);
    const ours = op.startsWith("our") || op === "sync";
    // The capture writes today's or an older indexed day's file, never one the index leaves out.
    const day = ours ? pick(DAYS.slice(0, 4)) : pick(DAYS);
    const file = fileOf(day);
    if (ours && changedByOthers) {
      // A capture refreshes the index before it takes the file's lock (an edit in place is seen then, not by syncText).
      passRecheckInterval();
      await index.refresh(TODAY);
      changedByOthers = false;
    }
    const text = textOf(file);
    const lines = text.split("\n");
    const completeLines = text.slice(0, text.lastIndexOf("\n") + 1).split("\n").slice(0, -1);
    const someLines = () => Array.from({ length: 1 + Math.floor(rng() * 3) }, () => (rng() < 0.2 ? pick(["- an agent note", "# Notes", ""]) : factLine(pick(STATEMENTS), rng() < 0.15)));
    switch (op) {
      case "append":
      case "append-crlf": {
        const eol = op === "append" ? "\n" : "\r\n";
        fs.appendFileSync(file, someLines().map((line) => line + eol).join(""));
        break;
      }
      case "unfinished":
        // A line cut short, or the rest of one (an append may end anywhere).
        fs.appendFileSync(file, pick([factLine(pick(STATEMENTS)).slice(0, 30 + Math.floor(rng() * 60)), factLine(pick(STATEMENTS)), `\n${factLine(pick(STATEMENTS))}`]));
        break;
      case "edit":
      case "rename": {
        if (lines.length < 2) continue;
        const at = Math.floor(rng() * (lines.length - 1));
        const edited = [...lines.slice(0, at), ...(rng() < 0.3 ? [] : [factLine(pick(STATEMENTS), rng() < 0.2)]), ...lines.slice(at + 1)].join("\n");
        if (op === "edit") fs.writeFileSync(file, edited);
        else {
          fs.writeFileSync(`${file}.tmp`, edited);
          fs.renameSync(`${file}.tmp`, file);
        }
        break;
      }
      case "shrink":
        if (!fs.existsSync(file)) continue;
        fs.truncateSync(file, Math.floor(rng() * Buffer.byteLength(text)));
        break;
      case "delete":
        if (!fs.existsSync(file)) continue;
        fs.rmSync(file);
        break;
      case "our-append": {
        // As the capture does under the lock: sync to the text read, append one line, tell the index.
        index.syncText(file, day, text);
        const added = `${text !== "" && !text.endsWith("\n") ? "\n" : ""}${factLine(pick(STATEMENTS))}\n`;
        fs.appendFileSync(file, added);
        touch(file);
        index.appended(file, day, text, added, observedOf(file));
        break;
      }
      case "our-rewrite": {
        const facts = completeLines.filter((line) => capturedStatement(line) !== undefined && !line.endsWith("\r"));
        if (facts.length === 0) continue;
        index.syncText(file, day, text);
        const oldLine = pick(facts);
        const statement = capturedStatement(oldLine)?.statement ?? "";
        // A mention raised, or the line marked superseded.
        const newLine = rng() < 0.5 ? factLine(statement, false, 2) : factLine(statement, true);
        const rewritten = text.replace(`${oldLine}\n`, `${newLine}\n`);
        fs.writeFileSync(file, rewritten);
        touch(file);
        await index.rewritten(file, day, rewritten, oldLine, newLine);
        break;
      }
      case "sync":
        index.syncText(file, day, text, rng() < 0.3);
        break;
    }
    if (!ours) {
      if (fs.existsSync(file)) touch(file);
      changedByOthers = true;
    }
    const context = `seed ${seed}, step ${step} (${op} ${day})`;
    if (ours) {
      // The file the capture just wrote (or synced) is right in the index at once, whatever others did elsewhere.
      const fresh = await indexedToday();
      for (const { statement, shape } of PROBES) {
        expect(answer(index.relate(shape, false, file)), `${context}: "${statement}" in the file written`).toEqual(answer(fresh.relate(shape, false, file)));
      }
    }
    if (!changedByOthers && rng() < 0.5) {
      // Nothing changed behind its back: what the capture told the index is already right.
      await expectMatchesFiles(index, `${context}, before a refresh`);
    }
    if (rng() < 0.5 || step === steps - 1) {
      passRecheckInterval();
      await index.refresh(TODAY);
      changedByOthers = false;
      await expectMatchesFiles(index, context);
    }
  }
}

describe("an index kept up to date incrementally answers as one built afresh", () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`random writes by others and by the capture, seed ${seed}`, async () => {
      await runSequence(seed, 60);
    });
  }
});

/** The reads refreshes made since the last call: [file's day, offset it started at]. */
function readsSince(): [string, number][] {
  const calls = vi.mocked(safeRead.readRegularFile).mock.calls.map(([file, options]) => [path.basename(file, ".md"), options.start ?? 0] as [string, number]);
  vi.mocked(safeRead.readRegularFile).mockClear();
  return calls;
}
const related = (index: WorkspaceFacts, statement: string, correction = false) => index.relate(analyse(statement), correction)?.fact.statement;

describe("a refresh reads a file only when it changed, and an appended file from where the index stopped", () => {
  it("reads nothing when nothing changed, the end after an append, the whole file after anything else", async () => {
    const file = fileOf(TODAY);
    fs.writeFileSync(file, `${factLine("my locker code is 4312")}\n${factLine("the boat is called Wren")}\n`);
    touch(file);
    fs.writeFileSync(fileOf("2026-11-23"), `${factLine("the dentist is on Tuesday")}\n`);
    touch(fileOf("2026-11-23"));
    const index = await indexedToday();
    expect(readsSince().sort()).toEqual([["2026-11-23", 0], [TODAY, 0]]);
    passRecheckInterval();
    await index.refresh(TODAY);
    expect(readsSince()).toEqual([]);
    // Appended twice by others: each time one read, starting before the old end (its last characters are checked).
    for (const statement of ["Alice works on the billing migration", "the gym is open on Friday"]) {
      const before = fs.statSync(file).size;
      fs.appendFileSync(file, `${factLine(statement)}\n- an agent note\n`);
      touch(file);
      await index.refresh(TODAY);
      const [[day, start], ...more] = readsSince();
      expect([day, more]).toEqual([TODAY, []]);
      expect(start).toBeGreaterThan(0);
      expect(start).toBeLessThan(before);
      expect(related(index, statement)).toBe(statement);
      await expectMatchesFiles(index, `after appending "${statement}"`);
      readsSince();
    }
    // The same size, edited in place early in the file: read whole.
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("locker code is 4312", "locker code is 5580"));
    touch(file);
    await index.refresh(TODAY);
    expect(readsSince()).toEqual([[TODAY, 0]]);
    expect(related(index, "my locker code is 5580")).toBe("my locker code is 5580");
    // Rewritten under another inode, with an early line changed and one more at the end.
    const renamed = `${file}.tmp`;
    fs.writeFileSync(renamed, `${fs.readFileSync(file, "utf8").replace("called Wren", "called Heron")}${factLine("dentist Friday 3pm")}\n`);
    fs.renameSync(renamed, file);
    touch(file);
    await index.refresh(TODAY);
    expect(readsSince()).toEqual([[TODAY, 0]]);
    expect(related(index, "the boat is called Heron")).toBe("the boat is called Heron");
    // Shrunk.
    const lines = fs.readFileSync(file, "utf8").split("\n");
    fs.writeFileSync(file, `${lines.slice(0, 2).join("\n")}\n`);
    touch(file);
    await index.refresh(TODAY);
    expect(readsSince()).toEqual([[TODAY, 0]]);
    await expectMatchesFiles(index, "after a shrink");
  });

  it("after our own append or rewrite a refresh reads nothing, unless someone else wrote after us", async () => {
    const file = fileOf(TODAY);
    fs.writeFileSync(file, `${factLine("my locker code is 4312")}\n`);
    touch(file);
    const index = await indexedToday();
    readsSince();
    const ourAppend = (statement: string, byOthersBeforeTheStat = "") => {
      const text = fs.readFileSync(file, "utf8");
      index.syncText(file, TODAY, text);
      const added = `${factLine(statement)}\n`;
      fs.appendFileSync(file, added + byOthersBeforeTheStat);
      touch(file);
      index.appended(file, TODAY, text, added, observedOf(file));
    };
    const ourRewrite = async (oldStatement: string, byOthersBeforeTheStat = "") => {
      const text = fs.readFileSync(file, "utf8");
      index.syncText(file, TODAY, text);
      const oldLine = text.split("\n").find((line) => capturedStatement(line)?.statement === oldStatement) ?? "";
      const newLine = factLine(oldStatement, true);
      const rewritten = text.replace(oldLine, newLine);
      fs.writeFileSync(file, rewritten + byOthersBeforeTheStat);
      touch(file);
      await index.rewritten(file, TODAY, rewritten, oldLine, newLine);
    };
    ourAppend("the boat is called Wren");
    await expectMatchesFiles(index, "after our append");
    readsSince();
    await index.refresh(TODAY);
    expect(readsSince()).toEqual([]);
    await ourRewrite("my locker code is 4312");
    await expectMatchesFiles(index, "after our rewrite");
    readsSince();
    await index.refresh(TODAY);
    expect(readsSince()).toEqual([]);
    expect(related(index, "my locker code is 4312")).toBeUndefined();
    // Another writer's line landed right after ours, before the capture looked at the file.
    ourAppend("the dentist is on Tuesday", `${factLine("Alice works on the mobile app")}\n`);
    await index.refresh(TODAY);
    expect(related(index, "Alice works on the mobile app")).toBe("Alice works on the mobile app");
    await ourRewrite("the boat is called Wren", `${factLine("the gym is open on Friday")}\n`);
    await index.refresh(TODAY);
    expect(related(index, "the gym is open on Friday")).toBe("the gym is open on Friday");
    expect(related(index, "the boat is called Wren")).toBeUndefined();
    await expectMatchesFiles(index, "after others wrote right after us");
  });

  it("an older day file is looked at again once the recheck interval has passed; today's at every refresh", async () => {
    const older = fileOf("2026-11-23");
    fs.writeFileSync(older, `${factLine("my locker code is 4312")}\n`);
    const index = await indexedToday();
    fs.appendFileSync(older, `${factLine("the boat is called Wren")}\n`);
    fs.writeFileSync(fileOf(TODAY), `${factLine("the dentist is on Tuesday")}\n`);
    vi.setSystemTime(Date.now() + OLDER_RECHECK_MS - 1);
    await index.refresh(TODAY);
    expect(related(index, "the dentist is on Tuesday")).toBe("the dentist is on Tuesday");
    expect(related(index, "the boat is called Wren")).toBeUndefined(); // not looked at yet
    vi.setSystemTime(Date.now() + 1);
    await index.refresh(TODAY);
    expect(related(index, "the boat is called Wren")).toBe("the boat is called Wren");
    // A file that appeared meanwhile is read at once.
    fs.writeFileSync(fileOf("2026-11-24"), `${factLine("dentist Friday 3pm")}\n`);
    await index.refresh(TODAY);
    expect(related(index, "dentist Friday 3pm")).toBe("dentist Friday 3pm");
  });
});

describe("files the index cannot read", () => {
  it("a day file that became a dangling link, or a link out of the workspace, leaves the index", async () => {
    const outside = fs.mkdtempSync(path.join(path.dirname(ws()), "capture-index-outside-"));
    try {
      const target = path.join(outside, "elsewhere.md");
      fs.writeFileSync(target, `${factLine("the gym is open on Friday")}\n`.repeat(3));
      const file = fileOf(TODAY);
      const older = fileOf("2026-11-24");
      fs.writeFileSync(file, `${factLine("my locker code is 4312")}\n`);
      fs.writeFileSync(older, `${factLine("the boat is called Wren")}\n`);
      const index = await indexedToday();
      expect(index.size).toBe(2);
      // Synced from the text (as under the lock), then replaced by a link to a longer file outside.
      index.syncText(file, TODAY, fs.readFileSync(file, "utf8"), true);
      fs.rmSync(file);
      fs.symlinkSync(target, file);
      fs.rmSync(older);
      fs.symlinkSync(path.join(outside, "missing.md"), older);
      passRecheckInterval();
      await index.refresh(TODAY);
      expect(index.size).toBe(0);
      expect(related(index, "the gym is open on Friday")).toBeUndefined();
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe("our own rewrite when the index does not hold what the file held", () => {
  it("the file is read again from the text written", async () => {
    const file = fileOf(TODAY);
    const [a, b, c] = ["my locker code is 4312", "the boat is called Wren", "the dentist is on Tuesday"].map((statement) => factLine(statement));
    fs.writeFileSync(file, `${a}\n${b}\n${c}\n`);
    const index = await indexedToday();
    // Another writer removed two lines meanwhile; the capture rewrites the first from the file as it is.
    const marked = factLine("my locker code is 4312", true);
    fs.writeFileSync(file, `${marked}\n`);
    await index.rewritten(file, TODAY, `${marked}\n`, a, marked);
    await expectMatchesFiles(index, "after a rewrite of a shrunk file");
    // A new index that never read the file.
    const unread = new WorkspaceFacts(ws());
    const text = `${factLine("the gym is open on Friday")}\n`;
    fs.writeFileSync(file, text);
    await unread.rewritten(file, TODAY, text, a, text.slice(0, -1));
    expect(related(unread, "the gym is open on Friday")).toBe("the gym is open on Friday");
    expect(unread.size).toBe(1);
  });
});

describe("the 1 MiB bound of a day file", () => {
  it("appends that cross it, by others and by the capture, index what a fresh read of the file would", async () => {
    const file = fileOf(TODAY);
    // Filler that is not captured facts, ending a few lines short of the bound.
    const filler = `${"x".repeat(1023)}\n`.repeat(1024 - 2);
    fs.writeFileSync(file, `${factLine("my locker code is 4312")}\n${filler}`);
    touch(file);
    const index = await indexedToday();
    await expectMatchesFiles(index, "near the bound");
    for (const [i, statement] of ["the boat is called Wren", "the dentist is on Tuesday", "Alice works on the mobile app", "the gym is open on Friday", "dentist Friday 3pm"].entries()) {
      if (i % 2 === 0) {
        fs.appendFileSync(file, `${factLine(statement)}\n${"y".repeat(1000)}\n`);
        touch(file);
      } else {
        const text = fs.readFileSync(file, "utf8");
        index.syncText(file, TODAY, text);
        const added = `${factLine(statement)}\n`;
        fs.appendFileSync(file, added);
        touch(file);
        index.appended(file, TODAY, text, added, observedOf(file));
      }
      passRecheckInterval();
      await index.refresh(TODAY);
      await expectMatchesFiles(index, `crossing the bound, step ${i}`);
    }
    expect(related(index, "Alice works on the mobile app")).toBe("Alice works on the mobile app");
    expect(related(index, "the gym is open on Friday")).toBeUndefined();
  });
});

describe("a correction naming an attribute, its value and a few more words", () => {
  it("up to four keys it is looked up by the attribute among today's and yesterday's facts", async () => {
    fs.writeFileSync(fileOf("2026-11-24"), `${factLine("my sailboat is moored at slip 14 in Sausalito")}\n`);
    const index = await indexedToday();
    // Four keys (moored, slip, 22, sailboat), sharing no other key with the fact: found by "slip" alone.
    expect(analyse("moored slip 22 for the sailboat").keys).toHaveLength(4);
    expect(index.relate(analyse("moored slip 22 for the sailboat"), true)).toMatchObject({ how: "change", fact: { statement: "my sailboat is moored at slip 14 in Sausalito" } });
    expect(index.relate(analyse("moored slip 22 for the sailboat"), false)).toBeUndefined();
  });
});

describe("relate over the keys a fact is filed under", () => {
  it("finds a repeat of values said in another order, and a correction of a short statement's two last words", async () => {
    fs.writeFileSync(fileOf(TODAY), `${factLine("5580 4312 6671 1111")}\n${factLine("dentist Tuesday morning")}\n`);
    const index = await indexedToday();
    expect(index.relate(analyse("4312 5580 6671 1111"), false)).toMatchObject({ how: "repeat", fact: { statement: "5580 4312 6671 1111" } });
    expect(index.relate(analyse("dentist Friday evening"), true)).toMatchObject({ how: "change", fact: { statement: "dentist Tuesday morning" } });
  });

  it("within a day a repeat comes before a change on a later line", async () => {
    fs.writeFileSync(fileOf(TODAY), `${factLine("my locker code is 4312")}\n${factLine("my locker code is 5580")}\n`);
    const index = await indexedToday();
    expect(index.relate(analyse("my locker code is 4312"), false)).toMatchObject({ how: "repeat", fact: { statement: "my locker code is 4312" } });
    expect(index.relate(analyse("my locker code is 6671"), false)).toMatchObject({ how: "change", fact: { statement: "my locker code is 5580" } });
  });
});
