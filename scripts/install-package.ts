#!/usr/bin/env -S npx tsx
// Install the plugin package (OpenClaw 2026.9+) so that it can be taken out again exactly:
// openclaw.json is saved before `openclaw plugins install` rewrites it; --uninstall puts it back.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { resolveOpenClawConfigPath } from "../src/host/config-file.ts";
import { CheckFailedError, UsageError, printHelpAndExit, runScript, withProgress } from "../src/ops/cli.ts";
import { install } from "../src/ops/install.ts";
import { findOpenClawCli } from "../src/ops/openclaw-cli.ts";
import { PACKAGE_ID, packageUnit, uninstallPackage } from "../src/ops/package-install.ts";
import { gitignoreUnit } from "../src/ops/gitignore-unit.ts";
import { defaultWorkspace } from "../src/ops/paths.ts";

const BUNDLE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const HELP = `Usage: npm run install-package -- <openclaw-context-<version>.tgz> [--config <openclaw.json>] [--workspace <dir>]
       npm run install-package -- --uninstall [--config <openclaw.json>]

Installs the ${PACKAGE_ID} plugin package (OpenClaw 2026.9+; build it with
npm run build:plugin && (cd dist/plugin && npm pack)) through the openclaw CLI:
  1. saves openclaw.json exactly as it is (${PACKAGE_ID}.install-state.json next to it)
  2. openclaw plugins install <tarball> --force --accept-capabilities
     (OpenClaw rewrites openclaw.json: comments and formatting go, a "meta" block comes)
  3. plugins.entries.${PACKAGE_ID}.hooks.allowConversationAccess: true and, when no other engine
     is selected, plugins.slots.contextEngine: ${PACKAGE_ID}
  4. /ETHOS_CONTEXT.md (regenerated on every memory turn) into the workspace's .gitignore
Restart the gateway afterwards (openclaw gateway restart).

--uninstall (or, without the clone, openclaw context uninstall) runs openclaw plugins uninstall
${PACKAGE_ID} --force and puts openclaw.json back byte for byte as it was before step 1, comments
included, when nothing but our own keys changed since (our switches, OpenClaw's "meta"). If other
settings changed, only our keys are removed and the pre-install file is saved next to it. The
workspace's .gitignore goes back to its bytes before step 4 (our lines only, if you edited it).

Options:
  --config <file>    openclaw.json (default $OPENCLAW_CONFIG_PATH or <state dir>/openclaw.json)
  --workspace <dir>  the workspace whose .gitignore gets ETHOS_CONTEXT.md (default: agents.defaults.workspace
                     in openclaw.json, else $OPENCLAW_WORKSPACE_DIR, else <state dir>/workspace)
  --uninstall        reverse the install
  -h, --help         show this help

Exit codes: 0 done, 1 install or uninstall failed, 2 bad usage.`;

await runScript("install-package", async () => {
  const { values, positionals } = parseArgs({
    options: { config: { type: "string" }, workspace: { type: "string" }, uninstall: { type: "boolean", default: false }, help: { type: "boolean", short: "h" } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) printHelpAndExit(HELP);
  const configPath = path.resolve(values.config ?? resolveOpenClawConfigPath());
  const cli = findOpenClawCli();
  if (!cli) throw new UsageError("the openclaw CLI is not on PATH (set $OPENCLAW_CLI to it)");
  // The workspace only for its .gitignore (gitignore-unit.ts); it may not exist yet on a fresh install.
  const workspace = values.workspace !== undefined ? path.resolve(values.workspace) : defaultWorkspace(process.env, configPath).dir;
  const params = { bundleRoot: BUNDLE_ROOT, workspace, configPath, mode: "pack" as const, cli, log: (line: string) => console.log(`- ${line}`) };

  if (values.uninstall) {
    const report = await withProgress("uninstalling", () => uninstallPackage(params));
    for (const step of report.steps) console.log(`- ${step}`);
    if (report.leftovers.length > 0) throw new CheckFailedError(`uninstall incomplete; remove these by hand:\n  - ${report.leftovers.join("\n  - ")}`);
    console.log("Uninstalled. Restart the gateway: it keeps the plugin it has loaded until then.");
    return 0;
  }
  const [tarball, ...extra] = positionals;
  if (!tarball || extra.length > 0) throw new UsageError("give exactly one tarball: npm run install-package -- ./dist/plugin/openclaw-context-<version>.tgz");
  const report = await withProgress("installing", () => install(params, [packageUnit(tarball), gitignoreUnit]));
  for (const line of report.lines) console.log(`  ${line}`);
  console.log(`Installed. Restart the gateway (openclaw gateway restart); openclaw context status shows what it serves.`);
  return 0;
});
