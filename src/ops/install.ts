import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { openClawStateDir } from "../core/paths.ts";
import { isObject } from "../host/events.ts";
import { differsOnlyInOwnedKeys } from "./config-ownership.ts";
import { captureHookState, editOpenClawJson, readOpenClawJson, revertHookState } from "./openclaw-json.ts";
import type { HookStateRecord } from "./openclaw-json.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { backupBeforeChange, exists } from "./safe-write.ts";
import { PLUGIN_UNIT_ID, pluginUnit } from "./plugin-install.ts";
import { checkPackFiles, HOOK_NAMES, hookPackUnit, PACK_ID, workspaceHookDir } from "./hook-pack-install.ts";
import { applyCarriedSettings, carriedSettings, RETIRED_UNIT_IDS, removeRetiredKeys, retiredUnits } from "./companion-migration.ts";
import type { MigrationRecord } from "./companion-migration.ts";
import { pluginServesHost } from "../host/version.ts";
import { gitignoreUnit } from "./gitignore-unit.ts";
import type { InstallMode, InstallParams, InstallUnit, UnitRecord } from "./install-unit.ts";

export type { InstallMode, InstallParams, InstallUnit,   } from "./install-unit.ts";

// Make the bundle loadable by a user's OpenClaw, and take it out again.
//
// An install is a list of units: the hook pack on OpenClaw 2026.3, the plugin on 2026.9+.
// Each unit puts itself in place and returns a small record of what it did; uninstall hands that
// record back, in reverse order. openclaw.json is snapshotted ONCE, before any unit runs (the
// `openclaw plugins|hooks install` commands rewrite it: they enable entries, add install records,
// and strip comments), so uninstall can put the file back byte for byte.

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
/** Kept next to openclaw.json: what install changed, so uninstall can undo it. */
export function installRecordPath(configPath: string): string {
  return path.join(path.dirname(configPath), `${PACK_ID}.install-state.json`);
}


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
  [gitignoreUnit.id]: gitignoreUnit,
};

/** The units a record names, in install order (uninstall runs them in reverse). */
function unitsOfRecord(record: InstallRecord | undefined): InstallUnit[] {
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

export async function install(params: InstallParams, units: InstallUnit[] = [hookPackUnit, gitignoreUnit]): Promise<InstallReport> {
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
  const report = await install(params, [withSettings, gitignoreUnit]);
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
  if (record) return Object.keys(record.units).some((id) => id === PLUGIN_UNIT_ID || id === "plugin-package") ? "plugin" : "hook-pack";
  const config = await readOpenClawJson(params.configPath).catch(() => undefined);
  const entries = (config?.plugins as { entries?: Record<string, unknown> } | undefined)?.entries;
  const packThere = (await exists(path.join(openClawStateDir(params.env), "hooks", PACK_ID))) || (await exists(workspaceHookDir(params.workspace)));
  return isObject(entries) && PACK_ID in entries && !packThere ? "plugin" : "hook-pack";
}
