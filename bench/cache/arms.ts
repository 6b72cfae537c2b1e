// Runs the cache conversation (turns.json) through real gateways, one arm at a time, and analyses
// the model requests. Shared by `npm run bench -- --only cache` and the e2e suite.
//   2026.3.x  the hook pack's arms: one gateway per arm (hook entries and plugins load at start).
//   2026.9+   the plugin's arms: ONE gateway with the plugin installed (as install-hooks does); each
//             arm is a config of that plugin (plugins.entries.openclaw-context.config and the
//             context-engine slot), a restart, and a fresh main-session thread, so no arm sees
//             another's history. "no-plugin" is OpenClaw without the plugin on a gateway of its own:
//             the reference that shows the hooks-off arm is OpenClaw's default (docs/benchmarks.md).
//             "engine-alone" / "engine-prepend" / "engine-append": another plugin's context engine in the slot
//             (other-engine.ts), installed into the same gateway before it starts; switched off in
//             every other arm.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { HOOK_KEYS, PLUGIN_ID } from "../../src/host/ids.ts";
import { buildPlugin, packPlugin } from "../../src/ops/build-plugin.ts";
import { installPlugin } from "../../src/ops/install.ts";
import { childObject, editOpenClawJson } from "../../src/ops/openclaw-json.ts";
import { pluginServesHost } from "../../src/host/version.ts";
import { REPO_ROOT, deepMerge, operatorEnv, startGateway } from "../../test/e2e/gateway.ts";
import type { Gateway, StartGatewayOptions } from "../../test/e2e/gateway.ts";
import { engineNotServing, otherEngine } from "./other-engine.ts";
import type { OtherEngine } from "./other-engine.ts";
import { analyseConversation, extrapolatedCost, measuredCost, DEFAULT_COST_ASSUMPTIONS } from "./analyse.ts";
import type { ConversationTurn, CostAssumptions, TurnRow } from "./analyse.ts";

export const ARMS = ["hooks-off", "aci-only", "aci-no-index", "hook-path", "plugin-prepend", "plugin-path", "persisted-prepend", "no-plugin", "engine-alone", "engine-prepend", "engine-append"] as const;
export type Arm = (typeof ARMS)[number];

export const ARM_LABELS: Record<Arm, string> = {
  "hooks-off": "hooks off (OpenClaw default)",
  "aci-only": "aci-bootstrap only",
  "aci-no-index": "aci-bootstrap only, without the on-demand index line",
  "hook-path": "hook path (the hook pack, both hooks)",
  "plugin-prepend": "plugin, prependContext (its context engine not selected)",
  "plugin-path": "plugin path (runtime-context carrier through its context engine)",
  "persisted-prepend": "persisted prependContext (2026.3.13 alternative)",
  "no-plugin": "OpenClaw without the plugin (a gateway of its own; reference for hooks off)",
  "engine-alone": "another context engine in the slot, the plugin off",
  "engine-prepend": "another context engine in the slot + the plugin: memory as prependContext (what ships)",
  "engine-append": "another context engine in the slot + the plugin: memory as appendSystemContext (the alternative)",
};

export const MAIN_SESSION = "agent:main:main";
/** Bench-only plugin: the plugin's memory block as prependContext, forced on 2026.3.13. */
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
  status: "ok" | "failed";
  reason?: string;
  rows: TurnRow[];
  /** Modeled input cost in base-price tokens over the measured turns / extrapolated. */
  cost?: { measured: number; extrapolated: number };
  /** Model requests as sent (for the breakpoint report and debugging). */
  bodies: Record<string, unknown>[];
  /** Boot (or, on the plugin's gateway, restart) and conversation times. */
  bootSeconds?: number;
  turnSeconds?: number;
};

/** Who holds plugins.slots.contextEngine in an arm: OpenClaw's own engine, the plugin's, or another plugin's (other-engine.ts). */
type SlotHolder = "legacy" | "plugin" | "other-engine";

/** The plugin's arms: its config and who holds the context-engine slot. */
export const PLUGIN_ARM_SETTINGS: Partial<Record<Arm, { config: Record<string, unknown>; slot: SlotHolder; env?: NodeJS.ProcessEnv }>> = {
  "hooks-off": { config: { enabled: false }, slot: "legacy" },
  "aci-only": { config: { memory: false }, slot: "legacy" },
  // What the on-demand index line costs (issue 28): the same arm with the line switched off.
  "aci-no-index": { config: { memory: false, aciBootstrap: { onDemandIndex: false } }, slot: "legacy" },
  "plugin-prepend": { config: {}, slot: "legacy" },
  "plugin-path": { config: {}, slot: "plugin" },
  // The other engine as its operator runs it, the plugin registering nothing (as in hooks-off).
  "engine-alone": { config: { enabled: false }, slot: "other-engine" },
  // What ships next to another engine: the plugin stands aside, memory as prependContext (src/context/delivery.ts).
  "engine-prepend": { config: {}, slot: "other-engine" },
  // The other supported channel next to another engine, for comparison (src/context/delivery.ts: set for this arm's gateway run only).
  "engine-append": { config: {}, slot: "other-engine", env: { OPENCLAW_CONTEXT_OTHER_ENGINE_DELIVERY: "append-system-context" } },
};

