// The companion plugin's adapter (OpenClaw 2026.9+): type guard, config, one call into src/, catch
// everything. before_prompt_build gets the user's message directly, so there is no capture and no
// pending map here: the memory block comes from the same service as the hook's record
// (createMemoryContextService → buildTurnContext) and goes on the user-message side as
// prependContext, outside the cached system prompt. Subagents get SOUL.md and cron runs get
// HEARTBEAT.md as appendSystemContext: the same text on every run of a workspace, so cacheable.
import { logToGatewayFile } from "../src/core/log.ts";
import { HOOK_KEYS } from "../src/host/ids.ts";
import { isObject } from "../src/host/events.ts";
import type { OpenClawConfig } from "../src/host/events.ts";
import { createMemoryContextService } from "../src/context/service.ts";
import type { Log, MemoryContextService } from "../src/context/service.ts";
import { classifyForRetrieval } from "../src/context/scope.ts";
import { messageText } from "../src/context/message-text.ts";
import { PLUGIN_ID, parsePluginConfig, staticContextFor } from "../src/context/plugin-turn.ts";
import type { PluginConfig } from "../src/context/plugin-turn.ts";
import { createRuntimeCarrierEngine, describeDelivery, engineSelection, memoryDeliveryFor } from "../src/context/runtime-carrier.ts";
import type { EngineSelection, RuntimeCarrierEngine } from "../src/context/runtime-carrier.ts";

export type HostLogger = { debug?: (message: string) => void; info: (message: string) => void; warn: (message: string) => void; error: (message: string) => void };

export type PluginApiLike = { id?: string; config?: OpenClawConfig; pluginConfig?: unknown; logger?: HostLogger };

export type PromptBuildResult = { prependContext?: string; appendSystemContext?: string };

/** The companion's wording; the packaged plugin passes its own id and remedy (src/plugin-package/index.ts). */
export const COMPANION_LOG_PREFIX = "[openclaw-context-companion]";

