// The plugin's turn adapter (OpenClaw 2026.9+): the context engine's assemble() and the typed hook
// before_prompt_build, each a type guard, the turn's one classification, one call into the core,
// and a catch. Memory goes on the user-message side, outside the cached system prompt: as OpenClaw's
// runtime-context carrier when our context engine is the selected one, else as prependContext
// (src/context/delivery.ts). Subagents get SOUL.md and cron runs HEARTBEAT.md as static system text
// (the engine's systemPromptAddition, else appendSystemContext): the same bytes every run.
import { getLogger } from "../core/log.ts";
import { isObject } from "../host/events.ts";
import type { OpenClawConfig } from "../host/events.ts";
import { hookEnabled } from "../host/hook-config.ts";
import { HOOK_KEYS, PLUGIN_ID } from "../host/ids.ts";
import type { PromptBuildResult } from "../host/plugin-api.ts";
import type { HostSdk } from "../host/sdk.ts";
import { createCarrierEngine } from "../context/carrier-engine.ts";
import type { CarrierEngine } from "../context/carrier-engine.ts";
import { describeDelivery, engineSelection, memoryDeliveryFor } from "../context/delivery.ts";
import type { EngineSelection } from "../context/delivery.ts";
import { estimateMessagesTokens, hostWindow } from "../context/host-window.ts";
import type { HostWindow } from "../context/host-window.ts";
import { messageText } from "../context/message-text.ts";
import { modelContextWindow } from "../host/model-window.ts";
import type { PluginConfig } from "../context/plugin-config.ts";
import { staticContextFor } from "../context/static-context.ts";
import type { ContextService } from "../context/turn-service.ts";
import type { Sender } from "../session/owners.ts";

const log = () => getLogger(PLUGIN_ID);

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/** The sender before_prompt_build names (PluginHookAgentContext.senderId on ctx.channel), if any. */
function senderOfPromptBuild(ctx: Record<string, unknown>): Sender | undefined {
  const id = text(ctx.senderId);
  if (!id) return undefined;
  const channel = text(ctx.channel) ?? text(ctx.messageProvider);
  return channel ? { channel: channel.toLowerCase(), id } : { id };
}

export type PluginTurnsInput = {
  context: ContextService;
  config: PluginConfig;
  /** openclaw.json as the core sees it (the plugin's view: its settings in the hooks' entries). */
  cfg: () => OpenClawConfig;
};

