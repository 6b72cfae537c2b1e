import path from "node:path";
import { getLogger } from "../core/log.ts";
import { CHARS_PER_TOKEN } from "../core/tokens.ts";
import type { SessionType } from "../session/types.ts";
import { HOOK_KEYS, RETRIEVED_MEMORY_RECORD_NAME } from "../core/records.ts";
import { createEthosRetriever, resolveConfidenceGate, resolveEthosEndpoint } from "../ethos/retriever.ts";
import { createEmbeddedRetriever } from "../memory/retriever.ts";
import { sharedMemoryIndex } from "../memory/memory-index.ts";
import type { MemoryIndexOptions } from "../memory/memory-index.ts";
import { folderMemorySources, workspaceMemorySources } from "../memory/sources.ts";
import { expandHome, loadOpenClawConfigFile, openClawStateDir } from "../openclaw/config-file.ts";
import { isBootstrapFileRecord, sessionKeyOf } from "../openclaw/events.ts";
import type { AgentBootstrapEvent, BootstrapFileRecord, MessageReceivedEvent, OpenClawConfig } from "../openclaw/events.ts";
import { resolveHookConfig } from "../openclaw/hook-config.ts";
import { parseEthosContextConfig } from "./config.ts";
import type { EthosContextConfig } from "./config.ts";
import { writeContextFile } from "./context-file.ts";
import type { ContextBlockFormatter } from "./format.ts";
import { budgetLimitsFor } from "./budget.ts";
import { prepareQuery, retrieveCandidates, selectAndFormat } from "./pipeline.ts";
import type { Selection } from "./pipeline.ts";
import { classifyForRetrieval, isSafeGroupMemoryDir, resolveRetrievalScope } from "./scope.ts";
import type { RetrievalScope, RetrievalSource } from "./scope.ts";
import { SessionStates } from "./session-state.ts";
import type { CurrentTurn, PendingTurn, RetrievalOutcome, TurnOutcome } from "./session-state.ts";
import type { Retriever } from "./types.ts";

// Same-turn memory injection on the real gateway:
//   message:received (fire-and-forget, no cfg): capture the query synchronously, start retrieval,
//     park the promise under the session key.
//   agent:bootstrap (awaited): claim that session's pending retrieval, wait at most awaitTimeoutMs,
//     gate + budget + format, inject one inline record, write ETHOS_CONTEXT.md in the background.

// Looked up on each use, so a test (or operator) redirecting log output is honoured.
const log = () => getLogger("ethos-context");

/** A captured message older than this is not matched to a bootstrap any more. */
export const PENDING_MAX_AGE_MS = 10 * 60_000;

export type RetrieverFactory = (input: {
  config: EthosContextConfig;
  source: RetrievalSource;
  workspaceDir: string;
}) => Retriever | undefined;

/**
 * Replaces the whole injected block, e.g. with the context assembler's memory block
 * (src/hygiene/memory-block.ts). Called once per turn after gate, de-duplication and budget, with
 * the default story-007 block in `selection.block`. Its result is used only if it arrives within
 * the turn's wait and fits the budget (`maxChars`); otherwise the default block is injected.
 */
export type BlockComposer = (input: {
  workspaceDir: string;
  sessionType: SessionType;
  selection: Selection;
  /** Token and character ceilings of the block for this session type. */
  maxTokens: number;
  maxChars: number;
  now: Date;
  /** Memory ids already injected earlier in this session: never injected twice. */
  excludeIds: ReadonlySet<string>;
}) => Promise<ComposedBlock | string> | ComposedBlock | string;

/**
 * A composed block and every memory id it carries (for per-session de-duplication); `fileBlock` is
 * its story-007 copy for ETHOS_CONTEXT.md (the injected block itself uses the compact layout).
 */
export type ComposedBlock = { block: string; injectedIds: string[]; fileBlock?: string };

export type EthosContextRuntimeOptions = {
  /** openclaw.json for message:received (which carries no cfg). */
  loadOpenClawConfig?: () => OpenClawConfig | undefined;
  now?: () => number;
  createRetriever?: RetrieverFactory;
  /** Block layout; the context assembler can supply its own. */
  format?: ContextBlockFormatter;
  /** Whole-block replacement (async, may read files); see BlockComposer. */
  composeBlock?: BlockComposer;
};

