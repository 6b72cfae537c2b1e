// npm run explain -- --workspace fixtures/workspace [--session-key K] [--config openclaw.json] [--json]
// Shows, per session type (or for one key), which workspace files aci-bootstrap injects and drops,
// and the tokens before and after, using the hook's own apply code.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { explainWorkspace, formatExplanation } from "../src/bootstrap/explain.ts";
import { loadOpenClawConfigFile } from "../src/openclaw/config-file.ts";
import { resolveWorkspace } from "../src/ops/paths.ts";

const USAGE = `Usage: npm run explain -- [--workspace <dir>] [--session-key <key>] [--config <openclaw.json>] [--json]

  --workspace, -w    workspace directory to explain (default: agents.defaults.workspace in
                     openclaw.json, else $OPENCLAW_WORKSPACE_DIR, else ~/.openclaw/workspace)
  --session-key, -k  explain one session key instead of one sample key per session type
  --config, -c       openclaw.json to read owner ids, file-set overrides and budgets from
  --json             print JSON instead of a Markdown table
  --help, -h         show this help`;

function fail(message: string): never {
  process.stderr.write(`explain: ${message}\n\n${USAGE}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  // Classifier warnings go to stderr; keep explain's own output readable unless asked otherwise.
  process.env.OPENCLAW_CONTEXT_LOG_LEVEL ??= "error";
  let values: { workspace?: string; "session-key"?: string; config?: string; json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
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
    fail(error instanceof Error ? error.message : String(error));
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  let workspaceDir: string;
  try {
    workspaceDir = resolveWorkspace(values.workspace, process.env, values.config ? path.resolve(values.config) : undefined);
  } catch (error) {
    fail((error as Error).message);
  }
  const sessionKey = values["session-key"];
  if (sessionKey !== undefined && sessionKey.trim() === "") fail("--session-key is empty");

  let cfg;
  if (values.config) {
    const configPath = path.resolve(values.config);
    if (!fs.existsSync(configPath)) fail(`config file not found: ${configPath}`);
    cfg = loadOpenClawConfigFile(configPath);
    if (!cfg) fail(`config file is not a JSON5 object: ${configPath}`);
  }

  const explanation = await explainWorkspace({ workspaceDir, cfg, sessionKey });
  process.stdout.write(values.json ? `${JSON.stringify(explanation, null, 2)}\n` : `${formatExplanation(explanation)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`explain: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
