// explain: per session type (or for one key), which workspace files aci-bootstrap injects and drops,
// and the tokens before and after, using the hook's own apply code.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { explainWorkspace, formatExplanation } from "../explain-workspace.ts";
import { loadOpenClawConfigFile } from "../../host/config-file.ts";
import { printHelp } from "../cli.ts";
import { resolveWorkspace } from "../paths.ts";
import { usage } from "./command.ts";
import type { Invocation, OperatorCommand } from "./command.ts";

const help = (invocation: Invocation) => `${usage(invocation, "explain", "[--workspace <dir>] [--session-key <key>] [--config <openclaw.json>] [--json]")}

  --workspace, -w    workspace directory to explain (default: agents.defaults.workspace in
                     openclaw.json, else $OPENCLAW_WORKSPACE_DIR, else ~/.openclaw/workspace)
  --session-key, -k  explain one session key instead of one sample key per session type
  --config, -c       openclaw.json to read owner ids, file-set overrides and budgets from
  --json             print JSON instead of a Markdown table
  --help, -h         show this help`;

/** Bad usage: the message and the help on stderr, exit code 2 (explain's own convention). */
class ExplainUsageError extends Error {}

async function explain(argv: string[], invocation: Invocation): Promise<number> {
  // Classifier warnings go to stderr; keep explain's own output readable unless asked otherwise.
  process.env.OPENCLAW_CONTEXT_LOG_LEVEL ??= "error";
  let values: { workspace?: string; "session-key"?: string; config?: string; json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        workspace: { type: "string", short: "w" },
        "session-key": { type: "string", short: "k" },
        config: { type: "string", short: "c" },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
      allowPositionals: false,
    }));
  } catch (error) {
    throw new ExplainUsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) return printHelp(help(invocation));
  let workspaceDir: string;
  try {
    workspaceDir = resolveWorkspace(values.workspace, process.env, values.config ? path.resolve(values.config) : undefined);
  } catch (error) {
    throw new ExplainUsageError((error as Error).message);
  }
  const sessionKey = values["session-key"];
  if (sessionKey !== undefined && sessionKey.trim() === "") throw new ExplainUsageError("--session-key is empty");

  let cfg;
  if (values.config) {
    const configPath = path.resolve(values.config);
    if (!fs.existsSync(configPath)) throw new ExplainUsageError(`config file not found: ${configPath}`);
    cfg = loadOpenClawConfigFile(configPath);
    if (!cfg) throw new ExplainUsageError(`config file is not a JSON5 object: ${configPath}`);
  }

  const explanation = await explainWorkspace({ workspaceDir, cfg, sessionKey });
  process.stdout.write(values.json ? `${JSON.stringify(explanation, null, 2)}\n` : `${formatExplanation(explanation)}\n`);
  return 0;
}

export const explainCommand: OperatorCommand = {
  name: "explain",
  messageName: "explain",
  summary: "which workspace files each session type gets and drops, and the tokens before and after",
  help,
  async main(argv, invocation) {
    try {
      return await explain(argv, invocation);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof ExplainUsageError) {
        process.stderr.write(`explain: ${message}\n\n${help(invocation)}\n`);
        return 2;
      }
      process.stderr.write(`explain: ${message}\n`);
      return 1;
    }
  },
};
