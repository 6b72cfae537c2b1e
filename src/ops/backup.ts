import fs from "node:fs/promises";
import { BACKUP_FILES, backupsDir, phase0BackupPath } from "./paths.ts";
import type { BackupFile } from "./paths.ts";
import { backupBeforeChange, exists, sha256File } from "./safe-write.ts";
import path from "node:path";

// Phase 0 hard gate (spec §7): backups/{SOUL,AGENTS,TOOLS}.md.bak exist and match the originals.

export type BackupStatus = {
  file: BackupFile;
  source: string;
  backup: string;
  action: "created" | "already-current" | "kept-existing" | "replaced" | "source-missing";
  sourceHash?: string;
  backupHash?: string;
  /** Backup of a previous .bak that --force replaced. */
  previousBackup?: string;
};

/**
 * Create the Phase 0 backups. An existing .bak that differs from the live file is the pre-ACI
 * original and is kept (never silently overwritten); --force moves it aside to a timestamped copy first.
 */
export async function createPhase0Backups(workspace: string, options: { force?: boolean } = {}): Promise<BackupStatus[]> {
  await fs.mkdir(backupsDir(workspace), { recursive: true });
  const statuses: BackupStatus[] = [];
  for (const file of BACKUP_FILES) {
    const source = path.join(workspace, file);
    const backup = phase0BackupPath(workspace, file);
    if (!(await exists(source))) {
      statuses.push({ file, source, backup, action: "source-missing" });
      continue;
    }
    const sourceHash = await sha256File(source);
    if (await exists(backup)) {
      const existingHash = await sha256File(backup);
      if (existingHash === sourceHash) {
        statuses.push({ file, source, backup, action: "already-current", sourceHash, backupHash: existingHash });
        continue;
      }
      if (!options.force) {
        statuses.push({ file, source, backup, action: "kept-existing", sourceHash, backupHash: existingHash });
        continue;
      }
      const previousBackup = await backupBeforeChange(backup, backupsDir(workspace));
      await fs.copyFile(source, backup);
      statuses.push({ file, source, backup, action: "replaced", sourceHash, backupHash: await sha256File(backup), previousBackup });
      continue;
    }
    await fs.copyFile(source, backup);
    statuses.push({ file, source, backup, action: "created", sourceHash, backupHash: await sha256File(backup) });
  }
  return statuses;
}

export type GateResult = { ok: boolean; problems: string[] };

/** The hard gate: every backup exists and its hash matches the created/verified copy. */
export function evaluateBackupGate(statuses: BackupStatus[]): GateResult {
  const problems: string[] = [];
  for (const status of statuses) {
    if (status.action === "source-missing") problems.push(`${status.file} does not exist in the workspace (${status.source}); nothing to back up`);
    else if (status.action === "kept-existing") {
      problems.push(`${status.backup} already exists and differs from the current ${status.file}: kept it (it is likely the pre-ACI original). Re-run with --force to move it aside and back up the current file`);
    } else if (status.sourceHash !== status.backupHash) problems.push(`${status.backup} does not match ${status.file} by sha256`);
  }
  return { ok: problems.length === 0, problems };
}

