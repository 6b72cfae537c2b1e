import path from "node:path";
import { RETRIEVED_MEMORY_RECORD_NAME } from "../host/ids.ts";
import { loadOpenClawConfigFile } from "../host/config-file.ts";
import { isBootstrapFileRecord, sessionKeyOf } from "../host/events.ts";
import type { AgentBootstrapEvent, BootstrapFileRecord, MessageReceivedEvent, OpenClawConfig } from "../host/events.ts";
import { pluginDeliveryClaim } from "./delivery.ts";
import { messageText } from "./message-text.ts";
import { classifyForRetrieval } from "./scope.ts";
import { MemoryContextService, retrievalSourceKey } from "./service.ts";
import type { MemoryContextDeps, RetrievalHandle, TurnPlan } from "./service.ts";
import { boundedId } from "../core/bounded-id.ts";
import type { CurrentTurn, TurnOutcome } from "./session-state.ts";
import { waitAtMost } from "./wait.ts";
import type { EthosContextConfig } from "./config.ts";
import type { SessionClassification } from "../session/types.ts";
import { configuredWorkspace, isOperatorSession } from "./workspace.ts";

export { memoryIndexOptions, retrievalSourceKey } from "./service.ts";
export type { BlockComposer, ComposedBlock } from "./memory-composer.ts";
export type { RetrieverFactory } from "./service.ts";

// The ethos-context hook adapter around the memory-context service (service.ts). Only what is
// hook-specific lives here:
//   message:received (fire-and-forget, no cfg): capture the query synchronously, start retrieval,
//     park it under the session key (the pending map);
//   agent:bootstrap (awaited): claim that session's pending retrieval, wait at most awaitTimeoutMs
//     (the await window), then upsert one inline record.
// When the companion plugin delivers memory in this process (delivery.ts), the hook adds nothing.

/** A captured message older than this is not matched to a bootstrap any more. */
export const PENDING_MAX_AGE_MS = 10 * 60_000;
/** Agents whose last workspace is remembered (a gateway runs a handful; the cap only stops a flood). */
export const MAX_REMEMBERED_AGENTS = 256;

export type EthosContextRuntimeOptions = MemoryContextDeps & {
  /** openclaw.json for message:received (which carries no cfg). */
  loadOpenClawConfig?: () => OpenClawConfig | undefined;
};

type HookPending = { plan: TurnPlan; retrieval?: RetrievalHandle };

