import fs from "node:fs/promises";
import path from "node:path";
import { HOOK_KEYS } from "../host/ids.ts";
import { isObject } from "../host/events.ts";
import type { OpenClawConfig } from "../host/events.ts";
import { ON_DEMAND_HEADING_TEXT, SHEDDING_HEADING, TOOLS_INSTRUCTION_LINE } from "../bootstrap/soul-instructions.ts";
import { setHooksEnabled } from "./hook-toggle.ts";
import { detectEol, replaceLines, sectionsMatching, splitLines } from "../core/markdown.ts";
import { backupsDir, phase0BackupPath } from "./paths.ts";
import type { BackupFile } from "./paths.ts";
import { backupBeforeChange, exists, replaceFileWithBackup, sha256File } from "./safe-write.ts";
import { withFileLock } from "../fs/lock.ts";
import { childObject, editOpenClawJson, readOpenClawJson } from "./openclaw-json.ts";
import { pluginPackageStatus } from "./plugin-status.ts";

// One-command revert for each migration phase (spec appendix B, "Rollback Procedures").

export const ROLLBACK_PHASES = ["0", "1", "2", "3", "4", "full"] as const;
export type RollbackPhase = (typeof ROLLBACK_PHASES)[number];

export type RollbackStep = { action: string; ok: boolean; detail: string };

export type RollbackOptions = {
  workspace: string;
  phase: RollbackPhase;
  configPath: string;
  /** Phase 1 option B: restore SOUL.md instead of disabling the hook. */
  restoreSoul?: boolean;
  cli?: string;
  /** Where the state dir is (the plugin package's folder); default process.env. */
  env?: NodeJS.ProcessEnv;
};

/** Which Phase 0 backups each phase restores, and whether it disables the aci-bootstrap hook. */
function rollbackPlan(phase: RollbackPhase, restoreSoul = false): { restore: BackupFile[]; disableHook: boolean; soulEdit?: "shedding" | "tools-instruction" } {
  switch (phase) {
    case "0":
      return { restore: ["SOUL.md", "AGENTS.md"], disableHook: false };
    case "1":
      return restoreSoul ? { restore: ["SOUL.md"], disableHook: false } : { restore: [], disableHook: true };
    case "2":
      return { restore: [], disableHook: true };
    case "3":
      return { restore: [], disableHook: false, soulEdit: "shedding" };
    case "4":
      return { restore: [], disableHook: false, soulEdit: "tools-instruction" };
    case "full":
      return { restore: ["SOUL.md", "AGENTS.md", "TOOLS.md"], disableHook: true };
  }
}

async function restoreFromBackup(workspace: string, file: BackupFile): Promise<RollbackStep> {
  const backup = phase0BackupPath(workspace, file);
  const target = path.join(workspace, file);
  if (!(await exists(backup))) {
    return { action: `restore ${file}`, ok: false, detail: `backup missing: ${backup} (run the backup script before Phase 0)` };
  }
  const wanted = await sha256File(backup);
  if ((await exists(target)) && (await sha256File(target)) === wanted) {
    return { action: `restore ${file}`, ok: true, detail: `already identical to ${path.relative(workspace, backup)} (sha256 ${wanted.slice(0, 12)})` };
  }
  // The current file is itself backed up first: a rollback must not destroy the newer version either.
  const saved = await withFileLock(target, async () => {
    const copy = await backupBeforeChange(target, backupsDir(workspace));
    await fs.copyFile(backup, target);
    return copy;
  });
  const ok = (await sha256File(target)) === wanted;
  return {
    action: `restore ${file}`,
    ok,
    detail: ok
      ? `restored from ${path.relative(workspace, backup)} (sha256 ${wanted.slice(0, 12)} verified)${saved ? `; previous version saved to ${path.relative(workspace, saved)}` : ""}`
      : `hash mismatch after copy`,
  };
}

// Phase 3 adds a shedding section; phase 4 adds a "read TOOLS.md when needed" instruction
// (src/bootstrap/soul-instructions.ts says how each is recognised).

/** Text of SOUL.md with the Phase 3 or Phase 4 additions removed (unchanged when absent). */
export function removeSoulAddition(text: string, kind: "shedding" | "tools-instruction"): { text: string; removed: number } {
  if (kind === "shedding") {
    let result = text;
    let removed = 0;
    for (let section = sectionsMatching(result, SHEDDING_HEADING)[0]; section; section = sectionsMatching(result, SHEDDING_HEADING)[0]) {
      result = replaceLines(result, section.startLine, section.endLine, "");
      removed += 1;
    }
    return { text: result, removed };
  }
  const lines = splitLines(text);
  const kept = lines.filter((line) => !TOOLS_INSTRUCTION_LINE.test(line));
  let result = kept.join(detectEol(text));
  // The "## On demand" section the soul-instructions command made for that line goes too, once empty.
  const section = sectionsMatching(result, new RegExp(`^${ON_DEMAND_HEADING_TEXT}$`), 2).find((candidate) => splitLines(result).slice(candidate.startLine + 1, candidate.endLine).every((line) => line.trim() === ""));
  if (kept.length < lines.length && section) result = replaceLines(result, section.startLine, section.endLine, "");
  return { text: result, removed: lines.length - kept.length };
}

