import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { capturedFacts, captureFact, dayFileFor, formatCapturedLine, parseCapturedLine, settledCaptures } from "../../src/capture/capture.ts";
import { clearFactIndexes } from "../../src/capture/fact-index.ts";
import { factId } from "../../src/capture/memory-facts.ts";
import { applyEdits, isPendingJournalName, parseJournal, pendingJournals } from "../../src/capture/pending-edits.ts";
import type { PendingEdit } from "../../src/capture/pending-edits.ts";
import { HYGIENE_CONFIG_DEFAULTS, lockOptionsFromConfig } from "../../src/memory/config-md.ts";
import { waitForFile } from "../e2e/wait-file.ts";

// A capture's in-place edits (a repeat's mention count, an older value's mark) are committed as one
// line of the process's journal and applied to the day file afterwards, one rewrite per file,
// when no capture waits (issue 24: a capture's p95 at 40,000 facts). What the files and the journal
// hold at each step is checked; never the clock.

const rewrites = vi.hoisted(() => ({ files: [] as string[] }));
vi.mock("../../src/fs/locked-writes.ts", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/fs/locked-writes.ts")>();
  return {
    ...real,
    updateFileLocked: async (...args: Parameters<typeof real.updateFileLocked>) => {
      const result = await real.updateFileLocked(...args);
      if (result.written) rewrites.files.push(args[0]);
      return result;
    },
  };
});

const NOW = new Date("2026-11-25T10:00:00.000Z");
const LATER = new Date("2026-11-25T11:00:00.000Z");
const YESTERDAY = new Date("2026-11-24T10:00:00.000Z");
const config = { ...HYGIENE_CONFIG_DEFAULTS, lock_retry_interval_seconds: 0.01, lock_max_retries: 500 };
const lock = lockOptionsFromConfig(config, "memory-capture");

let ws: string;
let logs: Record<string, unknown>[];
beforeEach(() => {
  ws = fs.mkdtempSync(path.join(os.tmpdir(), "capture-pending-"));
  fs.mkdirSync(path.join(ws, "memory"));
  logs = [];
  setLogDestination({ write: (chunk: string) => (logs.push(JSON.parse(String(chunk)) as Record<string, unknown>), true) } as never);
  clearFactIndexes();
  rewrites.files = [];
});
afterEach(async () => {
  await settledCaptures(ws);
  setLogDestination(undefined);
  fs.rmSync(ws, { recursive: true, force: true });
});

const remember = (statement: string, now = NOW, kind: "memory" | "correction" = "memory") =>
  captureFact({ workspaceDir: ws, fact: { kind, statement, tag: "#knowledge", trigger: "remember-that" }, now, config, lock });
const line = (statement: string, at: Date, mentions = 1) =>
  formatCapturedLine(statement, "#knowledge", { confidence: 0.95, source: "operator", mentions, last: at }, at.toISOString());
const facts = (file: string) => capturedFacts(fs.readFileSync(file, "utf8")).reverse();
const journals = () => fs.readdirSync(path.join(ws, "memory")).filter((name) => name.startsWith(".capture-pending-"));
const journal = (pid = process.pid) => path.join(ws, "memory", `.capture-pending-${pid}.jsonl`);
const today = () => dayFileFor(ws, NOW);

/** A pid no process has (the kernel's pid_max is below 2^22 on Linux). */
const DEAD_PID = 4_194_304 + 17;

