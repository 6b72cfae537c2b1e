import path from "node:path";
import { RETRIEVED_MEMORY_RECORD_NAME } from "../host/ids.ts";
import { isBootstrapFileRecord, sessionKeyOf } from "../host/events.ts";
import type { AgentBootstrapEvent, BootstrapFileRecord, MessageReceivedEvent, OpenClawConfig } from "../host/events.ts";
import { messageText } from "../context/message-text.ts";
import { resolveRetrievalScope } from "../context/scope.ts";
import { retrievalSourceKey } from "../context/service.ts";
import type { MemoryContextService, RetrievalHandle, TurnPlan } from "../context/service.ts";
import type { ContextService } from "../context/turn-service.ts";
import type { Turn } from "../context/turn.ts";
import { boundedId } from "../core/bounded-id.ts";
import type { CurrentTurn, TurnOutcome } from "../context/session-state.ts";
import { waitAtMost } from "../context/wait.ts";
import { hostWindow } from "../context/host-window.ts";
import type { HostWindow } from "../context/host-window.ts";
import { estimateTokens } from "../core/tokens.ts";
import { modelContextWindow } from "../host/model-window.ts";

// The hook pack's memory delivery around the memory-context service (src/context/service.ts). Only
// what is hook-specific lives here:
//   message:received (fire-and-forget, no cfg): capture the query synchronously, start retrieval,
//     park it under the session key (the pending map);
//   agent:bootstrap (awaited): claim that session's pending retrieval, wait at most awaitTimeoutMs
//     (the await window), then upsert one inline record.

/** A captured message older than this is not matched to a bootstrap any more. */
const PENDING_MAX_AGE_MS = 10 * 60_000;

type HookPending = { plan: TurnPlan; retrieval?: RetrievalHandle };

/** Replace our record if one is there (same name or same path), else append; never mutates `files`. */
export function upsertMemoryRecord(files: readonly unknown[], record: BootstrapFileRecord, workspaceDir: string): unknown[] {
  const target = path.resolve(workspaceDir, record.path);
  const isOurs = (file: unknown) =>
    isBootstrapFileRecord(file) && (file.name === RETRIEVED_MEMORY_RECORD_NAME || path.resolve(workspaceDir, file.path) === target);
  const index = files.findIndex(isOurs);
  if (index === -1) return [...files, record];
  return files.flatMap((file, i) => (i === index ? [record] : isOurs(file) ? [] : [file]));
}

/**
 * The model's window at agent:bootstrap (2026.3.13 gives hooks no budget): its `contextWindow` from
 * openclaw.json, less the bootstrap files this event carries (the part of the prompt a hook sees).
 */
export function bootstrapWindow(event: AgentBootstrapEvent, cfg: OpenClawConfig | undefined, fallbackAgentId: string | undefined): HostWindow | undefined {
  const agentId = typeof event.context.agentId === "string" && event.context.agentId ? event.context.agentId : fallbackAgentId;
  const files = Array.isArray(event.context.bootstrapFiles) ? event.context.bootstrapFiles : [];
  const used = files.reduce((sum: number, file) => sum + (isBootstrapFileRecord(file) && typeof file.content === "string" ? estimateTokens(file.content) : 0), 0);
  return hostWindow(modelContextWindow(cfg, { agentId }), used, "model-config");
}

export class HookMemoryTurns {
  private readonly context: ContextService;
  /** The service plan and search of each session's captured message. */
  private readonly pendingPlans = new WeakMap<object, HookPending>();

  constructor(context: ContextService) {
    this.context = context;
  }

  private get service(): MemoryContextService {
    return this.context.memory;
  }

  private now(): number {
    return this.service.now();
  }

  /**
   * message:received, with the turn its handler classified once. Synchronous on purpose: the
   * gateway does not await this event, and only the synchronous prefix of a handler is guaranteed
   * to run before the agent run starts.
   */
  onMessageReceived(event: MessageReceivedEvent, turn: Turn, cfg: OpenClawConfig | undefined): void {
    const sessionKey = sessionKeyOf(event);
    if (!sessionKey) return;
    const classification = turn.classification;
    const plan = this.service.plan({ sessionKey, cfg, text: messageText(event.context.content), classification });
    if (plan.kind === "out-of-scope") return;
    // A slash command (`/context list`, `/status`) is not a turn about anything: leave the
    // session's turn state alone, so `/context` still reports the last turn's memory record.
    if (plan.kind === "skip" && plan.reason === "command") return;

    const now = this.now();
    const state = this.service.sessions.get(sessionKey);
    const previous = state.pending;
    if (plan.kind === "search" && previous && !previous.skip && previous.query === plan.query && now - previous.receivedAt < plan.config.debounceMs) {
      this.service.log().debug({ sessionType: plan.sessionType }, "repeated message debounced");
      return;
    }
    // A newer message supersedes the one still waiting for its bootstrap: its search is dropped.
    if (previous) this.pendingPlans.get(previous)?.retrieval?.abandon();
    const messageId = typeof event.context.messageId === "string" && event.context.messageId ? event.context.messageId : undefined;
    const pending: NonNullable<typeof state.pending> = { turnKey: boundedId(messageId ?? `t${now}`), query: plan.query, receivedAt: now };
    if (plan.kind === "skip") pending.skip = plan.reason;
    state.pending = pending;
    const hookPending: HookPending = { plan };
    this.pendingPlans.set(pending, hookPending);
    if (plan.kind !== "search") {
      this.service.sessions.refit(sessionKey);
      return;
    }

    const workspaceDir = this.context.workspaces.forAgent(plan.classification.agentId, cfg);
    if (workspaceDir || plan.config.backend === "ethos") {
      const retrieval = this.service.retrieve(plan, workspaceDir ?? "");
      if (retrieval.sourceKey) {
        hookPending.retrieval = retrieval;
        pending.sourceKey = retrieval.sourceKey;
        pending.retrieval = retrieval.outcome;
        pending.abandon = retrieval.abandon;
      } else retrieval.abandon();
    }
    // Otherwise retrieval starts at bootstrap, when the workspace is known.
    this.service.sessions.refit(sessionKey); // the parked work counts against the state cap
  }

