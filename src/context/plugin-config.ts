// The plugin's config (`plugins.entries.openclaw-context.config`): its own switches, plus the option
// objects of the file sets (aciBootstrap) and of memory (ethosContext), which the core reads from
// `hooks.internal.entries` of openclaw.json, where the hook pack keeps them. configView() places
// them there, so every service reads the plugin's settings without knowing where they came from.
import { z } from "zod";
import { aciBootstrapConfigSchema } from "../bootstrap/policy.ts";
import { parseConfigOrDefaults } from "../core/config.ts";
import type { ConfigIssue, ParseOptions } from "../core/config.ts";
import { isObject } from "../host/events.ts";
import type { OpenClawConfig } from "../host/events.ts";
import { HOOK_KEYS, PLUGIN_ID } from "../host/ids.ts";
import { EthosContextConfigSchema } from "./config.ts";

export const PluginConfigSchema = z
  .object({
    enabled: z.boolean().default(true).describe("false: nothing of this plugin changes a turn; the next turn is OpenClaw's default (the rollback switch)."),
    bootstrap: z.boolean().default(true).describe("Session-aware bootstrap file sets, SOUL.md for subagents, HEARTBEAT.md for cron runs."),
    memory: z.boolean().default(true).describe("This turn's memory block (runtime-context carrier, else prependContext) and \"remember that …\" capture."),
    waitMs: z.number().int().min(0).max(10_000).default(1000).describe("Longest wait for this turn's memory before the turn goes on without it (ms)."),
    subagentSoul: z.boolean().default(true).describe("Give subagents SOUL.md (identity and Wisdom)."),
    heartbeatNotes: z.boolean().default(true).describe("Give cron and heartbeat runs HEARTBEAT.md."),
    maintenance: z
      .boolean()
      .default(true)
      .describe("Run the maintenance pass (corrections, conflicts, archive, SOUL.md proposals) on the CONFIG.md schedule inside the gateway."),
    // Checked here, with the key paths the operator wrote; the services read what passed.
    aciBootstrap: aciBootstrapConfigSchema
      .prefault({})
      .describe("Options of the session-aware file sets: ownerIds, fileSets, topicFiles, maxFileBytes, hostVersion."),
    ethosContext: EthosContextConfigSchema.prefault({}).describe(
      "Options of memory retrieval and capture: scope (sessionTypes, groups, ownerIds), searchTopK, confidenceGate, maxTokensBySessionType, triage, backend, …",
    ),
  })
  .strict();

/** The plugin's settings; the two option objects as the operator wrote them, minus every key that failed the check. */
export type PluginConfig = Omit<z.output<typeof PluginConfigSchema>, "aciBootstrap" | "ethosContext"> & {
  aciBootstrap: Record<string, unknown>;
  ethosContext: Record<string, unknown>;
};

/** Where the operator writes the plugin's settings (every message names paths below it). */
export const PLUGIN_CONFIG_PATH = `plugins.entries.${PLUGIN_ID}.config`;

export type ParsedPluginConfig = { config: PluginConfig; error?: string; issues: ConfigIssue[]; input: Record<string, unknown> };

/**
 * The plugin's config, nested option objects included: each bad key is named by its path under
 * PLUGIN_CONFIG_PATH and logged once per load; the option objects handed to the services hold only
 * the keys that passed, so the services find nothing more to report.
 */
export function parsePluginConfig(raw: unknown, options: ParseOptions = {}): ParsedPluginConfig {
  const result = parseConfigOrDefaults(PluginConfigSchema, raw ?? {}, PLUGIN_CONFIG_PATH, PLUGIN_ID, options);
  const input = isObject(result.input) ? result.input : {};
  const passed = (key: string) => (isObject(input[key]) ? (input[key] as Record<string, unknown>) : {});
  const config: PluginConfig = { ...result.config, aciBootstrap: passed("aciBootstrap"), ethosContext: passed("ethosContext") };
  return { config, error: result.error, issues: result.issues, input };
}

/**
 * openclaw.json as the core should see it: the hooks' entries replaced by the plugin's option
 * objects, switched off where the plugin's switches say so. Never mutates `cfg`.
 */
export function configView(cfg: OpenClawConfig | undefined, config: PluginConfig): OpenClawConfig {
  const base: OpenClawConfig = isObject(cfg) ? cfg : {};
  const hooks = isObject(base.hooks) ? base.hooks : {};
  const internal = isObject(hooks.internal) ? hooks.internal : {};
  const entries = isObject(internal.entries) ? internal.entries : {};
  return {
    ...base,
    hooks: {
      ...hooks,
      internal: {
        ...internal,
        enabled: true,
        entries: {
          ...entries,
          [HOOK_KEYS.aciBootstrap]: { ...config.aciBootstrap, enabled: config.enabled && config.bootstrap },
          [HOOK_KEYS.ethosContext]: { ...config.ethosContext, enabled: config.enabled && config.memory },
        },
      },
    },
  };
}

/**
 * The view of the host's current config, built once per config object: the host hands the same
 * object on every turn until openclaw.json changes, so one config change costs one view.
 */
export function createConfigViews(config: PluginConfig): (cfg: OpenClawConfig | undefined) => OpenClawConfig {
  let last: { cfg: OpenClawConfig | undefined; view: OpenClawConfig } | undefined;
  return (cfg) => {
    if (last && last.cfg === cfg) return last.view;
    last = { cfg, view: configView(cfg, config) };
    return last.view;
  };
}
