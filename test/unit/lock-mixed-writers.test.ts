import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { appendFileLocked } from "../../src/fs/locked-writes.ts";
import { startPlainWriter } from "./plain-writer.ts";

// Issue 20: a writer that ignores our lock appends to the same memory file (as OpenClaw's own
// writers do). Nothing may be lost and our appends must make progress. Bounded by counts: the
// plain writer is made to write between our appends (we wait for its progress reports, not for
// time), and the test ends when both writers have done their share.

/** Progress, not a clock, bounds the attempts: a busy machine only makes them slower. */
const PATIENT = { retryIntervalSeconds: 0.005, maxRetries: Number.MAX_SAFE_INTEGER, agentName: "mixed-test" };
const LOCKED = 300;

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lock-mixed-"));
  setLogDestination({ write: () => undefined });
});
afterEach(() => {
  setLogDestination(undefined);
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
});

describe("locked appends next to a plain (unlocked) appender", () => {
  it(
    "every line of both writers lands exactly once, intact, and every locked append succeeds",
    async () => {
      const file = path.join(dir, "MEMORY.md");
      fs.writeFileSync(file, "# Memory\n");
      const plain = startPlainWriter(file);
      await plain.passed(0);
      const results = [];
      for (let i = 0; i < LOCKED; i++) {
        // Every 25 appends, wait until the plain writer has written more: the writes interleave.
        if (i % 25 === 0) await plain.passed(plain.written());
        results.push(await appendFileLocked(file, `- [l${i}] locked entry`, PATIENT));
      }
      const plainCount = await plain.stop();
      expect(plainCount, plain.stderr()).toBeGreaterThan(LOCKED / 25);

      expect(results.every((result) => result.written)).toBe(true);
      const lines = fs.readFileSync(file, "utf8").split("\n");
      expect(lines.shift()).toBe("# Memory");
      expect(lines.pop()).toBe("");
      const plainIds: number[] = [];
      const lockedIds: number[] = [];
      for (const [index, line] of lines.entries()) {
        // A blank line is ours alone (a separator after a line we saw half-written), so it is
        // always followed by one of our entries; anything else is a torn or merged line.
        if (line === "" && lines[index + 1]?.endsWith("locked entry")) continue;
        const match = /^(?:plain (\d+)|- \[l(\d+)\] locked entry)$/.exec(line);
        expect(match, `torn or merged line: ${JSON.stringify(line)}`).not.toBeNull();
        if (match![1] !== undefined) plainIds.push(Number(match![1]));
        else lockedIds.push(Number(match![2]));
      }
      // Nothing lost, nothing twice, each writer's lines in its own order.
      expect(lockedIds).toEqual(Array.from({ length: LOCKED }, (_, i) => i));
      expect(plainIds).toEqual(Array.from({ length: plainCount }, (_, i) => i));
      // And they really were interleaved: plain lines sit between the first and last locked entry.
      const first = lines.indexOf("- [l0] locked entry");
      const last = lines.indexOf(`- [l${LOCKED - 1}] locked entry`);
      expect(lines.slice(first, last).filter((line) => line.startsWith("plain")).length).toBeGreaterThan(0);
    },
    // Generous: bounded by the counts above, not by the clock.
    30 * 60_000,
  );
});
