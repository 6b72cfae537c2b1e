// What a capture costs next to many captured facts, and what a burst of captures does to turns.
//
// Cost: a workspace with `facts` captured facts spread over today's day file and the 30 days before
// (what the capture compares with), then `captures` captures one after another through
// `captureFact`: 80 % new facts, 10 % repeats and 10 % corrections of facts captured before (the
// in-place edits, recorded ahead and applied after the capture: src/capture/pending-edits.ts).
// Reported: the first capture (it reads every day file once), then p50 / p95 / max of the others,
// the time to apply the recorded edits once the last capture is done (captures back to back leave
// the queue no idle moment before that), the longest event-loop delay while all of it ran
// (`monitorEventLoopDelay`, so other load on the machine shows here too), and the heap the
// capture's index holds. Then a durable rewrite of today's file alone (lock, read, temp file,
// fsyncs, rename), with no capture logic, as many times as there were edits: what one edit cost
// when the capture made it itself.
//
// Burst: the same workspace plus the sample workspace's notes; `burst` "remember that …" messages
// arrive at once through the hook's real entry point (`startInboundTriage`, owner session), while
// a memory question is asked every 100 ms through the hook runtime (message:received then
// agent:bootstrap). Reported: facts that did not land, turns whose retrieval missed the wait
// (awaitTimeoutMs), and the longest event-loop delay.
//
// `srcRoot` runs the same against another checkout of the bundle (e.g. the commit before the index).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PerformanceObserver, monitorEventLoopDelay, performance } from "node:perf_hooks";
import { markdownTable } from "../lib/table.ts";
import { percentile } from "../lib/metrics.ts";
import { REPO_ROOT, SAMPLE_WORKSPACE } from "../lib/paths.ts";
import { seededRandom as random } from "../scale/vault.ts";

const PLACES = "north south east west upper lower old new main back front side river hill park harbour station market castle garden".split(" ");
const NAMES = "Anna Ben Carla David Elena Farid Grace Hugo Ines Jonas Kira Liam Maya Noah Olga Pavel Quinn Rosa Sami Tara Umar Vera Wim Xena Yusuf Zoe Alba Bruno Chen Dana Emil Flora Gil Hana Ivo Jana Kofi Lena Milo Nina Omar Pia Rafael Sofia Tomas Uma Viktor Wen Yara Zack".split(" ");
const THINGS = "locker bike car gym office garage storage mailbox wifi alarm safe passport insurance dentist doctor vet school bank library pool boat cabin flat studio parking".split(" ");
// No "pin": a PIN is a secret, withheld by the capture (docs/memory-hygiene.md, Secrets), so it would not be found as written.
const ATTRIBUTES = "code number address appointment day slot floor room seat desk".split(" ");

type Generated = { statement: string; name: string; thing: string; attribute: string; value: number };

/** Distinct facts of the form "Anna's locker code is 4312". */
function* facts(seed: number): Generator<Generated> {
  const next = random(seed);
  const used = new Set<string>();
  for (;;) {
    const name = NAMES[Math.floor(next() * NAMES.length)];
    const thing = THINGS[Math.floor(next() * THINGS.length)];
    const attribute = ATTRIBUTES[Math.floor(next() * ATTRIBUTES.length)];
    const place = PLACES[Math.floor(next() * PLACES.length)];
    const other = THINGS[Math.floor(next() * THINGS.length)];
    const key = `${name}-${thing}-${attribute}-${place}-${other}`;
    if (used.has(key)) continue;
    used.add(key);
    const value = 1000 + Math.floor(next() * 9000);
    yield { statement: `${name}'s ${thing} ${attribute} at the ${place} ${other} is ${value}`, name, thing, attribute, value };
  }
}

type Bundle = {
  captureFact: (input: unknown) => Promise<{ action: string }>;
  formatCapturedLine: (statement: string, tag: string, meta: object, capturedAt: string) => string;
  dayFileFor: (workspaceDir: string, now: Date) => string;
  capturedFacts: (markdown: string) => { statement: string }[];
  HYGIENE_CONFIG_DEFAULTS: object;
  lockOptionsFromConfig: (config: object, agent: string) => object;
  setLogDestination: (destination: unknown) => void;
  updateFileLocked: (file: string, transform: (text: string) => string | null, options: object) => Promise<unknown>;
  /** Since 2026-11-27: the in-place edits captures recorded ahead, applied (absent before: they were applied by the capture). */
  settledCaptures?: (workspaceDir: string) => Promise<void>;
};

