import fs from "node:fs";
import path from "node:path";
import { CONFIG_ISSUE_EVENT } from "../core/config.ts";
import type { ConfigIssue } from "../core/config.ts";
import { hookLogFile } from "../core/log.ts";
import { readTailSync } from "../fs/safe-read.ts";
import { capturedToday } from "../capture/capture.ts";
import { pendingJournals } from "../capture/pending-edits.ts";
import type { PendingJournal } from "../capture/pending-edits.ts";
import { forgetHistory, readForgetLog } from "../capture/forget.ts";
import { maintenanceStatus } from "../lifecycle/maintenance-status.ts";
import type { MaintenanceStatus } from "../lifecycle/maintenance-status.ts";
import { loadHygieneConfig } from "../memory/config-md.ts";
import { wisdomCompressionDue } from "./wisdom/due.ts";
import type { WisdomDue } from "./wisdom/due.ts";
import { defaultIndexCacheDir } from "../memory/sources.ts";
import { readIndexCacheHeader } from "../memory/index-cache.ts";
import { redactSecrets } from "../memory/secrets.ts";
import { openClawStateDir } from "../core/paths.ts";
import { isObject } from "../host/events.ts";
import type { OpenClawConfig } from "../host/events.ts";
import { installRecordPath } from "./install.ts";
import { HOOK_NAMES, PACK_ID, hookEligibility, workspaceHookDir } from "./hook-pack-install.ts";
import type { InstallRecord } from "./install.ts";
import type { HookEligibility } from "./hook-pack-install.ts";
import { readOpenClawJson } from "./openclaw-json.ts";
import { PLUGIN_UNIT_ID } from "./plugin-install.ts";
import { GITIGNORE_UNIT_ID } from "./gitignore-unit.ts";
import { configIssuesNow } from "./config-issues.ts";
import { openClawConfigIssues } from "./openclaw-cli.ts";
import { runCli } from "./plugin-install.ts";
import { pluginPackageStatus } from "./plugin-status.ts";
import type { PluginPackageStatus } from "./plugin-status.ts";
import { checkSoulInstructions } from "./soul-instructions.ts";
import { resolveOwners } from "../session/owners.ts";
import { sharedMainWarnings } from "../session/shared-main.ts";
import type { SharedMainWarning } from "../session/shared-main.ts";
import type { SoulInstructionsCheck } from "./soul-instructions.ts";
import { formatTurns, parseLogLines, recentTurns } from "./turn-log.ts";
import type { LogRecord, TurnSummary } from "./turn-log.ts";

export type { LogRecord } from "./turn-log.ts";

// `npm run status`: what an operator wants to know first, in plain words. Everything is read from
// files (openclaw.json, the install record, our log file, the index cache); the openclaw CLI is
// asked only whether the gateway sees the hooks as eligible.

type HookStatus = { name: string; enabled: boolean; why: string; eligibility?: HookEligibility };
type UnitStatus = { id: string; installed: boolean; detail: string };
type IndexFileStatus = { file: string; bytes: number; savedAt: string; rootDir?: string; filesIndexed?: number; staleFiles?: number };

