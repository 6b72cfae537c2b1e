// Shared plumbing for the operator scripts: usage errors, exit codes, progress on slow steps.

/** Bad input from the operator: printed as one line plus a hint, exit code 2. */
export class UsageError extends Error {}

/** A check that ran and failed (hard gate, validation): exit code 1. */
export class CheckFailedError extends Error {}

export function printHelpAndExit(help: string): never {
  process.stdout.write(help.trimEnd() + "\n");
  process.exit(0);
}

/** A command's --help: printed, exit code 0 (returned, not exited: the openclaw CLI runs it in-process). */
export function printHelp(help: string): number {
  process.stdout.write(help.trimEnd() + "\n");
  return 0;
}

/** Run a script's main(); map errors to clear messages and non-zero exit codes. */
export async function runScript(name: string, main: () => Promise<number | void>): Promise<void> {
  process.exitCode = await runMain(name, main);
}

/** main()'s exit code; an error becomes a message on stderr and 2 (bad usage) or 1 (failed). */
export async function runMain(name: string, main: () => Promise<number | void>): Promise<number> {
  try {
    const code = await main();
    return typeof code === "number" ? code : 0;
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      process.stderr.write(`${name}: ${(error as Error).message}\nRun with --help for usage.\n`);
      return 2;
    }
    if (error instanceof CheckFailedError) process.stderr.write(`${name}: FAILED: ${error.message}\n`);
    else process.stderr.write(`${name}: error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS");
}

/**
 * Progress for anything slower than a second: "<label>… (Ns)" on stderr. On a terminal the line is
 * updated in place every second; in logs a line is written after 1 s and then every 10 s.
 * Silent for fast work.
 */
export async function withProgress<T>(label: string, work: () => Promise<T>, stream: NodeJS.WriteStream = process.stderr): Promise<T> {
  const started = Date.now();
  const tty = Boolean(stream.isTTY);
  let ticks = 0;
  const timer = setInterval(() => {
    ticks += 1;
    const line = `${label}… (${Math.round((Date.now() - started) / 1000)}s)`;
    if (tty) stream.write(`\r${line}`);
    else if (ticks === 1 || ticks % 10 === 0) stream.write(`${line}\n`);
  }, 1000);
  timer.unref();
  try {
    return await work();
  } finally {
    clearInterval(timer);
    if (tty && ticks > 0) stream.write("\n");
  }
}

export function parseIntegerOption(name: string, value: string | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min) throw new UsageError(`--${name} must be an integer >= ${min}, got "${value}"`);
  return parsed;
}
