// `openclaw context uninstall`: the plugin takes itself out. OpenClaw's `plugins uninstall`, then
// openclaw.json back to its bytes before `npm run install-package` (src/ops/package-install.ts).
import fs from "node:fs";
import path from "node:path";
import { resolveOpenClawConfigPath } from "../openclaw/config-file.ts";
import { findOpenClawCli } from "../ops/openclaw-cli.ts";
import { uninstallPackage } from "../ops/package-install.ts";
import type { CommandLike } from "./cli.ts";

export async function runUninstall(options: { config?: string }, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const configPath = path.resolve(options.config ?? resolveOpenClawConfigPath(env));
  // The openclaw CLI running this command (its entry file). Not $OPENCLAW_CLI: OpenClaw sets it to "1" for its children.
  const entry = process.argv[1];
  const cli = entry && fs.existsSync(entry) ? entry : findOpenClawCli({ ...env, OPENCLAW_CLI: undefined });
  if (!cli) throw new Error("the openclaw CLI was not found (put openclaw on PATH)");
  const log = (line: string) => process.stdout.write(`- ${line}\n`);
  const report = await uninstallPackage({ bundleRoot: path.dirname(configPath), workspace: path.dirname(configPath) /* the package unit uses no workspace */, configPath, mode: "pack", cli, log, env });
  for (const step of report.steps) log(step);
  // Thrown: OpenClaw's CLI exits 0 after an action that only sets process.exitCode.
  if (report.leftovers.length > 0) throw new Error(`uninstall incomplete; remove these by hand:\n  - ${report.leftovers.join("\n  - ")}`);
  process.stdout.write("Uninstalled. Restart the gateway: it keeps the plugin it has loaded until then.\n");
}

export function registerUninstallCommand(context: CommandLike): void {
  context
    .command("uninstall")
    .description("openclaw plugins uninstall openclaw-context, then openclaw.json back byte for byte as before npm run install-package (comments included)")
    .option("--config <file>", "openclaw.json (default $OPENCLAW_CONFIG_PATH or <state dir>/openclaw.json)")
    .action(async (options) => {
      await runUninstall(options as { config?: string });
    });
}
