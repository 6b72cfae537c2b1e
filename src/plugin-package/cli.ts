// `openclaw context …`: the operator commands inside the OpenClaw CLI (api.registerCli). Each
// subcommand is one row of OPERATOR_COMMANDS, the same code as the clone's `npm run <name>`:
// commander only routes; the command gets its raw arguments (its own --help and option parsing
// included) and its exit code becomes the CLI's.
import { OPENCLAW_CONTEXT, runCommand } from "../ops/commands/command.ts";
import type { OperatorCommand } from "../ops/commands/command.ts";
import { OPERATOR_COMMANDS } from "../ops/commands/index.ts";
import { uninstallCommand } from "./uninstall-command.ts";

/** `openclaw context …`: the clone's operator commands, and the package's own uninstall. */
export const PACKAGE_COMMANDS: readonly OperatorCommand[] = [...OPERATOR_COMMANDS, uninstallCommand];

export { packageSection } from "../ops/package-status.ts";

/** The part of commander's Command this file uses (OpenClaw 2026.9.6 passes its own `program`, commander 15). */
export type CommandLike = {
  command(name: string): CommandLike;
  description(text: string): CommandLike;
  argument(spec: string, description?: string): CommandLike;
  helpOption(flags: false): CommandLike;
  allowUnknownOption(): CommandLike;
  allowExcessArguments(): CommandLike;
  action(handler: (args: string[]) => Promise<void> | void): CommandLike;
};

export const CONTEXT_GROUP_DESCRIPTION = "openclaw-context: session-aware bootstrap files and memory (the clone's npm run scripts)";

export function registerContextCommands(program: unknown, commands: readonly OperatorCommand[] = PACKAGE_COMMANDS): void {
  const context = (program as CommandLike).command("context").description(CONTEXT_GROUP_DESCRIPTION);
  for (const command of commands) {
    context
      .command(command.name)
      .description(command.summary)
      .argument("[args...]", `see openclaw context ${command.name} --help`)
      // The command parses its own options and prints its own --help: commander passes everything through.
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(async (args) => {
        process.exitCode = await runCommand(command, args ?? [], OPENCLAW_CONTEXT);
      });
  }
}
