import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

// Thin wrapper around the `openclaw` CLI. The operator scripts prefer it when it is on PATH
// (it knows the install records and the config schema), and fall back to editing files.

export type CliResult = { code: number; stdout: string; stderr: string };

/** `$OPENCLAW_CLI` (a path to an executable), else `openclaw` on PATH, else undefined. */
export function findOpenClawCli(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.OPENCLAW_CLI) return env.OPENCLAW_CLI;
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, "openclaw");
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Run the CLI with a hard timeout; never throws for a non-zero exit (callers decide). */
export function runOpenClaw(cli: string, args: string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      cli,
      args,
      { env: options.env ?? process.env, timeout: options.timeoutMs ?? 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) + (error && code === 1 && !stderr ? error.message : "") });
      },
    );
  });
}

/**
 * The JSON document in CLI output. Commands may print log lines first (some start with "[", like
 * "[plugins] …"), so every line that opens with "{" or "[" is tried as the start, first match wins.
 */
export function parseCliJson(stdout: string): unknown {
  const starts = [0, ...[...stdout.matchAll(/\n/g)].map((match) => (match.index ?? 0) + 1)];
  for (const start of starts) {
    const rest = stdout.slice(start).trimStart();
    if (!rest.startsWith("{") && !rest.startsWith("[")) continue;
    try {
      return JSON.parse(rest);
    } catch {
      // a log line that merely starts with a bracket; keep looking
    }
  }
  return undefined;
}

/** Environment that points the CLI at a given openclaw.json. */
export function cliEnvForConfig(configPath: string | undefined, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return configPath ? { ...env, OPENCLAW_CONFIG_PATH: configPath } : env;
}

/**
 * OpenClaw's own verdict on openclaw.json (`openclaw config validate --json`): the issues when it
 * rejects the file (then the gateway will not start and no plugin command runs), [] when it
 * accepts it, undefined when the CLI gave no answer.
 */
export async function openClawConfigIssues(run: (args: string[]) => Promise<CliResult>): Promise<string[] | undefined> {
  const result = await run(["config", "validate", "--json"]);
  const verdict = parseCliJson(result.stdout) as { valid?: unknown; issues?: { path?: unknown; message?: unknown }[] } | undefined;
  if (!verdict || typeof verdict.valid !== "boolean") return undefined;
  return verdict.valid ? [] : (verdict.issues ?? []).map((issue) => `${String(issue.path ?? "?")}: ${String(issue.message ?? "?")}`);
}
