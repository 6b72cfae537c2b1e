import { getLogger } from "../core/log.ts";
import { CHARS_PER_TOKEN } from "../core/tokens.ts";
import { HOOK_KEYS } from "../host/ids.ts";
import { createEthosRetriever, resolveConfidenceGate, resolveEthosEndpoint } from "../ethos/retriever.ts";
import { createEmbeddedRetriever } from "../memory/retriever.ts";
import { sharedMemoryIndex } from "../memory/memory-index.ts";
import type { MemoryIndexOptions } from "../memory/memory-index.ts";
import { folderMemorySources, workspaceMemorySources } from "../memory/sources.ts";
import type { Retriever } from "../memory/types.ts";
import type { OpenClawConfig } from "../host/events.ts";
import { resolveHookConfig } from "../host/hook-config.ts";
import type { SessionType } from "../session/types.ts";
import type { SessionClassification } from "../session/types.ts";
import { leftOutOfTurnOf } from "../capture/capture.ts";
import { HYGIENE_CONFIG_DEFAULTS, loadHygieneConfigCached } from "../memory/config-md.ts";
import { budgetLimitsFor } from "./budget.ts";
import { bootstrapShapeFor } from "./bootstrap-slots.ts";
import type { BootstrapShape } from "./bootstrap-slots.ts";
import { windowRoom } from "./host-window.ts";
import type { HostWindow } from "./host-window.ts";
import { parseEthosContextConfig } from "./config.ts";
import type { EthosContextConfig } from "./config.ts";
import { writeContextFile } from "./context-file.ts";
import type { ContextBlockFormatter } from "./format.ts";
import { assemblerBlockComposer } from "./memory-composer.ts";
import type { BlockComposer, ComposedBlock } from "./memory-composer.ts";
import { prepareQuery, retrieveCandidates, selectAndFormat } from "./pipeline.ts";
import type { Selection } from "./pipeline.ts";
import { isSafeGroupMemoryDir, resolveRetrievalScope } from "./scope.ts";
import { classifyByKey } from "./turn.ts";
import type { RetrievalScope, RetrievalSource } from "./scope.ts";
import { boundedId, sessionTag, storedSessionKey } from "../core/bounded-id.ts";
import { SessionStates } from "./session-state.ts";
import type { RetrievalOutcome, SessionMemoryState, TurnOutcome } from "./session-state.ts";
import type { SkipReason } from "./skip.ts";
import { errorMessage, waitAtMost } from "./wait.ts";

// The memory-context service: one composition root for every adapter. The ethos-context hook
// (record in Project Context, 2026.3.13) and the companion plugin (prependContext, 2026.9.6) both
// call it, so both build the same block: same query rules, retrieval, gate, budget, de-duplication,
// neutralisation and composer.
//
//   plan     (sync)  classify the session once, check scope, clean the query, apply skip rules;
//   retrieve (async) search, coalesced per session (newest message wins, a search nobody waits
//                    for any more is dropped before it starts);
//   finish   (async) bounded wait, gate + budget + format, the composer within the same deadline;
//   deliver  (sync)  what reached the prompt is marked injected and written to ETHOS_CONTEXT.md.
//   buildTurnContext runs all four for an adapter that has the message and the workspace at once,
//   memoised by turn key so a retried prompt build gets the same block.

export type Log = {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
};

const defaultLog = (): Log => getLogger("ethos-context");

export type RetrieverFactory = (input: { config: EthosContextConfig; source: RetrievalSource; workspaceDir: string }) => Retriever | undefined;

export type MemoryContextDeps = {
  now?: () => number;
  createRetriever?: RetrieverFactory;
  /** Block layout of the default block. */
  format?: ContextBlockFormatter;
  /** Whole-block replacement; default: the context assembler. `null` switches it off. */
  composeBlock?: BlockComposer | null;
  /** Where the service logs (the plugin passes the host's `api.logger`). */
  log?: () => Log;
  /** Caps of the per-session state (default MAX_SESSIONS and MAX_STATE_BYTES; tests lower them). */
  sessionLimits?: { maxSessions?: number; maxBytes?: number };
};