async function editSoul(workspace: string, kind: "shedding" | "tools-instruction"): Promise<RollbackStep> {
  const soul = path.join(workspace, "SOUL.md");
  const label = kind === "shedding" ? "remove shedding instructions from SOUL.md" : "remove on-demand TOOLS.md instruction from SOUL.md";
  if (!(await exists(soul))) return { action: label, ok: false, detail: `${soul} does not exist` };
  const before = await fs.readFile(soul, "utf8");
  const { text, removed } = removeSoulAddition(before, kind);
  if (removed === 0) return { action: label, ok: true, detail: "nothing to remove (already rolled back)" };
  const saved = await replaceFileWithBackup(soul, text, backupsDir(workspace));
  const verify = removeSoulAddition(await fs.readFile(soul, "utf8"), kind);
  return {
    action: label,
    ok: verify.removed === 0,
    detail: `removed ${removed} ${kind === "shedding" ? "section(s)" : "line(s)"}; previous SOUL.md saved to ${saved ? path.relative(workspace, saved) : "?"}`,
  };
}

export async function rollback(options: RollbackOptions): Promise<RollbackStep[]> {
  const plan = rollbackPlan(options.phase, options.restoreSoul);
  const steps: RollbackStep[] = [];
  for (const file of plan.restore) steps.push(await restoreFromBackup(options.workspace, file));
  if (plan.soulEdit) steps.push(await editSoul(options.workspace, plan.soulEdit));
  if (plan.disableHook) {
    // The plugin package's file sets are its own hook (`openclaw hooks disable` does not reach it):
    // its switch is plugins.entries.openclaw-context.config.bootstrap. The hook pack's entry is
    // switched off too when openclaw.json has one (both installed, or the hook pack alone).
    const cfg = await readOpenClawJson(options.configPath).catch(() => undefined);
    const pkg = pluginPackageStatus(cfg as OpenClawConfig | undefined, options.env);
    if (pkg) steps.push(await switchOffPackageBootstrap(options.configPath, pkg.id));
    if (pkg && !hasHookEntry(cfg, HOOK_KEYS.aciBootstrap)) return steps;
    try {
      const result = await setHooksEnabled({ configPath: options.configPath, hookKeys: [HOOK_KEYS.aciBootstrap], enabled: false, cli: options.cli });
      steps.push({
        action: `disable ${HOOK_KEYS.aciBootstrap} in openclaw.json`,
        ok: true,
        detail: `via ${result.via}; verified hooks.internal.entries.${HOOK_KEYS.aciBootstrap}.enabled is not true. ${result.notes.join("; ")}`,
      });
    } catch (error) {
      steps.push({ action: `disable ${HOOK_KEYS.aciBootstrap} in openclaw.json`, ok: false, detail: (error as Error).message });
    }
  }
  return steps;
}

function hasHookEntry(cfg: Record<string, unknown> | undefined, hookKey: string): boolean {
  const hooks = isObject(cfg?.hooks) ? cfg.hooks : {};
  const internal = isObject(hooks.internal) ? hooks.internal : {};
  return isObject(internal.entries) && isObject(internal.entries[hookKey]);
}

/** `plugins.entries.<id>.config.bootstrap: false` (comments kept), verified by reading the file back. */
async function switchOffPackageBootstrap(configPath: string, pluginId: string): Promise<RollbackStep> {
  const action = `disable the plugin package's file sets (plugins.entries.${pluginId}.config.bootstrap false)`;
  try {
    const edit = await editOpenClawJson(configPath, (config) => {
      const settings = childObject(childObject(childObject(childObject(config, "plugins"), "entries"), pluginId), "config");
      if (settings.bootstrap === false) return false;
      settings.bootstrap = false;
      return true;
    });
    const after = await readOpenClawJson(configPath);
    const written = (after as { plugins?: { entries?: Record<string, { config?: { bootstrap?: unknown } }> } } | undefined)?.plugins?.entries?.[pluginId]?.config?.bootstrap;
    if (written !== false) return { action, ok: false, detail: `verification failed: plugins.entries.${pluginId}.config.bootstrap is ${String(written)} in ${configPath}` };
    return { action, ok: true, detail: `verified in ${configPath}; OpenClaw's default file set from the gateway's next start (memory stays on). ${edit.notes.join("; ")}` };
  } catch (error) {
    return { action, ok: false, detail: (error as Error).message };
  }
}
