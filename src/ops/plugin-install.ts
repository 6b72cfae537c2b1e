import fs from "node:fs/promises";
import path from "node:path";
import { openClawStateDir } from "../core/paths.ts";
import { isObject } from "../host/events.ts";
import { PLUGIN_ID } from "../host/ids.ts";
import { childObject, editOpenClawJson, readOpenClawJson } from "./openclaw-json.ts";
import { cliEnvForConfig, runOpenClaw } from "./openclaw-cli.ts";
import type { CliResult } from "./openclaw-cli.ts";
import type { InstallParams, InstallUnit, UnitRecord } from "./install-unit.ts";

// The plugin (an `npm pack` tarball of dist/plugin/) as an install unit for OpenClaw 2026.9+.
// OpenClaw's `plugins install` rewrites openclaw.json (it strips comments, reformats, adds `meta`)
// and `plugins uninstall` leaves `plugins.entries.openclaw-context: { enabled: false }` behind
// (HOOK_ASSUMPTIONS.md "Plugin package"). So the exact restore needs the file as it was before
// OpenClaw touched it: src/ops/install.ts saves it before this unit runs, and writes it back after
// this unit's uninstall (`openclaw context uninstall`, `npm run install-hooks -- --uninstall`).

export const PLUGIN_UNIT_ID = "plugin";

/** Run the openclaw CLI; a path to its `.mjs`/`.js` entry (what `openclaw context …` runs in) goes through this Node. */
export function runCli(cli: string, args: string[], params: Pick<InstallParams, "configPath" | "env">, timeoutMs = 300_000): Promise<CliResult> {
  const env = cliEnvForConfig(params.configPath, params.env);
  return /\.m?js$/.test(cli) ? runOpenClaw(process.execPath, [cli, ...args], { env, timeoutMs }) : runOpenClaw(cli, args, { env, timeoutMs });
}

/** `openclaw --version` → "2026.9.6", or undefined. */
export async function cliHostVersion(cli: string, params: Pick<InstallParams, "configPath" | "env">): Promise<string | undefined> {
  const result = await runCli(cli, ["--version"], params, 120_000);
  return /(\d{4}\.\d{1,2}\.\d{1,2})/.exec(`${result.stdout}\n${result.stderr}`)?.[1];
}

/** plugins.entries.<id>.hooks.allowConversationAccess: true (2026.9 blocks a non-bundled plugin's before_prompt_build without it). */
function allowConversationAccess(config: Record<string, unknown>): boolean {
  const hooks = childObject(childObject(childObject(childObject(config, "plugins"), "entries"), PLUGIN_ID), "hooks");
  if (hooks.allowConversationAccess === true) return false;
  hooks.allowConversationAccess = true;
  return true;
}

/**
 * Select the plugin's context engine (`plugins.slots.contextEngine`), which delivers memory as a
 * runtime-context carrier. Only when no other engine is configured: only one engine can be active,
 * and an operator's own engine wins (the plugin then keeps prependContext; `doctor` explains).
 */
export function selectContextEngine(config: Record<string, unknown>): { changed: boolean; engine: string } {
  const slots = childObject(childObject(config, "plugins"), "slots");
  const current = typeof slots.contextEngine === "string" && slots.contextEngine.trim() ? slots.contextEngine.trim() : "legacy";
  if (current !== "legacy") return { changed: false, engine: current };
  slots.contextEngine = PLUGIN_ID;
  return { changed: true, engine: PLUGIN_ID };
}

/**
 * The two openclaw.json keys the plugin needs after `openclaw plugins install`, which writes
 * neither: conversation access and the context-engine slot, unless another engine holds it.
 */
async function enableMemoryDelivery(params: Pick<InstallParams, "configPath" | "log">): Promise<void> {
  const access = await editOpenClawJson(params.configPath, allowConversationAccess);
  params.log(`plugins.entries.${PLUGIN_ID}.hooks.allowConversationAccess: true${access.changed ? " written" : " already set"}`);
  let engine = PLUGIN_ID;
  const slot = await editOpenClawJson(params.configPath, (config) => {
    const selected = selectContextEngine(config);
    engine = selected.engine;
    return selected.changed;
  });
  params.log(
    engine === PLUGIN_ID
      ? `plugins.slots.contextEngine: ${PLUGIN_ID}${slot.changed ? " written" : " already set"} (memory as a runtime-context carrier)`
      : `plugins.slots.contextEngine is ${engine}: left as it is; the plugin delivers memory as prependContext (openclaw context doctor explains the cost)`,
  );
}