describe("an in-place edit is written ahead", () => {
  it("a repeat: committed by one journal line (the fact named by its id, never its words); the day file changes once no capture waits", async () => {
    fs.writeFileSync(today(), `${line("my locker code is 4312", NOW)}\n`);
    const before = fs.readFileSync(today(), "utf8");
    // A second capture queued behind the repeat keeps the queue busy: nothing is applied before it.
    const repeat = remember("my locker code is 4312", LATER);
    const next = remember("the gym opens at 6", LATER);
    expect(await repeat).toMatchObject({ action: "mentioned", file: today() });
    expect(fs.readFileSync(today(), "utf8")).toBe(before);
    const recorded = fs.readFileSync(journal(), "utf8");
    expect(recorded).not.toContain("locker");
    expect(parseJournal(recorded)).toEqual([
      { edit: "mention", day: "2026-11-25", at: NOW.toISOString(), id: factId("my locker code is 4312"), mentions: 2, on: LATER.toISOString() },
    ]);
    await next;
    // Applied in the background once the queue is empty (no settle called): wait for the file's change.
    await waitForFile(today(), (text) => text?.includes("mentions: 2") ?? false);
    expect(facts(today()).map((f) => [f.statement, f.meta.mentions])).toEqual([
      ["my locker code is 4312", 2],
      ["the gym opens at 6", 1],
    ]);
    await settledCaptures(ws);
    expect(journals()).toEqual([]);
  });

  it("edits of one file waiting together are applied in one rewrite", async () => {
    const older = dayFileFor(ws, YESTERDAY);
    const said = ["my locker code is 4312", "the gym opens at 6", "my sailboat is moored at slip 14"];
    fs.writeFileSync(older, said.map((statement) => line(statement, YESTERDAY)).join("\n") + "\n");
    const outcomes = await Promise.all([
      remember("my locker code is 4312"),
      remember("the gym opens at 6"),
      remember("my sailboat is moored at slip 22", NOW, "correction"),
      remember("my locker code is 4312", LATER),
    ]);
    expect(outcomes.map((o) => o.action)).toEqual(["mentioned", "mentioned", "superseded", "mentioned"]);
    // Each outcome says what its own line will be (the second telling counts from the first's).
    expect([0, 1, 3].map((i) => [parseCapturedLine(outcomes[i].line!)?.statement, parseCapturedLine(outcomes[i].line!)?.meta.mentions])).toEqual([
      ["my locker code is 4312", 2],
      ["the gym opens at 6", 2],
      ["my locker code is 4312", 3],
    ]);
    await settledCaptures(ws);
    expect(rewrites.files).toEqual([older]);
    expect(facts(older).map((f) => [f.statement, f.meta.mentions, f.superseded])).toEqual([
      ["my locker code is 4312", 3, false],
      ["the gym opens at 6", 2, false],
      ["my sailboat is moored at slip 14", 1, true],
    ]);
    expect(facts(today()).map((f) => f.statement)).toEqual(["my sailboat is moored at slip 22"]);
  });

  it("a journal that cannot be written: the edits are applied from memory all the same, and a warning names it", async () => {
    const said = ["my locker code is 4312", "my sailboat is moored at slip 14"];
    fs.writeFileSync(today(), said.map((statement) => `${line(statement, NOW)}\n`).join(""));
    fs.mkdirSync(journal());
    expect(await remember("my locker code is 4312", LATER)).toMatchObject({ action: "mentioned" });
    expect(await remember("my sailboat is moored at slip 22", LATER, "correction")).toMatchObject({ action: "superseded", supersededIn: today() });
    await settledCaptures(ws);
    expect(facts(today()).map((f) => [f.statement, f.meta.mentions, f.superseded])).toEqual([
      ["my locker code is 4312", 2, false],
      ["my sailboat is moored at slip 14", 1, true],
      ["my sailboat is moored at slip 22", 1, false],
    ]);
    const warned = logs.filter((r) => r.level === 40 && r.msg === "capture: edit not recorded ahead; applied from memory");
    expect(warned.map((r) => [r.name, r.file])).toEqual([
      ["openclaw-context.hygiene", journal()],
      ["openclaw-context.hygiene", journal()],
    ]);
    // Nothing left to apply: the journal would be removed, but a folder is not (said once per file applied).
    expect(logs.filter((r) => r.msg === "capture: journal of pending edits not compacted").map((r) => r.file)).toEqual([journal()]);
  });
});

describe("a journal that is not a regular file", () => {
  it("a FIFO in the journal's place: the capture does not wait for a reader; the edit is applied from memory", async () => {
    fs.writeFileSync(today(), `${line("my locker code is 4312", NOW)}\n`);
    execFileSync("mkfifo", [journal()]);
    expect(await remember("my locker code is 4312", LATER)).toMatchObject({ action: "mentioned" });
    await settledCaptures(ws);
    expect(facts(today()).map((f) => f.meta.mentions)).toEqual([2]);
    expect(logs.filter((r) => r.msg === "capture: edit not recorded ahead; applied from memory").map((r) => String(r.error))).toEqual([expect.stringContaining("not-a-file")]);
  });
});

