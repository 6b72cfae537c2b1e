import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { HOOK_KEYS } from "../core/records.ts";
import { cliEnvForConfig, parseCliJson, runOpenClaw } from "./openclaw-cli.ts";
import { captureHookState, readOpenClawJson, removeHookEntries, restoreHookState, setHookEntries } from "./openclaw-json.ts";
import type { HookStateRecord } from "./openclaw-json.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { exists } from "./safe-write.ts";
import { timestamp } from "./paths.ts";

// Make the bundle loadable by a user's OpenClaw (internals §6):
//   pack  `openclaw plugins install <clean copy> --force` → <stateDir>/hooks/<id> (managed source), deps installed by OpenClaw
//   link  <workspace>/hooks/openclaw-context → symlink to this checkout (workspace source; deps from the checkout)
//   copy  <workspace>/hooks/openclaw-context ← copy of the pack, `npm install --omit=dev` inside it
// Workspace hooks load only with hooks.internal.entries.<name>.enabled: true, so both entries are enabled.

export const PACK_ID = "openclaw-context";
export const HOOK_NAMES = [HOOK_KEYS.aciBootstrap, HOOK_KEYS.ethosContext];
export type InstallMode = "pack" | "link" | "copy";
const PACK_COPY_EXCLUDES = new Set(["node_modules", ".git", ".cache", "coverage", ".e2e-work", "bench", "test", "fixtures"]);

export type InstallParams = {
  bundleRoot: string;
  workspace: string;
  configPath: string;
  mode: InstallMode;
  cli?: string;
  log: (line: string) => void;
};

export type HookEligibility = { name: string; found: boolean; eligible: boolean; source?: string; blockedReason?: string };

function run(command: string, args: string[], cwd: string, timeoutMs = 300_000): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

