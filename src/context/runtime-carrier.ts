import { isObject } from "../host/events.ts";
import type { OpenClawConfig } from "../host/events.ts";

// Memory as OpenClaw's own runtime-context carrier (2026.9+), through a pass-through context engine.
//
// Why: with Anthropic's explicit cache breakpoints OpenClaw puts the message breakpoint on the
// deepest user message that is not a runtime-context carrier. A `prependContext` block rides on this
// turn's user message, which the next request replays without it, so the cache entry written there
// is never read. A `custom` message with `customType: "openclaw.runtime-context"` and
// `details.runtimeContextCarrier: true`, returned by a context engine's `assemble()`, is treated
// exactly like OpenClaw's own carrier: moved after the user message, opted out of the breakpoint,
// dropped from the next request, never written to the transcript (HOOK_ASSUMPTIONS.md, "Runtime
// context carrier").
//
// The engine takes nothing away from the host: `assemble()` returns the host's messages unchanged
// plus at most one carrier; transcript writes, `commitTurn` (acknowledged, nothing stored) and
// compaction (handed back through the host's own delegate) stay OpenClaw's. With a non-default
// engine OpenClaw leaves out its memory prompt section; the engine hands it back through
// `systemPromptAddition`, built by the host's own helper.

export const RUNTIME_CONTEXT_CUSTOM_TYPE = "openclaw.runtime-context";

export type MemoryDelivery = "runtime-carrier" | "prepend-context";

/** Loosely typed host message: the engine passes the host's own objects through untouched. */
export type HostMessage = Record<string, unknown>;

export type CarrierMessage = {
  role: "custom";
  customType: typeof RUNTIME_CONTEXT_CUSTOM_TYPE;
  content: string;
  display: false;
  details: { source: "openclaw-context"; runtimeContextCarrier: true };
  timestamp: number;
};

/**
 * The block as a runtime-context carrier. The content is the block itself: OpenClaw escapes
 * `<<<BEGIN/END_OPENCLAW_INTERNAL_CONTEXT>>>` in a plugin's carrier anyway (observed), so the
 * delimiters would reach the model as escaped noise.
 */
export function carrierMessage(block: string, timestamp: number): CarrierMessage {
  return {
    role: "custom",
    customType: RUNTIME_CONTEXT_CUSTOM_TYPE,
    content: block,
    display: false,
    details: { source: "openclaw-context", runtimeContextCarrier: true },
    timestamp,
  };
}

function normalizedClaudeId(modelId: string): string {
  const lower = modelId.trim().toLowerCase();
  const bare = (lower.startsWith("anthropic/") ? lower.slice("anthropic/".length) : lower).replace(/[._\s]+/g, "-");
  return /(?:^|[-/])(claude-[^/]+)$/.exec(bare)?.[1] ?? bare;
}

/**
 * Models for which OpenClaw 2026.9.6 keeps runtime context append-only (`bindsClaudeThinkingPrefix`:
 * Claude Opus 5.5 and Fable 5.1): there carriers are not moved after the user message and our
 * carrier, which is never persisted, would vanish from the middle of the next request. prependContext
 * changes nothing before the previous user message, so it is the cheaper delivery for them.
 */
export function keepsCarriersInHistory(modelId: string | undefined): boolean {
  if (!modelId) return false;
  const id = normalizedClaudeId(modelId);
  return id === "opus-5-5" || /^claude-opus-5-5(?=$|[^a-z0-9])/.test(id) || /^claude-fable-5-1(?=$|[^a-z0-9])/.test(id);
}

/** The delivery rule, shared by the engine's assemble() and the plugin's before_prompt_build. */
export function memoryDeliveryFor(input: { engineSelected: boolean; modelId: string | undefined }): MemoryDelivery {
  return input.engineSelected && !keepsCarriersInHistory(input.modelId) ? "runtime-carrier" : "prepend-context";
}

/** `plugins.slots.contextEngine` as configured ("legacy" when unset). */
export function configuredContextEngine(cfg: OpenClawConfig | undefined): string {
  const plugins = isObject(cfg?.plugins) ? cfg.plugins : undefined;
  const slots = isObject(plugins?.slots) ? plugins.slots : undefined;
  const value = slots?.contextEngine;
  return typeof value === "string" && value.trim() ? value.trim() : "legacy";
}

export type EngineSelection =
  | { kind: "ours"; engineId: string }
  | { kind: "not-selected"; engineId: "legacy" }
  | { kind: "other"; engineId: string };

