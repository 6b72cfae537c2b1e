// Added cost of the aci-bootstrap handler per agent:bootstrap event on the sample workspace.
// Run: npx tsx bench/hooks/aci-bootstrap.ts [iterations]   (prints a Markdown table)
// Import: benchAciBootstrap(iterations) → { medianUs, p99Us, ... } for the benchmark runner.
import fs from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { setLogDestination } from "../../src/core/log.ts";
import { percentile } from "../lib/metrics.ts";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const workspace = path.join(repo, "fixtures/workspace");
const EVENTS = ["main.json", "dm-owner.json", "group.json", "topic-ops.json", "subagent.json", "cron-run.json"];

export type AciBootstrapBench = {
  iterations: number;
  events: number;
  medianUs: number;
  p99Us: number;
  perEvent: Array<{ event: string; medianUs: number; p99Us: number }>;
};

function round(us: number): number {
  return Math.round(us * 10) / 10;
}

export async function benchAciBootstrap(iterations = 2000): Promise<AciBootstrapBench> {
  // Logs are serialised as in production but discarded, so the terminal is not what we measure.
  setLogDestination(new Writable({ write(_chunk, _enc, done) { done(); } }));
  process.env.OPENCLAW_CONFIG_PATH ??= path.join(repo, ".bench-no-openclaw.json");
  const handler = (await import("../../hooks/aci-bootstrap/handler.ts")).default as (event: unknown) => Promise<void>;
  const templates = EVENTS.map((file) => ({
    file,
    text: fs.readFileSync(path.join(repo, "fixtures/events/handmade", file), "utf8").replaceAll("<workspace>", workspace),
  }));

  // Warm-up: module graph, zod, file cache.
  for (let i = 0; i < 50; i += 1) for (const t of templates) await handler(JSON.parse(t.text));

  const all: number[] = [];
  const perEvent = new Map<string, number[]>(templates.map((t) => [t.file, []]));
  for (let i = 0; i < iterations; i += 1) {
    for (const template of templates) {
      const event = JSON.parse(template.text); // a fresh event each time, outside the timed region
      const start = process.hrtime.bigint();
      await handler(event);
      const us = Number(process.hrtime.bigint() - start) / 1000;
      all.push(us);
      perEvent.get(template.file)!.push(us);
    }
  }
  setLogDestination(undefined);
  all.sort((a, b) => a - b);
  return {
    iterations,
    events: all.length,
    medianUs: round(percentile(all, 50)),
    p99Us: round(percentile(all, 99)),
    perEvent: [...perEvent].map(([event, samples]) => {
      samples.sort((a, b) => a - b);
      return { event: event.replace(/\.json$/, ""), medianUs: round(percentile(samples, 50)), p99Us: round(percentile(samples, 99)) };
    }),
  };
}

export function formatAciBootstrapBench(result: AciBootstrapBench): string {
  const rows = [
    `aci-bootstrap handler, ${result.events} events (${result.iterations} iterations × ${result.perEvent.length} session shapes), Node ${process.version}`,
    "",
    "| event | median µs | p99 µs |",
    "|---|---:|---:|",
    ...result.perEvent.map((row) => `| ${row.event} | ${row.medianUs} | ${row.p99Us} |`),
    `| **all** | **${result.medianUs}** | **${result.p99Us}** |`,
  ];
  return rows.join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const iterations = Number.parseInt(process.argv[2] ?? "2000", 10);
  if (!Number.isFinite(iterations) || iterations < 1) {
    process.stderr.write("usage: tsx bench/hooks/aci-bootstrap.ts [iterations>0]\n");
    process.exit(2);
  }
  benchAciBootstrap(iterations).then((result) => process.stdout.write(`${formatAciBootstrapBench(result)}\n`));
}
