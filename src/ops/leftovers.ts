// What an uninstall leaves behind, and what `--purge` removes of it. Two kinds:
//   the bundle's own state (purged): <state dir>/openclaw-context/ (our log, the memory index
//     cache), a configured index cache folder, our openclaw.json.<time>.bak copies, and each
//     workspace's ETHOS_CONTEXT.md (rewritten every memory turn: a view, not a record);
//   the operator's (never purged): memory the operator or the capture wrote (MEMORY.md, memory/*.md,
//     memory/.triage/, CORRECTIONS.md), the forget log memory/.forgotten.jsonl and the state dir's
//     seal.key that unseals its undo data (src/fs/seal.ts), the migration folder (initiatives/…: backups, drafts,
//     baseline), the pre-install copy openclaw.json.before-openclaw-context, and OpenClaw's own
//     openclaw.json.bak files. They are listed with their paths; deleting them is the operator's call.
// Read before the uninstall restores openclaw.json: the workspaces and a configured index folder
// come from the config as installed.
import fs from "node:fs";
import path from "node:path";
import { pluginEntry } from "../context/delivery.ts";
import { parsePluginConfig } from "../context/plugin-config.ts";
import { hookLogFile, LOG_KEEP_FILES } from "../core/log.ts";
import { bundleStateDir, expandHome } from "../core/paths.ts";
import { isObject } from "../host/events.ts";
import type { OpenClawConfig } from "../host/events.ts";
import { resolveHookConfig } from "../host/hook-config.ts";
import { HOOK_KEYS, HOOK_PACK_ID, RETRIEVED_MEMORY_RECORD_NAME } from "../host/ids.ts";
import { FORGET_LOG } from "../capture/workspace-files.ts";
import { isPendingJournalName } from "../capture/pending-edits.ts";
import { sealKeyPath } from "../fs/seal.ts";
import { INITIATIVE_DIR } from "./paths.ts";

export type Leftover = { path: string; what: string; purge: boolean };

