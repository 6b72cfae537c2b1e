// From the retired setup to the plugin (OpenClaw 2026.9+). Before the plugin, `install-hooks` put the
// hook pack AND the companion plugin (`openclaw-context-companion`, linked from the pack) into a 9.x
// gateway. `install-hooks` now installs the plugin there; an operator who has the old pair is moved
// over by the same command:
//   - the settings come along: the hooks' entries (hooks.internal.entries.aci-bootstrap and
//     .ethos-context, minus OpenClaw's own keys) become the plugin's aciBootstrap / ethosContext,
//     the companion's switches (memory, waitMs, subagentSoul, heartbeatNotes) the plugin's;
//   - the pack's files go, and the companion's and the hooks' keys leave openclaw.json;
//   - the install record keeps openclaw.json as it was before the FIRST install, so uninstall still
//     puts the file back byte for byte; it also records the migration, which `status` reports.
import { isObject } from "../host/events.ts";
import { COMPANION_PLUGIN_ID, HOOK_KEYS, PLUGIN_ID } from "../host/ids.ts";
import { childObject, editOpenClawJson, readOpenClawJson, revertHookState } from "./openclaw-json.ts";
import type { InstallParams, UnitRecord } from "./install-unit.ts";

/** The retired setup's units in an install record. */
export const RETIRED_UNIT_IDS = ["hook-pack", "companion-plugin"] as const;

/** The companion's own switches, carried to the plugin's config under the same names. */
const COMPANION_SWITCHES = ["memory", "waitMs", "subagentSoul", "heartbeatNotes"] as const;

/** What `status` says about a migration (kept in the install record). */
export type MigrationRecord = { at: string; from: string[]; carried: string[] };

/** Does openclaw.json still configure the retired companion plugin? */
function hasCompanion(config: Record<string, unknown> | undefined): boolean {
  const plugins = isObject(config?.plugins) ? config.plugins : undefined;
  return [plugins?.entries, plugins?.installs].some((map) => isObject(map) && COMPANION_PLUGIN_ID in map);
}

function hookOptions(config: Record<string, unknown>, hookKey: string): Record<string, unknown> {
  const entry = (config.hooks as { internal?: { entries?: Record<string, unknown> } } | undefined)?.internal?.entries?.[hookKey];
  if (!isObject(entry)) return {};
  const { enabled: _enabled, env: _env, ...options } = entry;
  return options;
}

/**
 * The plugin's config as the retired setup configured it (plugins.entries.openclaw-context.config),
 * and the key paths carried, for the record.
 */
export function carriedSettings(config: Record<string, unknown>): { settings: Record<string, unknown>; carried: string[] } {
  const settings: Record<string, unknown> = {};
  const carried: string[] = [];
  const aci = hookOptions(config, HOOK_KEYS.aciBootstrap);
  const ethos = hookOptions(config, HOOK_KEYS.ethosContext);
  if (Object.keys(aci).length > 0) {
    settings.aciBootstrap = aci;
    carried.push(...Object.keys(aci).map((key) => `hooks.internal.entries.${HOOK_KEYS.aciBootstrap}.${key} → aciBootstrap.${key}`));
  }
  if (Object.keys(ethos).length > 0) {
    settings.ethosContext = ethos;
    carried.push(...Object.keys(ethos).map((key) => `hooks.internal.entries.${HOOK_KEYS.ethosContext}.${key} → ethosContext.${key}`));
  }
  const companion = (config.plugins as { entries?: Record<string, { config?: unknown }> } | undefined)?.entries?.[COMPANION_PLUGIN_ID]?.config;
  if (isObject(companion)) {
    for (const key of COMPANION_SWITCHES) {
      if (companion[key] === undefined) continue;
      settings[key] = companion[key];
      carried.push(`plugins.entries.${COMPANION_PLUGIN_ID}.config.${key} → ${key}`);
    }
  }
  // A hook switched off stays off: the plugin's own switch for that half.
  const entries = (config.hooks as { internal?: { entries?: Record<string, { enabled?: unknown }> } } | undefined)?.internal?.entries;
  if (entries?.[HOOK_KEYS.aciBootstrap]?.enabled === false) {
    settings.bootstrap = false;
    carried.push(`hooks.internal.entries.${HOOK_KEYS.aciBootstrap}.enabled false → bootstrap false`);
  }
  if (entries?.[HOOK_KEYS.ethosContext]?.enabled === false) {
    settings.memory = false;
    carried.push(`hooks.internal.entries.${HOOK_KEYS.ethosContext}.enabled false → memory false`);
  }
  return { settings, carried };
}