export function engineSelection(cfg: OpenClawConfig | undefined, ourEngineId: string): EngineSelection {
  const engineId = configuredContextEngine(cfg);
  if (engineId === ourEngineId) return { kind: "ours", engineId };
  if (engineId === "legacy") return { kind: "not-selected", engineId: "legacy" };
  return { kind: "other", engineId };
}

/** One line for logs, status and explain: which channel carries the memory block, and why. */
/** How an operator selects the companion's engine (the packaged plugin passes its own remedy). */
export const COMPANION_SELECT_REMEDY = "run npm run install-hooks to select it";

export function describeDelivery(selection: EngineSelection, ourEngineId: string, selectRemedy: string = COMPANION_SELECT_REMEDY): string {
  switch (selection.kind) {
    case "ours":
      return `runtime-context carrier through context engine ${ourEngineId} (prependContext for Claude Opus 5.5 / Fable 5.1)`;
    case "not-selected":
      return `prependContext (plugins.slots.contextEngine is not ${ourEngineId}; ${selectRemedy})`;
    case "other":
      return `prependContext (context engine ${selection.engineId} is configured; only one engine can be active, so the plugin stands aside)`;
  }
}

// ---------------------------------------------------------------------------------------------
// The engine

export type CarrierBlockInput = { sessionKey: string; sessionId: string; prompt: string; workspaceDir: string; turnKey: string };

export type EngineLog = { debug(fields: object, message: string): void; info(fields: object, message: string): void; warn(fields: object, message: string): void };

export type RuntimeCarrierEngineDeps = {
  engineId: string;
  version?: string;
  workspaceDir?: string;
  /** This turn's memory block, or undefined (out of scope, skipped, timeout). Never throws. */
  memoryBlock(input: CarrierBlockInput): Promise<string | undefined>;
  /** The host's `delegateCompactionToRuntime` (OpenClaw's own compaction). */
  delegateCompaction(params: Record<string, unknown>): Promise<unknown>;
  /** The host's `buildMemorySystemPromptAddition` (the memory section OpenClaw leaves out for non-default engines). */
  memoryPromptAddition?(params: Record<string, unknown>): string | undefined;
  /**
   * Static per-session text for the system prompt (SOUL.md for a subagent, HEARTBEAT.md for a cron
   * run), when the engine is the one that delivers it (the packaged plugin). Never throws.
   */
  staticPromptAddition?(input: { sessionKey: string; workspaceDir: string }): Promise<string | undefined>;
  log: EngineLog;
  now?: () => number;
};

type AssembleParams = {
  sessionId?: unknown;
  sessionKey?: unknown;
  messages?: unknown;
  prompt?: unknown;
  model?: unknown;
  availableTools?: unknown;
  citationsMode?: unknown;
  runtimeContext?: unknown;
};

const text = (value: unknown): string | undefined => (typeof value === "string" && value.length > 0 ? value : undefined);

/**
 * Whether OpenClaw would have built its memory prompt section for this run: 2026.9.6 builds the
 * prompt in "minimal" mode (no memory section) for subagent and cron session keys.
 */
export function hostBuildsMemorySection(sessionKey: string | undefined): boolean {
  if (!sessionKey) return true;
  const parts = sessionKey.toLowerCase().split(":");
  return !parts.includes("subagent") && !parts.includes("cron");
}

/** Recently acknowledged commitTurn keys, so a host retry is answered "duplicate". */
const COMMIT_KEYS_KEPT = 512;

