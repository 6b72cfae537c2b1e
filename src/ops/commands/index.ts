// The operator commands, in the order `openclaw context --help` lists them. One row per command:
// scripts/<name>.ts runs it for `npm run <name>`, src/plugin/cli.ts for `openclaw context <name>`.
import { backupCommand } from "./backup.ts";
import { baselineCommand } from "./baseline.ts";
import { checkToolsCommand } from "./check-tools.ts";
import type { OperatorCommand } from "./command.ts";
import { compressWisdomCommand } from "./compress-wisdom.ts";
import { doctorCommand } from "./doctor.ts";
import { draftToolsCommand } from "./draft-tools.ts";
import { explainCommand } from "./explain.ts";
import { memoryCommand } from "./memory.ts";
import { maintainCommand } from "./maintain.ts";
import { rollbackCommand } from "./rollback.ts";
import { soulInstructionsCommand } from "./soul-instructions.ts";
import { statusCommand } from "./status.ts";
import { uninstallCommand } from "./uninstall.ts";

export const OPERATOR_COMMANDS: readonly OperatorCommand[] = [
  statusCommand,
  doctorCommand,
  explainCommand,
  memoryCommand,
  baselineCommand,
  backupCommand,
  rollbackCommand,
  draftToolsCommand,
  checkToolsCommand,
  compressWisdomCommand,
  soulInstructionsCommand,
  maintainCommand,
];

/** `openclaw context …`: the operator commands, and the plugin's own uninstall (a clone uses npm run install-hooks -- --uninstall). */
export const PLUGIN_COMMANDS: readonly OperatorCommand[] = [...OPERATOR_COMMANDS, uninstallCommand];

/** The `context` group of the openclaw CLI (openclaw.plugin.json's cliCommands: OpenClaw lists it before it loads the plugin). */
export const CONTEXT_COMMAND = {
  name: "context",
  description: `openclaw-context: ${PLUGIN_COMMANDS.map((command) => command.name).join(", ")}`,
  hasSubcommands: true,
};
