// Bursts: N sessions ask a memory question at the same moment. Counts what each turn got: memory
// delivered, or not (and why), and how long the slowest turn waited. In process, on a copy of the
// sample workspace, default config (awaitTimeoutMs 250, plugin waitMs its default); the gateway's
// own work in a burst is not included, so on a real gateway fewer turns are served.
//   npx tsx bench/hooks/burst.ts [--sizes 50,200,300] [--json]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { RETRIEVED_MEMORY_RECORD_NAME } from "../../src/host/ids.ts";
import { setLogDestination } from "../../src/core/log.ts";
import { HookPack } from "../../src/hook-pack/service.ts";
import type { Log } from "../../src/context/service.ts";
import { flushContextFileWrites } from "../../src/context/context-file.ts";
import { markdownTable } from "../lib/table.ts";
import { SAMPLE_WORKSPACE } from "../lib/paths.ts";
import { MEMORY_MESSAGES } from "./in-process.ts";

export type BurstRow = {
  index: "cold" | "warm";
  sessions: number;
  delivered: number;
  notDelivered: number;
  /** Why a turn got no memory: reason → turns ("wait ended", "no-results" while the index builds, skip rules, gate tiers). */
  reasons: Record<string, number>;
  maxTurnMs: number;
  medianTurnMs: number;
};

/** A logger that counts the service's per-turn outcome lines by reason. */
export function reasonCounter(): { log: () => Log; reasons: Map<string, number> } {
  const reasons = new Map<string, number>();
  const note = (obj: object, msg: string) => {
    if (!msg.startsWith("memory context for this turn")) return;
    const { reason, injected } = obj as { reason?: string; injected?: number };
    if (injected) return;
    reasons.set(reason ?? "unknown", (reasons.get(reason ?? "unknown") ?? 0) + 1);
  };
  const log: Log = { debug: () => undefined, info: note, warn: note, error: () => undefined };
  return { log: () => log, reasons };
}

async function burst(workspaceDir: string, sessions: number, label: string, counter: ReturnType<typeof reasonCounter>, runtime: HookPack) {
  const cfg = { agents: { defaults: { workspace: workspaceDir } } };
  const keys = Array.from({ length: sessions }, (_, i) => `agent:main:main:thread:${label}-${i}`);
  // Every message arrives at once; the gateway then starts every run (agent:bootstrap) at once.
  keys.forEach((sessionKey, i) =>
    runtime.onMessageReceived({ type: "message", action: "received", sessionKey, messages: [], context: { content: MEMORY_MESSAGES[i % MEMORY_MESSAGES.length], messageId: `${label}-${i}`, channelId: "webchat" } } as never),
  );
  const turnMs: number[] = [];
  const served = await Promise.all(
    keys.map(async (sessionKey) => {
      const started = performance.now();
      const files = await runtime.onAgentBootstrap({
        type: "agent",
        action: "bootstrap",
        sessionKey,
        messages: [],
        context: { workspaceDir, bootstrapFiles: [], cfg, sessionKey, agentId: "main" },
      } as never);
      turnMs.push(performance.now() - started);
      return Boolean(files?.some((file) => (file as { name?: string }).name === RETRIEVED_MEMORY_RECORD_NAME));
    }),
  );
  turnMs.sort((a, b) => a - b);
  // Reasons known when the last turn returned. A turn whose search or block came after its wait
  // ended is logged later (or as "timeout"): it counts as "wait ended".
  const delivered = served.filter(Boolean).length;
  const reasons: Record<string, number> = {};
  for (const [reason, n] of counter.reasons) if (reason !== "timeout") reasons[reason] = n;
  const explained = Object.values(reasons).reduce((sum, n) => sum + n, 0);
  if (sessions - delivered - explained > 0) reasons["wait ended"] = sessions - delivered - explained;
  return { delivered, turnMs, reasons };
}

export async function measureBursts(options: { sizes?: number[] } = {}): Promise<BurstRow[]> {
  const sizes = options.sizes ?? [50, 200, 300];
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "occ-bench-burst-"));
  const savedCacheDir = process.env.OPENCLAW_CONTEXT_INDEX_CACHE_DIR;
  process.env.OPENCLAW_CONTEXT_INDEX_CACHE_DIR = path.join(root, "index-cache");
  setLogDestination({ write: () => undefined });
  const rows: BurstRow[] = [];
  try {
    for (const index of ["cold", "warm"] as const) {
      for (const sessions of sizes) {
        // A fresh workspace copy: its index is new (cold), or built by one turn first (warm).
        const workspaceDir = path.join(root, `${index}-${sessions}`);
        fs.cpSync(SAMPLE_WORKSPACE, workspaceDir, { recursive: true });
        const counter = reasonCounter();
        const runtime = new HookPack({ log: counter.log, loadOpenClawConfig: () => ({ agents: { defaults: { workspace: workspaceDir } } }) });
        if (index === "warm") {
          await burst(workspaceDir, 1, "warm-up", counter, runtime);
          counter.reasons.clear();
        }
        const { delivered, turnMs, reasons } = await burst(workspaceDir, sessions, `${index}-${sessions}`, counter, runtime);
        rows.push({
          index,
          sessions,
          delivered,
          notDelivered: sessions - delivered,
          reasons,
          maxTurnMs: turnMs[turnMs.length - 1] ?? 0,
          medianTurnMs: turnMs[Math.floor(turnMs.length / 2)] ?? 0,
        });
        await flushContextFileWrites();
      }
    }
    return rows;
  } finally {
    setLogDestination(undefined);
    if (savedCacheDir === undefined) delete process.env.OPENCLAW_CONTEXT_INDEX_CACHE_DIR;
    else process.env.OPENCLAW_CONTEXT_INDEX_CACHE_DIR = savedCacheDir;
    fs.rmSync(root, { recursive: true, force: true, maxRetries: 10 });
  }
}

export function burstTable(rows: readonly BurstRow[]): string {
  return markdownTable(
    ["index", "sessions in the burst", "memory delivered", "no memory", "why not (turns)", "median turn", "slowest turn"],
    rows.map((r) => [
      r.index,
      r.sessions,
      r.delivered,
      r.notDelivered,
      Object.entries(r.reasons).map(([reason, n]) => `${reason} ${n}`).join(", ") || "-",
      `${r.medianTurnMs.toFixed(0)} ms`,
      `${r.maxTurnMs.toFixed(0)} ms`,
    ]),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { sizes: { type: "string" }, json: { type: "boolean" } } });
  const rows = await measureBursts({ sizes: values.sizes ? values.sizes.split(",").map(Number) : undefined });
  if (values.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  else process.stdout.write(`### Bursts: turns served with memory (hook path, in process, ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)})\n\n${burstTable(rows)}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