async function readManifest(root: string): Promise<{ dependencies?: Record<string, string>; openclaw?: { hooks?: string[] } }> {
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

/** Kept next to openclaw.json: the hook settings as they were before the first install. */
export function installRecordPath(configPath: string): string {
  return path.join(path.dirname(configPath), `${PACK_ID}.install-state.json`);
}

export function workspaceHookDir(workspace: string): string {
  return path.join(workspace, "hooks", PACK_ID);
}

/** `openclaw hooks list --json` → eligibility of our two hooks. */
export async function hookEligibility(cli: string, configPath: string, options: { attempts?: number; delayMs?: number } = {}): Promise<HookEligibility[]> {
  const attempts = options.attempts ?? 5;
  let rows: HookEligibility[] = [];
  // A running gateway answers `hooks list` and reloads config asynchronously: ask a few times.
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    const result = await runOpenClaw(cli, ["hooks", "list", "--json"], { env: cliEnvForConfig(configPath) });
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

async function placeInWorkspace(params: InstallParams): Promise<void> {
  const target = workspaceHookDir(params.workspace);
  await fs.mkdir(path.dirname(target), { recursive: true });
  const current = await fs.lstat(target).catch(() => undefined);
  if (current) {
    const pointsHere = current.isSymbolicLink() && path.resolve(path.dirname(target), await fs.readlink(target)) === path.resolve(params.bundleRoot);
    if (params.mode === "link" && pointsHere) {
      params.log(`link already in place: ${target} → ${params.bundleRoot}`);
      return;
    }
    // Someone else's (or an older) copy: move it aside, never delete it.
    const aside = `${target}.replaced-${timestamp()}`;
    await fs.rename(target, aside);
    params.log(`moved existing ${target} to ${aside}`);
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
    return;
  }
  await stageCleanCopy(params.bundleRoot, target);
  params.log(`copied the pack to ${target}; installing runtime dependencies (npm install --omit=dev)`);
  const npm = await run("npm", ["install", "--omit=dev", "--no-audit", "--no-fund", "--ignore-scripts"], target);
  if (npm.code !== 0) throw new Error(`npm install failed in ${target}: ${npm.output.slice(-500)}`);
}

export type InstallReport = { mode: InstallMode; steps: string[]; eligibility?: HookEligibility[]; problems: string[] };

export async function install(params: InstallParams): Promise<InstallReport> {
  const steps: string[] = [];
  const log = (line: string) => {
    steps.push(line);
    params.log(line);
  };
  const problems = await checkPackFiles(params.bundleRoot);
  if (problems.length > 0) throw new Error(`the bundle is incomplete: ${problems.join("; ")}`);

  if (params.mode === "pack") {
    if (!params.cli) throw new Error("pack mode needs the openclaw CLI (on PATH or $OPENCLAW_CLI); use --mode link or copy without it");
    const staging = await fs.mkdtemp(path.join(os.tmpdir(), "openclaw-context-pack-"));
    try {
      const staged = path.join(staging, PACK_ID);
      await stageCleanCopy(params.bundleRoot, staged);
      log(`openclaw plugins install ${staged} --force (copies to <stateDir>/hooks/${PACK_ID}, installs dependencies)`);
      const result = await runOpenClaw(params.cli, ["plugins", "install", staged, "--force"], { env: cliEnvForConfig(params.configPath), timeoutMs: 600_000 });
      if (result.code !== 0) throw new Error(`openclaw plugins install failed (exit ${result.code}): ${(result.stderr || result.stdout).trim().slice(-800)}`);
    } finally {
      await fs.rm(staging, { recursive: true, force: true });
    }
  } else {
    await placeInWorkspace({ ...params, log });
    const cfg = await readOpenClawJson(params.configPath).catch(() => undefined);
    const configured = (cfg as { agents?: { defaults?: { workspace?: unknown } } } | undefined)?.agents?.defaults?.workspace;
    if (typeof configured === "string" && path.resolve(configured.replace(/^~(?=\/)/, os.homedir())) !== path.resolve(params.workspace)) {
      log(`WARNING: openclaw.json agents.defaults.workspace is ${configured}, not ${params.workspace}: the gateway will not see these workspace hooks`);
    }
  }

  // Record the pre-install hook settings once (a re-run must not overwrite the original state).
  const recordPath = installRecordPath(params.configPath);
  if (!(await exists(recordPath))) {
    const state = await captureHookState(params.configPath, HOOK_NAMES);
    await writeFileAtomic(recordPath, JSON.stringify({ pack: PACK_ID, mode: params.mode, before: state }, null, 2) + "\n");
  }
  const edit = await setHookEntries(params.configPath, HOOK_NAMES.map((hookKey) => ({ hookKey, enabled: true })));
  log(edit.changed ? `enabled ${HOOK_NAMES.join(", ")} in ${params.configPath}: ${edit.notes.join("; ")}` : `${HOOK_NAMES.join(", ")} already enabled in ${params.configPath}`);

  const report: InstallReport = { mode: params.mode, steps, problems: [] };
  if (params.cli) {
    report.eligibility = await hookEligibility(params.cli, params.configPath);
    for (const hook of report.eligibility) {
      if (!hook.found) report.problems.push(`openclaw hooks list does not show ${hook.name}${hook.blockedReason ? ` (${hook.blockedReason})` : ""}; if a gateway is running, restart it and run install again`);
      else if (!hook.eligible) report.problems.push(`${hook.name} is not eligible (${hook.blockedReason ?? "unknown reason"}, source ${hook.source})`);
    }
  } else if (params.mode !== "pack") {
    // No CLI: check what the gateway will import.
    const target = workspaceHookDir(params.workspace);
    report.problems.push(...(await checkPackFiles(target)).map((problem) => `installed copy: ${problem}`));
    const missing = await missingDependencies(target);
    if (missing.length) report.problems.push(`dependencies do not resolve from ${target}: ${missing.join(", ")}`);
  }
  return report;
}

export async function uninstall(params: InstallParams): Promise<string[]> {
  const steps: string[] = [];
  if (params.cli && params.mode === "pack") {
    const result = await runOpenClaw(params.cli, ["plugins", "uninstall", PACK_ID, "--force"], { env: cliEnvForConfig(params.configPath), timeoutMs: 120_000 });
    steps.push(result.code === 0 ? `openclaw plugins uninstall ${PACK_ID}: ok` : `openclaw plugins uninstall ${PACK_ID} failed (exit ${result.code}): ${(result.stderr || result.stdout).trim().split("\n")[0]}`);
  }
  const target = workspaceHookDir(params.workspace);
  const current = await fs.lstat(target).catch(() => undefined);
  if (current?.isSymbolicLink()) {
    await fs.unlink(target);
    steps.push(`removed link ${target}`);
  } else if (current) {
    const aside = `${target}.uninstalled-${timestamp()}`;
    await fs.rename(target, aside);
    steps.push(`moved ${target} to ${aside} (delete it when you are sure)`);
  }
  const recordPath = installRecordPath(params.configPath);
  let record: { before?: HookStateRecord } | undefined;
  try {
    record = JSON.parse(await fs.readFile(recordPath, "utf8"));
  } catch {
    record = undefined;
  }
  const edit = record?.before ? await restoreHookState(params.configPath, record.before) : await removeHookEntries(params.configPath, HOOK_NAMES);
  steps.push(
    edit.changed
      ? `${record?.before ? "restored the pre-install hook settings" : "removed/disabled the hook entries (no install record)"} in ${params.configPath}: ${edit.notes.join("; ")}`
      : `no hook settings to change in ${params.configPath}`,
  );
  if (record) await fs.rm(recordPath, { force: true });
  return steps;
}
