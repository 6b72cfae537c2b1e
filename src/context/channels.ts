// Which channel carries what, per session type and artifact: the bootstrap records (Project Context,
// inside the cached system prompt), this turn's memory (the plugin's runtime-context carrier or
// prependContext; the hook pack's record), and the plugin's static text (SOUL.md for subagents,
// HEARTBEAT.md for cron runs). Read from the same rules the adapters act on: the delivery rule
// (delivery.ts), the hooks' switches (hookEnabled) and the retrieval scope; the host facts behind
// each cell are rows of HOOK_ASSUMPTIONS.md.
import type { OpenClawConfig } from "../host/events.ts";
import { hookEnabled, resolveHookConfig } from "../host/hook-config.ts";
import { HOOK_KEYS, PLUGIN_ID } from "../host/ids.ts";
import { pluginServesHost } from "../host/version.ts";
import type { SessionClassification, SessionType } from "../session/types.ts";
import { parseEthosContextConfig } from "./config.ts";
import { describeDelivery, engineSelection, pluginEntry } from "./delivery.ts";
import { configView, parsePluginConfig } from "./plugin-config.ts";
import { resolveRetrievalScope } from "./scope.ts";

/** The two artifacts: the hook pack on OpenClaw 2026.3, the plugin on 2026.9+. */
const HOST_SETUPS = ["2026.3 hook pack", "2026.9+ plugin"] as const;
export type HostSetup = (typeof HOST_SETUPS)[number];

type Channels = {
  /** Workspace files as bootstrap records, after the host's own filters. */
  bootstrapRecords: string[];
  /** Per-turn memory: where it goes, or why there is none. */
  memory: string;
  /** Static text through the plugin (engine systemPromptAddition or appendSystemContext / prependContext). */
  systemText?: string;
  prependContext?: string;
};

export type ChannelRow = { sessionType: SessionType; sessionKey: string; setups: Record<HostSetup, Channels> };

/** openclaw.json as each artifact's handlers read it (the plugin's settings moved into the hooks' entries). */
function configFor(setup: HostSetup, cfg: OpenClawConfig | undefined): OpenClawConfig | undefined {
  if (setup === "2026.3 hook pack" || !cfg) return cfg;
  return configView(cfg, parsePluginConfig(pluginEntry(cfg)?.config, { report: false }).config);
}

/**
 * One session's channels under each artifact. `filesByVersion` is aci-bootstrap's injected set as
 * explain computes it for that host version ("2026.3.13" / "2026.9.6"). Without a config, the
 * recommended install (both hooks on; the plugin's engine selected).
 */
export function channelsFor(input: {
  classification: SessionClassification;
  sessionKey: string;
  cfg?: OpenClawConfig;
  filesByVersion: { "2026.3.13": string[]; "2026.9.6": string[] };
}): ChannelRow {
  const { classification, cfg } = input;
  const type = classification.type;
  const memoryOf = (setup: HostSetup): string | undefined => {
    const view = configFor(setup, cfg);
    if (view && !hookEnabled(view, HOOK_KEYS.ethosContext)) return "none (memory switched off)";
    const scope = resolveRetrievalScope(classification, parseEthosContextConfig(resolveHookConfig(view, HOOK_KEYS.ethosContext)).config);
    return scope.allowed ? undefined : `none (${scope.reason})`;
  };
  const hookPack: Channels = {
    bootstrapRecords: input.filesByVersion["2026.3.13"],
    // 2026.3.13 writes prependContext into the transcript: the hook pack's record is the delivery there.
    memory: memoryOf("2026.3 hook pack") ?? "ETHOS_CONTEXT.md bootstrap record (same turn; changes the system prompt)",
  };
  const plugin: Channels = {
    bootstrapRecords: input.filesByVersion["2026.9.6"],
    memory: memoryOf("2026.9+ plugin") ?? describeDelivery(cfg ? engineSelection(cfg, PLUGIN_ID) : { kind: "ours", engineId: PLUGIN_ID }),
    ...(type === "SUBAGENT" ? { systemText: "SOUL.md" } : {}),
    ...(type === "HEARTBEAT_CRON" ? { systemText: "HEARTBEAT.md" } : {}),
    ...(type === "MAIN_SESSION" ? { prependContext: "HEARTBEAT.md on heartbeat runs only" } : {}),
  };
  return { sessionType: type, sessionKey: input.sessionKey, setups: { "2026.3 hook pack": hookPack, "2026.9+ plugin": plugin } };
}

function cell(channels: Channels): string {
  const parts = [`record: ${channels.bootstrapRecords.join(", ") || "(none)"}`, `memory: ${channels.memory}`];
  if (channels.systemText) parts.push(`system text: ${channels.systemText}`);
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

/** The artifact a host version runs: the plugin from 2026.9 on, the hook pack before. */
export function currentSetup(hostVersion: string): HostSetup {
  return pluginServesHost(hostVersion) ? "2026.9+ plugin" : "2026.3 hook pack";
}
