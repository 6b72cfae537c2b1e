import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { HOOK_KEYS } from "../host/ids.ts";
import { expandHome, openClawStateDir } from "../core/paths.ts";
import { isObject } from "../host/events.ts";
import { cliEnvForConfig, parseCliJson, runOpenClaw } from "./openclaw-cli.ts";
import { differsOnlyInOwnedKeys } from "./config-ownership.ts";
import { captureHookState, editOpenClawJson, readOpenClawJson, revertHookState, setHookEntries } from "./openclaw-json.ts";
import type { HookStateRecord } from "./openclaw-json.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { backupBeforeChange, exists } from "./safe-write.ts";
import { timestamp } from "./paths.ts";
import { PLUGIN_UNIT_ID, pluginUnit } from "./plugin-install.ts";
import { applyCarriedSettings, carriedSettings, RETIRED_UNIT_IDS, removeRetiredKeys, retiredUnits } from "./companion-migration.ts";
import type { MigrationRecord } from "./companion-migration.ts";
import { pluginServesHost } from "../host/version.ts";
import { HOOK_PACK_ID } from "../host/ids.ts";
import type { InstallMode, InstallParams, InstallUnit, UnitRecord, UnitRemoval } from "./install-unit.ts";

export type { InstallMode, InstallParams, InstallUnit, UnitRecord, UnitRemoval } from "./install-unit.ts";

// Make the bundle loadable by a user's OpenClaw, and take it out again.
//
// An install is a list of units: the hook pack on OpenClaw 2026.3, the plugin on 2026.9+.
// Each unit puts itself in place and returns a small record of what it did; uninstall hands that
// record back, in reverse order. openclaw.json is snapshotted ONCE, before any unit runs (the
// `openclaw plugins|hooks install` commands rewrite it: they enable entries, add install records,
// and strip comments), so uninstall can put the file back byte for byte.
//
// Hook pack modes:
//   pack  the openclaw CLI copies a clean copy to <stateDir>/hooks/<id> and installs its deps
//         (2026.9.x: `plugins install <dir> --force`; 2026.3.x: `hooks install <dir>`)
//   link  <workspace>/hooks/openclaw-context → symlink to this checkout
//   copy  <workspace>/hooks/openclaw-context ← copy of the pack, `npm install --omit=dev` inside it
// Workspace hooks load only with hooks.internal.entries.<name>.enabled: true, so both entries are enabled.

export const PACK_ID = HOOK_PACK_ID;
export const HOOK_NAMES = [HOOK_KEYS.aciBootstrap, HOOK_KEYS.ethosContext];
const PACK_COPY_EXCLUDES = new Set(["node_modules", ".git", ".cache", "coverage", ".e2e-work", "bench", "test", "fixtures"]);

export type HookEligibility = { name: string; found: boolean; eligible: boolean; source?: string; blockedReason?: string };

/** Kept next to openclaw.json (install-state file). */
export type InstallRecord = {
  pack: typeof PACK_ID;
  version: 2;
  mode: InstallMode;
  /** openclaw.json before the first install step: its exact text, or absent. */
  configBefore: { existed: boolean; text?: string };
  /** sha256 of openclaw.json as install left it: equal at uninstall → restore configBefore verbatim. */
  configAfterSha256?: string;
  /** openclaw.json as install left it: if only our keys differ at uninstall (config-ownership.ts), restore configBefore verbatim too. */
  configAfterText?: string;
  /** Hook settings before install (for the structural undo when the file changed since). */
  hookStateBefore: HookStateRecord;
  units: Record<string, UnitRecord>;
  /** Set once uninstall has put openclaw.json back (while other leftovers keep the record alive). */
  configRestored?: boolean;
  /** The hook pack + companion plugin this install replaced (OpenClaw 2026.9+). */
  migratedFrom?: MigrationRecord;
};

function run(command: string, args: string[], cwd: string, timeoutMs = 300_000): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

