// The installed plugin as the status report sees it: is it installed (its entry in
// openclaw.json, its folder under <state dir>/extensions), its switches, which channel carries memory.
// Read from files, as the gateway will on its next start.
import fs from "node:fs";
import path from "node:path";
import { describeDelivery, engineSelection, pluginEntry } from "../context/delivery.ts";
import { openClawStateDir } from "../core/paths.ts";
import { isObject } from "../host/events.ts";
import type { OpenClawConfig } from "../host/events.ts";
import { parsePluginConfig } from "../context/plugin-config.ts";
import { PLUGIN_ID } from "../host/ids.ts";

export type PluginPackageStatus = {
  id: string;
  /** Where `openclaw plugins install` put it, when that folder exists. */
  installDir?: string;
  /** Its entry in plugins.entries: present, and not switched off there. */
  entry: "enabled" | "disabled" | "absent";
  /** The section's lines (packageSection). */
  lines: string[];
};

/** The package's switches and memory channel (also `openclaw context status`'s first lines since the first slice). */
export function packageSection(cfg: OpenClawConfig | undefined, pluginId = PLUGIN_ID): string {
  const entry = pluginEntry(cfg, pluginId);
  const { config, issues } = parsePluginConfig(entry?.config, { report: false });
  const selection = engineSelection(cfg, pluginId);
  const access = isObject(entry?.hooks) && entry.hooks.allowConversationAccess === true;
  const delivery =
    selection.kind === "ours" || access
      ? describeDelivery(selection)
      : `none (plugins.entries.${pluginId}.hooks.allowConversationAccess is not true and the context engine is not selected)`;
  return [
    `Plugin (${pluginId})`,
    `  entry: ${entry ? (entry.enabled === false ? "disabled in plugins.entries" : "enabled in plugins.entries") : "not in plugins.entries (not installed with openclaw plugins install)"}`,
    `  switches: enabled ${config.enabled}, bootstrap ${config.bootstrap}, memory ${config.memory}${issues.length ? ` (${issues.length} key(s) ignored: see Config below)` : ""}`,
    `  memory delivery: ${config.enabled && config.memory ? delivery : "off"}`,
  ].join("\n");
}

/** The package, if openclaw.json has its entry or <state dir>/extensions holds its folder; else undefined. */
export function pluginPackageStatus(cfg: OpenClawConfig | undefined, env: NodeJS.ProcessEnv = process.env, pluginId = PLUGIN_ID): PluginPackageStatus | undefined {
  const entry = pluginEntry(cfg, pluginId);
  const dir = path.join(openClawStateDir(env), "extensions", pluginId);
  const installDir = fs.existsSync(path.join(dir, "openclaw.plugin.json")) ? dir : undefined;
  if (!entry && !installDir) return undefined;
  return { id: pluginId, installDir, entry: entry ? (entry.enabled === false ? "disabled" : "enabled") : "absent", lines: packageSection(cfg, pluginId).split("\n") };
}
