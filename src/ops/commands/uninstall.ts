// `openclaw context uninstall`: the plugin takes itself out. OpenClaw's `plugins uninstall`, then
// openclaw.json back to its bytes before `npm run install-hooks` (src/ops/install.ts).
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { resolveOpenClawConfigPath } from "../../host/config-file.ts";
import { findOpenClawCli } from "../openclaw-cli.ts";
import { uninstallPlugin } from "../install.ts";
import { CheckFailedError, printHelp } from "../cli.ts";
import { afterUninstall, UNINSTALLED_LINE } from "../leftovers.ts";
import { readOpenClawJson } from "../openclaw-json.ts";
import { defaultWorkspace } from "../paths.ts";
import { usage } from "./command.ts";
import type { OperatorCommand } from "./command.ts";

async function runUninstall(options: { config?: string; purge?: boolean; workspace?: string }, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const configPath = path.resolve(options.config ?? resolveOpenClawConfigPath(env));
  // What stays is read from the config as installed (its workspaces, a configured index folder).
  const installed = { configPath, cfg: await readOpenClawJson(configPath).catch(() => undefined), workspace: options.workspace ?? defaultWorkspace(env, configPath).dir, env };
  // The openclaw CLI running this command (its entry file). Not $OPENCLAW_CLI: OpenClaw sets it to "1" for its children.
  const entry = process.argv[1];
  const cli = entry && fs.existsSync(entry) ? entry : findOpenClawCli({ ...env, OPENCLAW_CLI: undefined });
  if (!cli) throw new Error("the openclaw CLI was not found (put openclaw on PATH)");
  const log = (line: string) => process.stdout.write(`- ${line}\n`);
  const report = await uninstallPlugin({ bundleRoot: path.dirname(configPath), workspace: path.dirname(configPath) /* the plugin unit uses no workspace */, configPath, mode: "pack", cli, log, env });
  for (const step of report.steps) log(step);
  if (report.leftovers.length > 0) throw new CheckFailedError(`uninstall incomplete; remove these by hand:\n  - ${report.leftovers.join("\n  - ")}`);
  const after = afterUninstall(installed, options.purge === true);
  for (const line of after.lines) process.stdout.write(`${line}\n`);
  if (after.failed.length > 0) throw new CheckFailedError(`uninstalled, but --purge could not remove:\n  - ${after.failed.join("\n  - ")}`);
  process.stdout.write(`${UNINSTALLED_LINE}\n`);
  return 0;
}

/** Only in the plugin (`openclaw context uninstall`); a clone uses `npm run install-hooks -- --uninstall`. */
export const uninstallCommand: OperatorCommand = {
  name: "uninstall",
  messageName: "uninstall",
  summary: "openclaw plugins uninstall openclaw-context, then openclaw.json back byte for byte as before npm run install-hooks; lists what stays (--purge: the bundle's own state too)",
  help: (invocation) => `${usage(invocation, "uninstall", "[--config <openclaw.json>] [--workspace <dir>] [--purge]")}

Runs \`openclaw plugins uninstall openclaw-context --force\`, then puts openclaw.json back exactly as
it was before \`npm run install-hooks\` (comments included) when nothing but this plugin's keys
changed since; otherwise only this plugin's keys are removed and the pre-install file is saved next
to it. Then it lists what stays. Restart the gateway afterwards: it keeps the plugin it has loaded
until then.

--purge also removes openclaw-context's own state: <state dir>/openclaw-context/ (its log and the
memory index cache), its openclaw.json.<time>.bak copies and each workspace's ETHOS_CONTEXT.md.
Never removed: your memory (MEMORY.md, memory/*.md with the facts captured there, memory/.triage/,
CORRECTIONS.md, memory/.forgotten.jsonl and the state folder's seal.key that unseals its undo
data), the migration folder (initiatives/…) and the pre-install copy of openclaw.json.

Options:
  --config <file>    openclaw.json (default $OPENCLAW_CONFIG_PATH or <state dir>/openclaw.json)
  --workspace <dir>  agent workspace whose ETHOS_CONTEXT.md --purge removes (default: the ones openclaw.json names)
  --purge            also remove openclaw-context's own state (above)
  -h, --help         show this help

Exit codes: 0 uninstalled, 1 something is left to remove by hand (listed), 2 bad usage.`,
  async main(argv, invocation) {
    const { values } = parseArgs({
      args: argv,
      options: { config: { type: "string" }, workspace: { type: "string" }, purge: { type: "boolean", default: false }, help: { type: "boolean", short: "h" } },
      strict: true,
    });
    if (values.help) return printHelp(uninstallCommand.help(invocation));
    return runUninstall({ config: values.config, purge: values.purge, workspace: values.workspace ? path.resolve(values.workspace) : undefined });
  },
};
