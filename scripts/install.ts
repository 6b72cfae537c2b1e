#!/usr/bin/env -S npx tsx
// Make the hook pack loadable by the operator's OpenClaw, enable both hooks, verify; --uninstall reverses it.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { resolveOpenClawConfigPath } from "../src/openclaw/config-file.ts";
import { CheckFailedError, UsageError, printHelpAndExit, runScript, withProgress } from "../src/ops/cli.ts";
import { HOOK_NAMES, PACK_ID, install, uninstall } from "../src/ops/install.ts";
import type { InstallMode } from "../src/ops/install.ts";
import { findOpenClawCli } from "../src/ops/openclaw-cli.ts";
import { resolveWorkspace } from "../src/ops/paths.ts";

const BUNDLE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const HELP = `Usage: npm run install-hooks -- --workspace <dir> [--config <openclaw.json>] [--mode auto|pack|link|copy] [--no-cli]
       npm run install-hooks -- --workspace <dir> --uninstall [--mode ...]

Installs the ${PACK_ID} hook pack (${HOOK_NAMES.join(", ")}) so the gateway loads it:
  pack  openclaw plugins install <clean copy> --force: copied to <stateDir>/hooks/${PACK_ID}, runtime
        dependencies installed by OpenClaw (managed source: wins over workspace hooks of the same name)
  link  <workspace>/hooks/${PACK_ID} -> symlink to this checkout (dependencies from the checkout)
  copy  <workspace>/hooks/${PACK_ID} <- copy of the pack, then npm install --omit=dev inside it
  auto  pack when the openclaw CLI is on PATH (or $OPENCLAW_CLI), else link (default)
Then enables both hooks in openclaw.json (hooks.internal.entries.<name>.enabled: true; workspace
hooks are off by default) and, with the CLI, checks \`openclaw hooks list --json\` shows them eligible.
Idempotent. Anything in the way is moved aside (never deleted); openclaw.json is backed up before edits.
Restart the gateway afterwards if its reload mode is "off".

--uninstall removes the link (or moves the copy aside), runs \`openclaw plugins uninstall\` in pack
mode, and drops the two entries from openclaw.json (entries with your own settings are kept, disabled).

Options:
  --workspace <dir>  agent workspace (required; the one in agents.defaults.workspace)
  --config <file>    openclaw.json (default $OPENCLAW_CONFIG_PATH or <state dir>/openclaw.json)
  --mode <m>         auto | pack | link | copy (default auto)
  --no-cli           never call the openclaw CLI
  --uninstall        reverse the install
  -h, --help         show this help

Exit codes: 0 installed and verified, 1 install or verification failed, 2 bad usage.`;

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
  if (!values.workspace) throw new UsageError("--workspace <dir> is required");
  if (!["auto", "pack", "link", "copy"].includes(values.mode)) throw new UsageError(`--mode must be auto, pack, link or copy, got "${values.mode}"`);
  const workspace = resolveWorkspace(values.workspace);
  const configPath = path.resolve(values.config ?? resolveOpenClawConfigPath());
  const cli = values["no-cli"] ? undefined : findOpenClawCli();
  const mode: InstallMode = values.mode === "auto" ? (cli ? "pack" : "link") : (values.mode as InstallMode);
  if (mode === "pack" && !cli) throw new UsageError("--mode pack needs the openclaw CLI on PATH (or $OPENCLAW_CLI)");
  const params = { bundleRoot: BUNDLE_ROOT, workspace, configPath, mode, cli, log: (line: string) => console.log(`- ${line}`) };

  if (values.uninstall) {
    const steps = await withProgress("uninstalling", () => uninstall(params));
    for (const step of steps) console.log(`- ${step}`);
    console.log("Uninstalled. Restart the gateway if its reload mode is off.");
    return 0;
  }
  console.log(`Installing ${PACK_ID} (${mode} mode${cli ? `, CLI ${cli}` : ", no openclaw CLI"}) for workspace ${workspace}`);
  const report = await withProgress("installing", () => install(params));
  if (report.eligibility) {
    for (const hook of report.eligibility) console.log(`  ${hook.name}: ${hook.found ? (hook.eligible ? `eligible (${hook.source})` : `NOT eligible: ${hook.blockedReason}`) : "not listed"}`);
  }
  if (report.problems.length > 0) throw new CheckFailedError(`installed, but verification failed:\n  - ${report.problems.join("\n  - ")}`);
  console.log(`Installed and verified${cli ? " (openclaw hooks list shows both hooks eligible)" : " (files and dependencies checked; no CLI to ask the gateway)"}.`);
  return 0;
});
