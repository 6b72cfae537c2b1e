import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { captureFact, settledCaptures, capturedFacts, capturedToday, dayFileFor, formatCapturedLine, leftOutOfTurn, parseCapturedLine } from "../../src/capture/capture.ts";
import { factIndexFor } from "../../src/capture/fact-index.ts";
import { MAX_FACT_CHARS, echoesMessage, extractFact } from "../../src/capture/statement.ts";
import { analyse, changeOf } from "../../src/capture/relation.ts";
import { HYGIENE_CONFIG_DEFAULTS, lockOptionsFromConfig, parseHygieneConfigText } from "../../src/memory/config-md.ts";
import type { HygieneConfig } from "../../src/memory/config-md.ts";
import { recentMemoryItems } from "../../src/context/memory-block.ts";
import { triageInboundMessage } from "../../src/capture/triage.ts";
import { chunkMarkdown } from "../../src/memory/chunk.ts";
import type { RetrievedMemory } from "../../src/memory/types.ts";
import { createMemoryContextService } from "../../src/context/service.ts";

// The in-place edits (updateFileLocked: a mention count, a superseded mark) can be made to fail, as
// they do after their retries next to a writer that never pauses, and the day file can be changed
// right before or after one (what another writer does between two steps of a capture); otherwise
// they are the real ones.
const edits = vi.hoisted(() => ({
  fail: false,
  before: undefined as ((file: string) => void) | undefined,
  after: undefined as ((file: string) => void) | undefined,
}));
vi.mock("../../src/fs/locked-writes.ts", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/fs/locked-writes.ts")>();
  return {
    ...real,
    updateFileLocked: async (...args: Parameters<typeof real.updateFileLocked>) => {
      edits.before?.(args[0]);
      try {
        if (edits.fail) throw new real.ConcurrentEditError(args[0]);
        return await real.updateFileLocked(...args);
      } finally {
        edits.after?.(args[0]);
      }
    },
  };
});

const NOW = new Date("2026-11-25T03:12:09.120Z");
const LATER = new Date("2026-11-25T09:00:00.000Z");
const FAST: HygieneConfig = { ...HYGIENE_CONFIG_DEFAULTS, lock_retry_interval_seconds: 0.01, lock_max_retries: 500 };

const fact = (text: string) => extractFact(text);
/** How `newer` changes `older` (a correction), as the two values' words. */
const valueChange = (older: string, newer: string) => {
  const [a, b] = [analyse(older), analyse(newer)];
  const change = changeOf(a, b, true);
  return change?.oldRange && change.newRange ? { oldValue: a.keys.slice(...change.oldRange).join(" "), newValue: b.keys.slice(...change.newRange).join(" ") } : change;
};

let ws: string;
let logs: string[];
beforeEach(() => {
  ws = fs.mkdtempSync(path.join(os.tmpdir(), "capture-"));
  logs = [];
  setLogDestination({ write: (chunk: string) => (logs.push(String(chunk)), true) } as never);
  Object.assign(edits, { fail: false, before: undefined, after: undefined });
});
afterEach(() => {
  setLogDestination(undefined);
  fs.rmSync(ws, { recursive: true, force: true });
});

const today = () => dayFileFor(ws, NOW);
const readToday = () => fs.readFileSync(today(), "utf8");
/** A message triaged, and the in-place edits its capture recorded applied (pending-edits.ts). */
const say = async (content: string, options: { now?: Date; capture?: boolean; config?: HygieneConfig } = {}) => {
  const outcome = await triageInboundMessage({ content, workspaceDir: ws, now: options.now ?? NOW, config: options.config ?? FAST, capture: options.capture ?? true, sessionKey: "agent:main:main" });
  await settledCaptures(ws);
  return outcome;
};

