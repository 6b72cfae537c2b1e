#!/usr/bin/env -S npx tsx
// Make the hook pack loadable by the operator's OpenClaw, enable both hooks, verify; --uninstall reverses it.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { resolveOpenClawConfigPath } from "../src/host/config-file.ts";
import { CheckFailedError, UsageError, printHelpAndExit, runScript, withProgress } from "../src/ops/cli.ts";
import { HOOK_NAMES, PACK_ID, install, uninstall } from "../src/ops/install.ts";
import type { InstallMode } from "../src/ops/install.ts";
import { findOpenClawCli } from "../src/ops/openclaw-cli.ts";
import { resolveWorkspace } from "../src/ops/paths.ts";

const BUNDLE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const HELP = `Usage: npm run install-hooks -- [--workspace <dir>] [--config <openclaw.json>] [--mode auto|pack|link|copy] [--no-cli]
       npm run install-hooks -- [--workspace <dir>] --uninstall

Installs the ${PACK_ID} hook pack (${HOOK_NAMES.join(", ")}) so the gateway loads it. This is the
one supported install path: it hands OpenClaw a clean copy of the pack (no .git, tests or dev
dependencies) and knows each OpenClaw version's command.
  pack  through the openclaw CLI: the pack is copied to <stateDir>/hooks/${PACK_ID} and OpenClaw
        installs its runtime dependencies (2026.9.x: openclaw plugins install <dir> --force;
        2026.3.x: openclaw hooks install <dir>)
  link  <workspace>/hooks/${PACK_ID} -> symlink to this checkout (dependencies from the checkout)
  copy  <workspace>/hooks/${PACK_ID} <- copy of the pack, then npm install --omit=dev inside it
  auto  pack when the openclaw CLI is on PATH (or $OPENCLAW_CLI), else link (default)
Then enables both hooks in openclaw.json (hooks.internal.entries.<name>.enabled: true) and, with
the CLI, checks that \`openclaw hooks list --json\` shows them eligible.
Before changing anything it saves openclaw.json as it is (${PACK_ID}.install-state.json next to it).
Idempotent. Restart the gateway afterwards if its reload mode is "off".

--uninstall removes what install added (the installed pack or the link; a folder install moved
aside is put back) and puts openclaw.json back exactly as it was before install, comments included.
If you edited openclaw.json since, only our hook entries are undone and the pre-install file is
saved next to it. Anything it cannot remove is listed, and it exits 1.

Options:
  --workspace <dir>  agent workspace (default: agents.defaults.workspace in openclaw.json,
                     else $OPENCLAW_WORKSPACE_DIR, else <state dir>/workspace, i.e. ~/.openclaw/workspace)
  --config <file>    openclaw.json (default $OPENCLAW_CONFIG_PATH or <state dir>/openclaw.json)
  --mode <m>         auto | pack | link | copy (default auto)
  --no-cli           never call the openclaw CLI
  --uninstall        reverse the install
  -h, --help         show this help

Exit codes: 0 done and verified, 1 install, verification or uninstall failed, 2 bad usage.`;

await runScript("install", async () => {
  const { values } = parseArgs({
    options: {
      workspace: { type: "string" },
      config: { type: "string" },
      mode: { type: "string", default: "auto" },
      "no-cli": { type: "boolean", default: false },
      uninstall: { type: "boolean", default: false },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) printHelpAndExit(HELP);
  if (!["auto", "pack", "link", "copy"].includes(values.mode)) throw new UsageError(`--mode must be auto, pack, link or copy, got "${values.mode}"`);
  const configPath = path.resolve(values.config ?? resolveOpenClawConfigPath());
  const workspace = resolveWorkspace(values.workspace, process.env, configPath);
  const cli = values["no-cli"] ? undefined : findOpenClawCli();
  const mode: InstallMode = values.mode === "auto" ? (cli ? "pack" : "link") : (values.mode as InstallMode);
  if (mode === "pack" && !cli) throw new UsageError("--mode pack needs the openclaw CLI on PATH (or $OPENCLAW_CLI)");
  const params = { bundleRoot: BUNDLE_ROOT, workspace, configPath, mode, cli, log: (line: string) => console.log(`- ${line}`) };

  if (values.uninstall) {
    const report = await withProgress("uninstalling", () => uninstall(params));
    for (const step of report.steps) console.log(`- ${step}`);
    if (report.leftovers.length > 0) throw new CheckFailedError(`uninstall incomplete; remove these by hand:\n  - ${report.leftovers.join("\n  - ")}`);
    console.log("Uninstalled. Restart the gateway if its reload mode is off.");
    return 0;
  }
  console.log(`Installing ${PACK_ID} (${mode} mode${cli ? `, CLI ${cli}` : ", no openclaw CLI"}) for workspace ${workspace}`);
  const report = await withProgress("installing", () => install(params));
  for (const line of report.lines) console.log(`  ${line}`);
  if (report.problems.length > 0) throw new CheckFailedError(`installed, but verification failed:\n  - ${report.problems.join("\n  - ")}`);
  console.log(`Installed and verified${cli ? " (openclaw hooks list shows both hooks eligible)" : " (files and dependencies checked; no CLI to ask the gateway)"}.`);
  return 0;
});