function sha256(text: string): string {
  return crypto.createHash("sha256").update(text).digest("hex");
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

async function readManifest(root: string): Promise<{ name?: string; dependencies?: Record<string, string>; openclaw?: { hooks?: string[] } }> {
  return JSON.parse(await fs.readFile(path.join(root, "package.json"), "utf8"));
}

/** Runtime dependencies that do not resolve from `root` (what a gateway import would miss). */
export async function missingDependencies(root: string): Promise<string[]> {
  const manifest = await readManifest(root);
  const require = createRequire(path.join(root, "package.json"));
  return Object.keys(manifest.dependencies ?? {}).filter((dep) => {
    try {
      require.resolve(`${dep}/package.json`);
      return false;
    } catch {
      try {
        require.resolve(dep);
        return false;
      } catch {
        return true;
      }
    }
  });
}

/** Every hook in the manifest has HOOK.md and a handler (a pack with a missing hook fails to install). */
export async function checkPackFiles(root: string): Promise<string[]> {
  const manifest = await readManifest(root);
  const problems: string[] = [];
  for (const hook of manifest.openclaw?.hooks ?? []) {
    const dir = path.join(root, hook);
    if (!(await exists(path.join(dir, "HOOK.md")))) problems.push(`${hook}/HOOK.md missing`);
    if (!(await exists(path.join(dir, "handler.ts"))) && !(await exists(path.join(dir, "handler.js")))) problems.push(`${hook}/handler.ts missing`);
  }
  if ((manifest.openclaw?.hooks ?? []).length === 0) problems.push('package.json has no "openclaw.hooks"');
  return problems;
}

/** What a user gets from a tarball: the runtime files only (no node_modules, tests, bench, .git). */
export async function stageCleanCopy(bundleRoot: string, target: string): Promise<void> {
  await fs.cp(bundleRoot, target, {
    recursive: true,
    filter: (source) => {
      const rel = path.relative(bundleRoot, source);
      return !rel || !PACK_COPY_EXCLUDES.has(rel.split(path.sep)[0]);
    },
  });
}

/** Kept next to openclaw.json: what install changed, so uninstall can undo it. */
export function installRecordPath(configPath: string): string {
  return path.join(path.dirname(configPath), `${PACK_ID}.install-state.json`);
}

export function workspaceHookDir(workspace: string): string {
  return path.join(workspace, "hooks", PACK_ID);
}

/** `openclaw hooks list --json` → eligibility of our two hooks. */
export async function hookEligibility(
  cli: string,
  configPath: string,
  options: { attempts?: number; delayMs?: number; run?: (args: string[]) => Promise<{ code: number; stdout: string; stderr: string }> } = {},
): Promise<HookEligibility[]> {
  const attempts = options.attempts ?? 5;
  const run = options.run ?? ((args: string[]) => runOpenClaw(cli, args, { env: cliEnvForConfig(configPath) }));
  let rows: HookEligibility[] = [];
  // A running gateway answers `hooks list` and reloads config asynchronously: ask a few times.
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    const result = await run(["hooks", "list", "--json"]);
    const parsed = parseCliJson(result.stdout) as { hooks?: { name?: string; source?: string; eligible?: boolean; loadable?: boolean; blockedReason?: string }[] } | undefined;
    rows = HOOK_NAMES.map((name) => {
      const hook = parsed?.hooks?.find((candidate) => candidate.name === name);
      return { name, found: Boolean(hook), eligible: Boolean(hook?.loadable ?? hook?.eligible), source: hook?.source, blockedReason: hook?.blockedReason };
    });
    if (rows.every((row) => row.found && row.eligible)) return rows;
    if (!parsed) rows = rows.map((row) => ({ ...row, blockedReason: `hooks list --json gave no JSON (exit ${result.code}): ${(result.stderr || result.stdout).trim().slice(0, 300)}` }));
    if (attempt < attempts) await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 3_000));
  }
  return rows;
}

