import fs from "node:fs/promises";
import path from "node:path";
import { openClawStateDir } from "../core/paths.ts";
import { isObject } from "../host/events.ts";
import { cliEnvForConfig, runOpenClaw } from "./openclaw-cli.ts";
import type { CliResult } from "./openclaw-cli.ts";
import { editOpenClawJson, readOpenClawJson } from "./openclaw-json.ts";
import { enableMemoryDelivery } from "./plugin-install.ts";
import type { InstallParams, InstallUnit } from "./install-unit.ts";
import { installRecordPath, readRecord, uninstall } from "./install.ts";
import { GITIGNORE_UNIT_ID, gitignoreUnit } from "./gitignore-unit.ts";

// The plugin package (npm pack tarball of dist/plugin/) as an install unit for OpenClaw 2026.9+.
// OpenClaw's `plugins install` rewrites openclaw.json (it strips comments, reformats, adds `meta`)
// and `plugins uninstall` leaves `plugins.entries.openclaw-context: { enabled: false }` behind
// (HOOK_ASSUMPTIONS.md "Plugin package"). So the exact restore needs the file as it was before
// OpenClaw touched it: src/ops/install.ts saves it before this unit runs, and writes it back after
// this unit's uninstall (`openclaw context uninstall`, `npm run install-package -- --uninstall`).

export const PACKAGE_ID = "openclaw-context";
export const PACKAGE_UNIT_ID = "plugin-package";

/** Run the openclaw CLI; a path to its `.mjs`/`.js` entry (what `openclaw context …` runs in) goes through this Node. */
export function runCli(cli: string, args: string[], params: Pick<InstallParams, "configPath" | "env">, timeoutMs = 300_000): Promise<CliResult> {
  const env = cliEnvForConfig(params.configPath, params.env);
  return /\.m?js$/.test(cli) ? runOpenClaw(process.execPath, [cli, ...args], { env, timeoutMs }) : runOpenClaw(cli, args, { env, timeoutMs });
}

/** What the host wrote under plugins.entries.<id>, as JSON (the uninstall step reports it). */
async function entryText(configPath: string): Promise<string> {
  const config = await readOpenClawJson(configPath).catch(() => undefined);
  const plugins = isObject(config?.plugins) ? config.plugins : undefined;
  const entries = isObject(plugins?.entries) ? plugins.entries : undefined;
  return JSON.stringify(entries?.[PACKAGE_ID] ?? null);
}

export function packageUnit(tarball?: string): InstallUnit {
  return {
    id: PACKAGE_UNIT_ID,
    async install(params) {
      if (!tarball) throw new Error("no tarball given (npm run build:plugin && (cd dist/plugin && npm pack))");
      if (!params.cli) throw new Error("the plugin package is installed with the openclaw CLI: put it on PATH (or set $OPENCLAW_CLI)");
      const extensionsDir = path.join(openClawStateDir(params.env), "extensions");
      const extensionsDirExisted = Boolean(await fs.stat(extensionsDir).catch(() => undefined));
      // A local archive is "outside ClawHub review": OpenClaw 2026.9 wants both flags.
      params.log(`openclaw plugins install ${tarball} --force --accept-capabilities`);
      const result = await runCli(params.cli, ["plugins", "install", path.resolve(tarball), "--force", "--accept-capabilities"], params, 600_000);
      if (result.code !== 0) throw new Error(`openclaw plugins install failed (exit ${result.code}): ${(result.stderr || result.stdout).trim().slice(-800)}`);
      await enableMemoryDelivery(params, PACKAGE_ID);
      params.log("RESTART NEEDED: the gateway loads the plugin when it starts (openclaw gateway restart)");
      return { installed: true, tarball: path.resolve(tarball), installPath: path.join(extensionsDir, PACKAGE_ID), extensionsDir, extensionsDirExisted };
    },
    async uninstall(params, record) {
      const steps: string[] = [];
      const leftovers: string[] = [];
      if (!params.cli) return { steps, leftovers: [`openclaw plugins uninstall ${PACKAGE_ID} --force was not run: no openclaw CLI`] };
      // OpenClaw removes its install record (state database), the folder and the slot; the file restore follows.
      const result = await runCli(params.cli, ["plugins", "uninstall", PACKAGE_ID, "--force"], params);
      const output = `${result.stdout}\n${result.stderr}`;
      if (result.code === 0) steps.push(`openclaw plugins uninstall ${PACKAGE_ID} --force: done; it left plugins.entries.${PACKAGE_ID} = ${await entryText(params.configPath)}`);
      else if (/not found|not installed/i.test(output)) steps.push(`openclaw plugins uninstall ${PACKAGE_ID}: not installed (${output.trim().split("\n").pop()})`);
      else leftovers.push(`openclaw plugins uninstall ${PACKAGE_ID} --force failed (exit ${result.code}): ${output.trim().slice(-400)}`);
      const installPath = typeof record?.installPath === "string" ? record.installPath : undefined;
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
      steps.push("RESTART NEEDED: a running gateway keeps the plugin it has loaded until it restarts (openclaw gateway restart)");
      return { steps, leftovers };
    },
    revertConfig: (config) => revertPackageConfig(config),
  };
}

