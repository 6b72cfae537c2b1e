// doctor: one command that says whether the bundle works here, and the command that fixes each problem.
import path from "node:path";
import { parseArgs } from "node:util";
import { resolveOpenClawConfigPath } from "../../host/config-file.ts";
import { PACK_ID } from "../hook-pack-install.ts";
import { printHelp, withProgress } from "../cli.ts";
import { findOpenClawCli } from "../openclaw-cli.ts";
import { doctorExitCode, formatDoctor, runChecks } from "../doctor/check.ts";
import { DOCTOR_CHECKS } from "../doctor/checks.ts";
import { doctorContext } from "../doctor/context.ts";
import { OPENCLAW_CONTEXT, usage } from "./command.ts";
import type { OperatorCommand } from "./command.ts";

export const doctorCommand: OperatorCommand = {
  name: "doctor",
  messageName: "doctor",
  summary: "check the install, the context-engine slot, the config, the last turn, DM privacy and due chores; each problem with its fix",
  help: (invocation) => `${usage(invocation, "doctor", "[--workspace <dir>] [--config <openclaw.json>] [--no-cli] [--json]")}

Checks, in this order, and prints each problem with the command that fixes it:
  version         this OpenClaw's version, and whether the artifact it needs is the one installed
                  (the plugin from 2026.9, the hook pack on 2026.3)
  context engine  who holds plugins.slots.contextEngine, whether the gateway fell back to its
                  legacy engine, and what another engine in the slot costs (2026.9+)
  config          every key of ours the code ignores, by its path, with "did you mean"; from a
                  clone, also whether OpenClaw itself accepts openclaw.json
  hooks           the hook pack's hooks enabled and eligible (2026.3)
  last turn       what the newest turn in our log got: files, memory or why not, captures
  dmScope         DMs of people who are not owners landing in your main session
  TOOLS_COMPACT.md  missing, or older than TOOLS.md
  wisdom          Wisdom compression of SOUL.md due (monthly, or after 10 new lessons)

Options:
  --workspace <dir>  agent workspace (default: agents.defaults.workspace in openclaw.json, else ~/.openclaw/workspace)
  --config <file>    openclaw.json (default $OPENCLAW_CONFIG_PATH or <state dir>/openclaw.json)
  --no-cli           do not ask the openclaw CLI (no version, no hooks list, no config validate)
  --json             print the findings as JSON
  -h, --help         show this help

Exit codes: 0 nothing to fix (due chores are listed but do not count), 1 at least one problem,
2 bad usage, 3 warnings only (it works, but something costs or risks more than it should).`,
  async main(argv, invocation) {
    const { values } = parseArgs({
      args: argv,
      options: {
        workspace: { type: "string" },
        config: { type: "string" },
        "no-cli": { type: "boolean", default: false },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    });
    if (values.help) return printHelp(doctorCommand.help(invocation));
    const configPath = path.resolve(values.config ?? resolveOpenClawConfigPath());
    const insideOpenClaw = invocation === OPENCLAW_CONTEXT;
    const results = await withProgress("checking", async () => {
      const ctx = await doctorContext({
        configPath,
        workspace: values.workspace ? path.resolve(values.workspace) : undefined,
        invocation,
        insideOpenClaw,
        useCli: !values["no-cli"],
        // Not $OPENCLAW_CLI inside OpenClaw: it sets that to "1" for its children.
        cli: insideOpenClaw ? undefined : findOpenClawCli(),
      });
      return { ctx, results: await runChecks(DOCTOR_CHECKS, ctx) };
    });
    const code = doctorExitCode(results.results);
    if (values.json) console.log(JSON.stringify({ exitCode: code, checks: results.results }, null, 2));
    else console.log(formatDoctor(results.results, [`${PACK_ID} doctor`, `  openclaw.json: ${configPath}`, `  workspace:     ${results.ctx.workspace ?? "(not found)"}`]));
    return code;
  },
};
