import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { expandHome, openClawStateDir } from "../core/paths.ts";
import { isObject } from "../host/events.ts";
import { HOOK_KEYS, HOOK_PACK_ID } from "../host/ids.ts";
import { cliEnvForConfig, parseCliJson, runOpenClaw } from "./openclaw-cli.ts";
import { readOpenClawJson, setHookEntries } from "./openclaw-json.ts";
import { exists } from "./safe-write.ts";
import { timestamp } from "./paths.ts";
import type { InstallParams, InstallUnit, UnitRecord, UnitRemoval } from "./install-unit.ts";

// The hook pack (OpenClaw 2026.3) as an install unit.
// Hook pack modes:
//   pack  the openclaw CLI copies a clean copy to <stateDir>/hooks/<id> and installs its deps
//         (2026.9.x: `plugins install <dir> --force`; 2026.3.x: `hooks install <dir>`)
//   link  <workspace>/hooks/openclaw-context → symlink to this checkout
//   copy  <workspace>/hooks/openclaw-context ← copy of the pack, `npm install --omit=dev` inside it
// Workspace hooks load only with hooks.internal.entries.<name>.enabled: true, so both entries are enabled.

export const PACK_ID = HOOK_PACK_ID;
export const HOOK_NAMES = [HOOK_KEYS.aciBootstrap, HOOK_KEYS.ethosContext];
const PACK_COPY_EXCLUDES = new Set(["node_modules", ".git", ".cache", "coverage", ".e2e-work", ".mutation", "dist", "bench", "test", "fixtures"]);

export type HookEligibility = { name: string; found: boolean; eligible: boolean; source?: string; blockedReason?: string };

function run(command: string, args: string[], cwd: string, timeoutMs = 300_000): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}



async function readManifest(root: string): Promise<{ name?: string; dependencies?: Record<string, string>; openclaw?: { hooks?: string[] } }> {
  return JSON.parse(await fs.readFile(path.join(root, "package.json"), "utf8"));
}

/** Runtime dependencies that do not resolve from `root` (what a gateway import would miss). */
async function missingDependencies(root: string): Promise<string[]> {
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
async function hookPackInstallCommand(cli: string, configPath: string): Promise<string[]> {
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

/** Put the hook pack in place (the CLI, a link or a copy) and enable both hooks. */
async function installHookPack(params: InstallParams, previous: UnitRecord | undefined): Promise<UnitRecord> {
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
}

/** Does the gateway (with the CLI) or the installed copy (without) see both hooks? */
async function verifyHookPack(params: InstallParams, record: UnitRecord): Promise<{ lines: string[]; problems: string[] }> {
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
}

/** Remove the installed pack or link; put back a folder install moved aside. */
async function uninstallHookPack(params: InstallParams, record: UnitRecord | undefined): Promise<UnitRemoval> {
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
}

/** Drop the install record 2026.3 writes into openclaw.json (hooks.internal.installs.<id>). */
function revertHookPackConfig(config: Record<string, unknown>): boolean {
  const hooks = isObject(config.hooks) ? config.hooks : undefined;
  const internal = isObject(hooks?.internal) ? hooks.internal : undefined;
  const installs = isObject(internal?.installs) ? internal.installs : undefined;
  if (!installs || !(PACK_ID in installs)) return false;
  delete installs[PACK_ID];
  if (internal && Object.keys(installs).length === 0) delete internal.installs;
  return true;
}

/** The hook pack (aci-bootstrap + ethos-context), OpenClaw 2026.3. */
export const hookPackUnit: InstallUnit = { id: "hook-pack", install: installHookPack, verify: verifyHookPack, uninstall: uninstallHookPack, revertConfig: revertHookPackConfig };