export type StatusReport = {
  configPath: string;
  workspace: string;
  logFile?: string;
  units: UnitStatus[];
  hooks: HookStatus[];
  /** Each config entry openclaw.json has for us (the plugin's, the hooks'), checked now: the keys ignored and why. */
  configNow: Record<string, ConfigIssue[]>;
  /** `openclaw config validate`: what OpenClaw rejects in openclaw.json (asked only with the CLI). */
  openclawRejects?: string[];
  configLogged: (ConfigIssue & { time?: string })[];
  /** The last turns our log records, newest first (--last). */
  turns: TurnSummary[];
  index: { dir: string; files: IndexFileStatus[] };
  /** Facts captured today from "remember that …" (memory/YYYY-MM-DD.md, UTC day). */
  captured: { file: string; facts: { statement: string; tag: string; source?: string; mentions?: number; superseded: boolean; capturedAt: string }[] };
  /** Journals of in-place edits recorded but not applied yet (a mention count, a superseded mark): normally none. */
  pendingEdits: PendingJournal[];
  /** The newest forgets of memory/.forgotten.jsonl ("forget that …" in chat, `memory forget`), newest first. */
  forgotten: { id: string; ts: string; origin: string; facts: string[]; undo: string; undoneAt?: string }[];
  /** The plugin (OpenClaw 2026.9+), when installed: it replaces the hook pack there. */
  pluginPackage?: PluginPackageStatus;
  /** The hook pack + companion plugin a plugin install replaced, and the settings it carried. */
  migratedFrom?: InstallRecord["migratedFrom"];
  /** Channels whose DM policy may let someone who is not an owner into the main session (dmScope "main"). */
  sharedMain: { owners: number; ownerSource: string; warnings: SharedMainWarning[] };
  /** SOUL.md as it is now against the spec's on-demand instructions (the required memory entry first). */
  soul: SoulInstructionsCheck;
  /** The maintenance pass: the last run, open conflicts, corrections waiting (src/lifecycle). */
  maintenance: MaintenanceStatus;
  /** Whether wisdom compression is due (monthly, or 10 new lessons). */
  wisdom: WisdomDue;
};

const MAX_LOG_TAIL_BYTES = 4 * 1024 * 1024;

/** The newest records of our log (the current file, then the rotated ones while within the byte cap). */
export function readLogTail(file: string, maxBytes = MAX_LOG_TAIL_BYTES): LogRecord[] {
  const chunks: string[] = [];
  let budget = maxBytes;
  for (const candidate of [file, `${file}.1`, `${file}.2`, `${file}.3`]) {
    if (budget <= 0) break;
    const tail = readTailSync(candidate, budget);
    if (tail === undefined) continue;
    budget -= Buffer.byteLength(tail);
    chunks.unshift(tail);
  }
  return parseLogLines(chunks.join("\n"));
}

function iso(time: unknown): string | undefined {
  return typeof time === "number" ? new Date(time).toISOString() : undefined;
}

function hookEnabled(cfg: Record<string, unknown> | undefined, name: string): { enabled: boolean; why: string } {
  const internal = (cfg?.hooks as { internal?: { enabled?: unknown; entries?: Record<string, { enabled?: unknown }> } } | undefined)?.internal;
  if (internal?.enabled === false) return { enabled: false, why: "hooks.internal.enabled is false (all internal hooks off)" };
  const entry = internal?.entries?.[name];
  if (entry?.enabled === true) return { enabled: true, why: `hooks.internal.entries.${name}.enabled is true` };
  if (entry?.enabled === false) return { enabled: false, why: `hooks.internal.entries.${name}.enabled is false` };
  return { enabled: false, why: `no hooks.internal.entries.${name}.enabled in openclaw.json (installed hooks need it)` };
}

/** Config problems the gateway logged at its last load of each hook's entry. */
function lastLoggedConfigIssues(records: LogRecord[]): StatusReport["configLogged"] {
  const issues = records.filter((record) => record.event === CONFIG_ISSUE_EVENT);
  const newestByRoot = new Map<string, number>();
  for (const issue of issues) newestByRoot.set(String(issue.configKey), Math.max(newestByRoot.get(String(issue.configKey)) ?? 0, Number(issue.time ?? 0)));
  // One load logs its issues together: keep those within a few seconds of the newest per entry.
  const seen = new Set<string>();
  return issues
    .filter((issue) => Number(issue.time ?? 0) >= (newestByRoot.get(String(issue.configKey)) ?? 0) - 5_000)
    .map((issue) => ({ key: String(issue.key), reason: String(issue.reason), time: iso(issue.time) }))
    .filter((issue) => (seen.has(`${issue.key}:${issue.reason}`) ? false : (seen.add(`${issue.key}:${issue.reason}`), true)));
}

/** rootDir and indexed file names of one saved index: the binary `.idx` cache (header only) or the older `.json` one. */
function readIndexSummary(file: string): { rootDir?: string; files?: string[] } {
  const header = readIndexCacheHeader(file);
  if (header) return header;
  const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as { rootDir?: unknown; files?: unknown };
  return { rootDir: typeof parsed.rootDir === "string" ? parsed.rootDir : undefined, files: isObject(parsed.files) ? Object.keys(parsed.files) : undefined };
}