/** Arms that need the other engine installed in the gateway. */
export const needsOtherEngine = (arm: Arm) => PLUGIN_ARM_SETTINGS[arm]?.slot === "other-engine";

/**
 * What an arm writes into openclaw.json: the slot, the plugin's config, and the other engine's
 * entry (enabled only in its own arms, so the other arms are unchanged by its presence).
 */
export function armPluginsConfig(arm: Arm, engine: OtherEngine | undefined): { slot: string; entries: Record<string, Record<string, unknown>> } {
  const settings = PLUGIN_ARM_SETTINGS[arm];
  if (!settings) throw new Error(`${arm} is not an arm of the plugin`);
  if (settings.slot === "other-engine" && !engine) throw new Error(`${arm}: no other context engine given`);
  const slot = settings.slot === "plugin" ? PLUGIN_ID : settings.slot === "other-engine" ? engine!.engineId : "legacy";
  // The longest wait the plugin allows for a turn's memory: a loaded machine never decides the figures.
  const entries: Record<string, Record<string, unknown>> = { [PLUGIN_ID]: { config: { waitMs: 10_000, ...settings.config } } };
  // Conversation access as lossless-claw's setup gives it (its hooks read the conversation).
  if (engine) entries[engine.pluginId] = { enabled: settings.slot === "other-engine", hooks: { allowConversationAccess: true } };
  return { slot, entries };
}

/** Hosts whose arms are configs of the one installed plugin. */
export const pluginArmsHost = (version: string) => pluginServesHost(version);