describe("a journal left behind", () => {
  const edits = (): PendingEdit[] => [
    { edit: "mention", day: "2026-11-24", at: YESTERDAY.toISOString(), id: factId("my locker code is 4312"), mentions: 2, on: NOW.toISOString() },
    { edit: "mention", day: "2026-11-24", at: YESTERDAY.toISOString(), id: factId("my locker code is 4312"), mentions: 3, on: NOW.toISOString() },
    { edit: "supersede", day: "2026-11-24", at: YESTERDAY.toISOString(), id: factId("the gym opens at 6") },
  ];
  const older = () => dayFileFor(ws, YESTERDAY);
  const write = (file: string, entries: PendingEdit[], tail = "") => fs.writeFileSync(file, entries.map((e) => `${JSON.stringify(e)}\n`).join("") + tail);

  beforeEach(() => {
    fs.writeFileSync(older(), `${line("my locker code is 4312", YESTERDAY)}\n${line("the gym opens at 6", YESTERDAY)}\n`);
  });

  it("by a process that stopped (a torn last line included): applied before the next capture, then removed", async () => {
    write(journal(DEAD_PID), edits(), '{"edit":"mention","day":"2026-1');
    expect(await remember("the pool opens at 7")).toMatchObject({ action: "added" });
    expect(logs.filter((r) => r.msg === "capture: applying the pending edits an earlier run left").map((r) => [r.file, r.edits])).toEqual([[journal(DEAD_PID), 3]]);
    expect(facts(older()).map((f) => [f.statement, f.meta.mentions, f.superseded])).toEqual([
      ["my locker code is 4312", 3, false],
      ["the gym opens at 6", 1, true],
    ]);
    expect(journals()).toEqual([]);
  });

  it("by this pid's previous run, and applied already: applying it again changes nothing", async () => {
    write(journal(), edits());
    await remember("the pool opens at 7");
    const applied = fs.readFileSync(older(), "utf8");
    write(journal(), edits());
    clearFactIndexes();
    await remember("the pool closes at 9");
    expect(fs.readFileSync(older(), "utf8")).toBe(applied);
    expect(journals()).toEqual([]);
  });

  it("by a process that is still running: left to it", async () => {
    write(journal(process.ppid), edits());
    await remember("the pool opens at 7");
    await settledCaptures(ws);
    expect(facts(older()).map((f) => [f.meta.mentions, f.superseded])).toEqual([
      [1, false],
      [1, false],
    ]);
    expect(journals()).toEqual([`.capture-pending-${process.ppid}.jsonl`]);
  });
});

describe("while captures never pause", () => {
  /** Capture each statement, the next one queued before the one ahead of it is done: the queue is never idle. */
  async function chain(statements: string[]): Promise<void> {
    let ahead = remember(statements[0]);
    for (const statement of statements.slice(1)) {
      const next = remember(statement);
      expect(await ahead).toMatchObject({ action: "mentioned" });
      ahead = next;
    }
    expect(await ahead).toMatchObject({ action: "mentioned" });
  }
  const dayFile = (day: number) => dayFileFor(ws, new Date(NOW.getTime() - day * 86_400_000));
  const seed = (day: number, statements: string[]) =>
    fs.writeFileSync(dayFile(day), statements.map((statement) => `${line(statement, new Date(NOW.getTime() - day * 86_400_000))}\n`).join(""));
  /**
   * `n` facts in each of two files, in different words (a repeat of one file's fact relates to
   * nothing in the other), said again alternating between the files.
   */
  const seedTwoFiles = (n: number, platformFrom: number): string[] => {
    const rooms = Array.from({ length: n }, (_, i) => `the door code of room ${i} is ${1000 + i}`);
    const trips = Array.from({ length: n }, (_, i) => `my bus for trip ${i} leaves at platform ${platformFrom + i}`);
    seed(1, rooms);
    seed(2, trips);
    return rooms.flatMap((room, i) => [room, trips[i]]);
  };

  it("fewer than 64 edits wait until no capture does: nothing is rewritten during the run, every file right after it", async () => {
    await chain(seedTwoFiles(10, 20));
    expect(rewrites.files).toEqual([]);
    // Applied in the background, one file after the other, with no call to settle.
    await waitForFile(dayFile(2), (text) => (text?.match(/mentions: 2/g) ?? []).length === 10);
    await waitForFile(dayFile(1), (text) => (text?.match(/mentions: 2/g) ?? []).length === 10);
    // Both landed; the queue's last task is done once settled (nothing is left for it to apply).
    await settledCaptures(ws);
    expect(rewrites.files.sort()).toEqual([dayFile(2), dayFile(1)].sort());
  });

  it("once 64 edits wait they are applied between captures; the journal keeps what is still pending and is compacted", async () => {
    // The edits alternate between the files: applying one file's edits leaves the other's pending.
    await chain(seedTwoFiles(150, 200));
    const during = [dayFile(1), dayFile(2)].flatMap(facts);
    const pending = parseJournal(fs.readFileSync(journal(), "utf8"));
    await settledCaptures(ws);
    expect(during.filter((f) => f.meta.mentions === 2).length).toBeGreaterThanOrEqual(64);
    // Compacted: not a line per capture (300); every edit not applied yet is still in it, as written.
    expect(pending.length).toBeLessThan(300);
    const journalled = new Set(pending.map((edit) => edit.id));
    expect(during.filter((f) => f.meta.mentions === 1 && !journalled.has(factId(f.statement))).map((f) => f.statement)).toEqual([]);
    expect([dayFile(1), dayFile(2)].flatMap(facts).every((f) => f.meta.mentions === 2)).toBe(true);
    expect(journals()).toEqual([]);
  });
});