/** Index options exactly as the hook uses them (benchmarks build their index with these too). */
export function memoryIndexOptions(config: EthosContextConfig): MemoryIndexOptions {
  return {
    cacheDir: config.memory.persistIndex ? config.memory.indexCacheDir : false,
    maxChunkChars: config.memory.maxChunkChars,
    maxFileBytes: config.memory.maxFileBytes,
    maxFiles: config.memory.maxFiles,
    minRefreshIntervalMs: config.memory.minRefreshIntervalMs,
  };
}

/**
 * What a retrieval depends on. A retrieval started on message:received is used at bootstrap only
 * if this key still matches (the workspace may differ from the one guessed from config).
 */
export function retrievalSourceKey(config: EthosContextConfig, source: RetrievalSource, workspaceDir: string | undefined): string | undefined {
  if (source.kind === "group") return workspaceDir ? `group:${source.memoryDir}|ws:${workspaceDir}` : undefined; // safety check needs the workspace
  if (config.backend === "ethos") return "ethos"; // the server does not depend on the workspace
  return workspaceDir ? `ws:${workspaceDir}` : undefined;
}

export const defaultRetrieverFactory: RetrieverFactory = ({ config, source, workspaceDir }) => {
  const indexOptions = memoryIndexOptions(config);
  if (source.kind === "group") {
    if (!isSafeGroupMemoryDir(source.memoryDir, workspaceDir)) {
      log().error({ memoryDir: source.memoryDir }, "group memoryDir overlaps the workspace or its memory/ folder; no retrieval for this group");
      return undefined;
    }
    return createEmbeddedRetriever(sharedMemoryIndex(folderMemorySources(source.memoryDir), indexOptions), "group memory");
  }
  if (config.backend === "ethos") return createEthosRetriever(resolveEthosEndpoint(config), config);
  return createEmbeddedRetriever(sharedMemoryIndex(workspaceMemorySources(workspaceDir, config.memory.extraGlobs), indexOptions));
};

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    timer.unref?.();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
    );
  });
}

/** Replace our record if one is there (same name or same path), else append; never mutates `files`. */
export function upsertMemoryRecord(files: readonly unknown[], record: BootstrapFileRecord, workspaceDir: string): unknown[] {
  const target = path.resolve(workspaceDir, record.path);
  const isOurs = (file: unknown) =>
    isBootstrapFileRecord(file) && (file.name === RETRIEVED_MEMORY_RECORD_NAME || path.resolve(workspaceDir, file.path) === target);
  const index = files.findIndex(isOurs);
  if (index === -1) return [...files, record];
  return files.flatMap((file, i) => (i === index ? [record] : isOurs(file) ? [] : [file]));
}

export class EthosContextRuntime {
  readonly sessions = new SessionStates();
  private options: EthosContextRuntimeOptions;
  /** Workspace of each agent's last turn, for retrievals started on message:received. */
  private readonly workspaceByAgent = new Map<string, string>();
  private lastBootstrapCfg: OpenClawConfig | undefined;
  private configCache: { raw: string; config: EthosContextConfig } | undefined;

  constructor(options: EthosContextRuntimeOptions = {}) {
    this.options = options;
  }

