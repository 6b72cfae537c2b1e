import fs from "node:fs";
import path from "node:path";
import { loadOpenClawConfigFile, resolveOpenClawConfigPath } from "../host/config-file.ts";
import { expandHome, openClawStateDir } from "../core/paths.ts";
import { initiativeDir } from "../lifecycle/review-gate.ts";
import { UsageError } from "./cli.ts";

// Where the ACI initiative keeps its operator artefacts: the review gate's folder (src/lifecycle/review-gate.ts).
export { INITIATIVE_DIR, initiativeDir } from "../lifecycle/review-gate.ts";
export const BACKUP_FILES = ["SOUL.md", "AGENTS.md", "TOOLS.md"] as const;
export type BackupFile = (typeof BACKUP_FILES)[number];

export function backupsDir(workspace: string): string {
  return path.join(initiativeDir(workspace), "backups");
}

export function phase0BackupPath(workspace: string, file: BackupFile): string {
  return path.join(backupsDir(workspace), `${file}.bak`);
}

/**
 * The one workspace rule of every operator script, the same as the gateway's for its default agent:
 * the --workspace flag, else `agents.defaults.workspace` in openclaw.json, else
 * $OPENCLAW_WORKSPACE_DIR, else <state dir>/workspace (~/.openclaw/workspace by default).
 */
export function defaultWorkspace(env: NodeJS.ProcessEnv = process.env, configPath = resolveOpenClawConfigPath(env)): { dir: string; source: string } {
  const configured = (loadOpenClawConfigFile(configPath)?.agents as { defaults?: { workspace?: unknown } } | undefined)?.defaults?.workspace;
  if (typeof configured === "string" && configured.trim()) return { dir: path.resolve(expandHome(configured.trim(), env)), source: `agents.defaults.workspace in ${configPath}` };
  if (env.OPENCLAW_WORKSPACE_DIR) return { dir: path.resolve(expandHome(env.OPENCLAW_WORKSPACE_DIR, env)), source: "$OPENCLAW_WORKSPACE_DIR" };
  return { dir: path.join(openClawStateDir(env), "workspace"), source: "the default <state dir>/workspace" };
}

/** The workspace from the flag or the rule above; must be an existing directory. */
export function resolveWorkspace(option: string | undefined, env: NodeJS.ProcessEnv = process.env, configPath?: string): string {
  const chosen = option !== undefined ? { dir: path.resolve(expandHome(option, env)), source: "--workspace" } : defaultWorkspace(env, configPath);
  const workspace = chosen.dir;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(workspace);
  } catch {
    throw new UsageError(`workspace not found: ${workspace} (from ${chosen.source}; pass --workspace <dir>)`);
  }
  if (!stat.isDirectory()) throw new UsageError(`workspace is not a directory: ${workspace}`);
  return workspace;
}

/** Filesystem-safe UTC timestamp for backup names, e.g. 20261122T010203Z. */
export function timestamp(date = new Date()): string {
  return date.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
}
