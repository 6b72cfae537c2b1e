// Which channel carries what, per session type and host setup: aci-bootstrap's bootstrap records
// (Project Context, inside the cached system prompt), the companion plugin's prependContext (this
// turn's user message only) and appendSystemContext (after the cache boundary, the same text every
// run). Mirrors plugin/adapter.ts + src/context/plugin-turn.ts and the ethos-context hook; the
// host facts behind each cell are rows of HOOK_ASSUMPTIONS.md.
import { resolveHookConfig } from "../host/hook-config.ts";
import type { OpenClawConfig } from "../host/events.ts";
import { HOOK_KEYS } from "../host/ids.ts";
import { parseEthosContextConfig } from "../context/config.ts";
import { resolveRetrievalScope } from "../context/scope.ts";
import { PLUGIN_ID } from "../context/plugin-turn.ts";
import { describeDelivery, engineSelection } from "../context/runtime-carrier.ts";
import type { SessionClassification, SessionType } from "../session/types.ts";

/** The host setups a workspace can run under. */
export const HOST_SETUPS = ["2026.3.13", "2026.9+ with plugin", "2026.9+ without plugin"] as const;
export type HostSetup = (typeof HOST_SETUPS)[number];

export type Channels = {
  /** Workspace files as bootstrap records (aci-bootstrap), after the host's own filters. */
  bootstrapRecords: string[];
  /** Per-turn memory: where it goes, or why there is none. */
  memory: string;
  /** Static text through the plugin's appendSystemContext / prependContext. */
  appendSystemContext?: string;
  prependContext?: string;
};

export type ChannelRow = { sessionType: SessionType; sessionKey: string; setups: Record<HostSetup, Channels> };

/** Whether openclaw.json installs and enables the companion plugin (unknown config: assume the recommended install). */
export function pluginConfigured(cfg: OpenClawConfig | undefined): boolean {
  if (!cfg) return true;
  const plugins = cfg.plugins as { entries?: Record<string, { enabled?: unknown }>; installs?: Record<string, unknown> } | undefined;
  const entry = plugins?.entries?.[PLUGIN_ID];
  return Boolean(entry ?? plugins?.installs?.[PLUGIN_ID]) && entry?.enabled !== false;
}

/**
 * One session's channels under each host setup. `filesByVersion` is aci-bootstrap's injected
 * set as explain computes it for that host version ("2026.3.13" / "2026.9.6").
 */
export function channelsFor(input: {
  classification: SessionClassification;
  sessionKey: string;
  cfg?: OpenClawConfig;
  filesByVersion: { "2026.3.13": string[]; "2026.9.6": string[] };
}): ChannelRow {
  const { classification, cfg } = input;
  const ethosEntry = resolveHookConfig(cfg, HOOK_KEYS.ethosContext);
  // resolveHookConfig drops `enabled`: read the switch from the raw entry.
  const rawEthos = (cfg?.hooks as { internal?: { enabled?: unknown; entries?: Record<string, { enabled?: unknown }> } } | undefined)?.internal;
  const ethosOn = !cfg || (rawEthos?.enabled !== false && rawEthos?.entries?.[HOOK_KEYS.ethosContext]?.enabled === true);
  const scope = resolveRetrievalScope(classification, parseEthosContextConfig(ethosEntry).config);
  const noMemory = !ethosOn ? "none (ethos-context disabled)" : scope.allowed ? undefined : `none (${scope.reason})`;
  const type = classification.type;
  const heartbeat = "HEARTBEAT.md";

  const old: Channels = {
    bootstrapRecords: input.filesByVersion["2026.3.13"],
    // 2026.3.13 writes prependContext into the transcript: the plugin stands aside there.
    memory: noMemory ?? "ETHOS_CONTEXT.md bootstrap record (same turn; changes the system prompt)",
  };
  const withPlugin: Channels = {
    bootstrapRecords: input.filesByVersion["2026.9.6"],
    // Unknown config: the recommended install, which selects the plugin's context engine.
    memory: noMemory ?? (cfg ? describeDelivery(engineSelection(cfg, PLUGIN_ID), PLUGIN_ID) : describeDelivery({ kind: "ours", engineId: PLUGIN_ID }, PLUGIN_ID)),
    ...(type === "SUBAGENT" ? { appendSystemContext: "SOUL.md" } : {}),
    ...(type === "HEARTBEAT_CRON" ? { appendSystemContext: heartbeat } : {}),
    ...(type === "MAIN_SESSION" ? { prependContext: `${heartbeat} on heartbeat runs only` } : {}),
  };
  const without: Channels = {
    bootstrapRecords: input.filesByVersion["2026.9.6"],
    memory: noMemory ?? "ETHOS_CONTEXT.md bootstrap record (inside the cached prefix: re-bills the history)",
  };
  return { sessionType: type, sessionKey: input.sessionKey, setups: { "2026.3.13": old, "2026.9+ with plugin": withPlugin, "2026.9+ without plugin": without } };
}

function cell(channels: Channels): string {
  const parts = [`record: ${channels.bootstrapRecords.join(", ") || "(none)"}`, `memory: ${channels.memory}`];
  if (channels.appendSystemContext) parts.push(`appendSystemContext: ${channels.appendSystemContext}`);
  if (channels.prependContext) parts.push(`prependContext: ${channels.prependContext}`);
  return parts.join(" · ");
}

export function formatChannels(rows: readonly ChannelRow[], current: HostSetup): string {
  const header = HOST_SETUPS.map((setup) => (setup === current ? `**${setup}** (this config)` : setup));
  return [
    "| session type | " + header.join(" | ") + " |",
    "|---|" + HOST_SETUPS.map(() => "---").join("|") + "|",
    ...rows.map((row) => `| ${row.sessionType} | ${HOST_SETUPS.map((setup) => cell(row.setups[setup])).join(" | ")} |`),
  ].join("\n");
}

/** The setup a config describes: its host version and whether the plugin is configured. */
export function currentSetup(hostVersion: string, cfg: OpenClawConfig | undefined): HostSetup {
  if (hostVersion.startsWith("2026.3.")) return "2026.3.13";
  return pluginConfigured(cfg) ? "2026.9+ with plugin" : "2026.9+ without plugin";
}
