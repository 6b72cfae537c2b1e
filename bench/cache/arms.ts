// Runs the cache conversation (turns.json) through a real gateway per arm and analyses the model
// requests. One gateway per arm: hook entries and plugins are read at start, and a session's
// history must be the arm's own. Shared by `npm run bench -- --only cache` and the e2e suite.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildPlugin, packPlugin } from "../../src/ops/build-plugin.ts";
import { HOOK_KEYS, PLUGIN_ID } from "../../src/host/ids.ts";
import { REPO_ROOT, startGateway } from "../../test/e2e/gateway.ts";
import type { Gateway, StartGatewayOptions } from "../../test/e2e/gateway.ts";
import { analyseConversation, extrapolatedCost, measuredCost, DEFAULT_COST_ASSUMPTIONS } from "./analyse.ts";
import type { ConversationTurn, CostAssumptions, TurnRow } from "./analyse.ts";

export const ARMS = ["hooks-off", "aci-only", "hook-path", "plugin-prepend", "plugin-path", "persisted-prepend", "engine-alone", "engine-prepend", "engine-append"] as const;
export type Arm = (typeof ARMS)[number];

export const ARM_LABELS: Record<Arm, string> = {
  "hooks-off": "hooks off (OpenClaw default)",
  "aci-only": "aci-bootstrap only",
  "hook-path": "hook path (both hooks, no plugin)",
  "plugin-prepend": "plugin, prependContext (context engine not selected)",
  "plugin-path": "plugin (its context engine: runtime-context carrier)",
  "persisted-prepend": "persisted prependContext (2026.3.13 alternative)",
  "engine-alone": "another context engine in the slot, no bundle",
  "engine-prepend": "another engine in the slot + plugin: memory as prependContext (shipped)",
  "engine-append": "another engine in the slot + plugin: memory as appendSystemContext",
};

/** Arms with a third-party context engine holding the slot (bench/cache/README: how to build one). */
export const ENGINE_ARMS: readonly Arm[] = ["engine-alone", "engine-prepend", "engine-append"];

export const MAIN_SESSION = "agent:main:main";
/** Bench-only plugin: the companion plugin's memory as prependContext, forced on 2026.3.13. */
export const PREPEND_PLUGIN_DIR = path.join(REPO_ROOT, "bench", "cache", "prepend-plugin");
const TURN_TIMEOUT_MS = 120_000;

export function loadConversation(): ConversationTurn[] {
  const file = path.join(path.dirname(new URL(import.meta.url).pathname), "turns.json");
  return (JSON.parse(fs.readFileSync(file, "utf8")) as { turns: ConversationTurn[] }).turns;
}

export type ArmResult = {
  version: string;
  arm: Arm;
  /** "ok", or why the arm has no numbers (never silently empty). */
  status: "ok" | "engine not present" | "failed";
  reason?: string;
  rows: TurnRow[];
  /** Modeled input cost in base-price tokens over the measured turns / extrapolated. */
  cost?: { measured: number; extrapolated: number };
  /** Model requests as sent (for the breakpoint report and debugging). */
  bodies: Record<string, unknown>[];
  bootSeconds?: number;
  turnSeconds?: number;
};

let packed: Promise<string> | undefined;
/** The plugin as an operator installs it: built and packed once per process (npm pack of dist/plugin/). */
export function pluginTarball(): Promise<string> {
  packed ??= (async () => packPlugin(await buildPlugin(fs.mkdtempSync(path.join(os.tmpdir(), "openclaw-context-bench-plugin-")))))();
  return packed;
}

/**
 * The third-party context engine of the engine arms: a plugin tarball or folder named by
 * $OPENCLAW_CONTEXT_BENCH_ENGINE, whose engine id is $OPENCLAW_CONTEXT_BENCH_ENGINE_ID (default
 * lossless-claw). Never part of the repository (docs/benchmarks.md: how the figures were made).
 */
export function otherEngine(env: NodeJS.ProcessEnv = process.env): { source: string; id: string } | undefined {
  const source = env.OPENCLAW_CONTEXT_BENCH_ENGINE;
  if (!source || !fs.existsSync(source)) return undefined;
  return { source: path.resolve(source), id: env.OPENCLAW_CONTEXT_BENCH_ENGINE_ID || "lossless-claw" };
}

/** The plugin's keys install-hooks writes: conversation access, and the slot (ours, or another engine's). */
function pluginConfig(slot: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { plugins: { slots: { contextEngine: slot }, entries: { [PLUGIN_ID]: { enabled: true, hooks: { allowConversationAccess: true } }, ...extra } } };
}

