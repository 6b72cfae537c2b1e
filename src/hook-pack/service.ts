// The hook pack's one service, shared by both hooks: the gateway imports each handler.ts, and both
// import this module once (HOOK_ASSUMPTIONS.md `sharedModuleState`), so a query captured on
// message:received is found on agent:bootstrap, and both hooks act on one classification of each
// bootstrap event.
import { logToGatewayFile } from "../core/log.ts";
import { loadOpenClawConfigFile } from "../host/config-file.ts";
import { bridgeToConsole } from "../host/logger.ts";
import type { AgentBootstrapEvent, MessageReceivedEvent, OpenClawConfig } from "../host/events.ts";
import { sessionKeyOf } from "../host/events.ts";
import { asHeartbeatRun, takeHeartbeatMark } from "../bootstrap/heartbeat-run.ts";
import { startupOpenClawConfig } from "../bootstrap/run.ts";
import type { RunResult } from "../bootstrap/run.ts";
import { ContextService } from "../context/turn-service.ts";
import type { ContextServiceDeps } from "../context/turn-service.ts";
import type { Turn } from "../context/turn.ts";
import { HookMemoryTurns } from "./memory-turns.ts";

/**
 * Called by each hook's entry when the gateway imports it: our records go to our own log file
 * (status reads it) and, through console.*, to OpenClaw's own log (`openclaw logs`).
 */
export function startHookPackLog(): void {
  logToGatewayFile();
  bridgeToConsole();
}

export type HookPackDeps = ContextServiceDeps & {
  /** openclaw.json for message:received (which carries no cfg); default: the file, read through its cache. */
  loadOpenClawConfig?: () => OpenClawConfig | undefined;
};

export class HookPack {
  readonly context: ContextService;
  readonly memory: HookMemoryTurns;
  private readonly loadConfig: () => OpenClawConfig | undefined;
  private readonly bootstrapTurns = new WeakMap<object, Turn>();
  private lastBootstrapCfg: OpenClawConfig | undefined;

  constructor(deps: HookPackDeps = {}) {
    this.context = new ContextService(deps);
    this.memory = new HookMemoryTurns(this.context);
    this.loadConfig = deps.loadOpenClawConfig ?? (() => loadOpenClawConfigFile());
  }

  get sessions() {
    return this.context.memory.sessions;
  }

  /** openclaw.json for an event without `cfg` (message:received): from disk, else the last bootstrap's. */
  cfgForMessage(): OpenClawConfig | undefined {
    return this.loadConfig() ?? this.lastBootstrapCfg;
  }

  /** The config a bootstrap event runs with: its own `cfg`, else openclaw.json as read at start. */
  cfgForBootstrap(event: AgentBootstrapEvent): OpenClawConfig | undefined {
    const cfg = event.context.cfg;
    if (cfg) this.lastBootstrapCfg = cfg;
    return cfg ?? startupOpenClawConfig();
  }

  /** The one classification of a bootstrap event, whichever of the two hooks asks first. */
  turnOfBootstrap(event: AgentBootstrapEvent, cfg: OpenClawConfig | undefined = this.cfgForBootstrap(event)): Turn {
    let turn = this.bootstrapTurns.get(event);
    if (!turn) {
      const sessionKey = sessionKeyOf(event);
      turn = this.context.turns.turn(sessionKey, cfg);
      // A heartbeat run announced by message:preprocessed (2026.3.13; heartbeat-run.ts) is automation:
      // the heartbeat set, no memory. The note is used up by the run's first bootstrap event.
      if (takeHeartbeatMark(sessionKey)) turn = { ...turn, classification: asHeartbeatRun(turn.classification) };
      this.bootstrapTurns.set(event, turn);
    }
    return turn;
  }

  /**
   * ethos-context on message:received: one classification (its sender included), the query captured
   * synchronously, triage and capture of an operator's message in the background.
   */
  onMessageReceived(event: MessageReceivedEvent): void {
    const cfg = this.cfgForMessage();
    const turn = this.context.messageTurn(event, cfg);
    this.memory.onMessageReceived(event, turn, cfg);
    void this.context.triage(event, turn, cfg);
  }

  /** ethos-context on agent:bootstrap: the new bootstrapFiles with this turn's memory record, or undefined. */
  onAgentBootstrap(event: AgentBootstrapEvent): Promise<unknown[] | undefined> {
    const cfg = this.cfgForBootstrap(event);
    const turn = this.turnOfBootstrap(event, cfg);
    this.context.learnWorkspace(event, turn);
    return this.memory.onAgentBootstrap(event, turn, cfg);
  }

  /** aci-bootstrap on agent:bootstrap: the session-aware file set. */
  bootstrapFiles(event: AgentBootstrapEvent, received: readonly unknown[]): Promise<RunResult> {
    const cfg = this.cfgForBootstrap(event);
    return this.context.bootstrapFiles(event, received, cfg, this.turnOfBootstrap(event, cfg));
  }
}

/** The one hook pack of the gateway process, shared by both hooks. */
export const hookPack = new HookPack();