function indexStatus(dir: string): StatusReport["index"] {
  const files: IndexFileStatus[] = [];
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir).filter((name) => name.endsWith(".idx") || name.endsWith(".json"));
  } catch {
    return { dir, files };
  }
  for (const name of names) {
    const file = path.join(dir, name);
    const stat = fs.statSync(file);
    if (!stat.isFile()) continue;
    const entry: IndexFileStatus = { file, bytes: stat.size, savedAt: stat.mtime.toISOString() };
    try {
      const summary = readIndexSummary(file);
      if (summary.rootDir) entry.rootDir = summary.rootDir;
      if (summary.files) {
        entry.filesIndexed = summary.files.length;
        // Files changed on disk after the index saved them (or gone): the next turn re-reads them.
        entry.staleFiles = summary.files.filter((rel) => {
          try {
            return fs.statSync(path.join(String(summary.rootDir), rel)).mtimeMs > stat.mtimeMs;
          } catch {
            return true;
          }
        }).length;
      }
    } catch {
      // another format: size and time only
    }
    files.push(entry);
  }
  return { dir, files };
}

export async function collectStatus(params: {
  configPath: string;
  workspace: string;
  /** The openclaw CLI: an executable, or the entry file of the CLI running `openclaw context status`. */
  cli?: string;
  insideOpenClaw?: boolean;
  /** How many of the last turns to show (default 5). */
  lastTurns?: number;
  env?: NodeJS.ProcessEnv;
  now?: Date;
}): Promise<StatusReport> {
  const env = params.env ?? process.env;
  const cfg = await readOpenClawJson(params.configPath).catch(() => undefined);
  let record: InstallRecord | undefined;
  try {
    record = JSON.parse(fs.readFileSync(installRecordPath(params.configPath), "utf8")) as InstallRecord;
  } catch {
    record = undefined;
  }

  const units: UnitStatus[] = [];
  if (record?.units && Object.keys(record.units).length > 0) {
    for (const [id, unit] of Object.entries(record.units)) {
      const where = String(unit.path ?? "");
      const present = where !== "" && fs.existsSync(where);
      // A unit that was never installed (or left nothing of its own) says so, instead of an empty path.
      if (unit.installed === false || where === "") units.push({ id, installed: false, detail: unit.installed === false ? `not installed (${String(unit.reason ?? "not needed")})` : "installed (no files of its own)" });
      else units.push({ id, installed: present, detail: present ? `installed (${String(unit.mode ?? record.mode)} mode) at ${where}` : `recorded as installed at ${where}, but it is not there` });
    }
  } else {
    const candidates = [path.join(openClawStateDir(env), "hooks", PACK_ID), workspaceHookDir(params.workspace)];
    const found = candidates.find((candidate) => fs.existsSync(candidate));
    units.push({ id: "hook-pack", installed: Boolean(found), detail: found ? `found at ${found} (not installed by install-hooks: no install record)` : `not installed (looked in ${candidates.join(" and ")})` });
  }

  // The CLI's entry file (`openclaw context status`) or an executable (`npm run status`).
  const run = params.cli ? (args: string[]) => runCli(params.cli!, args, { configPath: params.configPath, env }, 180_000) : undefined;
  const eligibility = run ? await hookEligibility(params.cli!, params.configPath, { attempts: 1, run }) : undefined;
  const hooks = HOOK_NAMES.map((name) => ({ name, ...hookEnabled(cfg, name), eligibility: eligibility?.find((row) => row.name === name) }));

  const configNow = configIssuesNow(cfg as OpenClawConfig | undefined);
  // Inside `openclaw context status` OpenClaw has already accepted the file (or this would not run).
  const openclawRejects = run && !params.insideOpenClaw ? await openClawConfigIssues(run) : undefined;

  const logFile = hookLogFile(env);
  const records = logFile ? readLogTail(logFile) : [];
  return {
    configPath: params.configPath,
    workspace: params.workspace,
    logFile,
    units,
    hooks,
    configNow,
    ...(openclawRejects && openclawRejects.length > 0 ? { openclawRejects } : {}),
    configLogged: lastLoggedConfigIssues(records),
    turns: recentTurns(records, params.lastTurns ?? 5),
    index: indexStatus(defaultIndexCacheDir(env)),
    ...(record?.migratedFrom ? { migratedFrom: record.migratedFrom } : {}),
    pluginPackage: pluginPackageStatus(cfg as OpenClawConfig | undefined, env),
    captured: await capturedTodayStatus(params.workspace, params.now ?? new Date()),
    pendingEdits: await pendingJournals(params.workspace),
    forgotten: await recentForgets(params.workspace),
    soul: await checkSoulInstructions(params.workspace),
    sharedMain: sharedMainStatus(cfg as OpenClawConfig | undefined),
    maintenance: await maintenanceStatus(params.workspace, params.now ?? new Date(), (await loadHygieneConfig(params.workspace)).config),
    wisdom: await wisdomCompressionDue(params.workspace, params.now ?? new Date()),
  };
}

