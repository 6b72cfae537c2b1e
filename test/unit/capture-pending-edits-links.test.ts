import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { captureFact, dayFileFor, formatCapturedLine, settledCaptures } from "../../src/capture/capture.ts";
import { clearFactIndexes } from "../../src/capture/fact-index.ts";
import { HYGIENE_CONFIG_DEFAULTS, lockOptionsFromConfig } from "../../src/memory/config-md.ts";

// An edit recorded ahead is applied later (src/capture/pending-edits.ts): by then the day file may
// have been swapped for a link that leaves the workspace. The rewrite must refuse it, as every
// write does, and leave the file outside as it was.

const NOW = new Date("2026-11-25T10:00:00.000Z");
const YESTERDAY = new Date("2026-11-24T10:00:00.000Z");
const config = { ...HYGIENE_CONFIG_DEFAULTS, lock_retry_interval_seconds: 0.01, lock_max_retries: 50 };
const lock = lockOptionsFromConfig(config, "memory-capture");

let ws: string;
let outside: string;
let logs: Record<string, unknown>[];
beforeEach(() => {
  ws = fs.mkdtempSync(path.join(os.tmpdir(), "capture-pending-links-"));
  outside = fs.mkdtempSync(path.join(os.tmpdir(), "capture-pending-outside-"));
  fs.mkdirSync(path.join(ws, "memory"));
  logs = [];
  setLogDestination({ write: (chunk: string) => (logs.push(JSON.parse(String(chunk)) as Record<string, unknown>), true) } as never);
  clearFactIndexes();
});
afterEach(() => {
  setLogDestination(undefined);
  fs.rmSync(ws, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

const remember = (statement: string) => captureFact({ workspaceDir: ws, fact: { kind: "memory", statement, tag: "#knowledge", trigger: "remember-that" }, now: NOW, config, lock });

describe("an edit recorded ahead, its day file then a link out of the workspace", () => {
  it("is not applied through the link: the file outside stays byte for byte, the failure names the day file", async () => {
    const older = dayFileFor(ws, YESTERDAY);
    const text = `${formatCapturedLine("my locker code is 4312", "#knowledge", { confidence: 0.95, source: "operator", mentions: 1, last: YESTERDAY }, YESTERDAY.toISOString())}\n`;
    fs.writeFileSync(older, text);
    // The next capture keeps the queue busy: the repeat's edit waits.
    const repeat = remember("my locker code is 4312");
    const next = remember("the gym opens at 6");
    expect(await repeat).toMatchObject({ action: "mentioned", file: older });
    const target = path.join(outside, "notes.md");
    fs.writeFileSync(target, text);
    fs.rmSync(older);
    fs.symlinkSync(target, older);
    await next;
    await settledCaptures(ws);
    expect(fs.readFileSync(target, "utf8")).toBe(text);
    expect(logs.filter((record) => record.level === 40 && record.msg === `capture: pending edits of ${older} not applied`)).toHaveLength(3);
  });
});
