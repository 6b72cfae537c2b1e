// rollback: one-command revert for each ACI migration phase (spec appendix B).
import path from "node:path";
import { parseArgs } from "node:util";
import { resolveOpenClawConfigPath } from "../../host/config-file.ts";
import { CheckFailedError, UsageError, printHelp, withProgress } from "../cli.ts";
import { findOpenClawCli } from "../openclaw-cli.ts";
import { resolveWorkspace } from "../paths.ts";
import { ROLLBACK_PHASES, rollback } from "../rollback.ts";
import type { RollbackPhase } from "../rollback.ts";
import { usage } from "./command.ts";
import type { OperatorCommand } from "./command.ts";

export const rollbackCommand: OperatorCommand = {
  name: "rollback",
  messageName: "rollback",
  summary: "undo one step of the migration (phase 0-4 or full) and verify the result",
  help: (invocation) => `${usage(invocation, "rollback", "--phase <0|1|2|3|4|full> [--workspace <dir>] [--config <openclaw.json>] [--restore-soul] [--no-cli]")}

Undoes one step of the migration to session-aware context and verifies the result (steps are
numbered as the phases of the ACI spec):
  0     restore SOUL.md and AGENTS.md from backups/*.md.bak
  1     disable the aci-bootstrap hook (option A); with --restore-soul restore SOUL.md instead (option B)
  2     disable the aci-bootstrap hook: OpenClaw's bulk injection resumes on the next turn
  3     remove the shedding-instructions section (heading containing "shedding") from SOUL.md
  4     remove the "read TOOLS.md when needed" instruction line(s) from SOUL.md
  full  restore SOUL.md, AGENTS.md and TOOLS.md, then disable the hook

With the plugin package installed (openclaw plugins install), "disable the hook" sets its own
switch, plugins.entries.openclaw-context.config.bootstrap, to false (\`openclaw hooks disable\` does
not reach a plugin's hook); the hook pack's entry is switched off too when openclaw.json has one.

Every file that changes is first copied to backups/<name>.<timestamp>.bak (openclaw.json: next to
itself). The hook is disabled with \`openclaw hooks disable\` when the CLI is on PATH, else by editing
openclaw.json (comments kept; JSON5-only syntax falls back to json5 after a timestamped backup).

Options:
  --phase <p>        phase to revert (required)
  --workspace <dir>  workspace root (default: agents.defaults.workspace in openclaw.json, else ~/.openclaw/workspace)
  --config <file>    openclaw.json (default $OPENCLAW_CONFIG_PATH or <state dir>/openclaw.json)
  --restore-soul     phase 1 option B
  --no-cli           never call the openclaw CLI, edit openclaw.json directly
  -h, --help         show this help

Exit codes: 0 rolled back and verified, 1 a step failed, 2 bad usage.`,
  async main(argv, invocation) {
    const { values } = parseArgs({
      args: argv,
      options: {
        phase: { type: "string" },
        workspace: { type: "string" },
        config: { type: "string" },
        "restore-soul": { type: "boolean", default: false },
        "no-cli": { type: "boolean", default: false },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    });
    if (values.help) return printHelp(rollbackCommand.help(invocation));
    if (!values.phase) throw new UsageError("--phase is required (0, 1, 2, 3, 4 or full)");
    if (!(ROLLBACK_PHASES as readonly string[]).includes(values.phase)) throw new UsageError(`unknown --phase "${values.phase}" (expected one of ${ROLLBACK_PHASES.join(", ")})`);
    if (values["restore-soul"] && values.phase !== "1") throw new UsageError("--restore-soul only applies to --phase 1");
    const configPath = values.config ?? resolveOpenClawConfigPath();
    const workspace = resolveWorkspace(values.workspace, process.env, path.resolve(configPath));
    const cli = values["no-cli"] ? undefined : findOpenClawCli();
    const steps = await withProgress(`rolling back phase ${values.phase}`, () =>
      rollback({ workspace, phase: values.phase as RollbackPhase, configPath, restoreSoul: values["restore-soul"], cli }),
    );
    for (const step of steps) console.log(`${step.ok ? "ok  " : "FAIL"} ${step.action}: ${step.detail}`);
    const failed = steps.filter((step) => !step.ok);
    if (failed.length > 0) throw new CheckFailedError(`rollback of phase ${values.phase} incomplete: ${failed.map((step) => step.action).join(", ")}`);
    console.log(`Rollback of phase ${values.phase}: done and verified.${steps.some((s) => s.action.startsWith("disable")) ? " RESTART NEEDED: openclaw gateway restart (the plugin's switch applies when the gateway starts; a hook pack's entry may apply sooner, on the next turn after a config reload in hybrid mode)." : ""}`);
    return 0;
  },
};
