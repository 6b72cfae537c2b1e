// Capture bench: quality on the labelled messages (precision, recall, per category and language,
// the held-out part separately) and the cost of a capture next to many captured facts.
//   npm run bench:capture                      both parts
//   npm run bench:capture -- --only quality    or --only cost
//   npm run bench:capture -- --failures        also list the tuning messages the capture got wrong
//   npm run bench:capture -- --facts 1000,40000 --burst 1000 --json
// Also reachable as `npm run bench -- --only capture`.
import os from "node:os";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { HELD_OUT_SET, TUNING_SET, failures, loadSet, qualityTables, runSet, score } from "./quality.ts";
import type { Score } from "./quality.ts";

export type CaptureBenchOptions = { only?: "quality" | "cost"; showFailures?: boolean; log?: (line: string) => void };

export type CaptureBenchResult = { markdown: string; results: { tuning?: Score; heldOut?: Score } };

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
  return { markdown: markdown.join("\n"), results };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { only: { type: "string" }, failures: { type: "boolean" }, json: { type: "boolean" } } });
  const only = values.only as CaptureBenchOptions["only"];
  if (only !== undefined && only !== "quality" && only !== "cost") throw new Error(`--only: quality or cost, not ${only}`);
  const outcome = await runCaptureBench({ only, showFailures: values.failures, log: (line) => process.stderr.write(`${line}\n`) });
  if (values.json) process.stdout.write(`${JSON.stringify(outcome.results, null, 1)}\n`);
  else process.stdout.write(`## Capture bench (Node ${process.version}, ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)})\n\n${outcome.markdown}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
