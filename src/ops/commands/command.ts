// One operator command, two entry points: `npm run <name> -- …` in a clone (scripts/<name>.ts) and
// `openclaw context <name> …` from the installed plugin package (src/plugin/cli.ts). Both
// hand the command its raw arguments; only the invoking form in the help text differs.
import { runMain } from "../cli.ts";

/** How the operator started the command: the help's usage lines and hints are written in that form. */
export type Invocation = {
  /** The command line up to the command's own arguments: `npm run status --` or `openclaw context status`. */
  prefix(name: string): string;
  /** A whole command line for a hint: `npm run compress-wisdom -- promote --approve`, `npm run draft-tools`. */
  line(name: string, args?: string): string;
};

export const NPM_RUN: Invocation = {
  prefix: (name) => `npm run ${name} --`,
  line: (name, args) => (args ? `npm run ${name} -- ${args}` : `npm run ${name}`),
};
export const OPENCLAW_CONTEXT: Invocation = {
  prefix: (name) => `openclaw context ${name}`,
  line: (name, args) => (args ? `openclaw context ${name} ${args}` : `openclaw context ${name}`),
};

export type OperatorCommand = {
  /** The npm script name, also the `openclaw context` subcommand. */
  name: string;
  /** The prefix of its error messages (today's script file names, e.g. capture-baseline). */
  messageName: string;
  /** One line for `openclaw context --help`. */
  summary: string;
  help(invocation: Invocation): string;
  /** Exit code: 0 done, 1 failed, 2 bad usage. Never calls process.exit (it runs inside the openclaw CLI too). */
  main(argv: string[], invocation: Invocation): Promise<number | void>;
};

/**
 * "Usage: <prefix> <first>" with each further line aligned under <first>. An empty name gives a
 * second form of the same command ("       <prefix> …").
 */
export function usage(invocation: Invocation, name: string, first: string, ...more: string[]): string {
  const head = `Usage: ${invocation.prefix(name)} `;
  return [head + first, ...more.map((line) => " ".repeat(head.length) + line)].join("\n");
}

export function runCommand(command: OperatorCommand, argv: string[], invocation: Invocation): Promise<number> {
  return runMain(command.messageName, () => command.main(argv, invocation));
}

/** scripts/<name>.ts: the command with this process's arguments; its code becomes the exit code. */
export async function runAsScript(command: OperatorCommand): Promise<void> {
  process.exitCode = await runCommand(command, process.argv.slice(2), NPM_RUN);
}
