// Per-turn overhead: the hooks timed in process, and whole turns through the real gateway.
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../lib/paths.ts";
import { markdownTable } from "../lib/table.ts";
import { burstTable, measureBursts } from "./burst.ts";
import type { BurstRow } from "./burst.ts";
import { measureInProcess } from "./in-process.ts";
import type { InProcessResult } from "./in-process.ts";
import { measureGateway } from "./gateway.ts";
import type { GatewayResult } from "./gateway.ts";
import { measureSiblingBenches } from "./siblings.ts";
import type { SiblingResults } from "./siblings.ts";

export type HooksResults = {
  inProcess?: InProcessResult;
  /** Bursts: N sessions at once, turns served with memory and without (bench/hooks/burst.ts). */
  bursts?: BurstRow[];
  siblings: SiblingResults;
  gateway?: GatewayResult;
  gatewaySkipped?: string;
  problems: string[];
};

const us = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : "n/a");

export async function runHooks(options: { smoke: boolean; gatewayTurns: number; log: (line: string) => void }): Promise<{ markdown: string; results: HooksResults }> {
  const results: HooksResults = { siblings: { timings: [] }, problems: [] };
  const out: string[] = ["### Per-turn overhead", ""];
  const handlerFile = path.join(REPO_ROOT, "hooks", "ethos-context", "handler.ts");
  if (fs.existsSync(handlerFile)) {
    try {
      results.inProcess = await measureInProcess({ iterations: options.smoke ? 30 : 300 });
      options.log("hooks: in-process timings done");
    } catch (error) {
      results.problems.push(`hooks: in-process ethos-context timing failed: ${(error as Error).message}`);
    }
  } else {
    results.problems.push("hooks: hooks/ethos-context/handler.ts is missing");
  }
  try {
    results.bursts = await measureBursts({ sizes: options.smoke ? [50] : [50, 200, 300] });
    options.log("hooks: bursts done");
  } catch (error) {
    results.problems.push(`hooks: burst run failed: ${(error as Error).message}`);
  }
  results.siblings = await measureSiblingBenches({ smoke: options.smoke, problems: results.problems, log: options.log });

  const rows: (string | number)[][] = [];
  for (const t of results.inProcess?.timings ?? []) rows.push([`ethos-context ${t.event}`, t.messages, t.n, us(t.medianUs), us(t.p99Us)]);
  for (const s of results.siblings.timings) rows.push([s.what, s.input, s.n, us(s.medianUs), us(s.p99Us)]);
  if (rows.length > 0) {
    out.push("In process, sample workspace (`fixtures/workspace`), warm index; µs per event:", "");
    out.push(markdownTable(["handler / function", "input", "n", "median µs", "p99 µs"], rows));
    for (const set of results.inProcess?.sets ?? []) {
      out.push("", `${set.messages}: memory injected on ${(set.injectedRate * 100).toFixed(0)}% of turns, median block ${set.injectedTokensMedian} tokens.`);
    }
    out.push("");
  }
  if (results.bursts) {
    out.push("Bursts: N main-session turns at the same moment, in process (the gateway's own work not included); what each turn got:", "", burstTable(results.bursts), "");
  }
  if (results.siblings.locksMarkdown) out.push("Advisory locks (bench/locks.ts):", "", results.siblings.locksMarkdown, "");

  if (options.gatewayTurns > 0) {
    try {
      results.gateway = await measureGateway({ turnsPerArm: options.gatewayTurns, log: options.log });
      out.push(results.gateway.markdown, "");
    } catch (error) {
      results.problems.push(`hooks: gateway overhead run failed: ${(error as Error).message}`);
    }
  } else {
    results.gatewaySkipped = "gateway turns disabled (--gateway-turns 0)";
    out.push("Real-gateway overhead: not run (`--gateway-turns 0`).", "");
  }
  return { markdown: out.join("\n"), results };
}