async function gatewayOptions(version: string, arm: Arm, extra: Partial<StartGatewayOptions>): Promise<StartGatewayOptions> {
  const hooks = (aci: boolean, ethos: boolean) => ({ [HOOK_KEYS.aciBootstrap]: { enabled: aci }, [HOOK_KEYS.ethosContext]: { enabled: ethos } });
  const base: StartGatewayOptions = { version, installProbe: false, ...extra };
  const engine = otherEngine();
  // The engine's own entry, as its docs set it up (conversation access; its defaults otherwise).
  const engineEntry = engine ? { [engine.id]: { enabled: true, hooks: { allowConversationAccess: true }, config: {} } } : {};
  switch (arm) {
    case "hooks-off":
      // OpenClaw as shipped: our pack not installed at all.
      return { ...base, installPack: false };
    case "aci-only":
      return { ...base, hooks: hooks(true, false) };
    case "hook-path":
      return { ...base, hooks: hooks(true, true) };
    case "plugin-path":
      // The plugin with its context engine selected, as install-hooks leaves it.
      return { ...base, installPack: false, extraPlugins: [await pluginTarball()], config: { ...extra.config, ...pluginConfig(PLUGIN_ID) } };
    case "plugin-prepend":
      // The same plugin with OpenClaw's default engine: memory as prependContext (the fallback).
      return { ...base, installPack: false, extraPlugins: [await pluginTarball()], config: { ...extra.config, ...pluginConfig("legacy") } };
    case "persisted-prepend":
      return { ...base, hooks: hooks(true, true), extraPlugins: [PREPEND_PLUGIN_DIR] };
    case "engine-alone":
      return { ...base, installPack: false, extraPlugins: [engine!.source], config: { ...extra.config, plugins: { slots: { contextEngine: engine!.id }, entries: engineEntry } } };
    case "engine-prepend":
    case "engine-append":
      // install-hooks leaves another engine in the slot; the plugin stands aside (src/context/delivery.ts).
      return {
        ...base,
        installPack: false,
        extraPlugins: [engine!.source, await pluginTarball()],
        config: { ...extra.config, ...pluginConfig(engine!.id, engineEntry) },
        ...(arm === "engine-append" ? { env: { ...extra.env, OPENCLAW_CONTEXT_OTHER_ENGINE_DELIVERY: "append-system-context" } } : {}),
      };
  }
}

/**
 * Waits until the turn's run has ended (`agent.wait` on the runId chat.send returned), so the next
 * message starts a new run on a complete transcript instead of being queued into this one.
 */
async function waitForRun(gateway: Gateway, cliJson: unknown, turn: number): Promise<void> {
  const runId = (cliJson as { runId?: unknown } | undefined)?.runId;
  if (typeof runId !== "string") throw new Error(`turn ${turn}: chat.send returned no runId: ${JSON.stringify(cliJson)}`);
  const answer = await gateway.call<{ status?: string }>("agent.wait", { runId, timeoutMs: TURN_TIMEOUT_MS }, { timeoutMs: TURN_TIMEOUT_MS + 5_000 });
  if (answer?.status !== "ok") throw new Error(`turn ${turn}: agent.wait ${runId} returned ${JSON.stringify(answer).slice(0, 300)}`);
}

/**
 * One arm: boot, send every turn to the main session with `chat.send`, one model request per
 * turn (each turn waits for its own request; the session lane serialises the runs), stop.
 */
export async function runArm(options: {
  version: string;
  arm: Arm;
  turns?: ConversationTurn[];
  assumptions?: CostAssumptions;
  gateway?: Partial<StartGatewayOptions>;
  log?: (line: string) => void;
  /** Called with the running gateway after the last turn (e.g. to read more from it). */
  inspect?: (gateway: Gateway) => Promise<void> | void;
}): Promise<ArmResult> {
  const { version, arm } = options;
  const turns = options.turns ?? loadConversation();
  const log = options.log ?? (() => {});
  if (ENGINE_ARMS.includes(arm) && !otherEngine()) {
    return { version, arm, status: "engine not present", reason: "set OPENCLAW_CONTEXT_BENCH_ENGINE to a context-engine plugin (tarball or folder)", rows: [], bodies: [] };
  }
  const bootStarted = Date.now();
  const gateway = await startGateway(await gatewayOptions(version, arm, options.gateway ?? {}));
  const bootSeconds = (Date.now() - bootStarted) / 1000;
  try {
    const turnsStarted = Date.now();
    const bodies: Record<string, unknown>[] = [];
    for (const [index, turn] of turns.entries()) {
      const before = gateway.model.requests.length;
      const result = await gateway.chatSend(MAIN_SESSION, turn.text, TURN_TIMEOUT_MS);
      const extra = gateway.model.requests.length - before;
      if (extra !== 1) throw new Error(`turn ${index + 1}: expected one model request, saw ${extra}`);
      bodies.push(result.request.body);
      await waitForRun(gateway, result.cliJson, index + 1);
    }
    const turnSeconds = (Date.now() - turnsStarted) / 1000;
    await options.inspect?.(gateway);
    const rows = analyseConversation(turns, bodies);
    const assumptions = options.assumptions ?? DEFAULT_COST_ASSUMPTIONS;
    log(`cache: ${version} ${arm}: boot ${bootSeconds.toFixed(0)} s, ${turns.length} turns ${turnSeconds.toFixed(0)} s`);
    return { version, arm, status: "ok", rows, bodies, cost: { measured: measuredCost(rows), extrapolated: extrapolatedCost(rows, assumptions) }, bootSeconds, turnSeconds };
  } catch (error) {
    throw new Error(`${version} ${arm}: ${(error as Error).message}\ngateway log tail:\n${gateway.logs().slice(-2000)}`);
  } finally {
    await gateway.stop();
  }
}