function sharedMainStatus(cfg: OpenClawConfig | undefined): StatusReport["sharedMain"] {
  const owners = resolveOwners(cfg);
  return { owners: owners.owners.length, ownerSource: owners.lists.join(", ") || owners.source, warnings: sharedMainWarnings(cfg, owners.owners) };
}

async function capturedTodayStatus(workspace: string, now: Date): Promise<StatusReport["captured"]> {
  const today = await capturedToday(workspace, now);
  return {
    file: today.file,
    facts: today.facts.map((fact) => ({
      statement: fact.statement,
      tag: fact.tag,
      source: fact.meta.source,
      mentions: fact.meta.mentions,
      superseded: fact.superseded,
      capturedAt: fact.capturedAt,
    })),
  };
}

const RECENT_FORGETS = 5;

async function recentForgets(workspace: string): Promise<StatusReport["forgotten"]> {
  return forgetHistory(await readForgetLog(workspace))
    .slice(-RECENT_FORGETS)
    .reverse()
    .map(({ record, undoneAt }) => ({ id: record.id, ts: record.ts, origin: record.origin, facts: record.facts.map((f) => f.preview), undo: record.undo, ...(undoneAt ? { undoneAt } : {}) }));
}

function bytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : n >= 1024 ? `${(n / 1024).toFixed(1)} kB` : `${n} B`;
}

