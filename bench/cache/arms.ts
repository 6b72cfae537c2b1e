// Runs the cache conversation (turns.json) through a real gateway per arm and analyses the model
// requests. One gateway per arm: hook entries and plugins are read at start, and a session's
// history must be the arm's own. Shared by `npm run bench -- --only cache` and the e2e suite.
import fs from "node:fs";
import path from "node:path";
import { HOOK_KEYS } from "../../src/host/ids.ts";
import { REPO_ROOT, startGateway } from "../../test/e2e/gateway.ts";
import type { Gateway, StartGatewayOptions } from "../../test/e2e/gateway.ts";
import { analyseConversation, extrapolatedCost, measuredCost, DEFAULT_COST_ASSUMPTIONS } from "./analyse.ts";
import type { ConversationTurn, CostAssumptions, TurnRow } from "./analyse.ts";

export const ARMS = ["hooks-off", "aci-only", "hook-path", "plugin-prepend", "plugin-path", "persisted-prepend"] as const;
export type Arm = (typeof ARMS)[number];

export const ARM_LABELS: Record<Arm, string> = {
  "hooks-off": "hooks off (OpenClaw default)",
  "aci-only": "aci-bootstrap only",
  "hook-path": "hook path (both hooks, no plugin)",
  "plugin-prepend": "plugin path, prependContext (context engine not selected)",
  "plugin-path": "plugin path (both hooks + plugin: runtime-context carrier)",
  "persisted-prepend": "persisted prependContext (2026.3.13 alternative)",
};

export const MAIN_SESSION = "agent:main:main";
export const PLUGIN_DIR = path.join(REPO_ROOT, "plugin");
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
  status: "ok" | "plugin not present" | "failed";
  reason?: string;
  rows: TurnRow[];
  /** Modeled input cost in base-price tokens over the measured turns / extrapolated. */
  cost?: { measured: number; extrapolated: number };
  /** Model requests as sent (for the breakpoint report and debugging). */
  bodies: Record<string, unknown>[];
  bootSeconds?: number;
  turnSeconds?: number;
};

/** The companion plugin folder; the plugin arm reports "plugin not present" without it. */
export function pluginManifest(): { id: string } | undefined {
  const file = path.join(PLUGIN_DIR, "openclaw.plugin.json");
  if (!fs.existsSync(file)) return undefined;
  return JSON.parse(fs.readFileSync(file, "utf8")) as { id: string };
}

function gatewayOptions(version: string, arm: Arm, extra: Partial<StartGatewayOptions>): StartGatewayOptions {
  const hooks = (aci: boolean, ethos: boolean) => ({ [HOOK_KEYS.aciBootstrap]: { enabled: aci }, [HOOK_KEYS.ethosContext]: { enabled: ethos } });
  const base: StartGatewayOptions = { version, installProbe: false, ...extra };
  switch (arm) {
    case "hooks-off":
      // OpenClaw as shipped: our pack not installed at all.
      return { ...base, installPack: false };
    case "aci-only":
      return { ...base, hooks: hooks(true, false) };
    case "hook-path":
      return { ...base, hooks: hooks(true, true) };
    case "plugin-path":
      // The harness selects the plugin's context engine, as install-hooks does.
      return { ...base, hooks: hooks(true, true), installPlugin: true };
    case "plugin-prepend":
      // The same plugin with OpenClaw's default engine: memory as prependContext (the fallback).
      return { ...base, hooks: hooks(true, true), installPlugin: true, config: { ...(extra.config ?? {}), plugins: { slots: { contextEngine: "legacy" } } } };
    case "persisted-prepend":
      return { ...base, hooks: hooks(true, true), extraPlugins: [PREPEND_PLUGIN_DIR] };
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
  if ((arm === "plugin-path" || arm === "plugin-prepend" || arm === "persisted-prepend") && !pluginManifest()) {
    return { version, arm, status: "plugin not present", reason: "plugin/openclaw.plugin.json not found in this checkout", rows: [], bodies: [] };
  }
  const bootStarted = Date.now();
  const gateway = await startGateway(gatewayOptions(version, arm, options.gateway ?? {}));
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