describe("a line gone before its edit lands", () => {
  it("a superseded mark whose line went away: nothing is written again (only a repeat's fact is)", async () => {
    const older = dayFileFor(ws, YESTERDAY);
    fs.writeFileSync(older, `${line("my sailboat is moored at slip 14", YESTERDAY)}\n`);
    const queued = remember("my sailboat is moored at slip 22", NOW, "correction");
    const after = remember("the gym opens at 6");
    expect(await queued).toMatchObject({ action: "superseded", supersededIn: older });
    fs.writeFileSync(older, "- an agent note\n");
    await after;
    await settledCaptures(ws);
    expect(fs.readFileSync(older, "utf8")).toBe("- an agent note\n");
    expect(facts(today()).map((f) => f.statement)).toEqual(["my sailboat is moored at slip 22", "the gym opens at 6"]);
  });
});

describe("the operator's view of the journals", () => {
  it("lists each journal with its edits and whether its writer runs; other files are not journals", async () => {
    const edit = { edit: "supersede", day: "2026-11-24", at: YESTERDAY.toISOString(), id: factId("x") };
    fs.writeFileSync(journal(DEAD_PID), `${JSON.stringify(edit)}\n${JSON.stringify(edit)}\n{"torn`);
    fs.writeFileSync(journal(process.ppid), `${JSON.stringify(edit)}\n`);
    fs.writeFileSync(path.join(ws, "memory", ".capture-pending-x.jsonl"), `${JSON.stringify(edit)}\n`);
    fs.mkdirSync(path.join(ws, "memory", ".capture-pending-12.jsonl"));
    expect(await pendingJournals(ws)).toEqual([
      { file: journal(process.ppid), edits: 1, writerRunning: true },
      { file: journal(DEAD_PID), edits: 2, writerRunning: false },
    ].sort((a, b) => a.file.localeCompare(b.file)));
    expect(await pendingJournals(path.join(ws, "missing"))).toEqual([]);
    expect([".capture-pending-1.jsonl", ".capture-pending-.jsonl", ".capture-pending-1.json", "x.capture-pending-1.jsonl"].map(isPendingJournalName)).toEqual([true, false, false, false]);
  });

  it("a journal over 1 MiB: its first MiB is read", async () => {
    const edit = { edit: "supersede", day: "2026-11-24", at: YESTERDAY.toISOString(), id: factId("x") };
    fs.writeFileSync(journal(DEAD_PID), `${JSON.stringify(edit)}\n`.repeat(12_000));
    const [listed] = await pendingJournals(ws);
    expect(listed.edits).toBeGreaterThan(9_000);
    expect(listed.edits).toBeLessThan(12_000);
  });

  it("this process's own journal counts as not running elsewhere", async () => {
    fs.writeFileSync(journal(), `${JSON.stringify({ edit: "supersede", day: "2026-11-24", at: YESTERDAY.toISOString(), id: factId("x") })}\n`);
    expect(await pendingJournals(ws)).toEqual([{ file: journal(), edits: 1, writerRunning: false }]);
  });
});

describe("parseJournal", () => {
  it("keeps the edits it knows; a torn, empty or unknown line is skipped", () => {
    const mark = { edit: "supersede", day: "2026-11-24", at: YESTERDAY.toISOString(), id: factId("x") };
    const text = ["", JSON.stringify(mark), JSON.stringify({ ...mark, edit: "delete" }), JSON.stringify({ ...mark, id: "f-zz" }), "  ", '{"edit":"supersede","da'].join("\n");
    expect(parseJournal(text)).toEqual([mark]);
  });
});