describe("the statement a trigger introduces", () => {
  it("drops the trigger words and keeps the statement", () => {
    expect(fact("Remember that my locker code is 4312")).toEqual({ kind: "memory", statement: "my locker code is 4312", tag: "#knowledge", trigger: "remember-that" });
    expect(fact("My locker code is 4312, remember that.")?.statement).toBe("My locker code is 4312");
    expect(fact("Please remember that my sailboat is moored at slip 14 in Sausalito. Thanks!")?.statement).toBe("my sailboat is moored at slip 14 in Sausalito");
    expect(fact("note to self: buy milk")?.statement).toBe("buy milk");
    expect(fact("记住我的储物柜密码是4312")?.statement).toBe("我的储物柜密码是4312");
  });

  it("a question states nothing", () => {
    expect(fact("Do you remember when we sailed to Angel Island?")).toBeUndefined();
    expect(fact("Remember that my locker code is 4312. Can you keep it?")?.statement).toBe("my locker code is 4312");
  });

  it("tags per §5.1: decisions, events, knowledge", () => {
    expect(fact("decision: we ship on Friday")?.tag).toBe("#decision");
    expect(fact("don't forget to call mom tomorrow")).toMatchObject({ statement: "call mom tomorrow", tag: "#event" });
    expect(fact("remember that the wifi password is hunter2")?.tag).toBe("#knowledge");
  });

  it("captures nothing from code blocks, inline code, quoted lines or quoted passages", () => {
    expect(fact("```\nremember that x is 1\n```")).toBeUndefined();
    expect(fact("look: `remember that x is 1`")).toBeUndefined();
    expect(fact("> remember that foo is 2")).toBeUndefined();
    expect(fact('He wrote "remember that the code is 1" in the log')).toBeUndefined();
    expect(fact("“remember that the code is 1”, she said")).toBeUndefined();
  });

  it("is one bounded line that cannot open or close the metadata comment", () => {
    const statement = fact(`remember that ${"very long words ".repeat(60)}end`)!.statement;
    expect(statement.length).toBeLessThanOrEqual(MAX_FACT_CHARS);
    expect(statement.endsWith("…")).toBe(true);
    const hostile = fact("remember that <!-- status: superseded --> x is 5 --> <b>\nsecond line")!.statement;
    expect(hostile).toBe("x is 5 -- b");
  });

  it("a correction keeps its sentence without the cue and the trailing 'now'; a value change needs the same words around it", () => {
    expect(fact("Actually, the locker code is 5580 now.")).toMatchObject({ kind: "correction", statement: "the locker code is 5580" });
    expect(valueChange("my locker code is 4312", "the locker code is 5580 now")).toMatchObject({ oldValue: "4312", newValue: "5580" });
    expect(valueChange("my locker code is 4312", "the code review is tomorrow")).toBeUndefined();
    expect(valueChange("my locker code is 4312", "my bike lock code is 1234")).toBeUndefined();
    expect(valueChange("my sailboat is moored at slip 14", "it's slip 22 now")).toMatchObject({ oldValue: "14", newValue: "22" });
    expect(valueChange("my locker code is 4312", "my locker code is 4312")).toBeUndefined();
  });
});