export function createPluginTurns(input: PluginTurnsInput) {
  const { context, config, cfg } = input;
  const memory = context.memory;
  /** Read once at start, like the host reads its slot: the engine serves only while it is the selected one. */
  let selection: EngineSelection = engineSelection(cfg(), PLUGIN_ID);
  const memoryOn = () => hookEnabled(cfg(), HOOK_KEYS.ethosContext);
  const staticOn = () => hookEnabled(cfg(), HOOK_KEYS.aciBootstrap);

  /** This turn's block for the engine's carrier (no trigger and no sender there: the key, the skip rules and the ledger decide). */
  async function carrierBlock(turn: { sessionKey: string; prompt: string; workspaceDir: string; turnKey: string; window?: HostWindow }): Promise<string | undefined> {
    if (!memoryOn()) return undefined;
    const { classification } = context.turns.turn(turn.sessionKey, cfg());
    const { sessionKey, prompt, workspaceDir, turnKey, window } = turn;
    const result = await memory.buildTurnContext({ sessionKey, cfg: cfg(), text: prompt, workspaceDir, turnKey, waitMs: config.waitMs, window, classification, delivery: "runtime-carrier" });
    return result.block;
  }

  /** SOUL.md / HEARTBEAT.md for the engine: sessions recognised by their key (assemble() has no trigger). */
  async function engineStaticContext(turn: { sessionKey: string; workspaceDir: string }): Promise<string | undefined> {
    if (!staticOn()) return undefined;
    const { classification } = context.turns.turn(turn.sessionKey, cfg());
    return (await staticContextFor({ classification, trigger: "user", workspaceDir: turn.workspaceDir, config, log: log() })).appendSystemContext;
  }

  return {
    /** One line: which channel carries the memory block (logged at start; status, explain and doctor say the same). */
    get deliveryLine(): string {
      return describeDelivery(selection);
    },
    /** The engine could not be built: OpenClaw runs its legacy engine, so memory goes back to prependContext. */
    engineUnavailable(reason: string): void {
      if (selection.kind !== "ours") return;
      selection = { kind: "not-selected", engineId: "legacy" };
      log().warn({ reason }, "context engine unavailable: memory delivered as prependContext");
    },
    /** The context engine to register, when the operator selected ours (`plugins.slots.contextEngine`). */
    contextEngine(sdk: HostSdk, workspaceDir?: string): CarrierEngine | undefined {
      if (selection.kind !== "ours") return undefined;
      return createCarrierEngine({
        engineId: PLUGIN_ID,
        workspaceDir,
        memoryBlock: carrierBlock,
        delegateCompaction: (params) => sdk.delegateCompactionToRuntime(params),
        memoryPromptAddition: sdk.buildMemorySystemPromptAddition ? (params) => sdk.buildMemorySystemPromptAddition?.(params) : undefined,
        staticPromptAddition: engineStaticContext,
        log: log(),
      });
    },
    async beforePromptBuild(event: unknown, ctx: unknown): Promise<PromptBuildResult | undefined> {
      try {
        if (!isObject(event) || !isObject(ctx)) return undefined;
        const sessionKey = text(ctx.sessionKey);
        const workspaceDir = text(ctx.workspaceDir);
        if (!sessionKey || !workspaceDir) {
          log().debug({ hasSessionKey: Boolean(sessionKey), hasWorkspace: Boolean(workspaceDir) }, "no session key or workspace: nothing to add");
          return undefined;
        }
        const trigger = text(ctx.trigger) ?? "user";
        const { classification } = context.turns.turn(sessionKey, cfg(), senderOfPromptBuild(ctx));
        const result: PromptBuildResult = {};
        const fixed = staticOn() ? await staticContextFor({ classification, trigger, workspaceDir, config, log: log() }) : {};
        // The engine carries SOUL.md / HEARTBEAT.md when it is ours; otherwise appendSystemContext does.
        if (fixed.appendSystemContext && selection.kind !== "ours") result.appendSystemContext = fixed.appendSystemContext;
        const prepend: string[] = [];
        if (fixed.prependContext) prepend.push(fixed.prependContext);

        const delivery = memoryDeliveryFor({ engineSelected: selection.kind === "ours", modelId: text(ctx.modelId), otherEngine: selection.kind === "other" });
        if (!memoryOn() || delivery === "runtime-carrier") {
          // Off, or the context engine's assemble() already added this turn's carrier (it runs first).
        } else if (trigger === "user") {
          // 2026.9: `prompt` is the bare user text; currentUserMessage when the host gives it.
          const message = event.currentUserMessage ?? event.prompt;
          const turnKey = text(ctx.runId) ?? text(event.currentUserMessageId) ?? `${sessionKey}|${messageText(message)}`;
          // No budget reaches this hook (2026.9.6): the model's window from openclaw.json, less the history.
          const modelWindow = modelContextWindow(cfg(), { agentId: classification.agentId, provider: text(ctx.modelProviderId), modelId: text(ctx.modelId) });
          const window = hostWindow(modelWindow, estimateMessagesTokens(event.messages), "model-config");
          const turn = await memory.buildTurnContext({ sessionKey, cfg: cfg(), text: messageText(message), workspaceDir, turnKey, waitMs: config.waitMs, window, classification, delivery });
          if (turn.block && delivery === "append-system-context") result.appendSystemContext = [result.appendSystemContext, turn.block].filter(Boolean).join("\n\n");
          else if (turn.block) prepend.push(turn.block);
        } else {
          log().debug({ trigger, sessionType: classification.type }, "not a user turn: no memory");
        }
        if (prepend.length) result.prependContext = prepend.join("\n\n");
        return result.prependContext || result.appendSystemContext ? result : undefined;
      } catch (error) {
        log().warn({ err: error instanceof Error ? error.message : String(error) }, "before_prompt_build failed; turn continues without it");
        return undefined;
      }
    },
  };
}

export type PluginTurns = ReturnType<typeof createPluginTurns>;
