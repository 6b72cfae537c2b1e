import fs from "node:fs";
import path from "node:path";
import { UsageError } from "./cli.ts";

// Where the ACI initiative keeps its operator artefacts, relative to the workspace root (spec §7, appendix B).
export const INITIATIVE_DIR = path.join("initiatives", "adaptive-context-injection");
export const BACKUP_FILES = ["SOUL.md", "AGENTS.md", "TOOLS.md"] as const;
export type BackupFile = (typeof BACKUP_FILES)[number];

export function initiativeDir(workspace: string): string {
  return path.join(workspace, INITIATIVE_DIR);
}

export function backupsDir(workspace: string): string {
  return path.join(initiativeDir(workspace), "backups");
}

export function phase0BackupPath(workspace: string, file: BackupFile): string {
  return path.join(backupsDir(workspace), `${file}.bak`);
}

/** The workspace given on the command line, or $OPENCLAW_WORKSPACE, or the OpenClaw default. */
export function resolveWorkspace(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = option ?? env.OPENCLAW_WORKSPACE ?? path.join(env.HOME ?? "", ".openclaw", "workspace");
  const workspace = path.resolve(chosen);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(workspace);
  } catch {
    throw new UsageError(`workspace not found: ${workspace} (pass --workspace <dir>)`);
  }
  if (!stat.isDirectory()) throw new UsageError(`workspace is not a directory: ${workspace}`);
  return workspace;
}

/** Filesystem-safe UTC timestamp for backup names, e.g. 20261122T010203Z. */
export function timestamp(date = new Date()): string {
  return date.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
}
