// The one service every adapter builds (the hook pack's handlers, the plugin's registrations): one
// classifier for the turn (turn.ts), the memory-context service (service.ts), the agents'
// workspaces, and the two pieces of work that need all three: the file set of a bootstrap, and the
// triage and capture of an operator's message.
import { startInboundTriage } from "../capture/inbound.ts";
import { runAciBootstrap } from "../bootstrap/run.ts";
import type { RunResult } from "../bootstrap/run.ts";
import type { AgentBootstrapEvent, MessageReceivedEvent, OpenClawConfig } from "../host/events.ts";
import { senderOfMessage, sessionKeyOf } from "../host/events.ts";
import { MemoryContextService } from "./service.ts";
import type { MemoryContextDeps } from "./service.ts";
import { TurnClassifier } from "./turn.ts";
import type { Turn, TurnClassifierDeps } from "./turn.ts";
import { AgentWorkspaces, isOperatorSession } from "./workspace.ts";

export type ContextServiceDeps = MemoryContextDeps & { classify?: TurnClassifierDeps["classify"] };

export class ContextService {
  readonly turns: TurnClassifier;
  readonly memory: MemoryContextService;
  readonly workspaces = new AgentWorkspaces();

  constructor(deps: ContextServiceDeps = {}) {
    this.memory = new MemoryContextService(deps);
    this.turns = new TurnClassifier({ classify: deps.classify, now: () => this.memory.now() });
  }

  /** message:received: the turn as its sender makes it (the sender is noted for the run's later events). */
  messageTurn(event: MessageReceivedEvent, cfg: OpenClawConfig | undefined): Turn {
    return this.turns.message(sessionKeyOf(event), cfg, senderOfMessage(event));
  }

  /**
   * Where an operator's message is triaged and captured, or undefined: not an operator turn (the
   * sender rule included), triage switched off, or no workspace known for the agent.
   */
  captureWorkspace(turn: Turn, cfg: OpenClawConfig | undefined): string | undefined {
    if (!isOperatorSession(turn.classification.type) || !this.memory.configFrom(cfg).triage) return undefined;
    return this.workspaces.forAgent(turn.classification.agentId, cfg);
  }

  /** Triage and capture of an operator's message, in the background (never rejects, never waits). */
  triage(event: MessageReceivedEvent, turn: Turn, cfg: OpenClawConfig | undefined): Promise<void> {
    const workspaceDir = this.captureWorkspace(turn, cfg);
    return workspaceDir ? startInboundTriage(event, workspaceDir) : Promise.resolve();
  }

  /** An agent:bootstrap of an operator turn teaches the agent's workspace (never a sandbox of another session). */
  learnWorkspace(event: AgentBootstrapEvent, turn: Turn): void {
    const workspaceDir = event.context.workspaceDir;
    if (!isOperatorSession(turn.classification.type) || typeof workspaceDir !== "string" || !workspaceDir) return;
    const agentId = typeof event.context.agentId === "string" && event.context.agentId ? event.context.agentId : turn.classification.agentId;
    if (agentId) this.workspaces.remember(agentId, workspaceDir);
  }

  /** The session-aware file set for this bootstrap. */
  bootstrapFiles(event: AgentBootstrapEvent, files: readonly unknown[], cfg: OpenClawConfig | undefined, turn: Turn): Promise<RunResult> {
    return runAciBootstrap({ event, files, cfg, classification: turn.classification, ownerSource: turn.owners.source });
  }
}

export function createContextService(deps: ContextServiceDeps = {}): ContextService {
  return new ContextService(deps);
}