/**
 * The CLI command that installs a hook pack from a folder, as it works on this OpenClaw:
 * 2026.9.x deprecates `hooks install` and wants `plugins install <dir> --force` (without --force a
 * non-interactive install is cancelled); 2026.3.x has no --force and refuses a hook pack under
 * `plugins install` ("missing openclaw.extensions"), so it takes `hooks install <dir>`.
 */
export async function hookPackInstallCommand(cli: string, configPath: string): Promise<string[]> {
  const help = await runOpenClaw(cli, ["hooks", "--help"], { env: cliEnvForConfig(configPath) });
  const installLine = `${help.stdout}\n${help.stderr}`.split("\n").find((line) => /^\s*install\b/.test(line)) ?? "";
  return /deprecated/i.test(installLine) ? ["plugins", "install", "<dir>", "--force"] : ["hooks", "install", "<dir>"];
}

/** `Installing to <dir>…` in the CLI's output names where the pack went. */
function installPathFromOutput(output: string): string | undefined {
  const match = /Installing to (.+?)(?:…|\.\.\.)?\s*$/m.exec(output);
  return match?.[1]?.trim();
}

/** Only ever delete a folder that holds our own pack (package.json name). */
async function holdsOurPack(dir: string): Promise<boolean> {
  try {
    return (await readManifest(dir)).name === PACK_ID;
  } catch {
    return false;
  }
}

async function placeInWorkspace(params: InstallParams, previous: UnitRecord | undefined): Promise<UnitRecord> {
  const target = workspaceHookDir(params.workspace);
  const record: UnitRecord = { mode: params.mode, path: target };
  if (typeof previous?.movedAside === "string") record.movedAside = previous.movedAside;
  await fs.mkdir(path.dirname(target), { recursive: true });
  const current = await fs.lstat(target).catch(() => undefined);
  if (current) {
    const pointsHere = current.isSymbolicLink() && path.resolve(path.dirname(target), await fs.readlink(target)) === path.resolve(params.bundleRoot);
    if (params.mode === "link" && pointsHere) {
      params.log(`link already in place: ${target} → ${params.bundleRoot}`);
      return record;
    }
    // Someone else's (or an older) copy: move it aside, never delete it; uninstall puts it back.
    const aside = `${target}.replaced-${timestamp()}`;
    await fs.rename(target, aside);
    params.log(`moved existing ${target} to ${aside}`);
    if (!(current.isSymbolicLink() && pointsHere) && !(await holdsOurPack(aside)) && record.movedAside === undefined) record.movedAside = aside;
  }
  if (params.mode === "link") {
    await fs.symlink(path.resolve(params.bundleRoot), target, "dir");
    params.log(`linked ${target} → ${params.bundleRoot}`);
    const missing = await missingDependencies(params.bundleRoot);
    if (missing.length > 0) {
      params.log(`installing runtime dependencies in ${params.bundleRoot} (missing: ${missing.join(", ")})`);
      // A full install: this is the checkout itself, and --omit=dev would prune its dev tools.
      const npm = await run("npm", ["install", "--no-audit", "--no-fund"], params.bundleRoot);
      if (npm.code !== 0) throw new Error(`npm install failed in ${params.bundleRoot}: ${npm.output.slice(-500)}`);
    }
    return record;
  }
  await stageCleanCopy(params.bundleRoot, target);
  params.log(`copied the pack to ${target}; installing runtime dependencies (npm install --omit=dev)`);
  const npm = await run("npm", ["install", "--omit=dev", "--no-audit", "--no-fund", "--ignore-scripts"], target);
  if (npm.code !== 0) throw new Error(`npm install failed in ${target}: ${npm.output.slice(-500)}`);
  return record;
}