function ago(isoTime: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(isoTime)) / 1000));
  if (seconds < 120) return `${seconds} s ago`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86_400)} days ago`;
}

export function formatStatus(report: StatusReport, now = Date.now()): string {
  const out: string[] = [`${PACK_ID} status`, `  openclaw.json: ${report.configPath}`, `  workspace:     ${report.workspace}`, ""];
  const pkg = report.pluginPackage;
  if (pkg) out.push(...pkg.lines, "");
  out.push("Installed");
  // The install record's plugin unit is the plugin line below, and the .gitignore line is either
  // artifact's: neither is a hook pack.
  const packUnits = report.units.filter((unit) => unit.id !== PLUGIN_UNIT_ID && unit.id !== "plugin-package" && unit.id !== GITIGNORE_UNIT_ID);
  const gitignore = report.units.find((unit) => unit.id === GITIGNORE_UNIT_ID);
  const hookPackInstalled = packUnits.some((unit) => unit.installed);
  if (pkg) {
    const where = pkg.installDir ? `at ${pkg.installDir} (openclaw plugins install)` : "its entry is in openclaw.json, but its folder is not under <state dir>/extensions";
    out.push(`  plugin ${pkg.id}: installed ${where}; it registers the bootstrap file sets and the memory delivery itself`);
    const migrated = report.migratedFrom;
    if (migrated) {
      out.push(`  migrated ${migrated.at.slice(0, 16).replace("T", " ")} UTC from the hook pack + companion plugin (${migrated.from.join(", ")}); settings carried:${migrated.carried.length ? "" : " none"}`);
      for (const line of migrated.carried) out.push(`    - ${line}`);
    }
    if (hookPackInstalled) out.push("  WARNING: the hook pack is installed too: install one or the other (both would deliver memory and rewrite the bootstrap files)");
  }
  if (pkg && packUnits.length === 0) out.push("  hook-pack: not installed, and not needed: the plugin does its work");
  for (const unit of pkg ? packUnits : report.units) {
    // Without a hook pack the package is the whole install: "not installed" is expected, say so.
    if (pkg && !hookPackInstalled) out.push(`  ${unit.id}: not installed, and not needed: the plugin does its work`);
    else out.push(`  ${unit.id}: ${unit.detail}`);
  }
  if (pkg && gitignore) out.push(`  ${gitignore.id}: ${gitignore.detail}`);
  if (pkg && !hookPackInstalled) {
    out.push(`  ${report.hooks.map((hook) => hook.name).join(", ")}: the hook pack's entries, not used; the plugin's switches are plugins.entries.${pkg.id}.config (above)`);
  } else {
    for (const hook of report.hooks) {
      const seen = hook.eligibility ? (hook.eligibility.found ? (hook.eligibility.eligible ? `; the gateway lists it as eligible (${hook.eligibility.source})` : `; the gateway lists it as NOT eligible: ${hook.eligibility.blockedReason}`) : "; the gateway does not list it") : "";
      out.push(`  ${hook.name}: ${hook.enabled ? "enabled" : "disabled"} (${hook.why})${seen}`);
    }
    out.push("  memory delivery: ethos-context hook: a record in Project Context");
  }
  out.push("", "Config (openclaw.json as it is now)");
  if (report.openclawRejects) {
    out.push("  OpenClaw rejects openclaw.json (openclaw config validate): the gateway will not start until this is fixed:");
    for (const issue of report.openclawRejects) out.push(`    - ${issue}`);
  }
  for (const [entry, issues] of Object.entries(report.configNow)) {
    out.push(issues.length === 0 ? `  ${entry}: ok` : `  ${entry}: ${issues.length} key(s) ignored, the other settings apply:`);
    for (const issue of issues) out.push(`    - ${issue.key}: ${issue.reason}`);
  }
  out.push("", `Config errors the gateway logged at its last load${report.logFile ? ` (${report.logFile})` : ""}`);
  if (report.configLogged.length === 0) out.push("  none");
  for (const issue of report.configLogged) out.push(`  - ${issue.time ?? ""} ${issue.key}: ${issue.reason}`);
  out.push("", "Who may write and read personal memory");
  const shared = report.sharedMain;
  out.push(shared.owners > 0 ? `  owners: ${shared.owners} id(s) from ${shared.ownerSource}; a message is the owner's when its sender is one of them` : "  owners: none configured (set commands.ownerAllowFrom): only webchat and CLI turns count as the owner's");
  for (const warning of shared.warnings) out.push(`  WARNING ${warning.channel}: ${warning.reason}. Turns that name their sender are decided by it; an agent RPC turn or a heartbeat is not. session.dmScope "per-channel-peer" gives each person a session of their own`);
  if (shared.warnings.length === 0) out.push("  the main session is the owners' only (or session.dmScope keeps DMs apart)");
  out.push("", ...formatSoulCheck(report.soul, now));
  out.push("", "Last turns, newest first (--last <n>)");
  if (!report.logFile) out.push("  file logging is off (OPENCLAW_CONTEXT_LOG_FILE=off)");
  else if (report.turns.length === 0) out.push(`  none logged yet in ${report.logFile}`);
  out.push(...formatTurns(report.turns, (time) => ago(new Date(time).toISOString(), now)));
  out.push("", `Memory index (${report.index.dir})`);
  if (report.index.files.length === 0) out.push("  no saved index yet (it is built on the first turn that needs memory)");
  for (const file of report.index.files) {
    const what = file.filesIndexed !== undefined ? `${file.filesIndexed} files of ${file.rootDir ?? "?"}` : path.basename(file.file);
    const stale = file.staleFiles ? `; ${file.staleFiles} file(s) changed since, re-read on the next turn` : "; up to date with the files on disk";
    out.push(`  ${what}: ${bytes(file.bytes)}, saved ${ago(file.savedAt, now)}${file.filesIndexed !== undefined ? stale : ""}`);
  }
  out.push("", `Captured today (${report.captured.file}; delete a line to undo it)`);
  if (report.captured.facts.length === 0) out.push("  nothing captured today");
  for (const fact of report.captured.facts) {
    const mentions = fact.mentions && fact.mentions > 1 ? `, said ${fact.mentions} times` : "";
    const state = fact.superseded ? "superseded by a newer value" : fact.source === "correction" ? "correction" : "current";
    out.push(`  ${fact.capturedAt.slice(11, 16)} UTC  ${redactSecrets(fact.statement)} ${fact.tag} (${state}${mentions})`);
  }
  for (const journal of report.pendingEdits) {
    const when = journal.writerRunning ? "the gateway writing it applies them once no capture waits" : "its writer stopped; applied before the workspace's next capture";
    out.push(`  ${journal.edits} in-place edit(s) recorded, not applied yet (${journal.file}): ${when}`);
  }
  out.push("", "Forgotten lately (memory/.forgotten.jsonl; undo one: npm run memory -- unforget <id>)");
  if (report.forgotten.length === 0) out.push("  nothing forgotten");
  for (const forget of report.forgotten) {
    const state = forget.undoneAt ? `undone ${ago(forget.undoneAt, now)}` : forget.undo === "not kept" ? "no undo" : "can be undone";
    out.push(`  ${ago(forget.ts, now)}  ${forget.id}  ${forget.origin}: ${forget.facts.join("; ")} (${state})`);
  }
  out.push(...formatMaintenance(report.maintenance, report.wisdom, now));
  return out.join("\n");
}

