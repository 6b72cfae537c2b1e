// Shared by the hardening tests: the host's full list for a workspace, and events around it.
import path from "node:path";
import type { AgentBootstrapEvent } from "../../../src/host/events.ts";

export const CORE_NAMES = ["AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "MEMORY.md"] as const;
export const PRIVATE_NAMES = new Set(["USER.md", "MEMORY.md"]);

/** What OpenClaw hands the hook before any filtering: every core file, inline content. */
export function hostList(workspaceDir: string): Array<{ name: string; path: string; content: unknown; missing: boolean }> {
  return CORE_NAMES.map((name) => ({ name, path: path.join(workspaceDir, name), content: `# ${name}\nsentinel ${name}\n`, missing: false }));
}

export function bootstrapEvent(workspaceDir: string, sessionKey: string, overrides: { cfg?: unknown; files?: unknown[] } = {}): AgentBootstrapEvent {
  return {
    type: "agent",
    action: "bootstrap",
    sessionKey,
    context: { workspaceDir, bootstrapFiles: overrides.files ?? hostList(workspaceDir), cfg: (overrides.cfg ?? {}) as never, sessionKey, agentId: "main" },
    messages: [],
  } as AgentBootstrapEvent;
}

export function namesOf(files: unknown): string[] {
  return Array.isArray(files) ? files.map((file) => String((file as { name?: unknown }).name)) : [];
}

/** A session key for each non-owner type (owner ids: none configured, so every DM is external). */
export const NON_OWNER_KEYS: Record<string, string> = {
  GROUP_CHAT: "agent:main:telegram:group:-100123",
  FORUM_TOPIC: "agent:main:telegram:group:-100123:topic:7",
  EXTERNAL_DM: "agent:main:telegram:direct:999",
  SUBAGENT: "agent:main:subagent:0b7c1d2e-aaaa-bbbb-cccc-000000000001",
  HEARTBEAT_CRON: "agent:main:cron:nightly:run:1",
  FALLBACK: "agent:main:mystery:shape",
};
export const OWNER_KEYS: Record<string, string> = { MAIN_SESSION: "agent:main:main" };