async function loadBundle(srcRoot: string): Promise<Bundle> {
  const from = (file: string) => import(path.join(srcRoot, file));
  // The locked writers had their own module from 2026-11-26 (lock.ts before).
  const [capture, config, log, writes] = await Promise.all([
    from("src/capture/capture.ts"),
    from("src/memory/config-md.ts"),
    from("src/core/log.ts"),
    from("src/fs/locked-writes.ts").catch(() => from("src/fs/lock.ts")),
  ]);
  return { ...capture, ...config, ...log, updateFileLocked: writes.updateFileLocked } as Bundle;
}

const DAY_MS = 86_400_000;


/** A workspace whose memory folder holds `count` captured facts over today and the 30 days before. */
function buildWorkspace(bundle: Bundle, root: string, count: number, now: Date, withSample: boolean): { workspaceDir: string; stored: Generated[] } {
  const workspaceDir = fs.mkdtempSync(path.join(root, `ws-${count}-`));
  if (withSample) fs.cpSync(SAMPLE_WORKSPACE, workspaceDir, { recursive: true });
  fs.mkdirSync(path.join(workspaceDir, "memory"), { recursive: true });
  const generator = facts(count + 1);
  const stored: Generated[] = [];
  const days = 31;
  for (let d = 0; d < days; d++) {
    const day = new Date(now.getTime() - d * DAY_MS);
    const lines: string[] = [];
    const perDay = Math.floor(count / days) + (d < count % days ? 1 : 0);
    for (let i = 0; i < perDay; i++) {
      const fact = generator.next().value as Generated;
      stored.push(fact);
      const at = new Date(day.getTime() - (perDay - i) * 1000);
      lines.push(bundle.formatCapturedLine(fact.statement, "#knowledge", { confidence: 0.95, source: "operator", mentions: 1, last: at }, at.toISOString()));
    }
    if (lines.length > 0) fs.writeFileSync(bundle.dayFileFor(workspaceDir, day), `${lines.join("\n")}\n`);
  }
  return { workspaceDir, stored };
}

export type CostRow = {
  facts: number;
  dayFileKiB: number;
  firstMs: number;
  /** Captures that added a line (a new fact): one O_APPEND write. */
  added: { n: number; p50Ms: number; p95Ms: number };
  /** Captures that edited a line in place too (a repeat's mention count, an older value marked superseded). */
  edits: { n: number; p50Ms: number; p95Ms: number };
  /** The durable rewrite of today's file alone (`updateFileLocked`, one mention count changed): the floor of an in-place edit. */
  rewrite: { n: number; p50Ms: number; p95Ms: number };
  /** Applying the edits the captures recorded ahead, after the last capture (NaN: a checkout that applied them in the capture). */
  settleMs: number;
  p95Ms: number;
  maxMs: number;
  /** CPU time of this process per capture (median), which machine load does not inflate as much as wall time. */
  cpuMs: number;
  holdMs: number;
  heapMiB: number;
};

