// The packaged plugin's config (`plugins.entries.openclaw-context.config`): its own switches, plus
// the two hooks' option objects, which src/ services read from `hooks.internal.entries` of
// openclaw.json. configView() places them there, so every service reads the plugin's settings
// without knowing where they came from.
import { z } from "zod";
import { parseConfigOrDefaults } from "../core/config.ts";
import { HOOK_KEYS } from "../host/ids.ts";
import { isObject } from "../host/events.ts";
import type { OpenClawConfig } from "../host/events.ts";

export const PACKAGE_PLUGIN_ID = "openclaw-context";

export const PackageConfigSchema = z
  .object({
    /** false: nothing of this plugin changes a turn (rollback to OpenClaw's default on the next turn). */
    enabled: z.boolean().default(true),
    /** Session-aware bootstrap file sets (aci-bootstrap), SOUL.md for subagents, HEARTBEAT.md for cron. */
    bootstrap: z.boolean().default(true),
    /** This turn's memory block (runtime-context carrier, else prependContext). */
    memory: z.boolean().default(true),
    waitMs: z.number().int().min(0).max(10_000).default(1000),
    subagentSoul: z.boolean().default(true),
    heartbeatNotes: z.boolean().default(true),
    /** The maintenance pass on the CONFIG.md schedule, inside the gateway (src/lifecycle). */
    maintenance: z.boolean().default(true),
    /** Options of the aci-bootstrap hook (same keys as `hooks.internal.entries.aci-bootstrap`). */
    aciBootstrap: z.record(z.string(), z.unknown()).default({}),
    /** Options of the ethos-context hook (same keys as `hooks.internal.entries.ethos-context`). */
    ethosContext: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

export type PackageConfig = z.output<typeof PackageConfigSchema>;

export function parsePackageConfig(raw: unknown): { config: PackageConfig; error?: string } {
  const result = parseConfigOrDefaults(PackageConfigSchema, raw ?? {}, `plugins.entries.${PACKAGE_PLUGIN_ID}.config`, PACKAGE_PLUGIN_ID);
  return { config: result.config, error: result.error };
}

/** The companion adapter's own part of the config (its schema is strict, so only its keys). */
export function companionConfigOf(config: PackageConfig): Record<string, unknown> {
  return { memory: config.memory, waitMs: config.waitMs, subagentSoul: config.subagentSoul, heartbeatNotes: config.heartbeatNotes };
}

/**
 * openclaw.json as src/ services should see it: the hooks' entries replaced by this plugin's
 * option objects, switched off where the plugin's switches say so. Never mutates `cfg`.
 */
export function configView(cfg: OpenClawConfig | undefined, config: PackageConfig): OpenClawConfig {
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
