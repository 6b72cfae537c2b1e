import fs from "node:fs/promises";
import path from "node:path";
import { PLUGIN_ID } from "../context/plugin-turn.ts";
import { openClawStateDir } from "../core/paths.ts";
import { isObject } from "../host/events.ts";
import { cliEnvForConfig, runOpenClaw } from "./openclaw-cli.ts";
import { editOpenClawJson } from "./openclaw-json.ts";
import type { InstallParams, InstallUnit, UnitRecord } from "./install-unit.ts";
import { exists } from "./safe-write.ts";

// The companion plugin as an install unit (after the hook pack, so the pack's files are in place).
//   2026.9+: `openclaw plugins install --link <pack>/plugin --force --accept-capabilities`, then
//            plugins.entries.<id>.hooks.allowConversationAccess: true (2026.9 blocks a non-bundled
//            plugin's before_prompt_build without it; `plugins install` does not write it).
//            Linked in place, the plugin runs the installed pack's own src/ (plugin/index.js finds it
//            next to itself): one copy of the code, updated with the pack.
//   2026.3.x: not installed. That host writes prependContext into the transcript and shows it to the
//            user, and rejects the allowConversationAccess key; the hook's record stays the delivery.
// Uninstall needs no file work (nothing was copied): the install snapshot puts openclaw.json back.

const PACK_ID = "openclaw-context";

/** `openclaw --version` → "2026.9.6", or undefined. */
export async function hostVersion(cli: string, params: Pick<InstallParams, "configPath" | "env">): Promise<string | undefined> {
  const result = await runOpenClaw(cli, ["--version"], { env: cliEnvForConfig(params.configPath, params.env) });
  return /(\d{4}\.\d{1,2}\.\d{1,2})/.exec(`${result.stdout}\n${result.stderr}`)?.[1];
}

/** Hosts where the plugin is installed and serves (the same line as plugin/index.js servesHost). */
export function pluginSupported(version: string | undefined): boolean {
  const [year, month] = (version ?? "").split(".").map(Number);
  return Number.isFinite(year) && Number.isFinite(month) && (year > 2026 || (year === 2026 && month >= 9));
}

/** Where the installed pack's plugin/ folder is, for each hook-pack mode. */
export function installedPluginDir(params: Pick<InstallParams, "mode" | "workspace" | "bundleRoot" | "env">): string {
  if (params.mode === "pack") return path.join(openClawStateDir(params.env), "hooks", PACK_ID, "plugin");
  if (params.mode === "link") return path.join(path.resolve(params.bundleRoot), "plugin");
  return path.join(params.workspace, "hooks", PACK_ID, "plugin");
}

/** Set plugins.entries.<id>.hooks.allowConversationAccess: true (9.x only). */
export function allowConversationAccess(config: Record<string, unknown>, pluginId: string = PLUGIN_ID): boolean {
  const plugins = (isObject(config.plugins) ? config.plugins : (config.plugins = {})) as Record<string, unknown>;
  const entries = (isObject(plugins.entries) ? plugins.entries : (plugins.entries = {})) as Record<string, unknown>;
  const entry = (isObject(entries[pluginId]) ? entries[pluginId] : (entries[pluginId] = {})) as Record<string, unknown>;
  const hooks = (isObject(entry.hooks) ? entry.hooks : (entry.hooks = {})) as Record<string, unknown>;
  if (hooks.allowConversationAccess === true) return false;
  hooks.allowConversationAccess = true;
  return true;
}

/**
 * Select the plugin's context engine (`plugins.slots.contextEngine`), which delivers memory as a
 * runtime-context carrier (docs/plugin.md). Only when no other engine is configured: only one engine
 * can be active, and an operator's own engine wins (the plugin then keeps prependContext).
 */
export function selectContextEngine(config: Record<string, unknown>, pluginId: string = PLUGIN_ID): { changed: boolean; engine: string } {
  const plugins = (isObject(config.plugins) ? config.plugins : (config.plugins = {})) as Record<string, unknown>;
  const slots = (isObject(plugins.slots) ? plugins.slots : (plugins.slots = {})) as Record<string, unknown>;
  const current = typeof slots.contextEngine === "string" && slots.contextEngine.trim() ? slots.contextEngine.trim() : "legacy";
  if (current === pluginId) return { changed: false, engine: current };
  if (current !== "legacy") return { changed: false, engine: current };
  slots.contextEngine = pluginId;
  return { changed: true, engine: pluginId };
}

/**
 * The two openclaw.json keys a memory plugin needs after `openclaw plugins install`, which writes
 * neither: conversation access (2026.9 blocks a non-bundled plugin's before_prompt_build without
 * it) and the context-engine slot, unless another engine holds it. Each step is logged.
 */
