import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { isAtomicTempName } from "../../src/fs/atomic.ts";
import { capturedFacts, dayFileFor, settledCaptures } from "../../src/capture/capture.ts";
import { HYGIENE_CONFIG_DEFAULTS } from "../../src/memory/config-md.ts";
import { triageInboundMessage } from "../../src/capture/triage.ts";
import { waitForFileContaining } from "../e2e/wait-file.ts";

// The capture shares today's memory file with every other writer (the agent, the Memory Miner):
// 8 processes x 500 locked appends run while the operator's captures land in the same file.
// Nothing may be lost or torn, and each fact is one line with the right mention count.

const worker = path.join(path.dirname(fileURLToPath(import.meta.url)), "capture-worker.ts");
const WORKERS = 8;
const APPENDS = 500;
const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango"];
const FACTS = WORDS.length;

function startWorker(args: string[]) {
  const child = spawn(process.execPath, ["--import", "tsx", worker, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { exited, stderr: () => stderr };
}

let ws: string;
beforeEach(() => {
  ws = fs.mkdtempSync(path.join(os.tmpdir(), "capture-mp-"));
  setLogDestination({ write: () => true } as never);
});
afterEach(() => {
  setLogDestination(undefined);
  fs.rmSync(ws, { recursive: true, force: true });
});

describe("capture next to concurrent writers", () => {
  it(
    `${WORKERS} writers x ${APPENDS} appends and ${FACTS} facts (each said twice) in one day file: nothing lost, no fact twice`,
    async () => {
      const now = new Date();
      const dayFile = dayFileFor(ws, now);
      fs.mkdirSync(path.dirname(dayFile), { recursive: true });
      const config = { ...HYGIENE_CONFIG_DEFAULTS, lock_retry_interval_seconds: 0.005, lock_max_retries: 100_000 };
      const workers = Array.from({ length: WORKERS }, (_, id) => startWorker([String(id), String(APPENDS), dayFile]));
      const say = (i: number) =>
        triageInboundMessage({ content: `Remember that the ${WORDS[i]} door code is ${1000 + i}`, workspaceDir: ws, now, config, capture: true });
      // The captures start once the writers are appending (a file event, not a timer).
      await waitForFileContaining(dayFile, "agent note", 120_000);
      // Every fact twice, the repeats racing their first telling.
      const outcomes = await Promise.all(Array.from({ length: FACTS * 2 }, (_, n) => say(n % FACTS)));
      await settledCaptures(ws);
      const codes = await Promise.all(workers.map((w) => w.exited));
      expect(codes, JSON.stringify(workers.map((w) => w.stderr()))).toEqual(Array(WORKERS).fill(0));
      expect(outcomes.flatMap((o) => o.errors)).toEqual([]);

      const lines = fs.readFileSync(dayFile, "utf8").split("\n");
      expect(lines.pop()).toBe("");
      const agentIds = lines.map((line) => /^- \[(w\d-e\d+)\] agent note \d+$/.exec(line)?.[1]).filter(Boolean);
      expect(agentIds).toHaveLength(WORKERS * APPENDS);
      expect(new Set(agentIds).size).toBe(WORKERS * APPENDS);
      const facts = capturedFacts(lines.join("\n"));
      expect(lines).toHaveLength(WORKERS * APPENDS + FACTS); // nothing torn, nothing else
      expect(facts.map((f) => f.statement).sort()).toEqual(Array.from({ length: FACTS }, (_, i) => `the ${WORDS[i]} door code is ${1000 + i}`).sort());
      for (const fact of facts) expect(fact.meta).toMatchObject({ mentions: 2, confidence: 1 });
      const leftovers = fs.readdirSync(path.dirname(dayFile)).filter((name) => name.endsWith(".lock") || name.endsWith(".lock.owner") || isAtomicTempName(name) || name.startsWith(".capture-pending-"));
      expect(leftovers).toEqual([]);
    },
    600_000,
  );
});