  /**
   * agent:bootstrap. Returns the new bootstrapFiles array, or undefined to leave the event as is.
   * Never waits longer than awaitTimeoutMs for retrieval.
   */
  async onAgentBootstrap(event: AgentBootstrapEvent, turn: Turn, cfg: OpenClawConfig | undefined): Promise<unknown[] | undefined> {
    const files = event.context.bootstrapFiles;
    const workspaceDir = event.context.workspaceDir;
    const sessionKey = sessionKeyOf(event);
    if (!Array.isArray(files) || typeof workspaceDir !== "string" || !workspaceDir || !sessionKey) return undefined;
    const config = this.service.configFrom(cfg);
    const classification = turn.classification;
    const scope = resolveRetrievalScope(classification, config);
    if (!scope.allowed) {
      this.service.logOutcome({ block: "", injectedIds: [], reason: scope.reason, status: "out-of-scope", sessionType: scope.sessionType }, { sessionKey });
      return undefined;
    }

    const state = this.service.sessions.get(sessionKey);
    const now = this.now();
    let current: CurrentTurn | undefined;
    // A message whose run never came (handled as a command, dropped) must not feed a later run.
    const pending = state.pending && now - state.pending.receivedAt <= PENDING_MAX_AGE_MS ? state.pending : undefined;
    if (!pending && state.pending) this.pendingPlans.get(state.pending)?.retrieval?.abandon();
    if (!pending) state.pending = undefined;
    let fresh = false;
    if (pending) {
      // First bootstrap of this turn claims the message synchronously, so a concurrent second
      // bootstrap finds `current` and shares the same outcome instead of starting another.
      state.pending = undefined;
      const hookPending = this.pendingPlans.get(pending);
      this.service.startTurn(sessionKey);
      const window = bootstrapWindow(event, cfg, classification.agentId);
      current = { turnKey: pending.turnKey, startedAt: now, workspaceDir, outcome: this.computeOutcome({ sessionKey, cfg, turn, pending, hookPending, workspaceDir, window }) };
      state.current = current;
      this.service.sessions.refit(sessionKey, current.outcome);
      fresh = true;
    } else if (state.current && now - state.current.startedAt <= config.sameTurnWindowMs) {
      current = state.current; // same turn again (fallback attempt, second workspace, compaction)
    }
    if (!current) {
      this.service.logOutcome({ block: "", injectedIds: [], reason: "no captured message for this run (heartbeat, agent RPC)", status: "skipped", sessionType: classification.type }, { sessionKey });
      return undefined;
    }

    const waited = await waitAtMost(current.outcome, config.awaitTimeoutMs + 50);
    const outcome = waited.status === "ok" ? waited.value : undefined;
    const delivered = Boolean(outcome?.block);
    // Only what reaches the returned list is marked injected (a late result is not).
    if (fresh || delivered) this.service.deliver(sessionKey, config, current.workspaceDir, outcome ?? { block: "", injectedIds: [], reason: "timeout" }, delivered);
    if (!outcome || !outcome.block) return undefined;
    const record: BootstrapFileRecord = {
      name: RETRIEVED_MEMORY_RECORD_NAME,
      path: path.join(current.workspaceDir, RETRIEVED_MEMORY_RECORD_NAME),
      content: outcome.block,
      missing: false,
    };
    return upsertMemoryRecord(files, record, workspaceDir);
  }

  private async computeOutcome(input: {
    sessionKey: string;
    cfg: OpenClawConfig | undefined;
    turn: Turn;
    pending: NonNullable<ReturnType<MemoryContextService["sessions"]["get"]>["pending"]>;
    hookPending: HookPending | undefined;
    workspaceDir: string;
    window: HostWindow | undefined;
  }): Promise<TurnOutcome> {
    const { sessionKey, cfg, turn, pending, hookPending, workspaceDir, window } = input;
    // The plan of the captured message, else planned from its query with this bootstrap's turn.
    const plan = hookPending?.plan ?? this.service.plan({ sessionKey, cfg, text: pending.query, classification: turn.classification });
    let retrieval: RetrievalHandle | undefined;
    if (plan.kind === "search") {
      const early = hookPending?.retrieval;
      // A retrieval started against another source (workspace guessed wrong, config changed) is redone.
      if (early && early.sourceKey === retrievalSourceKey(plan.config, plan.scope.source, workspaceDir)) retrieval = early;
      else {
        early?.abandon();
        retrieval = this.service.retrieve(plan, workspaceDir);
      }
    }
    const outcome = await this.service.finish(plan, retrieval, workspaceDir, { window });
    this.service.logOutcome({ ...outcome, sessionType: plan.sessionType }, { sessionKey, delivery: "bootstrap-record" });
    return outcome;
  }
}
