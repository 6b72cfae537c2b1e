// backup: Phase 0 hard gate: back up SOUL.md, AGENTS.md and TOOLS.md and verify the copies by sha256.
import path from "node:path";
import { parseArgs } from "node:util";
import { createPhase0Backups, evaluateBackupGate } from "../backup.ts";
import { CheckFailedError, printHelp } from "../cli.ts";
import { resolveWorkspace } from "../paths.ts";
import { usage } from "./command.ts";
import type { OperatorCommand } from "./command.ts";

export const backupCommand: OperatorCommand = {
  name: "backup",
  messageName: "backup",
  summary: "Phase 0 gate: back up SOUL.md, AGENTS.md and TOOLS.md and verify the copies by sha256",
  help: (invocation) => `${usage(invocation, "backup", "[--workspace <dir>] [--force]")}

Creates initiatives/adaptive-context-injection/backups/{SOUL,AGENTS,TOOLS}.md.bak in the
workspace and verifies each copy by sha256. This is the first step of the migration: nothing else
should change until these backups exist (the "Phase 0" gate of the ACI spec).

An existing .bak that differs from the live file is kept (it is probably the pre-ACI original)
and the gate fails; --force first moves it aside to a timestamped copy, then backs up the
current file.

Options:
  --workspace <dir>  workspace root (default: agents.defaults.workspace in openclaw.json, else ~/.openclaw/workspace)
  --force            replace differing backups (the old .bak is kept as <name>.<timestamp>.bak)
  -h, --help         show this help

Exit codes: 0 gate passed, 1 gate failed, 2 bad usage.`,
  async main(argv, invocation) {
    const { values } = parseArgs({
      args: argv,
      options: { workspace: { type: "string" }, force: { type: "boolean", default: false }, help: { type: "boolean", short: "h" } },
      strict: true,
    });
    if (values.help) return printHelp(backupCommand.help(invocation));
    const workspace = resolveWorkspace(values.workspace);
    const statuses = await createPhase0Backups(workspace, { force: values.force });
    for (const status of statuses) {
      const hash = status.backupHash ? ` sha256 ${status.backupHash.slice(0, 12)}` : "";
      console.log(`${status.action.padEnd(16)} ${path.relative(workspace, status.backup)}${hash}${status.previousBackup ? ` (old copy: ${path.relative(workspace, status.previousBackup)})` : ""}`);
    }
    const gate = evaluateBackupGate(statuses);
    if (!gate.ok) throw new CheckFailedError(`Backup gate (before any change) not met:\n  - ${gate.problems.join("\n  - ")}`);
    console.log("Backup gate (before any change): PASS (all three backups exist and match by sha256)");
    return 0;
  },
};