  /**
   * Swap collaborators at load time, e.g. the context assembler's block layout:
   * `ethosContextRuntime.configure({ format: assemblerFormat })` in the handler.
   */
  configure(options: Partial<EthosContextRuntimeOptions>): void {
    this.options = { ...this.options, ...options };
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private configFrom(cfg: OpenClawConfig | undefined): EthosContextConfig {
    const entry = resolveHookConfig(cfg, HOOK_KEYS.ethosContext);
    const raw = JSON.stringify(entry);
    // Parse once per distinct config, so an invalid config logs one error, not one per turn.
    if (this.configCache?.raw !== raw) this.configCache = { raw, config: parseEthosContextConfig(entry).config };
    return this.configCache.config;
  }

  private retrieverFor(config: EthosContextConfig, source: RetrievalSource, workspaceDir: string): Retriever | undefined {
    return (this.options.createRetriever ?? defaultRetrieverFactory)({ config, source, workspaceDir });
  }

  private startRetrieval(query: string, config: EthosContextConfig, scope: RetrievalScope & { allowed: true }, workspaceDir: string): Promise<RetrievalOutcome> {
    const gate = resolveConfidenceGate(config);
    let retriever: Retriever | undefined;
    try {
      retriever = this.retrieverFor(config, scope.source, workspaceDir);
    } catch (error) {
      log().warn({ err: (error as Error).message }, "could not create retriever");
    }
    if (!retriever) return Promise.resolve({ results: [], label: "", gate });
    const label = retriever.label;
    return retrieveCandidates(query, retriever, config)
      .then((results) => ({ results, label, gate }))
      .catch((error: unknown) => {
        log().warn({ err: (error as Error).message }, "memory retrieval failed");
        return { results: [], label, gate };
      });
  }

  /**
   * Best-known workspace for a message:received event (which carries none): the agent's workspace
   * from its last bootstrap, else one stated unambiguously in config. For other message-time work,
   * e.g. the triage scan, which needs a workspace to write its queue.
   */
  workspaceForMessage(event: MessageReceivedEvent): string | undefined {
    const sessionKey = sessionKeyOf(event);
    const cfg = (this.options.loadOpenClawConfig ?? loadOpenClawConfigFile)() ?? this.lastBootstrapCfg;
    const agentId = classifyForRetrieval(sessionKey, cfg, this.configFrom(cfg)).agentId;
    return agentId ? this.workspaceByAgent.get(agentId) ?? configuredWorkspace(cfg, agentId) : undefined;
  }

  /**
   * Workspace for message-time work on the operator's own messages (triage), or undefined when the
   * session is not the operator's (groups, strangers, subagents) or triage is switched off.
   */
  operatorWorkspaceForMessage(event: MessageReceivedEvent): string | undefined {
    const cfg = (this.options.loadOpenClawConfig ?? loadOpenClawConfigFile)() ?? this.lastBootstrapCfg;
    const config = this.configFrom(cfg);
    if (!config.triage) return undefined;
    const type = classifyForRetrieval(sessionKeyOf(event), cfg, config).type;
    return type === "MAIN_SESSION" || type === "PRIVATE_DM" ? this.workspaceForMessage(event) : undefined;
  }

  /**
   * message:received. Synchronous on purpose: the gateway does not await this event, and only the
   * synchronous prefix of a handler is guaranteed to run before the agent run starts.
   */
  onMessageReceived(event: MessageReceivedEvent): void {
    const sessionKey = sessionKeyOf(event);
    if (!sessionKey) return;
    // No cfg on this event: openclaw.json from disk, else the cfg of the last bootstrap.
    const cfg = (this.options.loadOpenClawConfig ?? loadOpenClawConfigFile)() ?? this.lastBootstrapCfg;
    const config = this.configFrom(cfg);
    const classification = classifyForRetrieval(sessionKey, cfg, config);
    const scope = resolveRetrievalScope(classification, config);
    if (!scope.allowed) return;

    const now = this.now();
    const prepared = prepareQuery(event.context.content, config);
    // A slash command (`/context list`, `/status`) is not a turn about anything: leave the
    // session's turn state alone, so `/context` still reports the last turn's memory record.
    if (prepared.skip === "command") return;
    const state = this.sessions.get(sessionKey);
    const previous = state.pending;
    if (!prepared.skip && previous && !previous.skip && previous.query === prepared.query && now - previous.receivedAt < config.debounceMs) {
      log().debug({ sessionType: scope.sessionType }, "repeated message debounced");
      return;
    }
    const messageId = typeof event.context.messageId === "string" && event.context.messageId ? event.context.messageId : undefined;
    const pending: PendingTurn = { turnKey: messageId ?? `t${now}`, query: prepared.query, receivedAt: now };
    if (prepared.skip) pending.skip = prepared.skip;
    state.pending = pending;
    if (prepared.skip) return;

    const workspaceDir = classification.agentId ? this.workspaceByAgent.get(classification.agentId) ?? configuredWorkspace(cfg, classification.agentId) : undefined;
    const sourceKey = retrievalSourceKey(config, scope.source, workspaceDir);
    if (sourceKey) {
      pending.sourceKey = sourceKey;
      pending.retrieval = this.startRetrieval(prepared.query, config, scope, workspaceDir ?? "");
    }
    // Otherwise retrieval starts at bootstrap, when the workspace is known.
  }

  /**
   * agent:bootstrap. Returns the new bootstrapFiles array, or undefined to leave the event as is.
   * Never waits longer than awaitTimeoutMs for retrieval.
   */
  async onAgentBootstrap(event: AgentBootstrapEvent): Promise<unknown[] | undefined> {
    const files = event.context.bootstrapFiles;
    const workspaceDir = event.context.workspaceDir;
    const sessionKey = sessionKeyOf(event);
    if (!Array.isArray(files) || typeof workspaceDir !== "string" || !workspaceDir || !sessionKey) return undefined;
    const cfg = event.context.cfg;
    if (cfg) this.lastBootstrapCfg = cfg;
    const config = this.configFrom(cfg);
    const classification = classifyForRetrieval(sessionKey, cfg, config);
    const scope = resolveRetrievalScope(classification, config);
    if (!scope.allowed) return undefined;

    const state = this.sessions.get(sessionKey);
    const now = this.now();
    let turn: CurrentTurn | undefined;
    // A message whose run never came (handled as a command, dropped) must not feed a later run.
    const pending = state.pending && now - state.pending.receivedAt <= PENDING_MAX_AGE_MS ? state.pending : undefined;
    if (!pending) state.pending = undefined;
    if (pending) {
      // First bootstrap of this turn claims the message synchronously, so a concurrent second
      // bootstrap finds `current` and shares the same outcome instead of starting another.
      state.pending = undefined;
      const agentId = typeof event.context.agentId === "string" ? event.context.agentId : classification.agentId;
      if (agentId) this.workspaceByAgent.set(agentId, workspaceDir);
      turn = { turnKey: pending.turnKey, startedAt: now, workspaceDir, outcome: this.computeOutcome(pending, config, scope, workspaceDir, state.injectedIds) };
      state.current = turn;
    } else if (state.current && now - state.current.startedAt <= config.sameTurnWindowMs) {
      turn = state.current; // same turn again (fallback attempt, second workspace, compaction)
    }
    if (!turn) return undefined; // a run without a user message (heartbeat, `openclaw agent` RPC)

    const outcome = await withTimeout(turn.outcome, config.awaitTimeoutMs + 50);
    if (!outcome || !outcome.block) return undefined;
    const record: BootstrapFileRecord = {
      name: RETRIEVED_MEMORY_RECORD_NAME,
      path: path.join(turn.workspaceDir, RETRIEVED_MEMORY_RECORD_NAME),
      content: outcome.block,
      missing: false,
    };
    return upsertMemoryRecord(files, record, workspaceDir);
  }

  /** The composer's block when it answers in time and within budget, else the default block. */
  private async composeBlock(
    selection: Selection,
    config: EthosContextConfig,
    sessionType: SessionType,
    workspaceDir: string,
    remainingMs: number,
    excludeIds: ReadonlySet<string>,
  ): Promise<ComposedBlock> {
    const fallback: ComposedBlock = { block: selection.block, injectedIds: selection.injected.map((memory) => memory.id), fileBlock: selection.fileBlock };
    const composer = this.options.composeBlock;
    if (!composer || !config.assembleBlock || !selection.block) return fallback;
    const limits = budgetLimitsFor(config, sessionType);
    try {
      const composed = await withTimeout(
        Promise.resolve(
          composer({
            workspaceDir,
            sessionType,
            selection,
            maxTokens: Math.floor(limits.maxTotalChars / CHARS_PER_TOKEN),
            maxChars: limits.maxTotalChars,
            now: new Date(this.now()),
            excludeIds,
          }),
        ),
        remainingMs,
      );
      const result = isString(composed) ? { block: composed, injectedIds: fallback.injectedIds } : composed;
      if (result && isString(result.block) && result.block.length <= limits.maxTotalChars) return result;
      log().warn({ answered: composed !== undefined }, "block composer late or over budget; using the default block");
    } catch (error) {
      log().warn({ err: (error as Error).message }, "block composer failed; using the default block");
    }
    return fallback;
  }

  private async computeOutcome(
    pending: PendingTurn,
    config: EthosContextConfig,
    scope: RetrievalScope & { allowed: true },
    workspaceDir: string,
    injectedIds: Set<string>,
  ): Promise<TurnOutcome> {
    let outcome: TurnOutcome;
    let fileText: string | undefined; // ETHOS_CONTEXT.md keeps story 007's layout
    if (pending.skip) {
      outcome = { block: "", injectedIds: [], reason: `skipped:${pending.skip}` };
    } else {
      // A retrieval started against another source (workspace guessed wrong, config changed) is redone.
      const sameSource = pending.retrieval && pending.sourceKey === retrievalSourceKey(config, scope.source, workspaceDir);
      const retrieval = sameSource && pending.retrieval ? pending.retrieval : this.startRetrieval(pending.query, config, scope, workspaceDir);
      const deadline = this.now() + config.awaitTimeoutMs;
      const retrieved = await withTimeout(retrieval, config.awaitTimeoutMs);
      if (!retrieved) {
        outcome = { block: "", injectedIds: [], reason: "timeout" };
      } else {
        const selection = selectAndFormat(retrieved.results, {
          config,
          sessionType: scope.sessionType,
          sourceLabel: retrieved.label,
          excludeIds: config.dedupeAcrossTurns ? injectedIds : undefined,
          confidenceGate: retrieved.gate,
          now: new Date(this.now()),
          format: this.options.format,
        });
        const composed = await this.composeBlock(selection, config, scope.sessionType, workspaceDir, Math.max(0, deadline - this.now()), injectedIds);
        for (const id of composed.injectedIds) injectedIds.add(id);
        fileText = composed.fileBlock;
        outcome = { block: composed.block, injectedIds: composed.injectedIds, reason: selection.decision.tier };
      }
    }
    log().info(
      { sessionType: scope.sessionType, reason: outcome.reason, injected: outcome.injectedIds.length, chars: outcome.block.length },
      "memory context for this turn",
    );
    if (config.writeContextFile) void writeContextFile(workspaceDir, fileText ?? outcome.block);
    return outcome;
  }
}

function isString(value: unknown): value is string {
  return typeof value === "string";
}

function expandUserPath(p: string, env: NodeJS.ProcessEnv): string {
  return path.resolve(expandHome(p.trim(), env));
}

/**
 * An agent's workspace when config states it unambiguously (core's resolveAgentWorkspaceDir):
 *  - an explicit `workspace` on the agent's entry (`agents.entries.<id>` or `agents.list[]`);
 *  - with no agent roster at all, the sole agent `main` uses `agents.defaults.workspace`, else
 *    $OPENCLAW_WORKSPACE_DIR, else `<stateDir>/workspace`.
 * Anything else (multi-agent fleets with inherited workspaces) is not guessed: the retrieval
 * then starts at bootstrap, where the event carries the workspace.
 */
export function configuredWorkspace(cfg: OpenClawConfig | undefined, agentId: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const agents = (cfg?.agents ?? {}) as Record<string, unknown>;
  if (typeof agents !== "object" || agents === null) return undefined;
  const entries = agents.entries as Record<string, { workspace?: unknown }> | undefined;
  const list = agents.list as { id?: unknown; workspace?: unknown }[] | undefined;
  const hasRoster = (entries !== undefined && entries !== null) || Array.isArray(list);
  const entry =
    (entries && typeof entries === "object" && !Array.isArray(entries) ? entries[agentId] : undefined) ??
    (Array.isArray(list) ? list.find((item) => item && typeof item === "object" && item.id === agentId) : undefined);
  const explicit = entry && typeof entry === "object" ? entry.workspace : undefined;
  if (typeof explicit === "string" && explicit.trim()) return expandUserPath(explicit, env);
  if (hasRoster || agentId !== "main") return undefined;
  const defaults = agents.defaults as { workspace?: unknown } | undefined;
  if (typeof defaults?.workspace === "string" && defaults.workspace.trim()) return expandUserPath(defaults.workspace, env);
  if (env.OPENCLAW_WORKSPACE_DIR) return expandUserPath(env.OPENCLAW_WORKSPACE_DIR, env);
  return path.join(openClawStateDir(env), "workspace");
}

/** The one runtime of the gateway process, shared by both events. */
export const ethosContextRuntime = new EthosContextRuntime();
