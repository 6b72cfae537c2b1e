// The on-demand index (ACI spec AC-3, AC-9): one short line, appended to a record the session
// keeps, that names the workspace files its set left out and when to read them. Without it a forum
// topic asked to "spawn Melody" has no AGENTS.md and nothing that says it exists.
//
// The line is built from the session type, the set and which files exist, so it is byte-identical
// from turn to turn (the provider's cached prefix keeps). It rides on SOUL.md: the one record every
// default set holds that survives the host's post-hook filters on both versions (2026.9.6 keeps only
// AGENTS/SOUL/IDENTITY/USER for cron runs, so a record of its own would not reach them; HOOK_ASSUMPTIONS
// `postHookKeeps_cron`). A file SOUL.md already points to (the required memory entry, the Phase 4
// "read TOOLS.md" line) is not named again.
import { estimateTokens } from "../core/tokens.ts";
import type { BootstrapFileRecord } from "../host/events.ts";
import type { SessionType } from "../session/types.ts";
import { ALWAYS_KEPT } from "./policy.ts";
import { soulPointsTo } from "./soul-instructions.ts";
import { workspaceFileExists } from "./workspace-read.ts";

/** What each on-demand file holds, in the order the line names them. */
export const ON_DEMAND_FILES: readonly { name: string; when: string }[] = [
  { name: "AGENTS.md", when: "dispatching agents" },
  { name: "TOOLS.md", when: "tool details" },
  { name: "MEMORY.md", when: "long-term memory; or memory_search" },
];

/** MEMORY.md is named only where its content may go (the privacy rule): the operator's own sessions. */
const MEMORY_SESSIONS: ReadonlySet<SessionType> = new Set(["MAIN_SESSION", "PRIVATE_DM"]);

// Short on purpose: it rides on every turn of the sessions that lost files, main included (17 tokens
// there on the sample workspace; that set stays within the spec's 500).
const ON_DEMAND_PREFIX = "On demand:";
/** Spec budget for the line (issue 28): it must not cost the set more than this. */
export const MAX_ON_DEMAND_TOKENS = 60;

export function onDemandLine(names: readonly string[]): string {
  const parts = ON_DEMAND_FILES.filter((file) => names.includes(file.name)).map((file) => `${file.name} (${file.when})`);
  return `${ON_DEMAND_PREFIX} ${parts.join(", ")}.`;
}

export type OnDemandResult = {
  files: BootstrapFileRecord[];
  /** Files the line names (empty: no line). */
  names: string[];
  /** The record the line was appended to. */
  carrier?: string;
  text?: string;
  tokens: number;
};

function hasText(record: BootstrapFileRecord): record is BootstrapFileRecord & { content: string } {
  return !record.missing && typeof record.content === "string" && record.content.trim().length > 0;
}

/**
 * Append the line to the carrier of `files` (SOUL.md, else the first other record the host keeps).
 * `hostDropped` are the names the host removes after hooks for this session. The carrier is
 * replaced by a copy; the other records stay the same objects.
 */
export async function withOnDemandIndex(input: {
  files: BootstrapFileRecord[];
  sessionType: SessionType;
  workspaceDir: string | undefined;
  hostDropped: readonly string[];
}): Promise<OnDemandResult> {
  const { files, sessionType, workspaceDir } = input;
  const none: OnDemandResult = { files, names: [], tokens: 0 };
  if (!workspaceDir) return none;
  const reaching = files.filter((record) => !input.hostDropped.includes(record.name));
  const carrier = reaching.find((record) => record.name === "SOUL.md" && hasText(record)) ?? reaching.find((record) => !ALWAYS_KEPT.has(record.name) && hasText(record));
  if (!carrier) return none;

  const injected = new Set(reaching.filter((record) => !record.missing).map((record) => record.name));
  const soul = reaching.find((record) => record.name === "SOUL.md" && hasText(record));
  const covered = soul ? soulPointsTo(soul.content as string) : { memory: false, tools: false };
  const names: string[] = [];
  for (const { name } of ON_DEMAND_FILES) {
    if (injected.has(name)) continue;
    if (name === "MEMORY.md" && (!MEMORY_SESSIONS.has(sessionType) || covered.memory)) continue;
    if (name === "TOOLS.md" && covered.tools) continue;
    if (await workspaceFileExists(workspaceDir, name)) names.push(name);
  }
  if (names.length === 0) return none;

  const text = onDemandLine(names);
  const content = `${(carrier.content as string).trimEnd()}\n\n${text}\n`;
  return {
    files: files.map((record) => (record === carrier ? { ...record, content } : record)),
    names,
    carrier: carrier.name,
    text,
    tokens: estimateTokens(content) - estimateTokens((carrier.content as string).trimEnd()),
  };
}