export async function enableMemoryDelivery(params: Pick<InstallParams, "configPath" | "log">, pluginId: string, accessLogSuffix = ""): Promise<void> {
  const access = await editOpenClawJson(params.configPath, (config) => allowConversationAccess(config, pluginId));
  params.log(`plugins.entries.${pluginId}.hooks.allowConversationAccess: true${access.changed ? " written" : " already set"}${accessLogSuffix}`);
  let engine = pluginId;
  const slot = await editOpenClawJson(params.configPath, (config) => {
    const selected = selectContextEngine(config, pluginId);
    engine = selected.engine;
    return selected.changed;
  });
  params.log(
    engine === pluginId
      ? `plugins.slots.contextEngine: ${pluginId}${slot.changed ? " written" : " already set"} (memory as a runtime-context carrier)`
      : `plugins.slots.contextEngine is ${engine}: left as it is; the plugin delivers memory as prependContext`,
  );
}


/** Remove what the plugin install put into openclaw.json (entry, install record, load path). */
export function revertPluginConfig(config: Record<string, unknown>, record: UnitRecord | undefined): boolean {
  const plugins = isObject(config.plugins) ? config.plugins : undefined;
  if (!plugins) return false;
  let changed = false;
  const slots = isObject(plugins.slots) ? plugins.slots : undefined;
  if (slots?.contextEngine === PLUGIN_ID) {
    delete slots.contextEngine;
    changed = true;
  }
  for (const key of ["entries", "installs"]) {
    const map = plugins[key];
    if (isObject(map) && PLUGIN_ID in map) {
      delete map[PLUGIN_ID];
      changed = true;
    }
  }
  const load = isObject(plugins.load) ? plugins.load : undefined;
  const dir = typeof record?.pluginDir === "string" ? path.resolve(record.pluginDir) : undefined;
  if (load && Array.isArray(load.paths) && dir) {
    const kept = load.paths.filter((entry) => !(typeof entry === "string" && path.resolve(entry) === dir));
    if (kept.length !== load.paths.length) {
      load.paths = kept;
      changed = true;
    }
  }
  return changed;
}

export const companionPluginUnit: InstallUnit = {
  id: "companion-plugin",
  async install(params) {
    if (!params.cli) {
      params.log(`companion plugin: no openclaw CLI, not installed (run install-hooks again with the CLI on PATH to add it)`);
      return { installed: false, reason: "no-cli" };
    }
    const version = await hostVersion(params.cli, params);
    if (!pluginSupported(version)) {
      params.log(`companion plugin: not installed on OpenClaw ${version ?? "(unknown version)"}; the ethos-context hook delivers memory there (docs/plugin.md)`);
      return { installed: false, reason: "host-version", hostVersion: version };
    }
    const pluginDir = installedPluginDir(params);
    if (!(await exists(path.join(pluginDir, "index.js")))) throw new Error(`companion plugin: ${pluginDir}/index.js not found after the hook pack install`);
    params.log(`openclaw plugins install --link ${pluginDir} --force --accept-capabilities`);
    const result = await runOpenClaw(params.cli, ["plugins", "install", "--link", pluginDir, "--force", "--accept-capabilities"], {
      env: cliEnvForConfig(params.configPath, params.env),
      timeoutMs: 300_000,
    });
    if (result.code !== 0) throw new Error(`openclaw plugins install (companion plugin) failed (exit ${result.code}): ${(result.stderr || result.stdout).trim().slice(-800)}`);
    await enableMemoryDelivery(params, PLUGIN_ID, ` in ${params.configPath}`);
    return { installed: true, hostVersion: version, pluginDir };
  },
  async verify(params, record) {
    if (!record?.installed || !params.cli) return { lines: [`companion plugin: ${record?.installed ? "installed" : `not installed (${String(record?.reason ?? "unknown")})`}`], problems: [] };
    const result = await runOpenClaw(params.cli, ["plugins", "inspect", PLUGIN_ID, "--json"], { env: cliEnvForConfig(params.configPath, params.env), timeoutMs: 120_000 });
    const text = `${result.stdout}\n${result.stderr}`;
    const problems: string[] = [];
    if (result.code !== 0) problems.push(`openclaw plugins inspect ${PLUGIN_ID} failed (exit ${result.code})`);
    if (/blocked/i.test(text)) problems.push(`openclaw reports the companion plugin's hook as blocked: ${text.split("\n").find((line) => /blocked/i.test(line))?.trim()}`);
    return { lines: [`companion plugin: ${problems.length ? "installed with problems" : "installed, before_prompt_build allowed"}`], problems };
  },
  async uninstall(params, record) {
    const steps: string[] = [];
    if (!record?.installed) return { steps, leftovers: [] };
    // A linked plugin has no files of its own; its config entries go with the openclaw.json restore.
    if (typeof record.pluginDir === "string" && !(await fs.stat(record.pluginDir).catch(() => undefined))) steps.push(`${record.pluginDir} is already gone`);
    steps.push(`companion plugin ${PLUGIN_ID}: unlinked (its plugins.load.paths entry and plugins.entries.${PLUGIN_ID} go with the openclaw.json restore)`);
    return { steps, leftovers: [] };
  },
  revertConfig: revertPluginConfig,
};
