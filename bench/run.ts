// One command for every benchmark: LoCoMo retrieval quality, latency at scale, per-turn overhead.
//   npm run bench            full run (prints Markdown tables, writes bench/results/*.json)
//   npm run bench:smoke      quick run for CI; exits non-zero when a benchmark is broken
// Options: --only locomo,scale,hooks,cache,capture   --gateway-turns N (0 skips the real gateway)   --docs (rewrite docs/benchmarks.md)
//          --cache-versions 2026.3.13,2026.9.6   --cache-arms hooks-off,aci-only,aci-no-index,hook-path,plugin-prepend,plugin-path,persisted-prepend,no-plugin,engine-alone,engine-prepend,engine-append
//          (engine-*: another context engine in the slot, by default the fixture engine;
//          OPENCLAW_CONTEXT_BENCH_ENGINE=<plugin tarball or folder> [OPENCLAW_CONTEXT_BENCH_ENGINE_ID=<engine id>] swaps in a real one)
//          --cache-api anthropic-messages (the mock speaks Anthropic's API to every arm)
//          --legacy-index / --no-legacy-index: also run the MiniSearch index the bundle replaced, side by
//          side (LoCoMo and scale; default on for a full run, off for smoke)
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { bundleConfigSummary, defaultConfidenceGate, loadBundle } from "./lib/bundle.ts";
import type { LocomoSummary } from "./locomo/evaluate.ts";
import { markdownTable } from "./lib/table.ts";
import { machineInfo, machineLine } from "./lib/machine.ts";
import { REPO_ROOT, resultsDir } from "./lib/paths.ts";
import { runCache } from "./cache/run.ts";
import { SMOKE_OPTIONS, runCaptureBench } from "./capture/run.ts";
import type { ModelApi } from "../test/e2e/gateway.ts";
import { runHooks } from "./hooks/run.ts";
import { renderBothSets } from "./locomo/report.ts";
import { runLocomo } from "./locomo/run.ts";
import { runScale } from "./scale/run.ts";
import { runSharedWords } from "./scale/shared-words.ts";
import { sanityProblems } from "./sanity.ts";
import { writeBenchmarksDoc } from "./docs.ts";

const SECTIONS = ["locomo", "scale", "hooks", "cache", "capture"] as const;
type Section = (typeof SECTIONS)[number];

const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      smoke: { type: "boolean", default: false },
      only: { type: "string" },
      "gateway-turns": { type: "string" },
      docs: { type: "boolean", default: false },
      "legacy-index": { type: "boolean" },
      "no-legacy-index": { type: "boolean" },
      "cache-versions": { type: "string" },
      "cache-arms": { type: "string" },
      "cache-api": { type: "string" },
    },
  });
  const smoke = values.smoke ?? false;
  const only = new Set<Section>((values.only ? values.only.split(",") : SECTIONS).map((s) => s.trim()) as Section[]);
  for (const name of only) if (!SECTIONS.includes(name)) throw new Error(`--only: unknown section ${name} (known: ${SECTIONS.join(", ")})`);
  const gatewayTurns = Number(values["gateway-turns"] ?? (smoke ? 0 : 20));
  const withLegacy = values["no-legacy-index"] ? false : (values["legacy-index"] ?? !smoke);
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
      if (withLegacy) {
        const legacy = await runLocomo(await loadBundle("legacy"), { smoke, configuredGate: defaultConfidenceGate(), log: (line) => log(`${line} (legacy index)`), smallVault: false });
        if (!legacy.skipped) {
          markdown.push(renderIndexComparison(legacy.summary, outcome.summary), "");
          (results.locomo as Record<string, unknown>).legacyIndexSummary = legacy.summary;
        }
      }
    }
    // The same questions on curated daily notes, the format most real vaults are in.
    const notes = await runLocomo(bundle, { smoke, configuredGate: defaultConfidenceGate(), log, set: "notes", smallVault: false });
    if (notes.skipped) {
      log(`locomo notes: SKIPPED: ${notes.reason}`);
      markdown.push(`### LoCoMo notes set: skipped`, "", notes.reason, "");
      results.locomoNotes = { skipped: true, reason: notes.reason };
    } else {
      markdown.push(notes.markdown, "");
      results.locomoNotes = { summary: notes.summary, perQuestion: notes.runs.flatMap((r) => r.questions), nonMemory: notes.runs.flatMap((r) => r.nonMemory) };
    }
    if (!outcome.skipped && !notes.skipped) markdown.push(renderBothSets([["dialog", outcome.summary], ["notes", notes.summary]]), "");
    sectionSeconds.locomo = (Date.now() - t) / 1000;
  }
  if (only.has("scale")) {
    const t = Date.now();
    const sizes = smoke ? [300, 1_000] : [1_000, 10_000, 100_000];
    const scale = await runScale({ sizes, queries: smoke ? 50 : 200, indexes: withLegacy ? ["legacy", "compact"] : ["compact"], log });
    markdown.push(scale.markdown, "");
    const sharedWords = await runSharedWords(smoke ? 3 : 30);
    markdown.push(sharedWords.markdown, "");
    results.scale = { rows: scale.rows, fits: scale.fits, emptyWorkerRssMB: scale.emptyWorkerRssMB, sharedWords: sharedWords.rows };
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

  if (only.has("capture")) {
    const t = Date.now();
    const capture = await runCaptureBench({ ...(smoke ? SMOKE_OPTIONS : {}), log });
    markdown.push(capture.markdown, "");
    results.capture = capture.results;
    sectionSeconds.capture = (Date.now() - t) / 1000;
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

/** LoCoMo's headline numbers for the index the bundle replaced and today's, same run. */
function renderIndexComparison(legacy: LocomoSummary, compact: LocomoSummary): string {
  const pct = (x: number) => (x * 100).toFixed(1);
  const row = (name: string, s: LocomoSummary) => {
    const all = s.bundle.find((r) => r.group === "all")!;
    const sweep = s.gateSweep[0];
    return [name, pct(all.r1), pct(all.r3), pct(all.r5), pct(all.mrr10), ...Object.values(all.inContext).map(pct), pct(all.injectedRate), pct(sweep?.nonMemoryInjected ?? Number.NaN), s.latency.bundleMedianMs.toFixed(2), s.latency.indexMedianMs.toFixed(0)];
  };
  const budgets = Object.keys(compact.bundle[0]?.inContext ?? {}).map((b) => `ctx@${b}`);
  return [
    "#### LoCoMo: the index the bundle replaced (MiniSearch) and today's compact index, same run",
    "",
    markdownTable(["index", "R@1", "R@3", "R@5", "MRR@10", ...budgets, "questions injected", "non-memory injected", "turn median ms", "index build median ms"], [row("legacy (MiniSearch)", legacy), row("compact", compact)]),
  ].join("\n");
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(`bench failed: ${error instanceof Error ? error.stack : String(error)}`);
    process.exit(1);
  },
);
