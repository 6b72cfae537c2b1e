// The doctor's shared context: openclaw.json, the workspace, what is installed, the host's version,
// a way to ask the openclaw CLI, and the two logs (read once, when a check first asks).
import fs from "node:fs";
import path from "node:path";
import { hookLogFile } from "../../core/log.ts";
import { openClawStateDir } from "../../core/paths.ts";
import type { OpenClawConfig } from "../../host/events.ts";
import { openClawLogFile, readOpenClawLogTail } from "../../host/openclaw-log.ts";
import { hostPackageOf } from "../../host/version.ts";
import type { Invocation } from "../commands/command.ts";
import { PACK_ID, workspaceHookDir } from "../hook-pack-install.ts";
import { readRecord } from "../install.ts";
import { readOpenClawJson } from "../openclaw-json.ts";
import { defaultWorkspace } from "../paths.ts";
import { cliHostVersion, runCli } from "../plugin-install.ts";
import { pluginPackageStatus } from "../plugin-status.ts";
import { readLogTail } from "../status.ts";
import type { LogRecord } from "../turn-log.ts";
import type { DoctorContext, Installed } from "./check.ts";

/** Plugin: its folder under <state>/extensions or an entry not switched off; hook pack: its record or its folder. */
async function installedNow(configPath: string, workspace: string | undefined, cfg: OpenClawConfig | undefined, env: NodeJS.ProcessEnv): Promise<Installed> {
  const plugin = pluginPackageStatus(cfg, env);
  const record = await readRecord(configPath).catch(() => undefined);
  const recorded = record?.units["hook-pack"];
  const candidates = [typeof recorded?.path === "string" ? recorded.path : undefined, path.join(openClawStateDir(env), "hooks", PACK_ID), workspace ? workspaceHookDir(workspace) : undefined];
  const hookPackDir = candidates.find((dir): dir is string => typeof dir === "string" && dir !== "" && fs.existsSync(dir));
  return {
    plugin: Boolean(plugin && (plugin.installDir || plugin.entry === "enabled")),
    hookPack: Boolean(hookPackDir),
    ...(plugin?.installDir ? { pluginDir: plugin.installDir } : {}),
    ...(hookPackDir ? { hookPackDir } : {}),
  };
}

export async function doctorContext(params: { configPath: string; workspace?: string; invocation: Invocation; insideOpenClaw: boolean; useCli: boolean; cli?: string; env?: NodeJS.ProcessEnv; now?: Date }): Promise<DoctorContext> {
  const env = params.env ?? process.env;
  let cfg: OpenClawConfig | undefined;
  let configError: string | undefined;
  try {
    cfg = (await readOpenClawJson(params.configPath)) as OpenClawConfig | undefined;
  } catch (error) {
    configError = error instanceof Error ? error.message : String(error);
  }
  const chosen = params.workspace ?? defaultWorkspace(env, params.configPath).dir;
  const workspace = fs.existsSync(chosen) && fs.statSync(chosen).isDirectory() ? chosen : undefined;
  // Inside `openclaw context doctor` the CLI to ask is the one running (OpenClaw sets $OPENCLAW_CLI to "1" for its children).
  const cli = params.useCli ? (params.insideOpenClaw ? process.argv[1] : params.cli) : undefined;
  const openclaw = cli ? (args: string[], timeoutMs?: number) => runCli(cli, args, { configPath: params.configPath, env }, timeoutMs) : undefined;
  const hostVersion = params.insideOpenClaw ? hostPackageOf(process.argv[1])?.version : cli ? await cliHostVersion(cli, { configPath: params.configPath, env }) : undefined;
  let records: LogRecord[] | undefined;
  let hostLines: string[] | undefined;
  return {
    configPath: params.configPath,
    cfg,
    ...(configError ? { configError } : {}),
    ...(workspace ? { workspace } : {}),
    env,
    now: params.now ?? new Date(),
    ...(hostVersion ? { hostVersion } : {}),
    installed: await installedNow(params.configPath, workspace, cfg, env),
    invocation: params.invocation,
    insideOpenClaw: params.insideOpenClaw,
    ...(openclaw ? { openclaw } : {}),
    records() {
      const file = hookLogFile(env);
      return (records ??= file ? readLogTail(file) : []);
    },
    hostLogLines() {
      return (hostLines ??= readOpenClawLogTail(openClawLogFile(cfg, params.now)));
    },
  };
}