/** Take the companion's and the hooks' keys out of a parsed openclaw.json (their settings were carried). */
export function removeRetiredKeys(config: Record<string, unknown>, hookState: Parameters<typeof revertHookState>[1]): boolean {
  let changed = false;
  const plugins = isObject(config.plugins) ? config.plugins : undefined;
  if (plugins) {
    for (const key of ["entries", "installs"]) {
      const map = plugins[key];
      if (isObject(map) && COMPANION_PLUGIN_ID in map) {
        delete map[COMPANION_PLUGIN_ID];
        changed = true;
      }
    }
    const slots = isObject(plugins.slots) ? plugins.slots : undefined;
    if (slots?.contextEngine === COMPANION_PLUGIN_ID) {
      delete slots.contextEngine;
      changed = true;
    }
    const load = isObject(plugins.load) ? plugins.load : undefined;
    if (load && Array.isArray(load.paths)) {
      const kept = load.paths.filter((entry) => !(typeof entry === "string" && /openclaw-context[\\/]plugin[\\/]?$/.test(entry)));
      if (kept.length !== load.paths.length) {
        load.paths = kept;
        changed = true;
      }
    }
  }
  const internal = (config.hooks as { internal?: Record<string, unknown> } | undefined)?.internal;
  const entries = isObject(internal?.entries) ? internal.entries : undefined;
  for (const hookKey of [HOOK_KEYS.aciBootstrap, HOOK_KEYS.ethosContext]) {
    // Its options are in the plugin's config now; only `enabled` is restored to its pre-install state.
    const entry = entries?.[hookKey];
    if (isObject(entry)) {
      for (const key of Object.keys(entry)) {
        if (key === "enabled") continue;
        delete entry[key];
        changed = true;
      }
    }
  }
  changed = revertHookState(config, hookState, [HOOK_KEYS.aciBootstrap, HOOK_KEYS.ethosContext]) || changed;
  const installs = isObject(internal?.installs) ? internal.installs : undefined;
  if (installs && PLUGIN_ID in installs) {
    delete installs[PLUGIN_ID];
    changed = true;
  }
  return changed;
}

/** After the plugin is installed: its config from the carried settings (merged under what is there). */
export async function applyCarriedSettings(params: Pick<InstallParams, "configPath" | "log">, settings: Record<string, unknown>): Promise<void> {
  if (Object.keys(settings).length === 0) return;
  const edit = await editOpenClawJson(params.configPath, (config) => {
    const target = childObject(childObject(childObject(childObject(config, "plugins"), "entries"), PLUGIN_ID), "config");
    let changed = false;
    for (const [key, value] of Object.entries(settings)) {
      if (target[key] !== undefined) continue; // the plugin's own setting wins
      target[key] = value;
      changed = true;
    }
    return changed;
  });
  if (edit.changed) params.log(`plugins.entries.${PLUGIN_ID}.config: the hook pack's and the companion's settings carried over (${Object.keys(settings).join(", ")})`);
}

/** The retired units' records, when the install record (or openclaw.json) shows the old pair. */
export async function retiredUnits(configPath: string, units: Record<string, UnitRecord> | undefined): Promise<string[]> {
  const recorded = RETIRED_UNIT_IDS.filter((id) => units?.[id] && units[id]!.installed !== false);
  if (recorded.length > 0) return recorded;
  return hasCompanion(await readOpenClawJson(configPath).catch(() => undefined)) ? ["companion-plugin"] : [];
}
