#!/usr/bin/env -S npx tsx
// npm run install-hooks: the one install command. OpenClaw 2026.9+ gets the plugin (built and packed
// from this checkout, or the tarball given), moving an operator off the retired hook pack +
// companion plugin; 2026.3 gets the hook pack. --uninstall reverses either.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { resolveOpenClawConfigPath } from "../src/host/config-file.ts";
import { buildPlugin, packPlugin } from "../src/ops/build-plugin.ts";
import { CheckFailedError, UsageError, printHelpAndExit, runScript, withProgress } from "../src/ops/cli.ts";
import { artifactFor, install, installedArtifact, installPlugin, uninstall, uninstallPlugin } from "../src/ops/install.ts";
import { HOOK_NAMES, PACK_ID } from "../src/ops/hook-pack-install.ts";
import type { InstallMode } from "../src/ops/install.ts";
import { findOpenClawCli } from "../src/ops/openclaw-cli.ts";
import { resolveWorkspace } from "../src/ops/paths.ts";
import { cliHostVersion } from "../src/ops/plugin-install.ts";
import { afterUninstall, UNINSTALLED_LINE } from "../src/ops/leftovers.ts";
import { readOpenClawJson } from "../src/ops/openclaw-json.ts";

const BUNDLE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const HELP = `Usage: npm run install-hooks -- [--workspace <dir>] [--config <openclaw.json>] [--mode auto|pack|link|copy] [--plugin <tgz>] [--no-cli]
       npm run install-hooks -- [--config <openclaw.json>] [--workspace <dir>] --uninstall [--purge]

Installs ${PACK_ID} into your OpenClaw, the way that version loads it. Asks \`openclaw --version\`:
  2026.9 and later: the plugin. Builds and packs it from this checkout (or takes --plugin <tgz>),
        saves openclaw.json as it is, runs openclaw plugins install <tgz> --force
        --accept-capabilities, then sets plugins.entries.${PACK_ID}.hooks.allowConversationAccess
        and, when no other engine holds it, plugins.slots.contextEngine: ${PACK_ID}.
        An install of the retired hook pack + companion plugin is migrated: its settings move to
        plugins.entries.${PACK_ID}.config, its files and keys go, and uninstall still restores the
        openclaw.json you had before the first install.
  2026.3 (or no openclaw CLI to ask): the hook pack (${HOOK_NAMES.join(", ")}):
    pack  through the openclaw CLI: copied to <stateDir>/hooks/${PACK_ID}, OpenClaw installs its
          runtime dependencies (openclaw hooks install <dir>)
    link  <workspace>/hooks/${PACK_ID} -> symlink to this checkout (dependencies from the checkout)
    copy  <workspace>/hooks/${PACK_ID} <- copy of the pack, then npm install --omit=dev inside it
    auto  pack when the openclaw CLI is on PATH (or $OPENCLAW_CLI), else link (default)
    Then enables both hooks in openclaw.json and checks that \`openclaw hooks list --json\` shows
    them eligible.
Before changing anything it saves openclaw.json as it is (${PACK_ID}.install-state.json next to it).
Idempotent. Restart the gateway afterwards: it loads what was installed when it starts.

--uninstall removes what install added and puts openclaw.json back exactly as it was before the
install, comments included. If you edited other settings since, only our keys are undone and the
pre-install file is saved next to it. Anything it cannot remove is listed, and it exits 1. It also
lists what stays: with --purge, openclaw-context's own state goes too (<state dir>/openclaw-context/,
its openclaw.json.<time>.bak copies, each workspace's ETHOS_CONTEXT.md); your memory (MEMORY.md,
memory/*.md, memory/.triage/, CORRECTIONS.md, memory/.forgotten.jsonl and the state folder's
seal.key that unseals its undo data) and the migration folder are never removed.

Options:
  --workspace <dir>  agent workspace (default: agents.defaults.workspace in openclaw.json,
                     else $OPENCLAW_WORKSPACE_DIR, else <state dir>/workspace, i.e. ~/.openclaw/workspace)
  --config <file>    openclaw.json (default $OPENCLAW_CONFIG_PATH or <state dir>/openclaw.json)
  --mode <m>         the hook pack's mode: auto | pack | link | copy (default auto)
  --plugin <tgz>     install this plugin tarball instead of building one (2026.9+)
  --no-cli           never call the openclaw CLI (the hook pack, link or copy mode)
  --uninstall        reverse the install
  --purge            with --uninstall: also remove openclaw-context's own state (above)
  -h, --help         show this help

Exit codes: 0 done and verified, 1 install, verification or uninstall failed, 2 bad usage.`;

