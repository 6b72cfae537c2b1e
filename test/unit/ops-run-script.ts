// Runs an operator script the way an operator does (tsx in a child process) and captures the result.
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const TSX_CLI = path.join(REPO_ROOT, "node_modules", "tsx", "dist", "cli.mjs");

export type ScriptResult = { code: number; stdout: string; stderr: string };

/** An operator's shell, not a test worker: vitest's variables and loaders must not leak into the scripts or the openclaw CLI they call. */
function operatorEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, OPENCLAW_CLI: "", PATH: "/usr/bin:/bin", OPENCLAW_CONTEXT_LOG_LEVEL: "error", ...extra };
  for (const key of Object.keys(env)) if (key.startsWith("VITEST") || key === "NODE_OPTIONS" || key === "TEST" || env[key] === undefined) delete env[key];
  return env;
}

export function runOpsScript(script: string, args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<ScriptResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [TSX_CLI, path.join(REPO_ROOT, "scripts", script), ...args],
      // No openclaw CLI from the developer's PATH leaks in unless a test puts one there.
      { env: operatorEnv(env), timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}
