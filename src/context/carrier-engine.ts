import { isObject } from "../host/events.ts";
import { memoryDeliveryFor } from "./delivery.ts";
import { estimateMessagesTokens, hostWindow } from "./host-window.ts";
import type { HostWindow } from "./host-window.ts";

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

type CarrierBlockInput = {
  sessionKey: string;
  sessionId: string;
  prompt: string;
  workspaceDir: string;
  turnKey: string;
  /** The host's budget for this turn's messages (`tokenBudget`) and the history it hands over, when given. */
  window?: HostWindow;
};

type EngineLog = { debug(fields: object, message: string): void; info(fields: object, message: string): void; warn(fields: object, message: string): void };

export type CarrierEngineDeps = {
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
  /** 2026.9.6: the turn's budget for the messages (window less output reserve, system prompt, prompt); 2026.3.13: the window. */
  tokenBudget?: unknown;
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

export function createCarrierEngine(deps: CarrierEngineDeps) {
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
    // The history is what already fills the host's budget; the block may use what is left.
    const window = hostWindow(params.tokenBudget, estimateMessagesTokens(messages), "host-budget");
    const block = await deps.memoryBlock({ sessionKey, sessionId, prompt, workspaceDir, turnKey: `${turnKey}|${prompt}`, ...(window ? { window } : {}) });
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

export type CarrierEngine = ReturnType<typeof createCarrierEngine>;