export async function measureCaptureCost(options: { sizes?: number[]; captures?: number; srcRoot?: string; log?: (line: string) => void } = {}): Promise<CostRow[]> {
  const bundle = await loadBundle(options.srcRoot ?? REPO_ROOT);
  const sizes = options.sizes ?? [0, 1_000, 10_000, 40_000];
  const captures = options.captures ?? 200;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "occ-bench-capture-cost-"));
  bundle.setLogDestination({ write: () => true });
  const rows: CostRow[] = [];
  try {
    for (const size of sizes) {
      const now = new Date();
      const { workspaceDir, stored } = buildWorkspace(bundle, root, size, now, false);
      const config = bundle.HYGIENE_CONFIG_DEFAULTS;
      const lock = bundle.lockOptionsFromConfig(config, "memory-capture");
      const fresh = facts(size + 7);
      const pick = random(size + 11);
      const inputs = Array.from({ length: captures + 1 }, (_, i) => {
        const roll = pick();
        // New facts mostly; a repeat or a correction of a stored fact now and then (the in-place edits).
        if (i > 0 && stored.length > 0 && roll < 0.1) return { kind: "memory", statement: stored[Math.floor(pick() * stored.length)].statement };
        if (i > 0 && stored.length > 0 && roll < 0.2) {
          const old = stored[Math.floor(pick() * stored.length)];
          return { kind: "correction", statement: old.statement.replace(/\d+$/, String(old.value + 1)) };
        }
        return { kind: "memory", statement: (fresh.next().value as Generated).statement };
      });
      if (typeof global.gc === "function") global.gc();
      const heapBefore = process.memoryUsage().heapUsed;
      const delay = monitorEventLoopDelay({ resolution: 1 });
      const times: number[] = [];
      const cpu: number[] = [];
      const added: number[] = [];
      const edits: number[] = [];
      for (const [i, input] of inputs.entries()) {
        // The first capture reads every day file once (and loads what it uses): timed, not in the delay.
        if (i === 1) delay.enable();
        const started = performance.now();
        const cpuStarted = process.cpuUsage();
        const outcome = await bundle.captureFact({ workspaceDir, fact: { ...input, tag: "#knowledge", trigger: "remember-that" }, now, config, lock });
        const ms = performance.now() - started;
        const used = process.cpuUsage(cpuStarted);
        cpu.push((used.user + used.system) / 1000);
        if (times.push(ms) > 1) (outcome.action === "added" ? added : edits).push(ms);
      }
      // The edits recorded ahead, applied (captures back to back never leave the queue idle, so all
      // of them wait until now): timed, and inside the event-loop delay.
      const settleStarted = performance.now();
      await bundle.settledCaptures?.(workspaceDir);
      const settleMs = bundle.settledCaptures ? performance.now() - settleStarted : Number.NaN;
      delay.disable();
      if (typeof global.gc === "function") global.gc();
      // Without --expose-gc the heap is not collected first and the figure would mean nothing.
      const heapMiB = typeof global.gc === "function" ? (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024 : Number.NaN;
      const [first, ...rest] = times;
      const todayFile = bundle.dayFileFor(workspaceDir, now);
      const todayBytes = fs.statSync(todayFile).size;
      // The floor of an in-place edit: its durable rewrite alone (lock, read, temp file, fsync, rename,
      // fsync of the folder), without the capture's decisions, as many times as there were edits.
      const rewrites: number[] = [];
      for (let i = 0; i < Math.max(edits.length, 20); i++) {
        const started = performance.now();
        await bundle.updateFileLocked(todayFile, (text) => text.replace(/mentions: (\d+)/, (_, n: string) => `mentions: ${Number(n) + 1}`), { ...lock, containWithin: workspaceDir });
        rewrites.push(performance.now() - started);
      }
      const summary = (sample: number[]) => ({ n: sample.length, p50Ms: percentile(sample, 50), p95Ms: percentile(sample, 95) });
      rows.push({ facts: size, dayFileKiB: todayBytes / 1024, firstMs: first, added: summary(added), edits: summary(edits), rewrite: summary(rewrites), settleMs, p95Ms: percentile(rest, 95), maxMs: Math.max(...rest), cpuMs: percentile(cpu.slice(1), 50), holdMs: delay.max / 1e6, heapMiB });
      options.log?.(`capture cost: ${size} facts, p95 ${percentile(rest, 95).toFixed(1)} ms`);
      fs.rmSync(workspaceDir, { recursive: true, force: true, maxRetries: 10 });
    }
    return rows;
  } finally {
    bundle.setLogDestination(undefined);
    fs.rmSync(root, { recursive: true, force: true, maxRetries: 10 });
  }
}