describe("applyEdits", () => {
  const text = `# notes\n${line("my locker code is 4312", YESTERDAY)}\n- an agent note\n`;
  const target = { day: "2026-11-24", at: YESTERDAY.toISOString(), id: factId("my locker code is 4312") };

  it("finds the line by its capture time and id, whatever its metadata says now; other lines stay byte for byte", () => {
    const edited = `# notes\n${line("my locker code is 4312", YESTERDAY, 4)}\n- an agent note\n`;
    const result = applyEdits(edited, [{ edit: "supersede", ...target }], config);
    const [before, after] = [edited.split("\n"), result.text.split("\n")];
    expect(after).toEqual([before[0], expect.stringContaining("status: superseded"), before[2], ""]);
    expect(capturedFacts(result.text)[0]).toMatchObject({ statement: "my locker code is 4312", superseded: true, meta: { mentions: 4 } });
    expect(result.missing).toEqual([]);
  });

  it("a mention that brings the count to a number it has already is applied once", () => {
    const once = applyEdits(text, [{ edit: "mention", ...target, mentions: 2, on: NOW.toISOString() }], config);
    const twice = applyEdits(once.text, [{ edit: "mention", ...target, mentions: 2, on: NOW.toISOString() }], config);
    expect(capturedFacts(once.text)[0].meta.mentions).toBe(2);
    expect(twice).toEqual({ text: once.text, changes: [], missing: [] });
  });

  it("a CRLF file, a last line without its newline, a note that quotes the capture time, a capture time that only starts alike", () => {
    const mark = { edit: "supersede" as const, ...target };
    const crlf = `# notes\r\n${line("my locker code is 4312", YESTERDAY)}\r\n- an agent note\r\n`;
    expect(applyEdits(crlf, [mark], config).text.split("\r\n")[1]).toContain("status: superseded");
    expect(applyEdits(crlf, [mark], config).text.split("\r\n")[2]).toBe("- an agent note");
    const last = `# notes\n${line("my locker code is 4312", YESTERDAY)}`;
    expect(capturedFacts(applyEdits(last, [mark], config).text)[0].superseded).toBe(true);
    const quoted = `- a note: captured: ${YESTERDAY.toISOString()} was when\n${line("my locker code is 4312", YESTERDAY)}\n`;
    expect(applyEdits(quoted, [mark], config).text.split("\n")[0]).toBe(`- a note: captured: ${YESTERDAY.toISOString()} was when`);
    expect(capturedFacts(applyEdits(quoted, [mark], config).text)[0].superseded).toBe(true);
    const alike = `${line("my locker code is 4312", YESTERDAY).replace(YESTERDAY.toISOString(), `${YESTERDAY.toISOString()}9`)}\n`;
    expect(applyEdits(alike, [mark], config)).toEqual({ text: alike, changes: [], missing: [mark] });
  });

  it("two lines edited at once keep their order and everything between them", () => {
    const two = `${line("my locker code is 4312", YESTERDAY)}\n- between\n${line("the gym opens at 6", YESTERDAY)}\n`;
    const gym = { edit: "supersede" as const, day: "2026-11-24", at: YESTERDAY.toISOString(), id: factId("the gym opens at 6") };
    const result = applyEdits(two, [gym, { edit: "supersede", ...target }], config);
    expect(result.text.split("\n").map((l) => capturedFacts(l)[0]?.statement ?? l)).toEqual(["my locker code is 4312", "- between", "the gym opens at 6", ""]);
    expect(capturedFacts(result.text).every((f) => f.superseded)).toBe(true);
    expect(result.changes).toHaveLength(2);
  });

  it("a line that is gone, another fact captured at the same moment, or a superseded line said again: missing", () => {
    const sameMoment = `${line("my gym code is 1111", YESTERDAY)}\n`;
    const mention = { edit: "mention" as const, ...target, mentions: 2, on: NOW.toISOString() };
    expect(applyEdits(sameMoment, [mention], config)).toEqual({ text: sameMoment, changes: [], missing: [mention] });
    const marked = applyEdits(text, [{ edit: "supersede", ...target }], config).text;
    expect(applyEdits(marked, [mention], config).missing).toEqual([mention]);
  });
});
