// Our entries in openclaw.json checked as the code that reads them will, without logging: what
// status and doctor report as "config now".
import { aciBootstrapConfigSchema } from "../bootstrap/policy.ts";
import { EthosContextConfigSchema } from "../context/config.ts";
import { pluginEntry } from "../context/delivery.ts";
import { PLUGIN_CONFIG_PATH, parsePluginConfig } from "../context/plugin-config.ts";
import { parseConfigOrDefaults } from "../core/config.ts";
import type { ConfigIssue } from "../core/config.ts";
import type { OpenClawConfig } from "../host/events.ts";
import { resolveHookConfig } from "../host/hook-config.ts";
import { HOOK_KEYS } from "../host/ids.ts";

/**
 * Every entry of ours in openclaw.json, checked as the code that reads it will (never logged): the
 * plugin's config, nested option objects included, when the plugin has an entry; the hooks' entries
 * when they hold settings or no plugin entry exists (the hook pack reads them).
 */
export function configIssuesNow(cfg: OpenClawConfig | undefined): Record<string, ConfigIssue[]> {
  const issues: Record<string, ConfigIssue[]> = {};
  const plugin = pluginEntry(cfg);
  if (plugin) issues[PLUGIN_CONFIG_PATH] = parsePluginConfig(plugin.config, { report: false }).issues;
  const hooks: [string, Parameters<typeof parseConfigOrDefaults>[0]][] = [
    [HOOK_KEYS.aciBootstrap, aciBootstrapConfigSchema],
    [HOOK_KEYS.ethosContext, EthosContextConfigSchema],
  ];
  for (const [hookKey, schema] of hooks) {
    const entry = resolveHookConfig(cfg, hookKey);
    if (plugin && Object.keys(entry).length === 0) continue;
    issues[`hooks.internal.entries.${hookKey}`] = parseConfigOrDefaults(schema, entry, `hooks.internal.entries.${hookKey}`, hookKey, { report: false }).issues;
  }
  return issues;
}