async function installWithCli(params: InstallParams, cli: string): Promise<UnitRecord> {
  const command = await hookPackInstallCommand(cli, params.configPath);
  const staging = await fs.mkdtemp(path.join(os.tmpdir(), "openclaw-context-pack-"));
  try {
    const staged = path.join(staging, PACK_ID);
    await stageCleanCopy(params.bundleRoot, staged);
    const args = command.map((arg) => (arg === "<dir>" ? staged : arg));
    params.log(`openclaw ${command.join(" ").replace("<dir>", "<clean copy>")} (copies to <stateDir>/hooks/${PACK_ID}, installs dependencies)`);
    const result = await runOpenClaw(cli, args, { env: cliEnvForConfig(params.configPath, params.env), timeoutMs: 600_000 });
    if (result.code !== 0) throw new Error(`openclaw ${command[0]} install failed (exit ${result.code}): ${(result.stderr || result.stdout).trim().slice(-800)}`);
    const output = `${result.stdout}\n${result.stderr}`;
    const installPath = installPathFromOutput(output) ?? path.join(openClawStateDir(params.env), "hooks", PACK_ID);
    // 2026.3.x loads newly installed hooks only at gateway start and says so.
    if (/restart the gateway to load hooks/i.test(output)) params.log("RESTART NEEDED: this OpenClaw loads newly installed hooks only when the gateway starts: restart it now");
    return { mode: "pack", path: installPath, command: command.join(" ") };
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}

/** The hook pack (aci-bootstrap + ethos-context). */
export const hookPackUnit: InstallUnit = {
  id: "hook-pack",
  async install(params, previous) {
    let record: UnitRecord;
    if (params.mode === "pack") {
      if (!params.cli) throw new Error("pack mode needs the openclaw CLI (on PATH or $OPENCLAW_CLI); use --mode link or copy without it");
      record = await installWithCli(params, params.cli);
    } else {
      record = await placeInWorkspace(params, previous);
      const cfg = await readOpenClawJson(params.configPath).catch(() => undefined);
      const configured = (cfg as { agents?: { defaults?: { workspace?: unknown } } } | undefined)?.agents?.defaults?.workspace;
      if (typeof configured === "string" && path.resolve(expandHome(configured, params.env)) !== path.resolve(params.workspace)) {
        params.log(`WARNING: openclaw.json agents.defaults.workspace is ${configured}, not ${params.workspace}: the gateway will not see these workspace hooks`);
      }
    }
    const edit = await setHookEntries(params.configPath, HOOK_NAMES.map((hookKey) => ({ hookKey, enabled: true })));
    params.log(edit.changed ? `enabled ${HOOK_NAMES.join(", ")} in ${params.configPath}` : `${HOOK_NAMES.join(", ")} already enabled in ${params.configPath}`);
    return record;
  },
  async verify(params, record) {
    const lines: string[] = [];
    const problems: string[] = [];
    if (params.cli) {
      for (const hook of await hookEligibility(params.cli, params.configPath)) {
        lines.push(`${hook.name}: ${hook.found ? (hook.eligible ? `eligible (${hook.source})` : `NOT eligible: ${hook.blockedReason}`) : "not listed"}`);
        if (!hook.found) problems.push(`openclaw hooks list does not show ${hook.name}${hook.blockedReason ? ` (${hook.blockedReason})` : ""}; if a gateway is running, restart it and run install again`);
        else if (!hook.eligible) problems.push(`${hook.name} is not eligible (${hook.blockedReason ?? "unknown reason"}, source ${hook.source})`);
      }
    } else if (record.mode !== "pack") {
      // No CLI: check what the gateway will import.
      const target = String(record.path);
      problems.push(...(await checkPackFiles(target)).map((problem) => `installed copy: ${problem}`));
      const missing = await missingDependencies(target);
      if (missing.length) problems.push(`dependencies do not resolve from ${target}: ${missing.join(", ")}`);
    }
    return { lines, problems };
  },
  async uninstall(params, record) {
    const steps: string[] = [];
    const leftovers: string[] = [];
    // Without a record (installed by hand or by an older version): look where each mode puts it.
    const candidates = record
      ? [String(record.path)]
      : [path.join(openClawStateDir(params.env), "hooks", PACK_ID), workspaceHookDir(params.workspace)];
    for (const target of candidates) {
      const current = await fs.lstat(target).catch(() => undefined);
      if (!current) {
        if (record) steps.push(`${target} is already gone`);
        continue;
      }
      try {
        if (current.isSymbolicLink()) {
          await fs.unlink(target);
          steps.push(`removed link ${target}`);
        } else if (await holdsOurPack(target)) {
          await fs.rm(target, { recursive: true, force: true });
          steps.push(`removed ${target}`);
        } else {
          leftovers.push(`${target} (not recognised as the ${PACK_ID} pack: left in place)`);
        }
      } catch (error) {
        leftovers.push(`${target} (${(error as Error).message})`);
      }
    }
    if (typeof record?.movedAside === "string" && (await exists(record.movedAside))) {
      const original = String(record.path);
      if (await exists(original)) leftovers.push(`${record.movedAside} (was at ${original}; something is there again, so it was not moved back)`);
      else {
        await fs.rename(record.movedAside, original);
        steps.push(`moved ${record.movedAside} back to ${original}`);
      }
    }
    // Verified on 2026.3.13 and 2026.9.6: a running gateway keeps the hooks it has loaded (even with
    // their files and config entries gone) until it restarts. The entry point says so once, last.
    if (record?.mode === "pack" && String(record.command ?? "").startsWith("plugins")) {
      // Verified on 2026.9.6: `plugins uninstall` refuses hook packs ("not associated with a tracked
      // package install") and no command removes the install record OpenClaw keeps in its state
      // database. With the files gone the record names hooks that no longer exist: nothing loads.
      steps.push(`note: OpenClaw keeps its own record of the ${PACK_ID} hook-pack install in its state database (no CLI removes it); with the files gone it loads nothing`);
    }
    return { steps, leftovers };
  },
  revertConfig(config) {
    const hooks = isObject(config.hooks) ? config.hooks : undefined;
    const internal = isObject(hooks?.internal) ? hooks.internal : undefined;
    const installs = isObject(internal?.installs) ? internal.installs : undefined;
    if (!installs || !(PACK_ID in installs)) return false;
    delete installs[PACK_ID];
    if (internal && Object.keys(installs).length === 0) delete internal.installs;
    return true;
  },
};

/**
 * The retired companion plugin (hook pack + companion on 2026.9): linked in place, so it has no files
 * of its own; its keys leave openclaw.json with the restore. Known here so an old record uninstalls.
 */
const companionUnit: InstallUnit = {
  id: "companion-plugin",
  install: async () => ({ installed: false, reason: "retired: the plugin replaces it" }),
  uninstall: async (_params, record) => ({ steps: record?.installed ? ["companion plugin: unlinked (its keys go with the openclaw.json restore)"] : [], leftovers: [] }),
  revertConfig: (config) => removeRetiredKeys(config, undefined),
};

/** Every unit an install record can name, by id (the plugin's first id was "plugin-package"). */
const UNITS_BY_ID: Record<string, InstallUnit> = {
  [hookPackUnit.id]: hookPackUnit,
  [companionUnit.id]: companionUnit,
  [PLUGIN_UNIT_ID]: pluginUnit(),
  "plugin-package": { ...pluginUnit(), id: "plugin-package" },
};

/** The units a record names, in install order (uninstall runs them in reverse). */
export function unitsOfRecord(record: InstallRecord | undefined): InstallUnit[] {
  const ids = Object.keys(record?.units ?? {});
  return ids.length > 0 ? ids.flatMap((id) => (UNITS_BY_ID[id] ? [UNITS_BY_ID[id]!] : [])) : [hookPackUnit];
}

/** The artifact for a host: the plugin from 2026.9 on, the hook pack before (and without a CLI to ask). */
export function artifactFor(hostVersion: string | undefined): "plugin" | "hook-pack" {
  return pluginServesHost(hostVersion) ? "plugin" : "hook-pack";
}

/** The install record next to openclaw.json (undefined: nothing installed through this repo). */
export async function readRecord(configPath: string): Promise<InstallRecord | undefined> {
  const text = await readText(installRecordPath(configPath));
  if (text === undefined) return undefined;
  const parsed = JSON.parse(text) as Partial<InstallRecord> & { before?: HookStateRecord };
  if (parsed.version === 2) return parsed as InstallRecord;
  // Version 1 (older install-hooks): only the hook settings were recorded.
  return { pack: PACK_ID, version: 2, mode: (parsed.mode as InstallMode) ?? "link", configBefore: { existed: true }, hookStateBefore: parsed.before ?? { entries: {} }, units: {} };
}

async function writeRecord(configPath: string, record: InstallRecord): Promise<void> {
  await writeFileAtomic(installRecordPath(configPath), JSON.stringify(record, null, 2) + "\n");
}

export type InstallReport = { mode: InstallMode; steps: string[]; lines: string[]; problems: string[] };

export async function install(params: InstallParams, units: InstallUnit[] = [hookPackUnit]): Promise<InstallReport> {
  const steps: string[] = [];
  const log = (line: string) => {
    steps.push(line);
    params.log(line);
  };
  if (units.includes(hookPackUnit)) {
    const problems = await checkPackFiles(params.bundleRoot);
    if (problems.length > 0) throw new Error(`the bundle is incomplete: ${problems.join("; ")}`);
  }

  // The snapshot comes first: the CLI install commands rewrite openclaw.json. A re-run keeps the
  // original snapshot (the file it sees now is already our install's).
  let record = await readRecord(params.configPath);
  if (!record) {
    const text = await readText(params.configPath);
    record = {
      pack: PACK_ID,
      version: 2,
      mode: params.mode,
      configBefore: text === undefined ? { existed: false } : { existed: true, text },
      hookStateBefore: await captureHookState(params.configPath, HOOK_NAMES),
      units: {},
    };
    await writeRecord(params.configPath, record);
  }
  record.mode = params.mode;

  const unitParams = { ...params, log };
  const report: InstallReport = { mode: params.mode, steps, lines: [], problems: [] };
  for (const unit of units) {
    record.units[unit.id] = await unit.install(unitParams, record.units[unit.id]);
    await writeRecord(params.configPath, record);
  }
  for (const unit of units) {
    const verified = await unit.verify?.(unitParams, record.units[unit.id]);
    report.lines.push(...(verified?.lines ?? []));
    report.problems.push(...(verified?.problems ?? []));
  }
  const after = await readText(params.configPath);
  record.configAfterSha256 = after === undefined ? undefined : sha256(after);
  record.configAfterText = after;
  await writeRecord(params.configPath, record);
  return report;
}

export type UninstallReport = { steps: string[]; leftovers: string[] };

/** openclaw.json back as it was: verbatim when untouched since install, else only our edits undone. */
async function restoreConfig(params: InstallParams, record: InstallRecord | undefined, units: InstallUnit[]): Promise<string[]> {
  const current = await readText(params.configPath);
  if (record?.configBefore.text !== undefined || record?.configBefore.existed === false) {
    // Untouched, or touched only in our keys (a rollback, OpenClaw's own uninstall, its `meta`).
    const untouched = current !== undefined && (record.configAfterSha256 === sha256(current) || (record.configAfterText !== undefined && differsOnlyInOwnedKeys(current, record.configAfterText)));
    if (untouched) {
      const backup = await backupBeforeChange(params.configPath, path.dirname(params.configPath));
      if (record.configBefore.existed) await writeFileAtomic(params.configPath, record.configBefore.text!);
      else await fs.rm(params.configPath, { force: true });
      return [`${params.configPath} ${record.configBefore.existed ? "restored exactly as it was before install (comments included)" : "removed (install created it)"}; the installed version is in ${backup}`];
    }
  }
  // Changed since install (or no snapshot): undo our entries only, keep everything else.
  const edit = await editOpenClawJson(params.configPath, (config) => {
    let changed = revertHookState(config, record?.hookStateBefore, HOOK_NAMES);
    for (const unit of units) changed = (unit.revertConfig?.(config, record?.units[unit.id]) ?? false) || changed;
    return changed;
  });
  const lines = [edit.changed ? `reverted our hook settings in ${params.configPath}: ${edit.notes.join("; ")}` : `no hook settings of ours left in ${params.configPath}`];
  if (record?.configBefore.text !== undefined) {
    const copy = `${params.configPath}.before-${PACK_ID}`;
    await writeFileAtomic(copy, record.configBefore.text);
    lines.push(`${params.configPath} changed after install, so only our settings were undone; the file as it was before install is saved in ${copy}`);
  }
  return lines;
}

export async function uninstall(params: InstallParams, unitsFor: (record: InstallRecord | undefined) => InstallUnit[] = unitsOfRecord): Promise<UninstallReport> {
  const record = await readRecord(params.configPath);
  const units = unitsFor(record);
  const steps: string[] = [];
  const leftovers: string[] = [];
  for (const unit of [...units].reverse()) {
    try {
      const removal = await unit.uninstall(params, record?.units[unit.id]);
      steps.push(...removal.steps);
      leftovers.push(...removal.leftovers);
    } catch (error) {
      leftovers.push(`${unit.id}: ${(error as Error).message}`);
    }
  }
  try {
    if (!record?.configRestored) steps.push(...(await restoreConfig(params, record, units)));
    if (record) record.configRestored = true;
  } catch (error) {
    leftovers.push(`${params.configPath}: could not restore (${(error as Error).message}); set hooks.internal.entries.${HOOK_NAMES.join(" / ")}.enabled to false by hand`);
  }
  // Keep the record while something is left, so a second run can finish the job.
  if (leftovers.length === 0) await fs.rm(installRecordPath(params.configPath), { force: true });
  else if (record) await writeRecord(params.configPath, record);
  return { steps, leftovers };
}

/**
 * The plugin on OpenClaw 2026.9+, moving an operator off the retired hook pack + companion first
 * (companion-migration.ts): their settings carried, their files and keys gone, the original
 * pre-install openclaw.json kept for the exact restore. `tarball` builds or names the plugin.
 */
export async function installPlugin(params: InstallParams, tarball: string): Promise<InstallReport & { migrated?: MigrationRecord }> {
  const record = await readRecord(params.configPath);
  const retired = await retiredUnits(params.configPath, record?.units);
  let settings: Record<string, unknown> = {};
  let migrated: MigrationRecord | undefined;
  if (retired.length > 0) {
    const config = (await readOpenClawJson(params.configPath).catch(() => undefined)) ?? {};
    const carried = carriedSettings(config);
    settings = carried.settings;
    if (record?.units["hook-pack"]) {
      const removal = await hookPackUnit.uninstall(params, record.units["hook-pack"]);
      for (const step of removal.steps) params.log(`migration: ${step}`);
      if (removal.leftovers.length > 0) throw new Error(`migration from the hook pack stopped; remove these by hand, then run install-hooks again:\n  - ${removal.leftovers.join("\n  - ")}`);
    }
    await editOpenClawJson(params.configPath, (json) => removeRetiredKeys(json, record?.hookStateBefore));
    migrated = { at: new Date().toISOString(), from: retired, carried: carried.carried };
    if (record) {
      for (const id of RETIRED_UNIT_IDS) delete record.units[id];
      record.migratedFrom = migrated;
      await writeRecord(params.configPath, record);
    }
    params.log(`migration: the hook pack + companion plugin (${retired.join(", ")}) replaced by the plugin; ${carried.carried.length} setting(s) carried`);
  }
  const unit = pluginUnit(tarball);
  const withSettings: InstallUnit = {
    ...unit,
    install: async (unitParams, previous) => {
      const installed = await unit.install(unitParams, previous);
      await applyCarriedSettings(unitParams, settings);
      return installed;
    },
  };
  const report = await install(params, [withSettings]);
  if (migrated && !record) {
    // A companion found in openclaw.json without a record of ours: the new record says it happened.
    const fresh = await readRecord(params.configPath);
    if (fresh) await writeRecord(params.configPath, { ...fresh, migratedFrom: migrated });
  }
  return { ...report, ...(migrated ? { migrated } : {}) };
}

/**
 * `openclaw context uninstall` (and install-hooks --uninstall of a plugin install): OpenClaw's own
 * uninstall, then openclaw.json back to its bytes before the install when the record has them.
 * Installed with plain `openclaw plugins install` there is no such copy: only our keys go then.
 */
export async function uninstallPlugin(params: InstallParams): Promise<UninstallReport> {
  const record = await readRecord(params.configPath);
  const packUnits = Object.entries(record?.units ?? {}).filter(([id, unit]) => (RETIRED_UNIT_IDS as readonly string[]).includes(id) && unit.installed !== false);
  if (packUnits.length > 0) {
    return { steps: [], leftovers: [`${installRecordPath(params.configPath)} records a hook-pack install (${packUnits.map(([id]) => id).join(", ")}): remove it with npm run install-hooks -- --uninstall in the clone`] };
  }
  const units = record ? unitsOfRecord(record) : [pluginUnit()];
  const steps: string[] = [];
  const leftovers: string[] = [];
  for (const unit of units) {
    const removal = await unit.uninstall(params, record?.units[unit.id]);
    steps.push(...removal.steps);
    leftovers.push(...removal.leftovers);
  }
  // OpenClaw's uninstall rewrites openclaw.json: restoring before it succeeded would be undone by the next try.
  if (leftovers.length > 0) return { steps, leftovers };
  if (record) {
    const restore = await uninstall(params, () => units.map((unit) => ({ ...unit, uninstall: async () => ({ steps: [], leftovers: [] }) })));
    return { steps: [...steps, ...restore.steps], leftovers: restore.leftovers };
  }
  const edit = await editOpenClawJson(params.configPath, (config) => pluginUnit().revertConfig?.(config, undefined) ?? false);
  if (!edit.changed) steps.push(`no keys of ours left in ${params.configPath}`);
  else {
    steps.push(
      `removed plugins.entries.${PACK_ID} (and our context-engine slot) from ${params.configPath}`,
      `no copy of ${params.configPath} from before the install (installed with plain openclaw plugins install, not npm run install-hooks): the comments and formatting OpenClaw's install dropped cannot come back`,
    );
  }
  return { steps, leftovers };
}

/**
 * What an uninstall takes out: the record says it; without a record (installed by hand), the plugin
 * when openclaw.json names it and no hook pack is where install-hooks puts one.
 */
export async function installedArtifact(params: Pick<InstallParams, "configPath" | "workspace" | "env">): Promise<"plugin" | "hook-pack"> {
  const record = await readRecord(params.configPath);
  if (record) return Object.keys(record.units).some((id) => UNITS_BY_ID[id] && UNITS_BY_ID[id]!.id !== hookPackUnit.id && UNITS_BY_ID[id]!.id !== "companion-plugin") ? "plugin" : "hook-pack";
  const config = await readOpenClawJson(params.configPath).catch(() => undefined);
  const entries = (config?.plugins as { entries?: Record<string, unknown> } | undefined)?.entries;
  const packThere = (await exists(path.join(openClawStateDir(params.env), "hooks", PACK_ID))) || (await exists(workspaceHookDir(params.workspace)));
  return isObject(entries) && PACK_ID in entries && !packThere ? "plugin" : "hook-pack";
}