/** A gateway of its own for one arm: the hook pack's arms (2026.3.x) and "no-plugin". */
function ownGatewayOptions(version: string, arm: Arm, extra: Partial<StartGatewayOptions>): StartGatewayOptions {
  const hooks = (aci: boolean, ethos: boolean) => ({ [HOOK_KEYS.aciBootstrap]: { enabled: aci }, [HOOK_KEYS.ethosContext]: { enabled: ethos } });
  const base: StartGatewayOptions = { version, installProbe: false, ...extra };
  switch (arm) {
    case "hooks-off":
    case "no-plugin":
      // OpenClaw as shipped: nothing of ours installed at all.
      return { ...base, installPack: false };
    case "aci-only":
      return { ...base, hooks: hooks(true, false) };
    case "hook-path":
      return { ...base, hooks: hooks(true, true) };
    case "persisted-prepend":
      // The bench plugin delivers the memory (prependContext); the hook's record would double it.
      return { ...base, hooks: hooks(true, false), extraPlugins: [PREPEND_PLUGIN_DIR] };
    default:
      throw new Error(`${arm}: a config of the plugin, not an arm with a gateway of its own (${version})`);
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
 * The conversation on one session key: every turn with `chat.send`, one model request per turn
 * (each turn waits for its own request; the session lane serialises the runs).
 */
async function runConversation(gateway: Gateway, sessionKey: string, turns: readonly ConversationTurn[]): Promise<Record<string, unknown>[]> {
  const bodies: Record<string, unknown>[] = [];
  for (const [index, turn] of turns.entries()) {
    const before = gateway.model.requests.length;
    // chatSend takes the request sent after the call (an earlier arm on the same gateway sent the same words).
    const result = await gateway.chatSend(sessionKey, turn.text, TURN_TIMEOUT_MS);
    await waitForRun(gateway, result.cliJson, index + 1);
    const extra = gateway.model.requests.length - before;
    if (extra !== 1) throw new Error(`turn ${index + 1}: expected one model request, saw ${extra}`);
    bodies.push(result.request.body);
  }
  return bodies;
}

type RunOptions = {
  version: string;
  turns?: ConversationTurn[];
  assumptions?: CostAssumptions;
  gateway?: Partial<StartGatewayOptions>;
  log?: (line: string) => void;
};

function armResult(options: RunOptions & { arm: Arm }, turns: ConversationTurn[], bodies: Record<string, unknown>[], bootSeconds: number, turnSeconds: number): ArmResult {
  const rows = analyseConversation(turns, bodies);
  const assumptions = options.assumptions ?? DEFAULT_COST_ASSUMPTIONS;
  options.log?.(`cache: ${options.version} ${options.arm}: start ${bootSeconds.toFixed(0)} s, ${turns.length} turns ${turnSeconds.toFixed(0)} s`);
  return { version: options.version, arm: options.arm, status: "ok", rows, bodies, cost: { measured: measuredCost(rows), extrapolated: extrapolatedCost(rows, assumptions) }, bootSeconds, turnSeconds };
}

/** One arm on a gateway of its own (2026.3.x arms, and "no-plugin"): boot, the conversation in the main session, stop. */
export async function runArm(options: RunOptions & { arm: Arm }): Promise<ArmResult> {
  const { version, arm } = options;
  const turns = options.turns ?? loadConversation();
  const bootStarted = Date.now();
  const gateway = await startGateway(ownGatewayOptions(version, arm, options.gateway ?? {}));
  const bootSeconds = (Date.now() - bootStarted) / 1000;
  try {
    const turnsStarted = Date.now();
    const bodies = await runConversation(gateway, MAIN_SESSION, turns);
    return armResult(options, turns, bodies, bootSeconds, (Date.now() - turnsStarted) / 1000);
  } catch (error) {
    throw new Error(`${version} ${arm}: ${(error as Error).message}\ngateway log tail:\n${gateway.logs().slice(-2000)}`);
  } finally {
    await gateway.stop();
  }
}

/** Where an arm's conversation runs on the plugin's gateway: a main-session thread of its own. */
export const armSessionKey = (arm: Arm) => `${MAIN_SESSION}:thread:cache-${arm}`;

/**
 * The plugin's arms (2026.9+) on ONE gateway: build and pack the plugin, install it with
 * install-hooks' own code, then per arm write its settings, restart, and run the conversation in
 * a thread of its own. An arm that fails is reported as failed and the next one still runs.
 */
export async function runPluginArms(options: RunOptions & { arms: readonly Arm[]; onArm?: (result: ArmResult) => void; engine?: OtherEngine }): Promise<ArmResult[]> {
  const { version } = options;
  const turns = options.turns ?? loadConversation();
  for (const arm of options.arms) if (!PLUGIN_ARM_SETTINGS[arm]) throw new Error(`${arm} is not an arm of the plugin (arms: ${Object.keys(PLUGIN_ARM_SETTINGS).join(", ")})`);
  const engine = options.arms.some(needsOtherEngine) ? (options.engine ?? otherEngine()) : undefined;
  const buildDir = fs.mkdtempSync(path.join(os.tmpdir(), "openclaw-context-cache-plugin-"));
  const extra = options.gateway ?? {};
  // Reload mode off: each arm's settings take effect at the restart it waits for, never in a hot reload racing it.
  // The other engine is installed before the start (plugins load at start), like any plugin of the operator's.
  const gateway = await startGateway({
    version,
    installPack: false,
    installProbe: false,
    ...extra,
    extraPlugins: [...(extra.extraPlugins ?? []), ...(engine ? [engine.source] : [])],
    config: deepMerge({ gateway: { reload: { mode: "off" } } }, extra.config ?? {}),
  });
  try {
    const tarball = await packPlugin(await buildPlugin(path.join(buildDir, "plugin")));
    const env = operatorEnv(gateway);
    await installPlugin({ bundleRoot: REPO_ROOT, workspace: gateway.workspaceDir, configPath: gateway.configPath, mode: "pack", cli: env.OPENCLAW_CLI, env, log: () => {} }, tarball);
    const results: ArmResult[] = [];
    for (const arm of options.arms) {
      const { slot, entries } = armPluginsConfig(arm, engine);
      let result: ArmResult;
      try {
        await editOpenClawJson(gateway.configPath, (config) => {
          const plugins = childObject(config, "plugins");
          for (const [id, entry] of Object.entries(entries)) Object.assign(childObject(childObject(plugins, "entries"), id), entry);
          childObject(plugins, "slots").contextEngine = slot;
          return true;
        });
        const logStart = gateway.logs().length;
        const restartStarted = Date.now();
        await gateway.restart(undefined, { env: PLUGIN_ARM_SETTINGS[arm]!.env ?? {} });
        const turnsStarted = Date.now();
        const bodies = await runConversation(gateway, armSessionKey(arm), turns);
        // An engine arm counts only when the engine served its turns (no fallback to legacy).
        const notServing = needsOtherEngine(arm) ? engineNotServing(engine!, gateway.logs().slice(logStart), turns.length) : undefined;
        if (notServing) throw new Error(notServing);
        result = armResult({ ...options, arm }, turns, bodies, (turnsStarted - restartStarted) / 1000, (Date.now() - turnsStarted) / 1000);
      } catch (error) {
        result = { version, arm, status: "failed", reason: `${(error as Error).message}\ngateway log tail:\n${gateway.logs().slice(-2000)}`, rows: [], bodies: [] };
      }
      results.push(result);
      options.onArm?.(result);
    }
    return results;
  } finally {
    await gateway.stop();
    fs.rmSync(buildDir, { recursive: true, force: true });
  }
}
