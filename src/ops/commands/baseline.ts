// baseline: Appendix A: capture the context baseline (per file, per session type; today and with the bundle).
import path from "node:path";
import { parseArgs } from "node:util";
import { loadOpenClawConfigFile, resolveOpenClawConfigPath } from "../../host/config-file.ts";
import { baselineHostVersion, measureFiles, measureSessions } from "../baseline.ts";
import { formatBaselineReport } from "../baseline-report.ts";
import { UsageError, parseIntegerOption, withProgress, printHelp } from "../cli.ts";
import { captureLiveContext } from "../live-context.ts";
import type { LiveContextReport } from "../live-context.ts";
import { findOpenClawCli, cliEnvForConfig } from "../openclaw-cli.ts";
import { INITIATIVE_DIR, initiativeDir, resolveWorkspace } from "../paths.ts";
import { replaceFileWithBackup } from "../safe-write.ts";
import { SESSION_TYPES } from "../../session/types.ts";
import { usage } from "./command.ts";
import type { OperatorCommand } from "./command.ts";

export const baselineCommand: OperatorCommand = {
  name: "baseline",
  messageName: "capture-baseline",
  summary: "measure each bootstrap file and, per session type, what is injected today and with this bundle",
  help: (invocation) => `${usage(invocation, "baseline", "[--workspace <dir>] [--out <file>] [--config <openclaw.json>]", "[--live] [--gateway-url <ws-url>] [--gateway-token <token>] [--session-key <key>]", "[--timeout-ms <ms>] [--stdout]")}

Measures every bootstrap file (raw and injected chars, estimated tokens) and, per session type,
the files and total injected today by OpenClaw 2026.9.6 and with this bundle's aci-bootstrap
policy (the same src/bootstrap code the hook runs, with your openclaw.json entry). Reports
whether MEMORY.md is injected into every turn today (the check to run before any change).

Writes ${INITIATIVE_DIR}/baseline-context.txt in the workspace (an existing file is
first copied to backups/baseline-context.txt.<timestamp>.bak), or --out <file>.

Live mode (--live, or implied by --gateway-url): sends "/context json" to a running gateway through
the openclaw CLI (gateway call chat.send + chat.history) and records OpenClaw's own per-file report
next to the estimate. Needs \`openclaw\` on PATH (or $OPENCLAW_CLI).

Options:
  --workspace <dir>        workspace root (default: agents.defaults.workspace in openclaw.json, else ~/.openclaw/workspace)
  --out <file>             output file (default: <workspace>/${INITIATIVE_DIR}/baseline-context.txt)
  --config <file>          openclaw.json for budgets, owner ids and the hook's policy entry
  --live                   also query a running gateway
  --gateway-url <url>      gateway WebSocket URL (passed to openclaw gateway call --url)
  --gateway-token <token>  gateway token (default $OPENCLAW_GATEWAY_TOKEN)
  --session-key <key>      session for the live report (default agent:main:main)
  --timeout-ms <ms>        live-mode timeout (default 30000)
  --stdout                 print the report instead of writing a file
  -h, --help               show this help`,
  async main(argv, invocation) {
    // The policy code logs per-session decisions; an operator report only wants errors from it.
    // (Here, not at import: the gateway loads this module too, inside the plugin package.)
    process.env.OPENCLAW_CONTEXT_LOG_LEVEL ??= "error";
    const { values } = parseArgs({
      args: argv,
      options: {
        workspace: { type: "string" },
        out: { type: "string" },
        config: { type: "string" },
        live: { type: "boolean", default: false },
        "gateway-url": { type: "string" },
        "gateway-token": { type: "string" },
        "session-key": { type: "string" },
        "timeout-ms": { type: "string" },
        stdout: { type: "boolean", default: false },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    });
    if (values.help) return printHelp(baselineCommand.help(invocation));
    const timeoutMs = parseIntegerOption("timeout-ms", values["timeout-ms"], 30_000, 1);
    const configPath = values.config ?? resolveOpenClawConfigPath();
    const workspace = resolveWorkspace(values.workspace, process.env, path.resolve(configPath));
    if (values.config && !loadOpenClawConfigFile(values.config)) throw new UsageError(`cannot read --config ${values.config} as JSON5`);
    const cfg = loadOpenClawConfigFile(configPath);

    const files = await measureFiles(workspace, cfg);
    const sessions = await measureSessions({ workspace, types: SESSION_TYPES, cfg, withBundle: true });

    let live: LiveContextReport | undefined;
    let liveError: string | undefined;
    if (values.live || values["gateway-url"]) {
      const cli = findOpenClawCli();
      if (!cli) liveError = "the openclaw CLI is not on PATH (set $OPENCLAW_CLI)";
      else {
        try {
          live = await withProgress("querying the gateway for /context json", () =>
            captureLiveContext(
              { cli, url: values["gateway-url"], token: values["gateway-token"] ?? process.env.OPENCLAW_GATEWAY_TOKEN, env: cliEnvForConfig(cfg ? configPath : undefined) },
              values["session-key"] ?? "agent:main:main",
              { timeoutMs },
            ),
          );
        } catch (error) {
          liveError = (error as Error).message;
        }
      }
      if (liveError) process.stderr.write(`capture-baseline: warning: live capture failed, offline estimate only: ${liveError}\n`);
    }

    const report = formatBaselineReport({
      capturedAt: new Date(),
      workspace,
      files,
      sessions,
      live,
      liveError,
      policyNote: `aci-bootstrap policy from ${cfg ? configPath : "defaults (no openclaw.json found)"}, after OpenClaw's post-hook filter.`,
      hostVersion: baselineHostVersion(cfg),
    });
    if (values.stdout) {
      process.stdout.write(report);
      return 0;
    }
    const out = path.resolve(values.out ?? path.join(initiativeDir(workspace), "baseline-context.txt"));
    const backup = await replaceFileWithBackup(out, report, path.join(initiativeDir(workspace), "backups"));
    process.stdout.write(report);
    console.log(`\nWritten: ${out}${backup ? ` (previous version: ${backup})` : ""}`);
    return live || !liveError ? 0 : 1;
  },
};