function exists(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

function entriesOf(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** Every agent workspace openclaw.json names (agents.defaults.workspace, agents.list[].workspace), plus the one given. */
function workspacesOf(cfg: OpenClawConfig | undefined, workspace: string | undefined, env: NodeJS.ProcessEnv): string[] {
  const agents = isObject(cfg?.agents) ? cfg.agents : undefined;
  const defaults = isObject(agents?.defaults) ? agents.defaults : undefined;
  const listed = Array.isArray(agents?.list) ? agents.list.filter(isObject).map((agent) => agent.workspace) : [];
  const found = [workspace, defaults?.workspace, ...listed].filter((dir): dir is string => typeof dir === "string" && dir.trim() !== "").map((dir) => path.resolve(expandHome(dir.trim(), env)));
  return [...new Set(found)];
}

/** A memory index folder the operator configured (ethosContext.memory.indexCacheDir), if any. */
function configuredIndexDir(cfg: OpenClawConfig | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const plugin = pluginEntry(cfg);
  const options = plugin ? parsePluginConfig(plugin.config, { report: false }).config.ethosContext : resolveHookConfig(cfg, HOOK_KEYS.ethosContext);
  const memory = isObject(options.memory) ? options.memory : undefined;
  return typeof memory?.indexCacheDir === "string" && memory.indexCacheDir.trim() ? path.resolve(expandHome(memory.indexCacheDir.trim(), env)) : undefined;
}

/** Our openclaw.json backups: `<name>.<YYYYMMDDTHHMMSSZ>[-n].bak` next to it (src/ops/openclaw-json.ts). */
function ourConfigBackups(configPath: string): string[] {
  const name = path.basename(configPath).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(`^${name}\\.\\d{8}T\\d{6}Z(?:-\\d+)?\\.bak$`);
  try {
    return fs.readdirSync(path.dirname(configPath)).filter((entry) => pattern.test(entry)).map((entry) => path.join(path.dirname(configPath), entry)).sort();
  } catch {
    return [];
  }
}

export function bundleLeftovers(params: { configPath: string; cfg: OpenClawConfig | undefined; workspace?: string; env?: NodeJS.ProcessEnv }): Leftover[] {
  const env = params.env ?? process.env;
  const found: Leftover[] = [];
  const add = (file: string, what: string, purge: boolean) => {
    if (exists(file) && !found.some((item) => item.path === file)) found.push({ path: file, what, purge });
  };
  const stateDir = bundleStateDir(env);
  const sealKey = sealKeyPath(env);
  if (!exists(sealKey)) add(stateDir, "openclaw-context's state: its log and the memory index cache", true);
  else {
    // The key unseals the undo data of forgets (memory/.forgotten.jsonl): removing it would make
    // them impossible to undo, so it stays with the operator's memory; the rest of the folder goes.
    for (const entry of entriesOf(stateDir)) {
      if (path.join(stateDir, entry) !== sealKey) add(path.join(stateDir, entry), "openclaw-context's state (its log, the memory index cache)", true);
    }
    add(sealKey, "the key that unseals the undo data of forgets (memory/.forgotten.jsonl); yours: kept", false);
  }
  const log = hookLogFile(env);
  if (log && !log.startsWith(bundleStateDir(env) + path.sep)) {
    for (const file of [log, ...Array.from({ length: LOG_KEEP_FILES }, (_, n) => `${log}.${n + 1}`)]) add(file, "openclaw-context's log ($OPENCLAW_CONTEXT_LOG_FILE)", true);
  }
  const indexDir = configuredIndexDir(params.cfg, env);
  if (indexDir) add(indexDir, "the memory index cache (ethosContext.memory.indexCacheDir)", true);
  for (const backup of ourConfigBackups(params.configPath)) add(backup, "a copy of openclaw.json taken before one of our edits", true);
  for (const workspace of workspacesOf(params.cfg, params.workspace, env)) {
    add(path.join(workspace, RETRIEVED_MEMORY_RECORD_NAME), "the last memory block the model got (rewritten every memory turn)", true);
    add(path.join(workspace, "memory", ".triage"), "the triage queue of your messages (capture); yours: kept", false);
    for (const name of entriesOf(path.join(workspace, "memory")).filter(isPendingJournalName)) {
      add(path.join(workspace, "memory", name), "in-place edits of your memory a stopped gateway recorded and did not apply (mention counts, superseded marks); applied by the next capture if the bundle comes back; yours: kept", false);
    }
    add(path.join(workspace, FORGET_LOG), "what was forgotten (tombstones that keep the capture from writing it again, and undo data); yours: kept", false);
    add(path.join(workspace, "CORRECTIONS.md"), "corrections captured from your messages; yours: kept", false);
    add(path.join(workspace, INITIATIVE_DIR), "the migration folder (backups, drafts, baseline); yours: kept", false);
  }
  add(`${params.configPath}.before-${HOOK_PACK_ID}`, "openclaw.json as it was before the install (when the exact restore was not possible); yours: kept", false);
  return found;
}

/** Remove what --purge removes; returns one line per path (removed, or why not). */
function purgeLeftovers(leftovers: readonly Leftover[]): { removed: string[]; failed: string[] } {
  const removed: string[] = [];
  const failed: string[] = [];
  for (const item of leftovers.filter((leftover) => leftover.purge)) {
    try {
      fs.rmSync(item.path, { recursive: true, force: true });
      removed.push(`${item.path} (${item.what})`);
    } catch (error) {
      failed.push(`${item.path}: ${(error as Error).message}`);
    }
  }
  return { removed, failed };
}

/** The lines an uninstall prints about what stays (and, without --purge, what --purge would remove). */
function describeLeftovers(leftovers: readonly Leftover[], purged: boolean): string[] {
  const lines: string[] = [];
  const state = leftovers.filter((item) => item.purge);
  const yours = leftovers.filter((item) => !item.purge);
  if (!purged && state.length > 0) {
    lines.push("Left in place (openclaw-context's own state; --purge removes it):");
    for (const item of state) lines.push(`  - ${item.path}: ${item.what}`);
  }
  if (yours.length > 0) {
    lines.push("Left in place (yours; never removed by uninstall):");
    for (const item of yours) lines.push(`  - ${item.path}: ${item.what}`);
  }
  lines.push("Your memory files (MEMORY.md, memory/*.md, including the facts captured there) are untouched.");
  return lines;
}

/**
 * After a successful uninstall: purge (when asked) and say what stays. `cfg` is openclaw.json as it
 * was installed (read before the uninstall restored it). Returns the lines to print and the paths
 * --purge could not remove.
 */
export function afterUninstall(params: Parameters<typeof bundleLeftovers>[0], purge: boolean): { lines: string[]; failed: string[] } {
  // Listed now: OpenClaw's uninstall took some, the restore wrote one more backup.
  const present = bundleLeftovers(params);
  const lines: string[] = [];
  let failed: string[] = [];
  if (purge) {
    const result = purgeLeftovers(present);
    failed = result.failed;
    lines.push(...(result.removed.length ? ["Removed (--purge):", ...result.removed.map((line) => `  - ${line}`)] : ["--purge: none of openclaw-context's own state was left"]));
  }
  lines.push(...describeLeftovers(present.filter((item) => !purge || !item.purge), purge));
  return { lines, failed };
}

/** The last line of every uninstall: one restart instruction, the same on both versions. */
export const UNINSTALLED_LINE = "Uninstalled. RESTART NEEDED: a running gateway keeps what it has loaded until it restarts (openclaw gateway restart).";
