// Which workspace an inbound message belongs to, and whether it is the operator's: message:received
// carries neither a workspace nor a cfg, so the hook's runtime and the plugin package both resolve
// it from config (or from the agent's last turn). No state here: importing this module starts nothing.
import path from "node:path";
import { expandHome, openClawStateDir } from "../core/paths.ts";
import { isObject } from "../host/events.ts";
import type { OpenClawConfig } from "../host/events.ts";
import type { SessionType } from "../session/types.ts";
import { boundedId } from "../core/bounded-id.ts";

/** The operator's own sessions: the only ones whose messages are triaged and captured. */
export function isOperatorSession(type: SessionType): boolean {
  return type === "MAIN_SESSION" || type === "PRIVATE_DM";
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

/** Agents whose last workspace is remembered (a gateway runs a handful; the cap only stops a flood). */
const MAX_REMEMBERED_AGENTS = 256;

/**
 * The workspace of each agent's last operator turn, for message-time work (message:received carries
 * no workspace): retrieval started early, triage and capture. Only operator turns teach it: a group's,
 * a subagent's or a cron run's bootstrap may run in a sandbox copy, and the owner's captures must not
 * land there. Bounded: agent ids in their bounded form, the least recently seen agent out first.
 */
export class AgentWorkspaces {
  private readonly byAgent = new Map<string, string>();

  remember(agentId: string, workspaceDir: string): void {
    const key = boundedId(agentId);
    this.byAgent.delete(key);
    this.byAgent.set(key, workspaceDir);
    if (this.byAgent.size > MAX_REMEMBERED_AGENTS) this.byAgent.delete(this.byAgent.keys().next().value as string);
  }

  /** The agent's remembered workspace, else the one config states unambiguously. */
  forAgent(agentId: string | undefined, cfg: OpenClawConfig | undefined): string | undefined {
    if (!agentId) return undefined;
    return this.byAgent.get(boundedId(agentId)) ?? configuredWorkspace(cfg, agentId);
  }
}

/** Every workspace of the gateway's agents: the default one it names, main's, and each agent's explicit `workspace`. */
export function agentWorkspaces(cfg: OpenClawConfig | undefined, defaultDir: string | undefined, env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs = new Set<string>();
  if (defaultDir) dirs.add(path.resolve(defaultDir));
  const main = configuredWorkspace(cfg, "main", env);
  if (main) dirs.add(main);
  const agents = isObject(cfg?.agents) ? cfg.agents : {};
  const list = Array.isArray(agents.list) ? agents.list : [];
  const entries = isObject(agents.entries) ? Object.values(agents.entries) : [];
  for (const agent of [...list, ...entries]) {
    const workspace = isObject(agent) ? agent.workspace : undefined;
    if (typeof workspace === "string" && workspace.trim()) dirs.add(expandUserPath(workspace, env));
  }
  return [...dirs];
}
