// The operator commands, in the order `openclaw context --help` lists them. One row per command:
// scripts/<name>.ts runs it for `npm run <name>`, src/plugin-package/cli.ts for `openclaw context <name>`.
import { backupCommand } from "./backup.ts";
import { baselineCommand } from "./baseline.ts";
import { checkToolsCommand } from "./check-tools.ts";
import type { OperatorCommand } from "./command.ts";
import { compressWisdomCommand } from "./compress-wisdom.ts";
import { draftToolsCommand } from "./draft-tools.ts";
import { explainCommand } from "./explain.ts";
import { maintainCommand } from "./maintain.ts";
import { rollbackCommand } from "./rollback.ts";
import { statusCommand } from "./status.ts";

export const OPERATOR_COMMANDS: readonly OperatorCommand[] = [
  statusCommand,
  explainCommand,
  baselineCommand,
  backupCommand,
  rollbackCommand,
  draftToolsCommand,
  checkToolsCommand,
  compressWisdomCommand,
  maintainCommand,
];