function hostLog(logger: HostLogger | undefined, prefix: string): Log {
  const write = (level: "debug" | "info" | "warn" | "error") => (fields: object, message: string) => {
    const line = `${prefix} ${message} ${JSON.stringify(fields)}`;
    const target = logger?.[level];
    if (typeof target === "function") target.call(logger, line);
    else if (level !== "debug") console.error(line);
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

/**
 * The hooks' own switches stay the operator's switches: with ethos-context disabled the plugin
 * delivers no memory, with aci-bootstrap disabled (rollback to OpenClaw's bulk set) no static files.
 */
function hookSwitchedOff(cfg: OpenClawConfig | undefined, hookKey: string): boolean {
  const hooks = isObject(cfg?.hooks) ? cfg.hooks : undefined;
  const internal = isObject(hooks?.internal) ? hooks.internal : undefined;
  const entries = isObject(internal?.entries) ? internal.entries : undefined;
  const entry = isObject(entries?.[hookKey]) ? (entries[hookKey] as Record<string, unknown>) : undefined;
  return internal?.enabled === false || entry?.enabled === false;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/**
 * Inside the gateway only (index.js): our own records (config errors, index, retrieval) also go to
 * the hooks' log file that `npm run status` reads. The plugin loader may evaluate its own copy of
 * src/, so the hooks' call does not cover it.
 */
export function startInGateway(): void {
  logToGatewayFile();
}

/** What the host's plugin SDK gives the engine (index.js imports it from the running OpenClaw). */
export type HostSdk = {
  delegateCompactionToRuntime(params: Record<string, unknown>): Promise<unknown>;
  buildMemorySystemPromptAddition?(params: Record<string, unknown>): string | undefined;
};

export type PluginAdapterInput = {
  api: PluginApiLike;
  hostVersion?: string;
  service?: MemoryContextService;
  /** Prefix of the adapter's log lines (default the companion's). */
  logPrefix?: string;
  /** What the delivery line tells the operator to do when the engine is not selected (default: run npm run install-hooks). */
  selectRemedy?: string;
  /**
   * SOUL.md for subagents and HEARTBEAT.md for cron runs through the selected engine's
   * systemPromptAddition instead of before_prompt_build's appendSystemContext. The packaged plugin
   * sets it: on 2026.9.6 its before_prompt_build handler is registered but never run (docs/plugin-package.md).
   */
  staticContextInEngine?: boolean;
};

export function createPluginAdapter(input: PluginAdapterInput) {
  const log = hostLog(input.api.logger, input.logPrefix ?? COMPANION_LOG_PREFIX);
  const config: PluginConfig = parsePluginConfig(input.api.pluginConfig, log);
  const service = input.service ?? createMemoryContextService({ log: () => log });
  const cfg = () => input.api.config;
  const engineId = input.api.id ?? PLUGIN_ID;
  /** Read once at start, like the host reads its slot: the engine serves only while it is the selected one. */
  let selection: EngineSelection = engineSelection(cfg(), engineId);
  const memoryOn = () => config.memory && !hookSwitchedOff(cfg(), HOOK_KEYS.ethosContext);

  /** This turn's block for the engine's carrier (no trigger there: the session key and skip rules decide). */
  async function carrierBlock(turn: { sessionKey: string; prompt: string; workspaceDir: string; turnKey: string }): Promise<string | undefined> {
    if (!memoryOn()) return undefined;
    const classification = classifyForRetrieval(turn.sessionKey, cfg(), service.configFrom(cfg()));
    const result = await service.buildTurnContext({ sessionKey: turn.sessionKey, cfg: cfg(), text: turn.prompt, workspaceDir: turn.workspaceDir, turnKey: turn.turnKey, waitMs: config.waitMs, classification });
    if (!result.block) log.info({ sessionType: result.sessionType, status: result.status, reason: result.reason, delivery: "runtime-carrier" }, "no memory for this turn");
    return result.block;
  }

  /** SOUL.md / HEARTBEAT.md for the engine: sessions recognised by their key (assemble() has no trigger). */
  async function engineStaticContext(turn: { sessionKey: string; workspaceDir: string }): Promise<string | undefined> {
    if (hookSwitchedOff(cfg(), HOOK_KEYS.aciBootstrap)) return undefined;
    const classification = classifyForRetrieval(turn.sessionKey, cfg(), service.configFrom(cfg()));
    const fixed = await staticContextFor({ classification, trigger: "user", workspaceDir: turn.workspaceDir, config, log });
    return fixed.appendSystemContext;
  }
  /** Whether the engine already carries this turn's appendSystemContext part. */
  const engineCarriesStatic = () => Boolean(input.staticContextInEngine) && selection.kind === "ours";

  return {
    config,
    service,
    /** One line: which channel carries the memory block (logged at start; status and explain say the same). */
    get deliveryLine(): string {
      return describeDelivery(selection, engineId, input.selectRemedy);
    },
    /** The engine could not be built: OpenClaw runs its legacy engine, so memory goes back to prependContext. */
    engineUnavailable(reason: string): void {
      if (selection.kind !== "ours") return;
      selection = { kind: "not-selected", engineId: "legacy" };
      log.warn({ reason }, "context engine unavailable: memory delivered as prependContext");
    },
    /** The context engine to register, when the operator selected ours (`plugins.slots.contextEngine`). */
    contextEngine(sdk: HostSdk, workspaceDir?: string): RuntimeCarrierEngine | undefined {
      if (selection.kind !== "ours") return undefined;
      return createRuntimeCarrierEngine({
        engineId,
        workspaceDir,
        memoryBlock: carrierBlock,
        delegateCompaction: (params) => sdk.delegateCompactionToRuntime(params),
        memoryPromptAddition: sdk.buildMemorySystemPromptAddition ? (params) => sdk.buildMemorySystemPromptAddition?.(params) : undefined,
        staticPromptAddition: input.staticContextInEngine ? engineStaticContext : undefined,
        log,
      });
    },
    async beforePromptBuild(event: unknown, ctx: unknown): Promise<PromptBuildResult | undefined> {
      try {
        if (!isObject(event) || !isObject(ctx)) return undefined;
        const sessionKey = text(ctx.sessionKey);
        const workspaceDir = text(ctx.workspaceDir);
        if (!sessionKey || !workspaceDir) {
          log.debug({ hasSessionKey: Boolean(sessionKey), hasWorkspace: Boolean(workspaceDir) }, "no session key or workspace: nothing to add");
          return undefined;
        }
        const trigger = text(ctx.trigger) ?? "user";
        // One classification for the whole turn, passed down.
        const classification = classifyForRetrieval(sessionKey, cfg(), service.configFrom(cfg()));
        const result: PromptBuildResult = {};
        const fixed = hookSwitchedOff(cfg(), HOOK_KEYS.aciBootstrap) ? {} : await staticContextFor({ classification, trigger, workspaceDir, config, log });
        if (fixed.appendSystemContext && !engineCarriesStatic()) result.appendSystemContext = fixed.appendSystemContext;
        const prepend: string[] = [];
        if (fixed.prependContext) prepend.push(fixed.prependContext);

        const memory = memoryOn();
        const delivery = memoryDeliveryFor({ engineSelected: selection.kind === "ours", modelId: text(ctx.modelId) });
        if (memory && delivery === "runtime-carrier") {
          // The context engine's assemble() already added this turn's carrier (it runs first).
        } else if (memory && trigger === "user") {
          // 2026.9: `prompt` is the bare user text; currentUserMessage when the host gives it.
          const message = event.currentUserMessage ?? event.prompt;
          const turnKey = text(ctx.runId) ?? text(event.currentUserMessageId) ?? `${sessionKey}|${messageText(message)}`;
          const turn = await service.buildTurnContext({ sessionKey, cfg: cfg(), text: messageText(message), workspaceDir, turnKey, waitMs: config.waitMs, classification });
          if (turn.block) prepend.push(turn.block);
          else log.info({ sessionType: turn.sessionType, status: turn.status, reason: turn.reason }, "no memory for this turn");
        } else if (memory) {
          log.debug({ trigger, sessionType: classification.type }, "not a user turn: no memory");
        }
        if (prepend.length) result.prependContext = prepend.join("\n\n");
        return result.prependContext || result.appendSystemContext ? result : undefined;
      } catch (error) {
        log.warn({ err: error instanceof Error ? error.message : String(error) }, "before_prompt_build failed; turn continues without it");
        return undefined;
      }
    },
  };
}