export function createRuntimeCarrierEngine(deps: RuntimeCarrierEngineDeps) {
  const now = deps.now ?? Date.now;
  const committed = new Set<string>();
  // The tool loop assembles again within one turn (same history length, maybe no prompt): same carrier.
  const current = new Map<string, { turnKey: string; block: string | undefined }>();

  async function carrierFor(params: AssembleParams, messages: HostMessage[]): Promise<string | undefined> {
    const sessionKey = text(params.sessionKey);
    const sessionId = text(params.sessionId) ?? "";
    const workspaceDir = deps.workspaceDir ?? (isObject(params.runtimeContext) ? text(params.runtimeContext.workspaceDir) : undefined);
    if (!sessionKey || !workspaceDir) return undefined;
    if (memoryDeliveryFor({ engineSelected: true, modelId: text(params.model) }) !== "runtime-carrier") return undefined;
    const prompt = text(params.prompt);
    const turnKey = `${sessionKey}|${sessionId}|${messages.length}`;
    const known = current.get(sessionKey);
    if (known?.turnKey === turnKey) return known.block;
    if (!prompt) return undefined;
    const block = await deps.memoryBlock({ sessionKey, sessionId, prompt, workspaceDir, turnKey: `${turnKey}|${prompt}` });
    current.set(sessionKey, { turnKey, block });
    return block;
  }

  return {
    info: {
      id: deps.engineId,
      name: "openclaw-context runtime-context carrier",
      ...(deps.version ? { version: deps.version } : {}),
      // History, transcript and compaction stay OpenClaw's.
      ownsCompaction: false,
      // 2026.9.6 runs a configured engine for a user turn only with both declared (else: legacy for the turn).
      transcriptSemantics: { currentTurnFence: "before-current-turn-entry-v1", turnAdvancementIdempotency: "atomic-idempotent-v1" },
    },
    async ingest(): Promise<{ ingested: boolean }> {
      return { ingested: false };
    },
    async assemble(params: AssembleParams) {
      const messages = Array.isArray(params.messages) ? (params.messages as HostMessage[]) : [];
      const result: { messages: HostMessage[]; estimatedTokens: number; systemPromptAddition?: string } = { messages, estimatedTokens: 0 };
      try {
        const addition = hostBuildsMemorySection(text(params.sessionKey)) && deps.memoryPromptAddition?.({
          availableTools: params.availableTools instanceof Set ? params.availableTools : new Set<string>(),
          citationsMode: params.citationsMode,
          agentSessionKey: text(params.sessionKey),
        });
        if (addition) result.systemPromptAddition = addition;
      } catch (error) {
        deps.log.warn({ err: error instanceof Error ? error.message : String(error) }, "memory prompt section not rebuilt");
      }
      try {
        const sessionKey = text(params.sessionKey);
        const workspaceDir = deps.workspaceDir ?? (isObject(params.runtimeContext) ? text(params.runtimeContext.workspaceDir) : undefined);
        const fixed = sessionKey && workspaceDir ? await deps.staticPromptAddition?.({ sessionKey, workspaceDir }) : undefined;
        if (fixed) result.systemPromptAddition = result.systemPromptAddition ? `${result.systemPromptAddition}\n\n${fixed}` : fixed;
      } catch (error) {
        deps.log.warn({ err: error instanceof Error ? error.message : String(error) }, "assemble: no static context this turn");
      }
      try {
        const block = await carrierFor(params, messages);
        if (block) result.messages = [...messages, carrierMessage(block, now())];
      } catch (error) {
        deps.log.warn({ err: error instanceof Error ? error.message : String(error) }, "assemble: no carrier this turn");
      }
      return result;
    },
    async compact(params: Record<string, unknown>) {
      deps.log.info({ sessionKey: text(params.sessionKey), force: params.force === true }, "compaction handed to OpenClaw");
      return await deps.delegateCompaction(params);
    },
    async commitTurn(params: { advancementKey?: unknown }): Promise<{ status: "committed" | "duplicate" }> {
      // OpenClaw's transcript is the record; there is nothing of ours to store.
      const key = text(params.advancementKey);
      if (!key) return { status: "committed" };
      if (committed.has(key)) return { status: "duplicate" };
      committed.add(key);
      if (committed.size > COMMIT_KEYS_KEPT) committed.delete(committed.values().next().value as string);
      return { status: "committed" };
    },
  };
}

export type RuntimeCarrierEngine = ReturnType<typeof createRuntimeCarrierEngine>;

/** `plugins.entries.<pluginId>` of openclaw.json, when it is an object. */
export function pluginEntry(cfg: OpenClawConfig | undefined, pluginId: string): Record<string, unknown> | undefined {
  const plugins = isObject(cfg?.plugins) ? cfg.plugins : undefined;
  const entries = isObject(plugins?.entries) ? plugins.entries : undefined;
  return isObject(entries?.[pluginId]) ? entries[pluginId] : undefined;
}

/**
 * Which delivery openclaw.json gives the memory block (for status and explain, read offline): the
 * companion plugin's carrier or prependContext, or the ethos-context hook's record when the plugin
 * is not configured (2026.3.13, or not installed).
 */
export function memoryDeliveryFromConfig(cfg: OpenClawConfig | undefined, pluginId: string): string {
  const entry = pluginEntry(cfg, pluginId);
  if (!entry || entry.enabled === false || (isObject(cfg?.plugins) && cfg.plugins.enabled === false)) return "ethos-context hook: a record in Project Context (the companion plugin is not configured)";
  return `companion plugin: ${describeDelivery(engineSelection(cfg, pluginId), pluginId)}`;
}
