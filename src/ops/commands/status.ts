// status: installed? enabled? config problems, the last turns' decisions, memory index; in plain words.
import path from "node:path";
import { parseArgs } from "node:util";
import { resolveOpenClawConfigPath } from "../../host/config-file.ts";
import { parseIntegerOption, printHelp } from "../cli.ts";
import { findOpenClawCli } from "../openclaw-cli.ts";
import { resolveWorkspace } from "../paths.ts";
import { collectStatus, formatStatus } from "../status.ts";
import { OPENCLAW_CONTEXT, usage } from "./command.ts";
import type { OperatorCommand } from "./command.ts";

export const statusCommand: OperatorCommand = {
  name: "status",
  messageName: "status",
  summary: "installed? enabled? config problems, the last turns (files, memory, captures), memory index; in plain words",
  help: (invocation) => `${usage(invocation, "status", "[--workspace <dir>] [--config <openclaw.json>] [--last <n>] [--no-cli] [--json]")}

Tells, in plain words:
  - what is installed: the plugin package (openclaw plugins install <tarball>; its entry in
    openclaw.json, its switches, which channel carries memory) or the hook pack (where, which
    mode) and whether each hook is enabled in openclaw.json; with the openclaw CLI, whether the
    gateway lists each hook as eligible;
  - config problems: our entries in openclaw.json checked now (the plugin's config, nested
    options included, and the hooks' entries), each ignored key by its path with "did you mean",
    and the errors the gateway logged when it last loaded them;
  - the last turns, newest first: session type, the files it got, memory delivered (by which
    channel) or why not, and what the operator's message captured; read from our log file;
  - the memory index: where it is saved, its size, and whether files changed since.

Our log file is $OPENCLAW_STATE_DIR/openclaw-context/logs/openclaw-context.log
(~/.openclaw/openclaw-context/logs/ by default; $OPENCLAW_CONTEXT_LOG_FILE names another file).
Inside the gateway every line also goes to OpenClaw's own log: \`openclaw logs\`.

Options:
  --workspace <dir>  agent workspace (default: agents.defaults.workspace in openclaw.json, else ~/.openclaw/workspace)
  --config <file>    openclaw.json (default $OPENCLAW_CONFIG_PATH or <state dir>/openclaw.json)
  --last <n>         how many of the last turns to show (default 5)
  --no-cli           do not ask the openclaw CLI (faster; no eligibility line)
  --json             print JSON
  -h, --help         show this help

Exit codes: 0 report printed, 2 bad usage.`,
  async main(argv, invocation) {
    const { values } = parseArgs({
      args: argv,
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
    if (values.help) return printHelp(statusCommand.help(invocation));
    const configPath = path.resolve(values.config ?? resolveOpenClawConfigPath());
    const workspace = resolveWorkspace(values.workspace, process.env, configPath);
    // Inside OpenClaw the CLI to ask is the one running (it sets $OPENCLAW_CLI to "1" for its children).
    const insideOpenClaw = invocation === OPENCLAW_CONTEXT;
    const report = await collectStatus({
      configPath,
      workspace,
      cli: values["no-cli"] ? undefined : insideOpenClaw ? process.argv[1] : findOpenClawCli(),
      insideOpenClaw,
      lastTurns: parseIntegerOption("last", values.last, 5, 1),
    });
    console.log(values.json ? JSON.stringify(report, null, 2) : formatStatus(report));
    return 0;
  },
};
