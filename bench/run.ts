// One command for every benchmark: LoCoMo retrieval quality, latency at scale, per-turn overhead.
//   npm run bench            full run (prints Markdown tables, writes bench/results/*.json)
//   npm run bench:smoke      quick run for CI; exits non-zero when a benchmark is broken
// Options: --only locomo,scale,hooks,cache   --gateway-turns N (0 skips the real gateway)   --docs (rewrite docs/benchmarks.md)
//          --cache-versions 2026.3.13,2026.9.6   --cache-arms hooks-off,aci-only,hook-path,plugin-path,persisted-prepend
//          --cache-api anthropic-messages (the mock speaks Anthropic's API to every arm)
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { bundleConfigSummary, defaultConfidenceGate, loadBundle } from "./lib/bundle.ts";
import { machineInfo, machineLine } from "./lib/machine.ts";
import { REPO_ROOT, resultsDir } from "./lib/paths.ts";
import { runCache } from "./cache/run.ts";
import type { ModelApi } from "../test/e2e/gateway.ts";
import { runHooks } from "./hooks/run.ts";
import { runLocomo } from "./locomo/run.ts";
import { runScale } from "./scale/run.ts";
import { sanityProblems } from "./sanity.ts";
import { writeBenchmarksDoc } from "./docs.ts";

const SECTIONS = ["locomo", "scale", "hooks", "cache"] as const;
type Section = (typeof SECTIONS)[number];

const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      smoke: { type: "boolean", default: false },
      only: { type: "string" },
      "gateway-turns": { type: "string" },
      docs: { type: "boolean", default: false },
      "cache-versions": { type: "string" },
      "cache-arms": { type: "string" },
      "cache-api": { type: "string" },
    },
  });
  const smoke = values.smoke ?? false;
  const only = new Set<Section>((values.only ? values.only.split(",") : SECTIONS).map((s) => s.trim()) as Section[]);
  for (const name of only) if (!SECTIONS.includes(name)) throw new Error(`--only: unknown section ${name} (known: ${SECTIONS.join(", ")})`);
  const gatewayTurns = Number(values["gateway-turns"] ?? (smoke ? 0 : 20));
  const extraArgs = process.argv.slice(2).filter((arg) => arg !== "--smoke");
  const command = `npm run ${smoke ? "bench:smoke" : "bench"}${extraArgs.length ? ` -- ${extraArgs.join(" ")}` : ""}`;

  const machine = machineInfo();
  const started = Date.now();
  const markdown: string[] = [
    `## openclaw-context benchmarks${smoke ? " (smoke)" : ""}`,
    "",
    `Machine: ${machineLine(machine)}`,
    `Command: \`${command}\``,
    `Bundle config (hook defaults): ${bundleConfigSummary()}`,
    "",
  ];
  const results: Record<string, unknown> = { machine, command, smoke };
  const sectionSeconds: Record<string, number> = {};

  if (only.has("locomo")) {
    const t = Date.now();
    const bundle = await loadBundle();
    const outcome = await runLocomo(bundle, { smoke, configuredGate: defaultConfidenceGate(), log });
    if (outcome.skipped) {
      log(`locomo: SKIPPED: ${outcome.reason}`);
      markdown.push(`### LoCoMo: skipped`, "", outcome.reason, "");
      results.locomo = { skipped: true, reason: outcome.reason };
    } else {
      markdown.push(outcome.markdown, "");
      results.locomo = { summary: outcome.summary, perQuestion: outcome.runs.flatMap((r) => r.questions), nonMemory: outcome.runs.flatMap((r) => r.nonMemory) };
    }
    sectionSeconds.locomo = (Date.now() - t) / 1000;
  }
  if (only.has("scale")) {
    const t = Date.now();
    const sizes = smoke ? [300, 1_000] : [1_000, 10_000, 100_000];
    const scale = await runScale({ sizes, queries: smoke ? 50 : 200, log });
    markdown.push(scale.markdown, "");
    results.scale = { rows: scale.rows, fits: scale.fits, emptyWorkerRssMB: scale.emptyWorkerRssMB };
    sectionSeconds.scale = (Date.now() - t) / 1000;
  }
  if (only.has("hooks")) {
    const t = Date.now();
    const hooks = await runHooks({ smoke, gatewayTurns, log });
    markdown.push(hooks.markdown, "");
    results.hooks = hooks.results;
    sectionSeconds.hooks = (Date.now() - t) / 1000;
  }

  if (only.has("cache")) {
    const t = Date.now();
    const list = (value: string | undefined) => (value ? value.split(",").map((item) => item.trim()) : undefined);
    const cache = await runCache({ smoke, log, versions: list(values["cache-versions"]), arms: list(values["cache-arms"]), modelApi: values["cache-api"] as ModelApi | undefined });
    markdown.push(cache.markdown, "");
    results.cache = cache.results;
    sectionSeconds.cache = (Date.now() - t) / 1000;
  }

  const totalSeconds = (Date.now() - started) / 1000;
  results.sectionSeconds = sectionSeconds;
  results.totalSeconds = totalSeconds;
  markdown.push(`Wall time: ${Object.entries(sectionSeconds).map(([k, v]) => `${k} ${v.toFixed(0)} s`).join(", ")}; total ${totalSeconds.toFixed(0)} s.`);
  const problems = sanityProblems(results);
  results.problems = problems;

  const text = markdown.join("\n");
  process.stdout.write(`${text}\n`);
  fs.mkdirSync(resultsDir(), { recursive: true });
  const stamp = machine.date.replace(/[:.]/g, "-");
  const base = smoke ? "smoke" : "bench";
  fs.writeFileSync(path.join(resultsDir(), `${base}-${stamp}.json`), JSON.stringify(results, null, 1));
  fs.writeFileSync(path.join(resultsDir(), `${base}-latest.json`), JSON.stringify(results, null, 1));
  fs.writeFileSync(path.join(resultsDir(), `${base}-latest.md`), `${text}\n`);
  log(`results: ${path.relative(REPO_ROOT, path.join(resultsDir(), `${base}-latest.json`))}`);
  if (values.docs) {
    writeBenchmarksDoc(text);
    log("docs/benchmarks.md rewritten");
  }
  if (problems.length > 0) {
    log(`BENCHMARK BROKEN:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(`bench failed: ${error instanceof Error ? error.stack : String(error)}`);
    process.exit(1);
  },
);