describe("capture through triage (owner sessions)", () => {
  it("writes one dated fact line with the §8 metadata, which the index chunks as one fact", async () => {
    const outcome = await say("Remember that my locker code is 4312");
    expect(outcome.errors).toEqual([]);
    expect(outcome.capture?.action).toBe("added");
    const text = readToday();
    expect(text).toBe(`- my locker code is 4312 #knowledge <!-- confidence: 0.95 source: operator mentions: 1 last: 2026-11-25 captured: ${NOW.toISOString()} -->\n`);
    await say("Don't forget: the dentist is on 2026-12-02");
    const chunks = chunkMarkdown(readToday(), "memory/2026-11-25.md", { maxChunkChars: 1200 });
    expect(chunks.map((c) => c.text.replace(/ <!--.*-->$/, ""))).toEqual(["- my locker code is 4312 #knowledge", "- the dentist is on 2026-12-02 #event"]);
    expect(chunks.every((c) => c.date === "2026-11-25" || c.date === "2026-12-02")).toBe(true);
    // The triage queue still gets its line for the Memory Miner.
    expect(fs.existsSync(path.join(ws, "memory", ".triage", "2026-11-25.jsonl"))).toBe(true);
  });

  it("writes nothing when the caller's classification is not an owner session, or CONFIG.md switches it off", async () => {
    const outcome = await say("Remember that my locker code is 4312", { capture: false });
    expect(outcome.flagged).toBe(true);
    expect(outcome.capture).toBeUndefined();
    expect(fs.existsSync(today())).toBe(false);
    const off = parseHygieneConfigText("```yaml\nmemory_capture: false\n```").config;
    await say("Remember that my locker code is 4312", { config: { ...FAST, memory_capture: off.memory_capture } });
    expect(fs.existsSync(today())).toBe(false);
  });

  it("memory_capture is validated like every CONFIG.md key: a bad value is named, the other keys apply", () => {
    const result = parseHygieneConfigText("```yaml\nmemory_capture: maybe\nlock_max_retries: 8\n```");
    expect(result.ok).toBe(false);
    expect(result.error).toContain("memory_capture");
    expect(result.config).toMatchObject({ memory_capture: true, lock_max_retries: 8 });
    expect(parseHygieneConfigText("```yaml\nmemory_capture: false\n```").config.memory_capture).toBe(false);
  });

  it("a repeat raises the mention count (+0.05) instead of adding a line", async () => {
    await say("Remember that my locker code is 4312");
    const again = await say("remember that my locker code is 4312!", { now: LATER });
    expect(again.capture?.action).toBe("mentioned");
    const lines = readToday().trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(parseCapturedLine(lines[0])?.meta).toMatchObject({ confidence: 1, mentions: 2, source: "operator" });
  });

  it("a repeat of an older day's fact updates that day's line", async () => {
    const older = path.join(ws, "memory", "2026-11-20.md");
    fs.mkdirSync(path.dirname(older), { recursive: true });
    fs.writeFileSync(older, "# Notes\n\n- my locker code is 4312 #knowledge <!-- confidence: 0.95 source: operator mentions: 1 last: 2026-11-20 captured: 2026-11-20T10:00:00.000Z -->\n- agent note\n");
    const outcome = await say("Remember that my locker code is 4312");
    expect(outcome.capture).toMatchObject({ action: "mentioned", file: older });
    expect(fs.existsSync(today())).toBe(false);
    expect(fs.readFileSync(older, "utf8")).toContain("- my locker code is 4312 #knowledge <!-- confidence: 1 source: operator mentions: 2 last: 2026-11-25 captured: 2026-11-20T10:00:00.000Z -->\n- agent note\n");
  });

  it("a correction supersedes the older value and the new value wins (source: correction)", async () => {
    await say("Remember that my sailboat is moored at slip 14 in Sausalito.");
    const corrected = await say("actually it's slip 22 now", { now: LATER });
    expect(corrected.capture).toMatchObject({ action: "superseded", supersededStatement: "my sailboat is moored at slip 14 in Sausalito" });
    const facts = capturedFacts(readToday());
    expect(facts.map((f) => [f.statement, f.superseded, f.meta.source])).toEqual([
      ["my sailboat is moored at slip 22 in Sausalito", false, "correction"],
      ["my sailboat is moored at slip 14 in Sausalito", true, "operator"],
    ]);
    // The recent-memory slot shows only the current value.
    const recent = await recentMemoryItems(ws, LATER, 48, 600);
    expect(recent.map((item) => item.text)).toEqual(["- [2026-11-25] my sailboat is moored at slip 22 in Sausalito"]);
    // A later "remember that" with a new number supersedes too.
    await say("Remember that my sailboat is moored at slip 30 in Sausalito.", { now: LATER });
    expect(capturedFacts(readToday()).filter((f) => !f.superseded).map((f) => f.statement)).toEqual(["my sailboat is moored at slip 30 in Sausalito"]);
  });

  it("a correction of nothing captured writes no fact (CORRECTIONS.md still logs it)", async () => {
    const outcome = await say("actually it's slip 22 now");
    expect(outcome.capture).toEqual({ action: "ignored", reason: "correction of no captured fact" });
    expect(fs.existsSync(today())).toBe(false);
    expect(outcome.correction?.written).toBe(true);
  });

  it("a line the operator deleted is gone: the next capture adds it anew", async () => {
    await say("Remember that my locker code is 4312");
    fs.writeFileSync(today(), "");
    expect((await say("Remember that my locker code is 4312")).capture?.action).toBe("added");
    expect(readToday().trimEnd().split("\n")).toHaveLength(1);
  });

  it("status lists today's captures", async () => {
    await say("Remember that my locker code is 4312");
    await say("Actually, the locker code is 5580 now.", { now: LATER });
    const listed = await capturedToday(ws, LATER);
    expect(listed.facts.map((f) => [f.statement, f.superseded])).toEqual([
      ["my locker code is 4312", true],
      ["my locker code is 5580", false],
    ]);
  });
});