/** The SOUL.md lines of status (doctor shows the same check). */
function formatSoulCheck(soul: SoulInstructionsCheck, now = Date.now()): string[] {
  if (!soul.exists) return [`SOUL.md (${soul.soulPath})`, "  not found: every session type's set starts with SOUL.md"];
  const out = [`SOUL.md (${soul.soulPath}; ${soul.tokens} tokens, AC-7 wants <= ${soul.maxTokens}; changed ${soul.modifiedAt ? ago(soul.modifiedAt, now) : "?"}, checked now)`];
  for (const item of soul.items) out.push(`  ${item.present ? "ok" : item.part === "memory" ? "WARNING" : "missing"} (phase ${item.phase}) ${item.detail}`);
  if (soul.items.some((item) => !item.present)) out.push("  add what is missing (the diff first, then --apply): npm run soul-instructions, or openclaw context soul-instructions");
  return out;
}

const MAX_CHANGE_LINES = 12;

function formatMaintenance(m: MaintenanceStatus, wisdom: WisdomDue, now: number): string[] {
  const out = ["", "Maintenance (Archive/.maintenance/runs.jsonl)"];
  const last = m.lastRun;
  if (!last) out.push("  no pass yet (openclaw context maintain, or the gateway's schedule)");
  else {
    const when = `${ago(last.finishedAt, now)}, clock ${last.clock}`;
    out.push(`  last pass: ${last.run} (${last.trigger}, ${when}): ${last.changes.length} change(s)${last.undone ? `, undone ${last.undone}` : ""}`);
    for (const change of last.changes.slice(0, MAX_CHANGE_LINES)) out.push(`    ${change.step}: ${change.file}: ${change.what}`);
    if (last.changes.length > MAX_CHANGE_LINES) out.push(`    … ${last.changes.length - MAX_CHANGE_LINES} more (maintain --list, runs.jsonl)`);
    for (const note of last.notes) out.push(`    note: ${note}`);
  }
  out.push(m.openConflicts.length === 0 ? "  open conflicts: none" : `  open conflicts: ${m.openConflicts.length} in CONFLICTS.md (${m.openConflicts.map((c) => c.id).join(", ")})`);
  const c = m.corrections;
  out.push(`  corrections in their cool-down: ${c.coolingDown}`);
  out.push(
    c.proposals === 0
      ? "  corrections waiting for review: none"
      : `  corrections waiting for review: ${c.awaitingReview} in ${c.proposals} SOUL.md proposal(s) (${c.draft}${c.reviewOpen ? ", REVIEW NEEDED in DAILY_EXECUTION_QUEUE.md" : ", written by the next pass"}); promote: maintain promote --approve`,
  );
  out.push(`  wisdom compression: ${wisdom.due ? "DUE" : "not due"} (${wisdom.why})`);
  return out;
}
