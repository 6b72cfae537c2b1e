// Heartbeat triage latency (persistent memory spec §7; our target: p99 < 1 ms for a 2 kB message).
//   npx tsx bench/triage.ts [--iterations 2000] [--json]
// Exports measureTriage() for bench/hooks/siblings.ts.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { setLogDestination } from "../src/core/log.ts";
import { HYGIENE_CONFIG_DEFAULTS } from "../src/memory/config-md.ts";
import { compileCustomPatterns, scanMessage } from "../src/capture/patterns.ts";
import type { TriagePattern } from "../src/capture/patterns.ts";
import { triageInboundMessage } from "../src/capture/triage.ts";
import { extractFact } from "../src/capture/statement.ts";
import { markdownTable } from "./lib/table.ts";
import { percentile } from "./lib/metrics.ts";
import { timeAsync, timeSync as time } from "./lib/timing.ts";

export type TriageTiming = { what: string; input: string; n: number; medianUs: number; p99Us: number; maxUs: number };

const SENTENCES = [
  "Can you look at the deployment logs from last night and tell me what failed?",
  "The staging cluster ran out of disk around 3am, probably the log rotation again.",
  "Also check whether the backup job finished before the maintenance window.",
  "I'd like a short summary I can paste into the incident channel.",
  "Let's keep the tone factual; the team is already tired of this one.",
];

/** ~`size` characters of ordinary chat text, optionally with a trigger phrase in the middle. */
export function chatMessage(size: number, trigger = ""): string {
  let text = "";
  for (let i = 0; text.length < size; i++) text += `${SENTENCES[i % SENTENCES.length]} `;
  text = text.slice(0, size);
  if (!trigger) return text;
  const middle = Math.floor(size / 2);
  return text.slice(0, middle) + trigger + text.slice(middle + trigger.length);
}

/** 100 kB built to make the spec patterns work hardest: endless near-misses of `it's .{1,30} now`, `no, …`, `i …`. */
export function hostileMessage(size = 100_000): string {
  const unit = "it's almost but never quite no, i mentioned this before i also actually ";
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

const CUSTOM_SOURCES = ["/deploy freeze/i", "ticket #\\d{3,6}", "(wrong|incorrect) again", "(a+)+$", "(\\w+\\s?)*z$"];

function summarise(what: string, input: string, samples: number[]): TriageTiming {
  return { what, input, n: samples.length, medianUs: percentile(samples, 50), p99Us: percentile(samples, 99), maxUs: Math.max(...samples) };
}

export async function measureTriage(options: { iterations?: number } = {}): Promise<TriageTiming[]> {
  const n = options.iterations ?? 2000;
  const big = Math.max(20, Math.floor(n / 10));
  const custom: TriagePattern[] = compileCustomPatterns(CUSTOM_SOURCES).patterns;
  const plain2k = chatMessage(2048);
  const flagged2k = chatMessage(2048, " you forgot that I already told you ");
  const hostile = hostileMessage();
  const remember2k = chatMessage(2048, ". Remember that my locker code is 4312. ");
  const results: TriageTiming[] = [
    summarise("scan, built-in patterns", "2 kB chat, no trigger", time(n, () => scanMessage(plain2k))),
    summarise("scan, built-in patterns", "2 kB chat, recall trigger", time(n, () => scanMessage(flagged2k))),
    summarise(`scan, built-in + ${custom.length} custom (RE2)`, "2 kB chat, no trigger", time(n, () => scanMessage(plain2k, custom))),
    summarise("scan, built-in patterns", "100 kB hostile", time(big, () => scanMessage(hostile))),
    summarise(`scan, built-in + ${custom.length} custom (RE2)`, "100 kB hostile", time(big, () => scanMessage(hostile, custom, { customBudgetMs: 1_000 }))),
    summarise(`scan, built-in + ${custom.length} custom, 10 ms budget`, "100 kB hostile", time(big, () => scanMessage(hostile, custom))),
    summarise("extractFact (capture statement)", "2 kB chat, memory trigger", time(n, () => extractFact(remember2k))),
  ];

  // The whole entry point, including the two locked appends a flagged message causes.
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "bench-triage-"));
  setLogDestination({ write: () => undefined });
  try {
    results.push(
      summarise("triageInboundMessage (no writes)", "2 kB chat, no trigger", await timeAsync(n, () => triageInboundMessage({ content: plain2k, workspaceDir: workspace, config: HYGIENE_CONFIG_DEFAULTS }))),
      summarise(
        "triageInboundMessage + queue + CORRECTIONS.md",
        "2 kB chat, recall trigger",
        await timeAsync(Math.min(n, 300), (i) => triageInboundMessage({ content: flagged2k, messageId: `m${i}`, workspaceDir: workspace, config: HYGIENE_CONFIG_DEFAULTS })),
      ),
      // An owner session's "remember that …" said again and again: queue + the fact line's mention count.
      summarise(
        "triageInboundMessage + queue + capture (repeat)",
        "2 kB chat, memory trigger",
        await timeAsync(Math.min(n, 300), (i) => triageInboundMessage({ content: remember2k, messageId: `r${i}`, workspaceDir: workspace, config: HYGIENE_CONFIG_DEFAULTS, capture: true })),
      ),
    );
  } finally {
    setLogDestination(undefined);
    fs.rmSync(workspace, { recursive: true, force: true });
  }
  return results;
}

export function triageTable(results: readonly TriageTiming[]): string {
  const us = (v: number) => (v >= 1000 ? `${(v / 1000).toFixed(2)} ms` : `${v.toFixed(1)} µs`);
  return markdownTable(
    ["what", "input", "n", "p50", "p99", "max"],
    results.map((r) => [r.what, r.input, r.n, us(r.medianUs), us(r.p99Us), us(r.maxUs)]),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { iterations: { type: "string" }, json: { type: "boolean" } } });
  const results = await measureTriage({ iterations: values.iterations ? Number(values.iterations) : undefined });
  if (values.json) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return;
  }
  process.stdout.write(`### Heartbeat triage latency (Node ${process.version}, ${os.cpus()[0]?.model ?? "cpu"})\n\n${triageTable(results)}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