export function costTable(rows: readonly CostRow[]): string {
  const ms = (value: number) => (Number.isNaN(value) ? "-" : `${value.toFixed(1)} ms`);
  return markdownTable(
    ["captured facts", "today's file", "first capture", "new fact p50 / p95", "with an in-place edit p50 / p95", "the rewrite alone p50 / p95", "edits applied after the run", "all p95", "slowest", "CPU per capture (p50)", "longest event-loop delay", "index heap"],
    rows.map((r) => [
      r.facts.toLocaleString("en-US"),
      `${r.dayFileKiB.toFixed(0)} KiB`,
      ms(r.firstMs),
      `${ms(r.added.p50Ms)} / ${ms(r.added.p95Ms)} (${r.added.n})`,
      `${ms(r.edits.p50Ms)} / ${ms(r.edits.p95Ms)} (${r.edits.n})`,
      `${ms(r.rewrite.p50Ms)} / ${ms(r.rewrite.p95Ms)} (${r.rewrite.n})`,
      ms(r.settleMs),
      ms(r.p95Ms),
      ms(r.maxMs),
      ms(r.cpuMs),
      ms(r.holdMs),
      Number.isNaN(r.heapMiB) ? "- (run with --expose-gc)" : `${r.heapMiB.toFixed(1)} MiB`,
    ]),
  );
}

export type BurstResult = {
  facts: number;
  captures: number;
  lost: number;
  captureErrors: number;
  burstSeconds: number;
  turns: number;
  delivered: number;
  missedWait: number;
  slowestTurnMs: number;
  holdMs: number;
  /** The longest garbage-collection pause while the burst ran (part of the event-loop delay, never more). */
  longestGcMs: number;
  /** Control rows only (no captures): the process's CPU time per turn, which load inflates less than wall time. */
  turnCpuMs: number;
};

/**
 * `burst` "remember that …" messages at once through the hook's entry point, with a memory question
 * every 100 ms through the hook runtime until the burst has landed. `burst: 0` is the control: the
 * same questions, `turns` of them, and no captures (what the machine's own load costs the turns).
 */
