// message:received for the packaged plugin (api.registerHook): triage and explicit capture of the
// operator's own messages ("remember that …" → memory/YYYY-MM-DD.md), as the ethos-context hook
// does (src/context/inbound-triage.ts). No query capture here: the package's memory delivery reads
// the user's message on the turn itself (before_prompt_build, the context engine's assemble()).
// Never throws and never holds the turn up: the writes run in the background.
import { boundedId } from "../core/bounded-id.ts";
import { getLogger } from "../core/log.ts";
import { HOOK_KEYS } from "../host/ids.ts";
import type { EthosContextConfig } from "../context/config.ts";
import { startInboundTriage } from "../context/inbound-triage.ts";
import type { MessageTurn } from "../context/runtime.ts";
import { classifyForRetrieval } from "../context/scope.ts";
import { configuredWorkspace, isOperatorSession } from "../context/workspace.ts";
import { isAgentBootstrapEvent, isMessageReceivedEvent, sessionKeyOf } from "../host/events.ts";
import type { MessageReceivedEvent, OpenClawConfig } from "../host/events.ts";

/** Agents whose last workspace is remembered (a gateway runs a handful; the cap only stops a flood). */
export const MAX_REMEMBERED_AGENTS = 256;

export type TriageHookDeps = {
  /** openclaw.json as the services see it (the plugin's view: its ethosContext options in place). */
  cfg: () => OpenClawConfig | undefined;
  /** The ethos-context options from that cfg (the memory service's parser). */
  configFrom: (cfg: OpenClawConfig | undefined) => EthosContextConfig;
};

export function createTriageHook(deps: TriageHookDeps) {
  /** Workspace of each agent's last bootstrap, for agents whose workspace config does not state. */
  const workspaceByAgent = new Map<string, string>();

  function classify(event: MessageReceivedEvent): MessageTurn {
    const sessionKey = sessionKeyOf(event);
    const cfg = deps.cfg();
    const config = deps.configFrom(cfg);
    return { sessionKey, cfg, config, classification: classifyForRetrieval(sessionKey, cfg, config) };
  }

  const resolver = {
    /** Only the operator's own sessions, and only with triage on; else undefined (nothing is written). */
    operatorWorkspaceForMessage(_event: MessageReceivedEvent, turn?: MessageTurn): string | undefined {
      if (!turn || !turn.config.triage || !isOperatorSession(turn.classification.type)) return undefined;
      const agentId = turn.classification.agentId;
      return agentId ? workspaceByAgent.get(boundedId(agentId)) ?? configuredWorkspace(turn.cfg, agentId) : undefined;
    },
  };

  return {
    /** agent:bootstrap: remember the agent's workspace (the event carries it, message:received does not). */
    onAgentBootstrap(event: unknown): void {
      try {
        if (!isAgentBootstrapEvent(event)) return;
        const workspaceDir = event.context.workspaceDir;
        if (typeof workspaceDir !== "string" || !workspaceDir) return;
        const cfg = deps.cfg();
        const agentId = typeof event.context.agentId === "string" && event.context.agentId ? event.context.agentId : classifyForRetrieval(sessionKeyOf(event), cfg, deps.configFrom(cfg)).agentId;
        if (!agentId) return;
        const key = boundedId(agentId);
        workspaceByAgent.delete(key);
        workspaceByAgent.set(key, workspaceDir);
        if (workspaceByAgent.size > MAX_REMEMBERED_AGENTS) {
          const oldest = workspaceByAgent.keys().next().value;
          if (oldest !== undefined) workspaceByAgent.delete(oldest);
        }
      } catch {
        // an event whose fields throw: nothing to remember
      }
    },
    /** message:received: one classification, then triage in the background. The promise never rejects. */
    onMessageReceived(event: unknown): Promise<void> {
      try {
        if (!isMessageReceivedEvent(event)) return Promise.resolve();
        return startInboundTriage(event, resolver, classify(event));
      } catch (error) {
        getLogger(HOOK_KEYS.ethosContext).warn({ err: error instanceof Error ? error.message : String(error) }, "triage (plugin): failed; turn continues");
        return Promise.resolve();
      }
    },
  };
}
