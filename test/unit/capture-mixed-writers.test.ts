import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { capturedFacts, dayFileFor, settledCaptures } from "../../src/capture/capture.ts";
import { HYGIENE_CONFIG_DEFAULTS } from "../../src/memory/config-md.ts";
import { triageInboundMessage } from "../../src/capture/triage.ts";
import { startPlainWriter } from "./plain-writer.ts";

// Issue 20 for the capture: OpenClaw's agent appends to today's memory file without our lock while
// the operator's "remember that …" lands in the same file. A new fact is an O_APPEND write, so it
// lands however busy the plain writer is; the rare in-place edits (mention count, superseded mark)
// may fail next to it, and then the fact is still kept. Bounded by counts, never by the clock.
// What a capture does when such an edit fails, or when a line changes between its steps, is shown
// in one process, step by step, in hygiene-capture.test.ts.

const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango"];
/** Our own lock waits on nobody but ourselves here: patience costs nothing and removes the clock. */
const config = { ...HYGIENE_CONFIG_DEFAULTS, lock_retry_interval_seconds: 0.005, lock_max_retries: 100_000 };
const now = new Date("2026-11-25T03:00:00.000Z");

let ws: string;
/** Warnings logged (parsed). */
let warnings: Record<string, unknown>[];
beforeEach(() => {
  ws = fs.mkdtempSync(path.join(os.tmpdir(), "capture-mixed-"));
  warnings = [];
  setLogDestination({
    write: (chunk: string) => {
      const record = JSON.parse(String(chunk)) as Record<string, unknown>;
      if (record.level === 40) warnings.push(record);
      return true;
    },
  } as never);
});
afterEach(() => {
  setLogDestination(undefined);
  fs.rmSync(ws, { recursive: true, force: true, maxRetries: 10 });
});

/** A message triaged, and the in-place edits its capture recorded applied (pending-edits.ts). */
const say = async (content: string) => {
  const outcome = await triageInboundMessage({ content, sessionKey: "agent:main:main", workspaceDir: ws, now, config, capture: true });
  await settledCaptures(ws);
  return outcome;
};
const statementOf = (i: number, code = 1000 + i) => `the ${WORDS[i]} door code is ${code}`;

/** The day file's lines: the plain writer's ids in file order, and the captured fact lines. Fails on a torn line. */
function readMixed(dayFile: string): { lines: string[]; plainIds: number[]; facts: ReturnType<typeof capturedFacts> } {
  const lines = fs.readFileSync(dayFile, "utf8").split("\n");
  expect(lines.shift()).toBe("# 2026-11-25");
  expect(lines.pop()).toBe("");
  const plainIds: number[] = [];
  const factLines: string[] = [];
  for (const line of lines) {
    const match = /^plain (\d+)$/.exec(line);
    if (match) plainIds.push(Number(match[1]));
    else {
      expect(capturedFacts(line), `torn or merged line: ${JSON.stringify(line.slice(0, 200))}`).toHaveLength(1);
      factLines.push(line);
    }
  }
  return { lines, plainIds, facts: capturedFacts(factLines.join("\n")) };
}

async function startOnDayFile() {
  const dayFile = dayFileFor(ws, now);
  fs.mkdirSync(path.dirname(dayFile), { recursive: true });
  fs.writeFileSync(dayFile, "# 2026-11-25\n");
  const plain = startPlainWriter(dayFile);
  await plain.passed(0);
  return { dayFile, plain };
}

describe("capture next to a plain appender hammering the same day file", () => {
  it(
    "every new fact lands once and every plain line stays, in order, none torn",
    async () => {
      const { dayFile, plain } = await startOnDayFile();
      const added = [];
      for (let i = 0; i < WORDS.length; i++) {
        // Every 4 captures, wait until the plain writer has written more: the writes interleave.
        if (i % 4 === 0) await plain.passed(plain.written());
        added.push(await say(`Remember that ${statementOf(i)}`));
      }
      const plainCount = await plain.stop();
      expect(plainCount, plain.stderr()).toBeGreaterThan(WORDS.length / 4);

      for (const outcome of added) expect(outcome.errors).toEqual([]);
      expect(added.map((o) => o.capture?.action)).toEqual(WORDS.map(() => "added"));
      const { lines, plainIds, facts } = readMixed(dayFile);
      // Nothing of the plain writer lost or repeated, in its order; each fact once.
      expect(plainIds).toEqual(Array.from({ length: plainCount }, (_, i) => i));
      expect(facts.map((f) => f.statement).sort()).toEqual(WORDS.map((_, i) => statementOf(i)).sort());
      // The captures really were interleaved with the plain writer's lines.
      const first = lines.findIndex((line) => line.includes(statementOf(0)));
      const last = lines.findIndex((line) => line.includes(statementOf(WORDS.length - 1)));
      expect(lines.slice(first, last).some((line) => line.startsWith("plain"))).toBe(true);
    },
    // Generous: bounded by the counts above, not by the clock.
    30 * 60_000,
  );

  it(
    "repeats and new values (in-place edits) never lose a fact, whether or not the edit gets through",
    async () => {
      const { dayFile, plain } = await startOnDayFile();
      for (let i = 0; i < 10; i++) await say(`Remember that ${statementOf(i)}`);
      await plain.passed(plain.written());
      const repeats = [];
      for (let i = 0; i < 5; i++) repeats.push(await say(`Remember that ${statementOf(i)}`));
      const changes = [];
      for (let i = 5; i < 10; i++) changes.push(await say(`Remember that ${statementOf(i, 2000 + i)}`));
      await plain.stop();

      for (const outcome of [...repeats, ...changes]) expect(outcome.errors).toEqual([]);
      // Recorded ahead (pending-edits.ts); applied once each capture is done, or logged as not applied.
      for (const outcome of repeats) expect(outcome.capture).toMatchObject({ action: "mentioned", file: dayFile });
      for (const outcome of changes) expect(outcome.capture).toMatchObject({ action: "superseded", file: dayFile });
      const notApplied = warnings.filter((record) => record.msg === `capture: pending edits of ${dayFile} not applied`).length;
      // A successful rewrite can drop a plain write landing in its last microseconds (the documented
      // limit of updateFileLocked), so only order and uniqueness are checked for the plain lines here.
      const { plainIds, facts } = readMixed(dayFile);
      expect(plainIds).toEqual([...new Set(plainIds)].sort((a, b) => a - b));
      const expected = [...Array.from({ length: 10 }, (_, i) => statementOf(i)), ...Array.from({ length: 5 }, (_, k) => statementOf(5 + k, 2005 + k))];
      expect(facts.map((f) => f.statement).sort()).toEqual(expected.sort());
      // Each edit landed, or its file's edits were dropped after their attempts (three warnings each time).
      const unmarked = Array.from({ length: 5 }, (_, k) => facts.find((f) => f.statement === statementOf(5 + k))!).filter((old) => !old.superseded);
      const unraised = Array.from({ length: 5 }, (_, i) => facts.find((f) => f.statement === statementOf(i))!).filter((fact) => fact.meta.mentions !== 2);
      for (const fact of unraised) expect(fact.meta.mentions).toBe(1);
      if (unmarked.length + unraised.length > 0) expect(notApplied).toBeGreaterThanOrEqual(3);
    },
    30 * 60_000,
  );
});
