import { readWorkspaceFile } from "../bootstrap/workspace-read.ts";
import type { SessionClassification } from "../session/types.ts";
import type { Log } from "../core/log.ts";

// What the plugin adds besides memory. Everything here is static per workspace (the same bytes on
// every run until the file changes), so a system-prompt placement stays cacheable:
//   - a subagent gets SOUL.md (identity and Wisdom; the ACI subagent set), because 2026.9 strips
//     SOUL.md from a subagent's bootstrap after hooks run; never USER.md, MEMORY.md or memories;
//   - a cron run (its own `…:cron:…` session) gets HEARTBEAT.md;
//   - a heartbeat run in a long-lived session (main) gets HEARTBEAT.md as prependContext instead, so
//     that session's system prompt stays byte-identical between heartbeat and user turns.
// The first two go through the context engine's systemPromptAddition when ours is selected, else
// through before_prompt_build's appendSystemContext.

/** The plugin's switches for static context (plugins.entries.openclaw-context.config). */
export type StaticContextSwitches = { subagentSoul: boolean; heartbeatNotes: boolean };

/** Static files are small; anything larger is left out (and logged), never cut mid-way. */
const MAX_STATIC_FILE_BYTES = 64 * 1024;

async function workspaceSection(workspaceDir: string, name: string, log: Log): Promise<string | undefined> {
  const read = await readWorkspaceFile(workspaceDir, name, MAX_STATIC_FILE_BYTES);
  if (!read.ok) {
    if (read.reason !== "missing") log.warn({ file: name, reason: read.reason }, "workspace file not delivered");
    return undefined;
  }
  const content = read.content.trim();
  return content ? `## ${name}\n\n${content}\n` : undefined;
}

export type StaticContext = { appendSystemContext?: string; prependContext?: string };

export async function staticContextFor(input: {
  classification: SessionClassification;
  trigger: string;
  workspaceDir: string;
  config: StaticContextSwitches;
  log: Log;
}): Promise<StaticContext> {
  const { classification, trigger, workspaceDir, config, log } = input;
  if (classification.type === "SUBAGENT") {
    if (!config.subagentSoul) return {};
    const soul = await workspaceSection(workspaceDir, "SOUL.md", log);
    return soul ? { appendSystemContext: soul } : {};
  }
  if (!config.heartbeatNotes) return {};
  if (classification.type === "HEARTBEAT_CRON") {
    const notes = await workspaceSection(workspaceDir, "HEARTBEAT.md", log);
    return notes ? { appendSystemContext: notes } : {};
  }
  if (trigger === "heartbeat" || trigger === "cron") {
    const notes = await workspaceSection(workspaceDir, "HEARTBEAT.md", log);
    return notes ? { prependContext: notes } : {};
  }
  return {};
}