/** A message:received turn as classified once by the handler. */
export type MessageTurn = { sessionKey: string | undefined; cfg: OpenClawConfig | undefined; config: EthosContextConfig; classification: SessionClassification };

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
  readonly service: MemoryContextService;
  private readonly options: EthosContextRuntimeOptions;
  /** Workspace of each agent's last turn, for retrievals started on message:received. */
  private readonly workspaceByAgent = new Map<string, string>();
  /** The service plan and search of each session's captured message. */
  private readonly pendingPlans = new WeakMap<object, HookPending>();
  private lastBootstrapCfg: OpenClawConfig | undefined;

  constructor(options: EthosContextRuntimeOptions = {}) {
    this.options = options;
    this.service = new MemoryContextService(options);
  }

  get sessions() {
    return this.service.sessions;
  }

  private now(): number {
    return this.service.now();
  }

  /** Bounded like the session state: agent ids in their bounded form, the least recently seen agent out first. */
  private rememberWorkspace(agentId: string, workspaceDir: string): void {
    const key = boundedId(agentId);
    this.workspaceByAgent.delete(key);
    this.workspaceByAgent.set(key, workspaceDir);
    if (this.workspaceByAgent.size > MAX_REMEMBERED_AGENTS) {
      const oldest = this.workspaceByAgent.keys().next().value;
      if (oldest !== undefined) this.workspaceByAgent.delete(oldest);
    }
  }

  private cfgForMessage(): OpenClawConfig | undefined {
    return (this.options.loadOpenClawConfig ?? loadOpenClawConfigFile)() ?? this.lastBootstrapCfg;
  }

  /**
   * The one classification of a message:received turn (openclaw.json from disk, as the event has no
   * cfg). The handler makes it once and passes it to the query capture and to triage.
   */
  classifyMessage(event: MessageReceivedEvent): MessageTurn {
    const sessionKey = sessionKeyOf(event);
    const cfg = this.cfgForMessage();
    const config = this.service.configFrom(cfg);
    return { sessionKey, cfg, config, classification: classifyForRetrieval(sessionKey, cfg, config) };
  }

  /**
   * Best-known workspace for a message:received event (which carries none): the agent's workspace
   * from its last bootstrap, else one stated unambiguously in config. For other message-time work,
   * e.g. the triage scan, which needs a workspace to write its queue.
   */
  workspaceForMessage(event: MessageReceivedEvent, turn: MessageTurn = this.classifyMessage(event)): string | undefined {
    const agentId = turn.classification.agentId;
    return agentId ? this.workspaceByAgent.get(boundedId(agentId)) ?? configuredWorkspace(turn.cfg, agentId) : undefined;
  }

  /**
   * Workspace for message-time work on the operator's own messages (triage, capture), or undefined
   * when the session is not the operator's (groups, strangers, subagents, cron) or triage is off.
   */
  operatorWorkspaceForMessage(event: MessageReceivedEvent, turn: MessageTurn = this.classifyMessage(event)): string | undefined {
    if (!turn.config.triage) return undefined;
    return isOperatorSession(turn.classification.type) ? this.workspaceForMessage(event, turn) : undefined;
  }

  /**
   * message:received. Synchronous on purpose: the gateway does not await this event, and only the
   * synchronous prefix of a handler is guaranteed to run before the agent run starts.
   */
  onMessageReceived(event: MessageReceivedEvent, turn?: MessageTurn): void {
    if (pluginDeliveryClaim()) return; // the plugin serves this process's turns
    const sessionKey = sessionKeyOf(event);
    if (!sessionKey) return;
    // No cfg on this event: openclaw.json from disk, else the cfg of the last bootstrap.
    const { cfg, classification } = turn ?? this.classifyMessage(event);
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

    const agentId = plan.classification.agentId;
    const workspaceDir = agentId ? this.workspaceByAgent.get(boundedId(agentId)) ?? configuredWorkspace(cfg, agentId) : undefined;
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
  async onAgentBootstrap(event: AgentBootstrapEvent): Promise<unknown[] | undefined> {
    if (pluginDeliveryClaim()) {
      // The plugin delivers memory as prependContext. The config is still read here, so a bad key
      // is reported in the hooks' own log as before.
      this.service.configFrom(event.context.cfg);
      return undefined;
    }
    const files = event.context.bootstrapFiles;
    const workspaceDir = event.context.workspaceDir;
    const sessionKey = sessionKeyOf(event);
    if (!Array.isArray(files) || typeof workspaceDir !== "string" || !workspaceDir || !sessionKey) return undefined;
    const cfg = event.context.cfg;
    if (cfg) this.lastBootstrapCfg = cfg;
    const config = this.service.configFrom(cfg);
    const classification = classifyForRetrieval(sessionKey, cfg, config);
    if (this.service.plan({ sessionKey, cfg, text: "", classification }).kind === "out-of-scope") return undefined;

    const state = this.service.sessions.get(sessionKey);
    const now = this.now();
    let turn: CurrentTurn | undefined;
    // A message whose run never came (handled as a command, dropped) must not feed a later run.
    const pending = state.pending && now - state.pending.receivedAt <= PENDING_MAX_AGE_MS ? state.pending : undefined;
    if (!pending && state.pending) this.pendingPlans.get(state.pending)?.retrieval?.abandon();
    if (!pending) state.pending = undefined;
    let fresh = false;
    if (pending) {
      // First bootstrap of this turn claims the message synchronously, so a concurrent second
      // bootstrap finds `current` and shares the same outcome instead of starting another.
      state.pending = undefined;
      const agentId = typeof event.context.agentId === "string" ? event.context.agentId : classification.agentId;
      if (agentId) this.rememberWorkspace(agentId, workspaceDir);
      const hookPending = this.pendingPlans.get(pending);
      this.service.startTurn(sessionKey);
      turn = { turnKey: pending.turnKey, startedAt: now, workspaceDir, outcome: this.computeOutcome(sessionKey, cfg, pending, hookPending, workspaceDir) };
      state.current = turn;
      this.service.sessions.refit(sessionKey, turn.outcome);
      fresh = true;
    } else if (state.current && now - state.current.startedAt <= config.sameTurnWindowMs) {
      turn = state.current; // same turn again (fallback attempt, second workspace, compaction)
    }
    if (!turn) {
      this.service.log().debug({ sessionType: classification.type }, "no captured message for this run (heartbeat, agent RPC): no memory record");
      return undefined;
    }

    const waited = await waitAtMost(turn.outcome, config.awaitTimeoutMs + 50);
    const outcome = waited.status === "ok" ? waited.value : undefined;
    const delivered = Boolean(outcome?.block);
    // Only what reaches the returned list is marked injected (a late result is not).
    if (fresh || delivered) this.service.deliver(sessionKey, config, turn.workspaceDir, outcome ?? { block: "", injectedIds: [], reason: "timeout" }, delivered);
    if (!outcome || !outcome.block) return undefined;
    const record: BootstrapFileRecord = {
      name: RETRIEVED_MEMORY_RECORD_NAME,
      path: path.join(turn.workspaceDir, RETRIEVED_MEMORY_RECORD_NAME),
      content: outcome.block,
      missing: false,
    };
    return upsertMemoryRecord(files, record, workspaceDir);
  }

  private async computeOutcome(
    sessionKey: string,
    cfg: OpenClawConfig | undefined,
    pending: NonNullable<ReturnType<MemoryContextService["sessions"]["get"]>["pending"]>,
    hookPending: HookPending | undefined,
    workspaceDir: string,
  ): Promise<TurnOutcome> {
    // The plan of the captured message, re-planned against this bootstrap's cfg when it differs.
    const plan = hookPending?.plan ?? this.service.plan({ sessionKey, cfg, text: pending.query });
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
    const outcome = await this.service.finish(plan, retrieval, workspaceDir);
    this.service.logOutcome({ ...outcome, sessionType: plan.sessionType });
    return outcome;
  }
}

/** The one runtime of the gateway process, shared by both events. */
export const ethosContextRuntime = new EthosContextRuntime();