await runScript("install", async () => {
  const { values } = parseArgs({
    options: {
      workspace: { type: "string" },
      config: { type: "string" },
      mode: { type: "string", default: "auto" },
      plugin: { type: "string" },
      "no-cli": { type: "boolean", default: false },
      uninstall: { type: "boolean", default: false },
      purge: { type: "boolean", default: false },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) printHelpAndExit(HELP);
  if (!["auto", "pack", "link", "copy"].includes(values.mode)) throw new UsageError(`--mode must be auto, pack, link or copy, got "${values.mode}"`);
  const configPath = path.resolve(values.config ?? resolveOpenClawConfigPath());
  // The plugin needs no workspace (the gateway hands it one every turn); the hook pack's link and copy modes do.
  const workspaceOrError = (() => {
    try {
      return resolveWorkspace(values.workspace, process.env, configPath);
    } catch (error) {
      return error as Error;
    }
  })();
  const workspace = typeof workspaceOrError === "string" ? workspaceOrError : path.dirname(configPath);
  const cli = values["no-cli"] ? undefined : findOpenClawCli();
  const mode: InstallMode = values.mode === "auto" ? (cli ? "pack" : "link") : (values.mode as InstallMode);
  if (mode === "pack" && !cli) throw new UsageError("--mode pack needs the openclaw CLI on PATH (or $OPENCLAW_CLI)");
  const params = { bundleRoot: BUNDLE_ROOT, workspace, configPath, mode, cli, log: (line: string) => console.log(`- ${line}`) };

  if (values.purge && !values.uninstall) throw new UsageError("--purge goes with --uninstall");
  if (values.uninstall) {
    const plugin = (await installedArtifact(params)) === "plugin";
    // What stays is read from the config as installed (its workspaces, a configured index folder).
    const installed = { configPath, cfg: await readOpenClawJson(configPath).catch(() => undefined), workspace: typeof workspaceOrError === "string" ? workspaceOrError : undefined };
    const report = await withProgress("uninstalling", () => (plugin ? uninstallPlugin(params) : uninstall(params)));
    for (const step of report.steps) console.log(`- ${step}`);
    if (report.leftovers.length > 0) throw new CheckFailedError(`uninstall incomplete; remove these by hand:\n  - ${report.leftovers.join("\n  - ")}`);
    const after = afterUninstall(installed, values.purge);
    for (const line of after.lines) console.log(line);
    if (after.failed.length > 0) throw new CheckFailedError(`uninstalled, but --purge could not remove:\n  - ${after.failed.join("\n  - ")}`);
    console.log(UNINSTALLED_LINE);
    return 0;
  }
  const hostVersion = cli ? await cliHostVersion(cli, params) : undefined;
  if (artifactFor(hostVersion) === "plugin") {
    console.log(`Installing the ${PACK_ID} plugin into OpenClaw ${hostVersion} (CLI ${cli})`);
    const tarball = values.plugin ? path.resolve(values.plugin) : await withProgress("building the plugin", async () => packPlugin(await buildPlugin()));
    const report = await withProgress("installing", () => installPlugin(params, tarball));
    for (const line of report.lines) console.log(`  ${line}`);
    if (report.problems.length > 0) throw new CheckFailedError(`installed, but verification failed:\n  - ${report.problems.join("\n  - ")}`);
    console.log("Installed. RESTART NEEDED: the gateway loads the plugin when it starts (openclaw gateway restart). Then: openclaw context doctor.");
    return 0;
  }
  if (values.plugin) throw new UsageError(`--plugin is for OpenClaw 2026.9 and later; this is ${hostVersion ? `OpenClaw ${hostVersion}` : "no openclaw CLI to ask (put it on PATH)"}`);
  if (workspaceOrError instanceof Error) throw workspaceOrError;
  console.log(`Installing the ${PACK_ID} hook pack (${mode} mode${cli ? `, CLI ${cli}` : ", no openclaw CLI"}) for workspace ${workspace}`);
  const report = await withProgress("installing", () => install(params));
  for (const line of report.lines) console.log(`  ${line}`);
  if (report.problems.length > 0) throw new CheckFailedError(`installed, but verification failed:\n  - ${report.problems.join("\n  - ")}`);
  console.log(`Installed and verified${cli ? " (openclaw hooks list shows both hooks eligible)" : " (files and dependencies checked; no CLI to ask the gateway)"}. Then: npm run doctor.`);
  return 0;
});