/** Index options exactly as the service uses them (benchmarks build their index with these too). */
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

function defaultRetrieverFactory(log: () => Log = defaultLog): RetrieverFactory {
  return ({ config, source, workspaceDir }) => {
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
}

/** A turn the service may search for, or why it may not. */
export type TurnPlan =
  | { kind: "out-of-scope"; sessionType: SessionType; reason: string; classification: SessionClassification }
  | { kind: "skip"; sessionType: SessionType; reason: SkipReason; config: EthosContextConfig; classification: SessionClassification; query: string }
  | {
      kind: "search";
      sessionKey: string;
      sessionType: SessionType;
      classification: SessionClassification;
      config: EthosContextConfig;
      scope: RetrievalScope & { allowed: true };
      query: string;
      /** What the session's bootstrap injects (the assembler counts SOUL.md, USER.md, MEMORY.md). */
      bootstrap: BootstrapShape;
    };

export type PlanInput = {
  sessionKey: string;
  cfg: OpenClawConfig | undefined;
  text: unknown;
  /**
   * The turn's one classification (src/context/turn.ts: the key's, with the sender rule applied).
   * Adapters always pass it; without it (benches, tools) the key alone is classified.
   */
  classification?: SessionClassification;
};

/** A search started for a turn; `abandon()` drops it if it has not started yet. */
export type RetrievalHandle = { outcome: Promise<RetrievalOutcome>; sourceKey: string | undefined; abandon(): void };

/** The `event` of a turn's memory line (logOutcome): status --last and doctor read it. */
export const MEMORY_OUTCOME_EVENT = "memory.turn";

/** What bounds a turn: its wait, and the room the host says the model's window has. */
export type TurnBounds = {
  /** Bound on the whole wait (retrieval and composer); default the config's awaitTimeoutMs. */
  waitMs?: number;
  /** The model's window as the host gives it (src/context/host-window.ts); without it only the ceilings apply. */
  window?: HostWindow;
  /** The channel the adapter delivers the block by (logged with the outcome). */
  delivery?: string;
};

export type TurnInput = PlanInput &
  TurnBounds & {
    workspaceDir: string;
    /** Same key for a retried prompt build of the same turn (run id, message id). */
    turnKey: string;
  };

export type TurnContext = TurnOutcome & {
  status: "ok" | "timeout" | "error" | "skipped" | "out-of-scope";
  sessionType: SessionType;
};

type Job = {
  start: () => Promise<RetrievalOutcome>;
  resolve: (outcome: RetrievalOutcome) => void;
  reject: (error: unknown) => void;
  dropped: RetrievalOutcome;
};

/** Per-session search queue: one search runs, the newest waiting one replaces older waiting ones. */
class SearchCoalescer {
  private readonly running = new Set<string>();
  private readonly waiting = new Map<string, Job>();

  schedule(key: string, job: Job): () => void {
    if (!this.running.has(key)) {
      this.run(key, job);
      return () => {};
    }
    const superseded = this.waiting.get(key);
    if (superseded) superseded.resolve(superseded.dropped);
    this.waiting.set(key, job);
    return () => {
      if (this.waiting.get(key) !== job) return;
      this.waiting.delete(key);
      job.resolve(job.dropped);
    };
  }

  private run(key: string, job: Job): void {
    this.running.add(key);
    const done = () => {
      this.running.delete(key);
      const next = this.waiting.get(key);
      if (next) {
        this.waiting.delete(key);
        this.run(key, next);
      }
    };
    let started: Promise<RetrievalOutcome>;
    try {
      started = job.start();
    } catch (error) {
      started = Promise.reject(error);
    }
    started.then(
      (outcome) => {
        job.resolve(outcome);
        done();
      },
      (error: unknown) => {
        job.reject(error);
        done();
      },
    );
  }
}

export class MemoryContextService {
  readonly sessions: SessionStates;
  private readonly deps: MemoryContextDeps;
  private readonly searches = new SearchCoalescer();
  private configCache: { cfg: OpenClawConfig | undefined; raw: string; config: EthosContextConfig } | undefined;

  constructor(deps: MemoryContextDeps = {}) {
    this.deps = deps;
    this.sessions = new SessionStates(deps.sessionLimits);
  }

  log(): Log {
    return (this.deps.log ?? defaultLog)();
  }

  now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /** The ethos-context config from openclaw.json, parsed once per distinct value (one error log, not one per turn). */
  configFrom(cfg: OpenClawConfig | undefined): EthosContextConfig {
    // The host hands the same object every turn until openclaw.json changes: no re-read then.
    if (this.configCache && this.configCache.cfg === cfg) return this.configCache.config;
    const entry = resolveHookConfig(cfg, HOOK_KEYS.ethosContext);
    const raw = JSON.stringify(entry);
    if (this.configCache?.raw !== raw) this.configCache = { cfg, raw, config: parseEthosContextConfig(entry).config };
    else this.configCache.cfg = cfg;
    return this.configCache.config;
  }

  /** May this turn get memory at all (its privacy scope), without planning a query. */
  inScope(classification: SessionClassification, config: EthosContextConfig): boolean {
    return resolveRetrievalScope(classification, config).allowed;
  }

  /** Step 1 (sync): scope (from the turn's one classification), query and skip rules. */
  plan(input: PlanInput): TurnPlan {
    const config = this.configFrom(input.cfg);
    const classification = input.classification ?? classifyByKey(input.sessionKey, input.cfg);
    const scope = resolveRetrievalScope(classification, config);
    // A plan outlives the event (parked until bootstrap, held by its queued search): it keeps the
    // bounded forms of the key and ids, never a hostile megabyte-long key.
    const kept = boundedClassification(classification);
    if (!scope.allowed) return { kind: "out-of-scope", sessionType: scope.sessionType, reason: scope.reason, classification: kept };
    const prepared = prepareQuery(input.text, config);
    if (prepared.skip) return { kind: "skip", sessionType: scope.sessionType, reason: prepared.skip, config, classification: kept, query: prepared.query };
    return {
      kind: "search",
      sessionKey: storedSessionKey(input.sessionKey),
      sessionType: scope.sessionType,
      classification: kept,
      config,
      scope,
      query: prepared.query,
      bootstrap: bootstrapShapeFor(input.cfg, classification),
    };
  }

  /** Step 2 (async): start this turn's search, queued behind the session's running one. */
  retrieve(plan: TurnPlan & { kind: "search" }, workspaceDir: string): RetrievalHandle {
    const { config, scope } = plan;
    const gate = resolveConfidenceGate(config);
    const empty: RetrievalOutcome = { results: [], label: "", gate };
    let retriever: Retriever | undefined;
    try {
      retriever = (this.deps.createRetriever ?? defaultRetrieverFactory(() => this.log()))({ config, source: scope.source, workspaceDir });
    } catch (error) {
      this.log().warn({ err: errorMessage(error) }, "could not create retriever");
    }
    const sourceKey = retrievalSourceKey(config, scope.source, workspaceDir);
    if (!retriever) return { outcome: Promise.resolve(empty), sourceKey, abandon: () => {} };
    const found = retriever;
    let resolveOutcome!: (outcome: RetrievalOutcome) => void;
    let rejectOutcome!: (error: unknown) => void;
    const outcome = new Promise<RetrievalOutcome>((resolve, reject) => ((resolveOutcome = resolve), (rejectOutcome = reject)));
    outcome.catch(() => {}); // reported by finish(); an abandoned search must not be an unhandled rejection
    const abandon = this.searches.schedule(storedSessionKey(plan.sessionKey), {
      start: () =>
        retrieveCandidates(plan.query, found, config).then(
          (results) => ({ results, label: found.label, gate }),
          (error: unknown) => {
            this.log().warn({ err: errorMessage(error) }, "memory retrieval failed");
            throw error;
          },
        ),
      resolve: resolveOutcome,
      reject: rejectOutcome,
      dropped: { ...empty, label: found.label, dropped: true },
    });
    return { outcome, sourceKey, abandon };
  }

  /** Memory ids this session may not get again yet (de-duplication with a turn and a time limit). */
  excludedIds(state: SessionMemoryState, config: EthosContextConfig): Set<string> {
    const now = this.now();
    const excluded = new Set<string>();
    if (!config.dedupeAcrossTurns) return excluded;
    for (const [id, mark] of state.injected) {
      const expired = state.turnCount - mark.turn >= config.dedupeExpiryTurns || now - mark.at >= config.dedupeExpiryMs;
      if (expired) state.injected.delete(id);
      else excluded.add(id);
    }
    return excluded;
  }

  /** Step 3 (async): bounded wait for the search, then gate, budget, format and compose within the same deadline. */
  async finish(plan: TurnPlan, retrieval: RetrievalHandle | undefined, workspaceDir: string, bounds: TurnBounds = {}): Promise<TurnOutcome & { status: TurnContext["status"] }> {
    if (plan.kind === "out-of-scope") return { block: "", injectedIds: [], reason: plan.reason, status: "out-of-scope" };
    if (plan.kind === "skip") return { block: "", injectedIds: [], reason: `skipped:${plan.reason}`, status: "skipped" };
    if (!retrieval) return { block: "", injectedIds: [], reason: "no-retrieval", status: "error" };
    const { config } = plan;
    const budgetMs = bounds.waitMs ?? config.awaitTimeoutMs;
    const deadline = this.now() + budgetMs;
    // CONFIG.md's headroom, read while the search runs (cached: one stat per turn).
    const hygiene = bounds.window ? loadHygieneConfigCached(workspaceDir) : undefined;
    const waited = await waitAtMost(retrieval.outcome, budgetMs);
    if (waited.status === "timeout") {
      retrieval.abandon(); // nobody waits for it any more
      return { block: "", injectedIds: [], reason: "timeout", status: "timeout" };
    }
    if (waited.status === "error") return { block: "", injectedIds: [], reason: "error", status: "error" };
    if (waited.value.dropped) return { block: "", injectedIds: [], reason: "superseded", status: "timeout" };
    const found = waited.value.results;
    const leftOut = leftOutOfTurnOf(plan.query);
    const retrieved = { ...waited.value, results: found.filter((memory) => !leftOut(memory.text)) };
    const state = this.sessions.get(plan.sessionKey);
    const excludeIds = this.excludedIds(state, config);
    try {
      // The turn's ceiling: the session type's, within the room the model's window leaves.
      const ceilingTokens = Math.floor(budgetLimitsFor(config, plan.sessionType).maxTotalChars / CHARS_PER_TOKEN);
      let windowTokens: number | undefined;
      let roomSeen: TurnOutcome["room"];
      if (bounds.window && hygiene) {
        const loaded = await waitAtMost(hygiene, Math.max(0, deadline - this.now()));
        const headroom = loaded.status === "ok" ? loaded.value.config.headroom_reserve_tokens : HYGIENE_CONFIG_DEFAULTS.headroom_reserve_tokens;
        const room = windowRoom(bounds.window, headroom);
        roomSeen = { tokens: room, source: bounds.window.source };
        if (room <= 0) return { block: "", injectedIds: [], reason: "no-room", status: "ok", room: roomSeen };
        if (room < ceilingTokens) windowTokens = room;
      }
      const selection = selectAndFormat(retrieved.results, {
        config,
        sessionType: plan.sessionType,
        sourceLabel: retrieved.label,
        excludeIds,
        confidenceGate: retrieved.gate,
        maxTokens: windowTokens,
        now: new Date(this.now()),
        format: this.deps.format,
      });
      const alreadyShown = retrieved.results.length - selection.candidates.length;
      const composed = await this.composeBlock(selection, plan, workspaceDir, { blockTokens: windowTokens, ceilingTokens, deadline, excludeIds });
      const reason = turnReason({ found: found.length, current: retrieved.results.length, alreadyShown, tier: selection.decision.tier, selected: selection.block, composed: composed.block });
      const outcome: TurnOutcome & { status: "ok" } = { block: composed.block, injectedIds: composed.injectedIds, fileBlock: composed.fileBlock, reason, status: "ok" };
      if (alreadyShown > 0) outcome.alreadyShown = alreadyShown;
      if (roomSeen) outcome.room = roomSeen;
      return outcome;
    } catch (error) {
      this.log().warn({ err: errorMessage(error) }, "memory block could not be built; nothing injected");
      return { block: "", injectedIds: [], reason: "error", status: "error" };
    }
  }

  /**
   * Step 4 (sync): the adapter says what reached the prompt. Only delivered memories are marked
   * injected; ETHOS_CONTEXT.md shows what the model got (empty when nothing).
   */
  deliver(sessionKey: string, config: EthosContextConfig, workspaceDir: string, outcome: TurnOutcome, delivered: boolean): void {
    const state = this.sessions.get(sessionKey);
    if (delivered && outcome.block) {
      this.sessions.markInjected(sessionKey, state, outcome.injectedIds, { turn: state.turnCount, at: this.now() });
    }
    // Operators read story 007's layout of what the model got; the model reads the compact block.
    if (config.writeContextFile) void writeContextFile(workspaceDir, delivered ? (outcome.fileBlock ?? outcome.block) : "");
  }

  /** Count a new turn in the session (the de-duplication clock). */
  startTurn(sessionKey: string): void {
    this.sessions.get(sessionKey).turnCount += 1;
  }

  /**
   * The whole turn for an adapter that has the message and the workspace at once (the plugin). A
   * second call with the same turn key (a retried prompt build) gets the same block.
   */
  buildTurnContext(input: TurnInput): Promise<TurnContext> {
    const plan = this.plan(input);
    if (plan.kind === "out-of-scope") {
      const context: TurnContext = { block: "", injectedIds: [], reason: plan.reason, status: "out-of-scope", sessionType: plan.sessionType };
      this.logOutcome(context, { sessionKey: input.sessionKey });
      return Promise.resolve(context);
    }
    const state = this.sessions.get(input.sessionKey);
    const memo = this.sessions.memoFor(state, input.turnKey);
    if (memo) return memo.then((outcome) => ({ ...(outcome as TurnContext) }));
    // The turn in flight keeps the bounded key, not `input` (its session key may be a megabyte).
    const sessionKey = storedSessionKey(input.sessionKey);
    const { workspaceDir, waitMs, window } = input;
    this.startTurn(sessionKey);
    const built = (async (): Promise<TurnContext> => {
      const retrieval = plan.kind === "search" ? this.retrieve(plan, workspaceDir) : undefined;
      const outcome = await this.finish(plan, retrieval, workspaceDir, { waitMs, window });
      const context: TurnContext = { ...outcome, sessionType: plan.sessionType };
      // The adapter returns this block right away: it is delivered when it is not empty.
      this.deliver(sessionKey, plan.config, workspaceDir, context, context.status === "ok");
      this.logOutcome(context, { sessionKey: input.sessionKey, delivery: input.delivery });
      return context;
    })();
    this.sessions.memoTurn(sessionKey, state, input.turnKey, built);
    return built;
  }

  /** The memory line of a turn (status --last reads it): what was injected and why, by which channel, for which session. */
  logOutcome(
    context: { sessionType: SessionType; reason: string; injectedIds: string[]; block: string; status?: string; alreadyShown?: number; room?: TurnOutcome["room"] },
    turn: { sessionKey?: string; delivery?: string } = {},
  ): void {
    const fields = {
      event: MEMORY_OUTCOME_EVENT,
      session: sessionTag(turn.sessionKey),
      sessionType: context.sessionType,
      ...(context.status ? { status: context.status } : {}),
      reason: context.reason,
      injected: context.injectedIds.length,
      chars: context.block.length,
      ...(context.block && turn.delivery ? { delivery: turn.delivery } : {}),
      ...(context.alreadyShown ? { alreadyShown: context.alreadyShown } : {}),
      // The window's room (after the headroom) and its source: host-budget (the engine) or model-config.
      ...(context.room ? { room: context.room.tokens, window: context.room.source } : {}),
    };
    if (context.status === "error") this.log().warn(fields, "memory context for this turn failed; nothing injected");
    else this.log().info(fields, "memory context for this turn");
  }

  /** The composer's block when it answers in time and within budget, else the default block. */
  private async composeBlock(
    selection: Selection,
    plan: TurnPlan & { kind: "search" },
    workspaceDir: string,
    turn: { blockTokens: number | undefined; ceilingTokens: number; deadline: number; excludeIds: ReadonlySet<string> },
  ): Promise<ComposedBlock> {
    const { config, sessionType } = plan;
    const fallback: ComposedBlock = { block: selection.block, injectedIds: selection.injected.map((memory) => memory.id), fileBlock: selection.fileBlock };
    const composer = this.deps.composeBlock === undefined ? assemblerBlockComposer : this.deps.composeBlock;
    if (!composer || !config.assembleBlock || !selection.block) return fallback;
    const limits = budgetLimitsFor(config, sessionType, turn.blockTokens);
    const remainingMs = () => Math.max(0, turn.deadline - this.now());
    const call = async () =>
      composer({
        workspaceDir,
        sessionType,
        selection,
        maxTokens: Math.floor(limits.maxTotalChars / CHARS_PER_TOKEN),
        maxChars: limits.maxTotalChars,
        shareTokens: turn.ceilingTokens,
        now: new Date(this.now()),
        excludeIds: turn.excludeIds,
        message: plan.query,
        bootstrap: plan.bootstrap,
        sources: config.contextSources,
        remainingMs: remainingMs(),
      });
    const waited = await waitAtMost(call(), remainingMs());
    if (waited.status === "error") {
      this.log().warn({ err: errorMessage(waited.error) }, "block composer failed; using the default block");
      return fallback;
    }
    if (waited.status === "timeout") {
      this.log().warn({ answered: false }, "block composer late; using the default block");
      return fallback;
    }
    const composed = waited.value;
    const result = typeof composed === "string" ? { block: composed, injectedIds: fallback.injectedIds } : composed;
    if (result && typeof result.block === "string" && result.block.length <= limits.maxTotalChars) return result;
    this.log().warn({ answered: true }, "block composer over budget; using the default block");
    return fallback;
  }
}

/**
 * Why a turn got the block it got, in one word for the log: the gate's tier when memory was
 * injected; otherwise what held it back. `already-shown`: everything the search found was shown
 * earlier in the session; `left-out`: what it found is superseded or is what this message says;
 * `no-room`: the memory did not fit in the room left (the window, or context_budget_tokens).
 */
export function turnReason(turn: { found: number; current: number; alreadyShown: number; tier: string; selected: string; composed: string }): string {
  if (turn.composed) return turn.tier;
  if (turn.selected) return "no-room"; // the gate passed, the composer had no room left
  if (turn.found > 0 && turn.current === 0) return "left-out";
  if (turn.tier === "no-results" && turn.alreadyShown > 0) return "already-shown";
  return turn.tier;
}

/** A classification with every id in its bounded form (see boundedId): what a stored plan keeps. */
function boundedClassification(classification: SessionClassification): SessionClassification {
  const kept: SessionClassification = { ...classification };
  for (const field of ["agentId", "channel", "peerId", "topicId"] as const) {
    const value = kept[field];
    if (value !== undefined) kept[field] = boundedId(value);
  }
  return kept;
}

export function createMemoryContextService(deps: MemoryContextDeps = {}): MemoryContextService {
  return new MemoryContextService(deps);
}
