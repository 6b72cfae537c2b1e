import { z } from "zod";
import { readWorkspaceFile } from "../bootstrap/workspace-read.ts";
import { parseConfigOrDefaults } from "../core/config.ts";
import type { SessionClassification } from "../session/types.ts";
import type { Log } from "./service.ts";

// What the companion plugin adds besides memory, and its config. Everything here is static per
// workspace (the same bytes on every run until the file changes), so a system-prompt placement
// stays cacheable:
//   - a subagent gets SOUL.md (identity and Wisdom; the ACI subagent set) as appendSystemContext,
//     because 2026.9 strips SOUL.md from a subagent's bootstrap after hooks run; never USER.md,
//     MEMORY.md or memories;
//   - a cron run (its own `…:cron:…` session) gets HEARTBEAT.md as appendSystemContext;
//   - a heartbeat run in a long-lived session (main) gets HEARTBEAT.md as prependContext instead, so
//     that session's system prompt stays byte-identical between heartbeat and user turns.

export const PLUGIN_ID = "openclaw-context-companion";

export const PluginConfigSchema = z
  .object({
    /** Deliver this turn's memory block as prependContext. */
    memory: z.boolean().default(true),
    /** Longest wait for this turn's memory (retrieval and composer) before the turn goes on without it. */
    waitMs: z.number().int().min(0).max(10_000).default(1000),
    /** SOUL.md for subagents through appendSystemContext. */
    subagentSoul: z.boolean().default(true),
    /** HEARTBEAT.md for cron and heartbeat runs. */
    heartbeatNotes: z.boolean().default(true),
    /** Folder of the installed hook pack (read by index.js; kept here so the schema stays strict). */
    bundleDir: z.string().min(1).optional(),
  })
  .strict();

export type PluginConfig = z.output<typeof PluginConfigSchema>;

export function parsePluginConfig(raw: unknown, log?: Log): PluginConfig {
  const result = parseConfigOrDefaults(PluginConfigSchema, raw ?? {}, `plugins.entries.${PLUGIN_ID}.config`, PLUGIN_ID);
  if (log && result.error) log.error({ error: result.error }, "invalid plugin config: the bad keys are ignored, every valid one applies");
  return result.config;
}

/** Static files are small; anything larger is left out (and logged), never cut mid-way. */
export const MAX_STATIC_FILE_BYTES = 64 * 1024;

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
  config: PluginConfig;
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