export async function measureBurst(options: { facts?: number; burst?: number; turns?: number; srcRoot?: string; log?: (line: string) => void } = {}): Promise<BurstResult> {
  const srcRoot = options.srcRoot ?? REPO_ROOT;
  const bundle = await loadBundle(srcRoot);
  const from = (file: string) => import(path.join(srcRoot, file));
  const [{ HookPack }, { startInboundTriage }, { RETRIEVED_MEMORY_RECORD_NAME }, { flushContextFileWrites }, { reasonCounter }, { MEMORY_MESSAGES }] = await Promise.all([
    from("src/hook-pack/service.ts"),
    from("src/capture/inbound.ts"),
    from("src/host/ids.ts"),
    from("src/context/context-file.ts"),
    import("../hooks/burst.ts"),
    import("../hooks/in-process.ts"),
  ]);
  const size = options.facts ?? 40_000;
  const burst = options.burst ?? 1_000;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "occ-bench-capture-burst-"));
  const savedCacheDir = process.env.OPENCLAW_CONTEXT_INDEX_CACHE_DIR;
  process.env.OPENCLAW_CONTEXT_INDEX_CACHE_DIR = path.join(root, "index-cache");
  bundle.setLogDestination({ write: () => true });
  try {
    const now = new Date();
    const { workspaceDir } = buildWorkspace(bundle, root, size, now, true);
    const cfg = { agents: { defaults: { workspace: workspaceDir } } };
    const counter = reasonCounter();
    const runtime = new HookPack({ log: counter.log, loadOpenClawConfig: () => cfg });
    let turnNumber = 0;
    const ask = async (): Promise<{ delivered: boolean; ms: number }> => {
      const n = turnNumber++;
      const sessionKey = `agent:main:main:thread:q${n}`;
      const content = MEMORY_MESSAGES[n % MEMORY_MESSAGES.length];
      runtime.onMessageReceived({ type: "message", action: "received", sessionKey, messages: [], context: { content, messageId: `q${n}`, channelId: "webchat" } });
      const started = performance.now();
      const files = (await runtime.onAgentBootstrap({
        type: "agent",
        action: "bootstrap",
        sessionKey,
        messages: [],
        context: { workspaceDir, bootstrapFiles: [], cfg, sessionKey, agentId: "main" },
      })) as { name?: string }[] | undefined;
      return { delivered: Boolean(files?.some((file) => file.name === RETRIEVED_MEMORY_RECORD_NAME)), ms: performance.now() - started };
    };
    // The memory index over every day file is built by the first turns; the burst starts once a turn gets memory.
    for (let attempt = 0; attempt < 600 && !(await ask()).delivered; attempt++) await new Promise((resolve) => setTimeout(resolve, 200));
    // One capture first, so modules the capture loads on first use are not counted in the burst.
    await startInboundTriage({ type: "message", action: "received", sessionKey: "agent:main:main", messages: [], context: { content: "Remember that the warm-up fact is 1", messageId: "warm-up", channelId: "webchat" } }, workspaceDir);
    counter.reasons.clear();

    const fresh = facts(size + 3);
    const statements = Array.from({ length: burst }, () => `Remember that ${(fresh.next().value as Generated).statement}`);
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    // What share of the event loop's longest wait was the collector's: its pauses, one by one.
    const gcPauseMs: number[] = [];
    const gcPauses = new PerformanceObserver((list) => void gcPauseMs.push(...list.getEntries().map((entry) => entry.duration)));
    gcPauses.observe({ entryTypes: ["gc"] });
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    let landed = false;
    const captures = Promise.all(
      statements.map((content, i) =>
        startInboundTriage({ type: "message", action: "received", sessionKey: "agent:main:main", messages: [], context: { content, messageId: `b${i}`, channelId: "webchat" } }, workspaceDir),
      ),
    ).then(() => void (landed = true));
    const turns: Promise<{ delivered: boolean; ms: number }>[] = [];
    // Without captures (the control row): the same questions for `turns` turns.
    while (burst > 0 ? !landed : turns.length < (options.turns ?? 100)) {
      turns.push(ask());
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await captures;
    const burstSeconds = (performance.now() - started) / 1000;
    const asked = await Promise.all(turns);
    const cpu = process.cpuUsage(cpuStarted);
    delay.disable();
    gcPauseMs.push(...gcPauses.takeRecords().map((entry) => entry.duration));
    const longestGcMs = Math.max(0, ...gcPauseMs);
    gcPauses.disconnect();
    await flushContextFileWrites();

    const memory = path.join(workspaceDir, "memory");
    const captured = new Set(fs.readdirSync(memory).filter((name) => name.endsWith(".md")).flatMap((name) => bundle.capturedFacts(fs.readFileSync(path.join(memory, name), "utf8")).map((f) => f.statement)));
    const lost = statements.filter((s) => !captured.has(s.replace(/^Remember that /, ""))).length;
    const timeouts = counter.reasons.get("timeout") ?? 0;
    const delivered = asked.filter((t) => t.delivered).length;
    const explained = [...counter.reasons.values()].reduce((sum, n) => sum + n, 0);
    const result: BurstResult = {
      facts: size,
      captures: burst,
      lost,
      captureErrors: 0,
      burstSeconds,
      turns: asked.length,
      delivered,
      missedWait: timeouts + Math.max(0, asked.length - delivered - explained),
      slowestTurnMs: Math.max(...asked.map((t) => t.ms)),
      holdMs: delay.max / 1e6,
      longestGcMs,
      turnCpuMs: burst === 0 ? (cpu.user + cpu.system) / 1000 / asked.length : Number.NaN,
    };
    options.log?.(`capture burst: ${burst} captures next to ${size} facts, ${lost} lost, ${result.missedWait} of ${result.turns} turns missed their wait`);
    return result;
  } finally {
    bundle.setLogDestination(undefined);
    if (savedCacheDir === undefined) delete process.env.OPENCLAW_CONTEXT_INDEX_CACHE_DIR;
    else process.env.OPENCLAW_CONTEXT_INDEX_CACHE_DIR = savedCacheDir;
    fs.rmSync(root, { recursive: true, force: true, maxRetries: 10 });
  }
}

export function burstTable(rows: readonly BurstResult[]): string {
  return markdownTable(
    ["captured facts", "captures at once", "lost", "burst landed in", "turns during the burst", "turns with memory", "turns that missed their wait", "slowest turn", "longest event-loop delay", "longest GC pause", "CPU per turn (control)"],
    rows.map((r) => [r.facts.toLocaleString("en-US"), r.captures, r.lost, `${r.burstSeconds.toFixed(1)} s`, r.turns, r.delivered, r.missedWait, `${r.slowestTurnMs.toFixed(0)} ms`, `${r.holdMs.toFixed(0)} ms`, `${r.longestGcMs.toFixed(0)} ms`, Number.isNaN(r.turnCpuMs) ? "-" : `${r.turnCpuMs.toFixed(1)} ms`]),
  );
}
