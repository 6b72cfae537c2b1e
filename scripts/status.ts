#!/usr/bin/env -S npx tsx
// npm run status: installed? enabled? config problems, recent decisions, memory index; in plain words.
import path from "node:path";
import { parseArgs } from "node:util";
import { resolveOpenClawConfigPath } from "../src/openclaw/config-file.ts";
import { parseIntegerOption, printHelpAndExit, runScript } from "../src/ops/cli.ts";
import { findOpenClawCli } from "../src/ops/openclaw-cli.ts";
import { resolveWorkspace } from "../src/ops/paths.ts";
import { collectStatus, formatStatus } from "../src/ops/status.ts";

const HELP = `Usage: npm run status -- [--workspace <dir>] [--config <openclaw.json>] [--last <n>] [--no-cli] [--json]

Tells, in plain words:
  - whether the hook pack is installed (where, which mode) and whether each hook is enabled in
    openclaw.json; with the openclaw CLI, whether the gateway lists each hook as eligible;
  - config problems: the hook entries in openclaw.json checked now, and the errors the gateway
    logged when it last loaded them;
  - the last decisions per session type (which files a session got, how many memories were
    injected), read from the hooks' log file;
  - the memory index: where it is saved, its size, and whether files changed since.

The hooks' log file is $OPENCLAW_STATE_DIR/openclaw-context/logs/openclaw-context.log
(~/.openclaw/openclaw-context/logs/ by default; $OPENCLAW_CONTEXT_LOG_FILE names another file).

Options:
  --workspace <dir>  agent workspace (default: agents.defaults.workspace in openclaw.json, else ~/.openclaw/workspace)
  --config <file>    openclaw.json (default $OPENCLAW_CONFIG_PATH or <state dir>/openclaw.json)
  --last <n>         decisions to show per session type (default 3)
  --no-cli           do not ask the openclaw CLI (faster; no eligibility line)
  --json             print JSON
  -h, --help         show this help

Exit codes: 0 report printed, 2 bad usage.`;

await runScript("status", async () => {
  const { values } = parseArgs({
    options: {
      workspace: { type: "string" },
      config: { type: "string" },
      last: { type: "string" },
      "no-cli": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) printHelpAndExit(HELP);
  const configPath = path.resolve(values.config ?? resolveOpenClawConfigPath());
  const workspace = resolveWorkspace(values.workspace, process.env, configPath);
  const report = await collectStatus({
    configPath,
    workspace,
    cli: values["no-cli"] ? undefined : findOpenClawCli(),
    decisionsPerType: parseIntegerOption("last", values.last, 3, 1),
  });
  console.log(values.json ? JSON.stringify(report, null, 2) : formatStatus(report));
  return 0;
});
