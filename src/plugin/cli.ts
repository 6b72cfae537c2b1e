// `openclaw context …`: the operator commands inside the OpenClaw CLI (api.registerCli). Each
// subcommand is one row of the command table, the same code as the clone's `npm run <name>`:
// commander only routes; the command gets its raw arguments (its own --help and option parsing
// included) and its exit code becomes the CLI's.
import type { CommandLike } from "../host/plugin-api.ts";
import { OPENCLAW_CONTEXT, runCommand } from "../ops/commands/command.ts";
import type { OperatorCommand } from "../ops/commands/command.ts";
import { CONTEXT_COMMAND, PLUGIN_COMMANDS } from "../ops/commands/index.ts";

export function registerContextCommands(program: unknown, commands: readonly OperatorCommand[] = PLUGIN_COMMANDS): void {
  const context = (program as CommandLike).command(CONTEXT_COMMAND.name).description(CONTEXT_COMMAND.description);
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