/** Without the exact restore (the operator edited other settings since): drop our entry and our slot only. */
export function revertPackageConfig(config: Record<string, unknown>): boolean {
  const plugins = isObject(config.plugins) ? config.plugins : undefined;
  if (!plugins) return false;
  let changed = false;
  const slots = isObject(plugins.slots) ? plugins.slots : undefined;
  if (slots?.contextEngine === PACKAGE_ID) {
    delete slots.contextEngine;
    changed = true;
  }
  const entries = isObject(plugins.entries) ? plugins.entries : undefined;
  if (entries && PACKAGE_ID in entries) {
    delete entries[PACKAGE_ID];
    changed = true;
  }
  return changed;
}

export type PackageUninstallReport = { steps: string[]; leftovers: string[] };

/**
 * `openclaw context uninstall` and `npm run install-package -- --uninstall`: OpenClaw's uninstall,
 * then openclaw.json back to its bytes before `install-package` (src/ops/install.ts). Installed
 * with plain `openclaw plugins install` there is no such copy: only our keys are removed then.
 */
export async function uninstallPackage(params: InstallParams): Promise<PackageUninstallReport> {
  const record = await readRecord(params.configPath);
  const others = Object.entries(record?.units ?? {}).filter(([id, unit]) => id !== PACKAGE_UNIT_ID && id !== GITIGNORE_UNIT_ID && unit.installed !== false);
  if (others.length > 0) {
    return { steps: [], leftovers: [`${installRecordPath(params.configPath)} records a hook-pack install (${others.map(([id]) => id).join(", ")}): remove it with npm run install-hooks -- --uninstall in the clone`] };
  }
  const unit = packageUnit();
  const removal = await unit.uninstall(params, record?.units[PACKAGE_UNIT_ID]);
  // OpenClaw's uninstall rewrites openclaw.json: restoring before it succeeded would be undone by the next try.
  if (removal.leftovers.length > 0) return removal;
  if (record) {
    const restore = await uninstall(params, [gitignoreUnit, { ...unit, uninstall: async () => ({ steps: [], leftovers: [] }) }]);
    return { steps: [...removal.steps, ...restore.steps], leftovers: restore.leftovers };
  }
  const edit = await editOpenClawJson(params.configPath, (config) => revertPackageConfig(config));
  if (!edit.changed) removal.steps.push(`no keys of ours left in ${params.configPath}`);
  else {
    removal.steps.push(
      `removed plugins.entries.${PACKAGE_ID} (and our context-engine slot) from ${params.configPath}`,
      `no copy of ${params.configPath} from before the install (installed with plain openclaw plugins install, not npm run install-package): the comments and formatting OpenClaw's install dropped cannot come back`,
    );
  }
  return removal;
}
