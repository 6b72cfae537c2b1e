// Capture bench: quality on the labelled messages (precision, recall, per category and language,
// the held-out part separately) and what a capture costs next to many captured facts (bench/capture/cost.ts).
//   npm run bench:capture                          both parts
//   npm run bench:capture -- --only quality        or --only cost
//   npm run bench:capture -- --failures            also list the tuning messages the capture got wrong
//   npm run bench:capture -- --facts 0,1000,10000,40000 --captures 200 --burst 1000 --burst-facts 0,40000 --json
//   npm run bench:capture -- --src ../other-checkout   the cost part against another checkout
// Also reachable as `npm run bench -- --only capture` (the smoke run: quality and a small cost table).
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { HELD_OUT_SET, TUNING_SET, failures, loadSet, qualityTables, runSet, score } from "./quality.ts";
import type { Score } from "./quality.ts";
import { burstTable, costTable, measureBurst, measureCaptureCost } from "./cost.ts";
import type { BurstResult, CostRow } from "./cost.ts";

export type CaptureBenchOptions = {
  only?: "quality" | "cost";
  showFailures?: boolean;
  /** Captured facts per cost row; captures timed per row. */
  facts?: number[];
  captures?: number;
  /** Captures at once in the burst (0: no burst), and the captured facts next to it (one row each, plus a control row without captures). */
  burst?: number;
  burstFacts?: number[];
  /** Another checkout of the bundle for the cost part. */
  srcRoot?: string;
  log?: (line: string) => void;
};

export type CaptureBenchResult = { markdown: string; results: { tuning?: Score; heldOut?: Score; cost?: CostRow[]; burst?: BurstResult[] } };

export const SMOKE_OPTIONS: CaptureBenchOptions = { facts: [0, 1_000], captures: 20, burst: 0 };

export async function runCaptureBench(options: CaptureBenchOptions = {}): Promise<CaptureBenchResult> {
  const log = options.log ?? (() => undefined);
  const markdown: string[] = [];
  const results: CaptureBenchResult["results"] = {};
  if (options.only !== "cost") {
    const tuning = await runSet(loadSet(TUNING_SET));
    const heldOut = await runSet(loadSet(HELD_OUT_SET));
    results.tuning = score(tuning);
    results.heldOut = score(heldOut);
    log(`capture quality: tuning P ${results.tuning.precision.toFixed(3)} R ${results.tuning.recall.toFixed(3)}; held-out P ${results.heldOut.precision.toFixed(3)} R ${results.heldOut.recall.toFixed(3)}`);
    markdown.push(
      "### Capture quality (labelled messages, `bench/capture/*.jsonl`)",
      "",
      qualityTables("Tuning set (`messages.jsonl`)", tuning),
      "",
      qualityTables("Held-out set (`held-out.jsonl`, not tuned on)", heldOut),
      "",
    );
    if (options.showFailures) markdown.push("Tuning messages the capture got wrong (+ added, ~ superseded, = mention raised):", "", "```", ...failures(tuning), "```", "");
  }
  if (options.only !== "quality") {
    const src = options.srcRoot ? ` (checkout ${options.srcRoot})` : "";
    results.cost = await measureCaptureCost({ sizes: options.facts, captures: options.captures, srcRoot: options.srcRoot, log });
    markdown.push(`### Capture cost${src}`, "", costTable(results.cost), "");
    const burst = options.burst ?? 1_000;
    if (burst > 0) {
      results.burst = [];
      for (const facts of options.burstFacts ?? [0, 40_000]) {
        const row = await measureBurst({ facts, burst, srcRoot: options.srcRoot, log });
        results.burst.push(row, await measureBurst({ facts, burst: 0, turns: row.turns, srcRoot: options.srcRoot, log }));
      }
      markdown.push(`### A burst of ${burst} captures while memory questions are asked${src}`, "", "Each row with captures is followed by its control: the same questions, as many turns, no captures.", "", burstTable(results.burst), "");
    }
  }
  return { markdown: markdown.join("\n"), results };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      only: { type: "string" },
      failures: { type: "boolean" },
      json: { type: "boolean" },
      facts: { type: "string" },
      captures: { type: "string" },
      burst: { type: "string" },
      "burst-facts": { type: "string" },
      src: { type: "string" },
    },
  });
  const only = values.only as CaptureBenchOptions["only"];
  if (only !== undefined && only !== "quality" && only !== "cost") throw new Error(`--only: quality or cost, not ${only}`);
  const numbers = (value: string | undefined) => (value === undefined ? undefined : value.split(",").map(Number));
  const outcome = await runCaptureBench({
    only,
    showFailures: values.failures,
    facts: numbers(values.facts),
    captures: values.captures === undefined ? undefined : Number(values.captures),
    burst: values.burst === undefined ? undefined : Number(values.burst),
    burstFacts: numbers(values["burst-facts"]),
    srcRoot: values.src === undefined ? undefined : path.resolve(values.src),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  if (values.json) process.stdout.write(`${JSON.stringify(outcome.results, null, 1)}\n`);
  else process.stdout.write(`## Capture bench (Node ${process.version}, ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)})\n\n${outcome.markdown}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
