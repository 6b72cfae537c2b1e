// The plugin's config (`plugins.entries.openclaw-context.config`): its own switches, plus the option
// objects of the file sets (aciBootstrap) and of memory (ethosContext), which the core reads from
// `hooks.internal.entries` of openclaw.json, where the hook pack keeps them. configView() places
// them there, so every service reads the plugin's settings without knowing where they came from.
import { z } from "zod";
import { parseConfigOrDefaults } from "../core/config.ts";
import { isObject } from "../host/events.ts";
import type { OpenClawConfig } from "../host/events.ts";
import { HOOK_KEYS, PLUGIN_ID } from "../host/ids.ts";

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
    aciBootstrap: z
      .record(z.string(), z.unknown())
      .default({})
      .describe("Options of the file sets: ownerIds, fileSets, topicFiles, … (README, Session-aware bootstrap; docs/session-aware-bootstrap.md)."),
    ethosContext: z
      .record(z.string(), z.unknown())
      .default({})
      .describe("Options of memory retrieval and capture: scope, searchTopK, triage, … (README, Same-turn memory; docs/retrieval.md)."),
  })
  .strict();

export type PluginConfig = z.output<typeof PluginConfigSchema>;

/** Where the operator writes the plugin's settings (every message names paths below it). */
export const PLUGIN_CONFIG_PATH = `plugins.entries.${PLUGIN_ID}.config`;

export function parsePluginConfig(raw: unknown): { config: PluginConfig; error?: string } {
  const result = parseConfigOrDefaults(PluginConfigSchema, raw ?? {}, PLUGIN_CONFIG_PATH, PLUGIN_ID);
  return { config: result.config, error: result.error };
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
