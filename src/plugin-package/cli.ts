// `openclaw context …`: the operator commands inside the OpenClaw CLI (api.registerCli). Same
// services and options as the clone's `npm run status` (scripts/status.ts).
import path from "node:path";
import { engineSelection } from "../context/runtime-carrier.ts";
import { loadOpenClawConfigFile, resolveOpenClawConfigPath } from "../openclaw/config-file.ts";
import { isObject } from "../openclaw/events.ts";
import type { OpenClawConfig } from "../openclaw/events.ts";
import { parseIntegerOption } from "../ops/cli.ts";
import { findOpenClawCli } from "../ops/openclaw-cli.ts";
import { resolveWorkspace } from "../ops/paths.ts";
import { collectStatus, formatStatus } from "../ops/status.ts";
import { PACKAGE_PLUGIN_ID, parsePackageConfig } from "./config.ts";
import { registerUninstallCommand } from "./uninstall-command.ts";

/** The part of commander's Command this file uses (OpenClaw passes its own `program`). */
export type CommandLike = {
  command(name: string): CommandLike;
  description(text: string): CommandLike;
  option(flags: string, description: string): CommandLike;
  action(handler: (options: Record<string, unknown>) => Promise<void> | void): CommandLike;
};

export type StatusOptions = { workspace?: string; config?: string; last?: string; cli?: boolean; json?: boolean };

/**
 * The packaged plugin's own lines (the hook pack's report below does not know it): its switches
 * and which channel carries memory. Read from openclaw.json, as the gateway will on its next start.
 */
export function packageSection(cfg: OpenClawConfig | undefined, pluginId = PACKAGE_PLUGIN_ID): string {
  const plugins = isObject(cfg?.plugins) ? cfg.plugins : {};
  const entries = isObject(plugins.entries) ? plugins.entries : {};
  const entry = isObject(entries[pluginId]) ? entries[pluginId] : undefined;
  const { config, error } = parsePackageConfig(entry?.config);
  const selection = engineSelection(cfg, pluginId);
  const access = isObject(entry?.hooks) && entry.hooks.allowConversationAccess === true;
  const delivery =
    selection.kind === "ours"
      ? `runtime-context carrier through context engine ${pluginId}`
      : access
        ? `prependContext (plugins.slots.contextEngine is ${selection.engineId}, not ${pluginId})`
        : `none (plugins.entries.${pluginId}.hooks.allowConversationAccess is not true and the context engine is not selected)`;
  return [
    `Plugin package (${pluginId})`,
    `  entry: ${entry ? (entry.enabled === false ? "disabled in plugins.entries" : "enabled in plugins.entries") : "not in plugins.entries (not installed with openclaw plugins install)"}`,
    `  switches: enabled ${config.enabled}, bootstrap ${config.bootstrap}, memory ${config.memory}${error ? ` (config error: ${error})` : ""}`,
    `  memory delivery: ${config.enabled && config.memory ? delivery : "off"}`,
  ].join("\n");
}

/** `npm run status`'s report, after the packaged plugin's own lines. */
export async function statusText(options: StatusOptions, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const configPath = path.resolve(options.config ?? resolveOpenClawConfigPath(env));
  const workspace = resolveWorkspace(options.workspace, env, configPath);
  const report = await collectStatus({
    configPath,
    workspace,
    cli: options.cli === false ? undefined : findOpenClawCli(env),
    decisionsPerType: parseIntegerOption("last", options.last, 3, 1),
  });
  const cfg = loadOpenClawConfigFile(configPath);
  return options.json ? JSON.stringify({ package: packageSection(cfg).split("\n"), ...report }, null, 2) : `${packageSection(cfg)}\n\n${formatStatus(report)}`;
}

export function registerContextCommands(program: unknown): void {
  const context = (program as CommandLike).command("context").description("openclaw-context: session-aware bootstrap files and memory");
  context
    .command("status")
    .description("this plugin's switches and memory delivery, then what npm run status reports: installed? enabled? config problems, recent decisions, memory index")
    .option("--workspace <dir>", "agent workspace (default: agents.defaults.workspace in openclaw.json, else ~/.openclaw/workspace)")
    .option("--config <file>", "openclaw.json (default $OPENCLAW_CONFIG_PATH or <state dir>/openclaw.json)")
    .option("--last <n>", "decisions to show per session type (default 3)")
    .option("--no-cli", "do not ask the openclaw CLI (faster; no eligibility line)")
    .option("--json", "print JSON")
    .action(async (options) => {
      process.stdout.write(`${await statusText(options as StatusOptions)}\n`);
    });
  registerUninstallCommand(context);
}