/** Without the exact restore (the operator edited other settings since): drop our entry and our slot only. */
export function revertPluginConfig(config: Record<string, unknown>): boolean {
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
  return changed;
}

/** What the host wrote under plugins.entries.<id>, as JSON (the uninstall step reports it). */
async function entryText(configPath: string): Promise<string> {
  const config = await readOpenClawJson(configPath).catch(() => undefined);
  const plugins = isObject(config?.plugins) ? config.plugins : undefined;
  const entries = isObject(plugins?.entries) ? plugins.entries : undefined;
  return JSON.stringify(entries?.[PLUGIN_ID] ?? null);
}

async function installFromTarball(params: InstallParams, tarball: string): Promise<UnitRecord> {
  if (!params.cli) throw new Error("the plugin is installed with the openclaw CLI: put it on PATH (or set $OPENCLAW_CLI)");
  const extensionsDir = path.join(openClawStateDir(params.env), "extensions");
  const extensionsDirExisted = Boolean(await fs.stat(extensionsDir).catch(() => undefined));
  // A local archive is "outside ClawHub review": OpenClaw 2026.9 wants both flags.
  params.log(`openclaw plugins install ${tarball} --force --accept-capabilities`);
  const result = await runCli(params.cli, ["plugins", "install", path.resolve(tarball), "--force", "--accept-capabilities"], params, 600_000);
  if (result.code !== 0) throw new Error(`openclaw plugins install failed (exit ${result.code}): ${(result.stderr || result.stdout).trim().slice(-800)}`);
  await enableMemoryDelivery(params);
  return { installed: true, tarball: path.resolve(tarball), path: path.join(extensionsDir, PLUGIN_ID), extensionsDir, extensionsDirExisted };
}

async function uninstallWithCli(params: InstallParams, record: UnitRecord | undefined): Promise<{ steps: string[]; leftovers: string[] }> {
  const steps: string[] = [];
  const leftovers: string[] = [];
  if (!params.cli) return { steps, leftovers: [`openclaw plugins uninstall ${PLUGIN_ID} --force was not run: no openclaw CLI`] };
  // OpenClaw removes its install record (state database), the folder and the slot; the file restore follows.
  const result = await runCli(params.cli, ["plugins", "uninstall", PLUGIN_ID, "--force"], params);
  const output = `${result.stdout}\n${result.stderr}`;
  if (result.code === 0) steps.push(`openclaw plugins uninstall ${PLUGIN_ID} --force: done; it left plugins.entries.${PLUGIN_ID} = ${await entryText(params.configPath)}`);
  else if (/not found|not installed/i.test(output)) steps.push(`openclaw plugins uninstall ${PLUGIN_ID}: not installed (${output.trim().split("\n").pop()})`);
  else leftovers.push(`openclaw plugins uninstall ${PLUGIN_ID} --force failed (exit ${result.code}): ${output.trim().slice(-400)}`);
  const installPath = typeof record?.path === "string" ? record.path : typeof record?.installPath === "string" ? record.installPath : undefined;
  if (installPath && (await fs.stat(installPath).catch(() => undefined))) leftovers.push(`${installPath} (still there after openclaw plugins uninstall)`);
  // OpenClaw leaves the extensions folder it created for us, empty: only that one goes.
  const extensionsDir = typeof record?.extensionsDir === "string" ? record.extensionsDir : undefined;
  if (extensionsDir && record?.extensionsDirExisted === false) {
    const left = await fs.readdir(extensionsDir).catch(() => undefined);
    if (left?.length === 0) {
      await fs.rmdir(extensionsDir);
      steps.push(`removed ${extensionsDir} (empty; the install created it)`);
    }
  }
  return { steps, leftovers };
}

/** The plugin from `tarball` (npm pack of dist/plugin/). */
export function pluginUnit(tarball?: string): InstallUnit {
  return {
    id: PLUGIN_UNIT_ID,
    install: (params) => {
      if (!tarball) throw new Error("no plugin tarball (npm run build:plugin && (cd dist/plugin && npm pack))");
      return installFromTarball(params, tarball);
    },
    uninstall: uninstallWithCli,
    revertConfig: (config) => revertPluginConfig(config),
  };
}