const DAY = 86_400_000;
const YESTERDAY = new Date(NOW.getTime() - DAY);
const SLIP_14 = "Remember that my sailboat is moored at slip 14 in Sausalito.";
const lock = lockOptionsFromConfig(FAST, "memory-capture");
/** One fact written as the capture writes it, without the statement extraction in front. */
const capture = async (statement: string, kind: "memory" | "correction" = "memory", now = NOW) => {
  const outcome = await captureFact({ workspaceDir: ws, fact: { kind, statement, tag: "#knowledge", trigger: kind === "memory" ? "remember-that" : "actually" }, now, config: FAST, lock });
  await settledCaptures(ws);
  return outcome;
};
const factsIn = (file: string) => capturedFacts(fs.readFileSync(file, "utf8")).reverse();

describe("what a capture writes, step by step", () => {
  it("a new fact: the outcome names the line and the file, and nothing else", async () => {
    const outcome = await say("Remember that my locker code is 4312");
    expect(outcome.capture).toEqual({ action: "added", line: readToday().trimEnd(), file: today() });
  });

  it("a new value of yesterday's fact: that line is marked superseded in its own file, the new value goes into today's", async () => {
    await say(SLIP_14, { now: YESTERDAY });
    const older = dayFileFor(ws, YESTERDAY);
    const outcome = await say("actually it's slip 22 now");
    expect(outcome.capture).toEqual({
      action: "superseded",
      line: readToday().trimEnd(),
      file: today(),
      supersededIn: older,
      supersededStatement: "my sailboat is moored at slip 14 in Sausalito",
    });
    expect(factsIn(older).map((f) => [f.statement, f.superseded, f.meta.mentions])).toEqual([["my sailboat is moored at slip 14 in Sausalito", true, 1]]);
    expect(factsIn(today()).map((f) => [f.statement, f.superseded, f.meta.source])).toEqual([["my sailboat is moored at slip 22 in Sausalito", false, "correction"]]);
  });

  it("a new value of yesterday's fact that cannot be written today: yesterday's line is left as it was, never neither value", async () => {
    await say(SLIP_14, { now: YESTERDAY });
    const older = dayFileFor(ws, YESTERDAY);
    const before = fs.readFileSync(older, "utf8");
    // Today's day file cannot be appended to (a folder in its place): the new line is not written.
    fs.mkdirSync(today());
    const outcome = await say("actually it's slip 22 now");
    expect(outcome.errors).toEqual([expect.stringContaining(today())]);
    expect(fs.readFileSync(older, "utf8")).toBe(before);
    expect(factsIn(older).map((f) => [f.statement, f.superseded])).toEqual([["my sailboat is moored at slip 14 in Sausalito", false]]);
  });

  it("a correction whose new value today's file already holds: yesterday's line is marked, today's line counted, no second line", async () => {
    await say(SLIP_14, { now: YESTERDAY });
    // Written by another writer (the older line is left as it was).
    fs.writeFileSync(today(), `${formatCapturedLine("my sailboat is moored at slip 22 in Sausalito", "#knowledge", { confidence: 0.95, source: "operator", mentions: 1, last: NOW }, NOW.toISOString())}\n`);
    const outcome = await say("actually it's slip 22 now", { now: LATER });
    expect(outcome.capture).toMatchObject({ action: "mentioned", file: today() });
    expect(factsIn(dayFileFor(ws, YESTERDAY)).map((f) => f.superseded)).toEqual([true]);
    expect(factsIn(today()).map((f) => [f.statement, f.meta.mentions])).toEqual([["my sailboat is moored at slip 22 in Sausalito", 2]]);
  });

  it("only a repeat of the new value counts as captured already: a fact one word apart from it does not stop the new line", async () => {
    await say(SLIP_14);
    await capture("my sailboat is docked at slip 22 in Sausalito");
    const outcome = await say("actually it's slip 22 now", { now: LATER });
    expect(outcome.capture).toMatchObject({ action: "superseded", line: readToday().trimEnd().split("\n")[2], supersededStatement: "my sailboat is moored at slip 14 in Sausalito" });
    expect(factsIn(today()).map((f) => [f.statement, f.superseded])).toEqual([
      ["my sailboat is moored at slip 14 in Sausalito", true],
      ["my sailboat is docked at slip 22 in Sausalito", false],
      ["my sailboat is moored at slip 22 in Sausalito", false],
    ]);
  });

  it("a new value of today's fact is in the file before the older line is marked (a crash in between leaves both values, never neither)", async () => {
    await say(SLIP_14);
    const atEdit: string[] = [];
    edits.before = (file) => {
      if (file === today()) atEdit.push(readToday());
    };
    expect((await say("actually it's slip 22 now", { now: LATER })).capture).toMatchObject({ action: "superseded", supersededIn: today() });
    expect(atEdit).toHaveLength(1);
    expect(capturedFacts(atEdit[0]).map((f) => [f.statement, f.superseded])).toEqual([
      ["my sailboat is moored at slip 22 in Sausalito", false],
      ["my sailboat is moored at slip 14 in Sausalito", false],
    ]);
  });

  it("only a correction may name just the attribute and the value: the same words as a new memory are a fact of their own", async () => {
    await say(SLIP_14);
    expect(await capture("it's slip 22")).toMatchObject({ action: "added" });
    expect(factsIn(today()).map((f) => [f.statement, f.superseded])).toEqual([
      ["my sailboat is moored at slip 14 in Sausalito", false],
      ["it's slip 22", false],
    ]);
  });

  it("a new value said as a whole new statement is written as said; a correction keeps the older wording", async () => {
    await say(SLIP_14);
    expect((await say("Remember that the sailboat is moored at slip 30 in Sausalito.")).capture).toMatchObject({ action: "superseded" });
    expect(factsIn(today()).filter((f) => !f.superseded).map((f) => f.statement)).toEqual(["the sailboat is moored at slip 30 in Sausalito"]);
    await say("actually it's slip 31 now");
    expect(factsIn(today()).filter((f) => !f.superseded).map((f) => f.statement)).toEqual(["the sailboat is moored at slip 31 in Sausalito"]);
  });

  it("our own edit of a line is in the index at once: what it proposes next is the line as the file holds it", async () => {
    await say("Remember that my locker code is 4312");
    await say("Remember that my locker code is 4312", { now: LATER });
    expect(factIndexFor(ws).relate(analyse("my locker code is 4312"), false)?.fact.line).toBe(readToday().trimEnd());
  });

  it("a day file that links out of the workspace is never written through", async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "capture-outside-"));
    try {
      fs.writeFileSync(path.join(outside, "notes.md"), "- outside\n");
      fs.mkdirSync(path.dirname(today()), { recursive: true });
      fs.symlinkSync(path.join(outside, "notes.md"), today());
      const outcome = await say("Remember that my locker code is 4312");
      expect(outcome.errors).toEqual([expect.stringContaining("outside-root")]);
      expect(fs.readFileSync(path.join(outside, "notes.md"), "utf8")).toBe("- outside\n");
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe("an in-place edit that fails after its retries", () => {
  /** The warnings logged, parsed. */
  const warnings = () => logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((record) => record.level === 40);
  const journals = () => fs.readdirSync(path.join(ws, "memory")).filter((name) => name.startsWith(".capture-pending-"));
  const notApplied = (file: string) => warnings().filter((record) => record.msg === `capture: pending edits of ${file} not applied`);

  it("a repeat: recorded (the outcome says what it will be), the file left as it was, each attempt logged with the file, then dropped", async () => {
    await say("Remember that my locker code is 4312");
    const before = readToday();
    edits.fail = true;
    const outcome = await say("Remember that my locker code is 4312");
    expect(outcome.errors).toEqual([]);
    expect(outcome.capture).toMatchObject({ action: "mentioned", file: today() });
    expect(parseCapturedLine(outcome.capture!.line!)?.meta.mentions).toBe(2);
    expect(readToday()).toBe(before);
    expect(notApplied(today()).map((record) => [record.attempts, record.error])).toEqual([
      [1, `${today()} changed while we were writing it`],
      [2, `${today()} changed while we were writing it`],
      [3, `${today()} changed while we were writing it`],
    ]);
    expect(journals()).toEqual([]);
  });

  it("a repeat of an older day's fact: that file stays as it was, nothing is added today", async () => {
    await say("Remember that my locker code is 4312", { now: YESTERDAY });
    const older = dayFileFor(ws, YESTERDAY);
    const before = fs.readFileSync(older, "utf8");
    edits.fail = true;
    const outcome = await say("Remember that my locker code is 4312");
    expect(outcome.capture).toMatchObject({ action: "mentioned", file: older });
    expect(fs.readFileSync(older, "utf8")).toBe(before);
    expect(fs.existsSync(today())).toBe(false);
    expect(notApplied(older)).toHaveLength(3);
  });

  it("a new value: still added (not lost), the older line left unmarked, a warning names the file", async () => {
    await say(SLIP_14);
    edits.fail = true;
    const outcome = await say("actually it's slip 22 now");
    expect(outcome.errors).toEqual([]);
    expect(outcome.capture).toEqual({
      action: "superseded",
      line: readToday().trimEnd().split("\n")[1],
      file: today(),
      supersededIn: today(),
      supersededStatement: "my sailboat is moored at slip 14 in Sausalito",
    });
    const facts = capturedFacts(readToday());
    expect(facts.map((f) => [f.statement, f.superseded])).toEqual([
      ["my sailboat is moored at slip 22 in Sausalito", false],
      ["my sailboat is moored at slip 14 in Sausalito", false],
    ]);
    expect(facts[0].meta.source).toBe("correction");
    expect(new Set(warnings().map((record) => record.file))).toEqual(new Set([today()]));
  });

  it("a new value of an older day's fact: still added today when that day's file cannot be edited", async () => {
    await say(SLIP_14, { now: YESTERDAY });
    const older = dayFileFor(ws, YESTERDAY);
    const before = fs.readFileSync(older, "utf8");
    edits.fail = true;
    const outcome = await say("actually it's slip 22 now");
    expect(outcome.errors).toEqual([]);
    expect(outcome.capture).toMatchObject({ action: "superseded", line: readToday().trimEnd(), file: today(), supersededIn: older });
    expect(factsIn(today()).map((f) => f.statement)).toEqual(["my sailboat is moored at slip 22 in Sausalito"]);
    expect(fs.readFileSync(older, "utf8")).toBe(before);
    expect(notApplied(older)).toHaveLength(3);
  });

  it("the same correction said again once edits work: the older value is marked, the new one not added twice", async () => {
    await say(SLIP_14);
    edits.fail = true;
    await say("actually it's slip 22 now");
    edits.fail = false;
    const newLine = factsIn(today())[1];
    const outcome = await say("actually it's slip 22 now", { now: LATER });
    expect(outcome.capture).toEqual({
      action: "superseded",
      line: readToday().trimEnd().split("\n")[1],
      file: today(),
      supersededIn: today(),
      supersededStatement: "my sailboat is moored at slip 14 in Sausalito",
    });
    expect(factsIn(today()).map((f) => [f.statement, f.superseded, f.meta.mentions])).toEqual([
      ["my sailboat is moored at slip 14 in Sausalito", true, 1],
      ["my sailboat is moored at slip 22 in Sausalito", false, newLine.meta.mentions],
    ]);
  });

  it("an older line another writer changed before the mark lands: their change is kept and the line is marked", async () => {
    await say(SLIP_14);
    // Another writer touches the older line right before our edit of it.
    edits.before = (file) => {
      if (file === today()) fs.writeFileSync(file, readToday().replace("slip 14 in Sausalito #knowledge <!-- confidence: 0.95", "slip 14 in Sausalito #knowledge <!-- confidence: 0.9"));
    };
    const outcome = await say("actually it's slip 22 now", { now: LATER });
    expect(outcome.capture).toMatchObject({ action: "superseded", supersededIn: today() });
    expect(factsIn(today()).map((f) => [f.statement, f.superseded, f.meta.confidence])).toEqual([
      ["my sailboat is moored at slip 14 in Sausalito", true, 0.9],
      ["my sailboat is moored at slip 22 in Sausalito", false, 1],
    ]);
  });
});

describe("a repeated line that changes between the decision and its edit", () => {
  it("deleted before the mention count is raised: the fact is written again", async () => {
    await say("Remember that my locker code is 4312");
    edits.before = (file) => {
      if (file === today()) fs.writeFileSync(file, "- an agent note\n");
    };
    const outcome = await say("Remember that my locker code is 4312", { now: LATER });
    expect(outcome.capture).toMatchObject({ action: "mentioned", file: today() });
    expect(readToday().split("\n")[0]).toBe("- an agent note");
    expect(factsIn(today()).map((f) => [f.statement, f.meta.mentions, f.capturedAt])).toEqual([["my locker code is 4312", 1, LATER.toISOString()]]);
  });

  it("a line that goes away before its mention lands is not written again when the fact was forgotten", async () => {
    await say("Remember that my locker code is 4312");
    const line = readToday();
    await say("forget that my locker code is 4312");
    expect(capturedFacts(readToday())).toEqual([]);
    // Put back by hand (the tombstone stays), then gone again right before the mention lands.
    fs.writeFileSync(today(), line);
    edits.before = (file) => {
      if (file === today()) fs.writeFileSync(file, "- an agent note\n");
    };
    expect(await capture("my locker code is 4312", "memory", LATER)).toMatchObject({ action: "mentioned" });
    expect(readToday()).toBe("- an agent note\n");
  });

  it("gone at every edit and back after it: written again once, then left as it is", async () => {
    await say("Remember that my locker code is 4312");
    const kept = readToday();
    let attempts = 0;
    edits.before = (file) => {
      if (file !== today()) return;
      attempts++;
      fs.writeFileSync(file, "- an agent note\n");
    };
    edits.after = (file) => {
      if (file === today()) fs.writeFileSync(file, kept);
    };
    const outcome = await say("Remember that my locker code is 4312", { now: LATER });
    expect(outcome.capture).toMatchObject({ action: "mentioned", file: today() });
    expect(attempts).toBe(2);
    expect(readToday()).toBe(kept);
    expect(logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.msg === "capture: a repeated fact's line went away again; left as it is")).toHaveLength(1);
  });
});

describe("captures racing each other in one process", () => {
  it("the same correction three times at once: one new line, the older value marked once", async () => {
    await say(SLIP_14);
    const outcomes = await Promise.all([1, 2, 3].map(() => say("actually it's slip 22 now")));
    expect(outcomes.flatMap((o) => o.errors)).toEqual([]);
    expect(capturedFacts(readToday()).map((f) => [f.statement, f.superseded])).toEqual([
      ["my sailboat is moored at slip 22 in Sausalito", false],
      ["my sailboat is moored at slip 14 in Sausalito", true],
    ]);
    expect(outcomes.filter((o) => o.capture?.action === "superseded")).toHaveLength(1);
  });

  it("the same new fact five times at once: one line, every telling counted", async () => {
    const outcomes = await Promise.all([1, 2, 3, 4, 5].map(() => say("Remember that my locker code is 4312")));
    expect(outcomes.map((o) => o.capture?.action).sort()).toEqual(["added", "mentioned", "mentioned", "mentioned", "mentioned"]);
    const facts = capturedFacts(readToday());
    expect(facts).toHaveLength(1);
    expect(facts[0].meta.mentions).toBe(5);
  });
});

describe("status: what was captured today", () => {
  it("reads the first 256 KiB of a big day file, lists only what was captured that day, and nothing when there is no file", async () => {
    expect(await capturedToday(ws, NOW)).toEqual({ file: today(), facts: [] });
    const meta = { confidence: 0.95, source: "operator" as const, mentions: 1, last: NOW };
    fs.mkdirSync(path.dirname(today()), { recursive: true });
    fs.writeFileSync(
      today(),
      [
        formatCapturedLine("my locker code is 4312", "#knowledge", meta, NOW.toISOString()),
        // A line moved here from another day keeps its own capture time.
        formatCapturedLine("the gym closes at 10pm", "#knowledge", meta, YESTERDAY.toISOString()),
        formatCapturedLine("the pool opens at 7", "#knowledge", meta, LATER.toISOString()),
        `- ${"agent note ".repeat(30_000)}`,
      ].join("\n"),
    );
    expect((await capturedToday(ws, LATER)).facts.map((f) => f.statement)).toEqual(["my locker code is 4312", "the pool opens at 7"]);
  });
});

describe("what a turn shows", () => {
  it("leaves out superseded facts and memories the turn's own message already says", () => {
    const line = "- my locker code is 4312 #knowledge <!-- confidence: 0.95 source: operator mentions: 1 last: 2026-11-25 captured: x -->";
    expect(leftOutOfTurn(line, "Remember that my locker code is 4312")).toBe(true);
    expect(leftOutOfTurn(line, "what is my locker code?")).toBe(false);
    expect(leftOutOfTurn(line.replace("mentions: 1", "mentions: 1 status: superseded"), "what is my locker code?")).toBe(true);
    // Short memories never count as echoes.
    expect(echoesMessage("- yes", "yes I agree")).toBe(false);
  });
});

describe("the service's turn", () => {
  const hit = (id: string, text: string, score: number): RetrievedMemory => ({ id, text, score, date: "2026-11-25", headingPath: [], source: "embedded" });
  const OLD = hit("old", "- my locker code is 4312 #knowledge <!-- confidence: 0.95 source: operator mentions: 1 last: 2026-11-25 status: superseded captured: x -->", 0.95);
  const NEW = hit("new", "- my locker code is 5580 #knowledge <!-- confidence: 1 source: correction mentions: 1 last: 2026-11-25 captured: y -->", 0.9);
  const service = () =>
    createMemoryContextService({ composeBlock: null, createRetriever: () => ({ label: "workspace memory", search: async () => [OLD, NEW] }) });
  const turn = (text: string) =>
    service().buildTurnContext({ sessionKey: "agent:main:main", cfg: undefined, text, workspaceDir: ws, turnKey: text });

  it("never injects a superseded fact as current", async () => {
    const context = await turn("what is my locker code?");
    expect(context.block).toContain("my locker code is 5580");
    expect(context.block).not.toContain("4312");
    expect(context.injectedIds).toEqual(["new"]);
  });

  it("does not echo a memory the turn's own message already says", async () => {
    const context = await turn("Remember that my locker code is 5580, please");
    expect(context.block).not.toContain("5580");
  });
});
