import os from "node:os";
import path from "node:path";

// Where OpenClaw keeps its state, and how it expands `~` in config paths. Plain environment rules,
// kept in core so the logger (and everything above it) can find the state folder.

/** The gateway's state folder: $OPENCLAW_STATE_DIR, else ~/.openclaw. */
export function openClawStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.OPENCLAW_STATE_DIR || path.join(env.HOME || os.homedir(), ".openclaw");
}

/** `~` and `~/…` expanded against $HOME, as OpenClaw expands paths in its config. */
export function expandHome(p: string, env: NodeJS.ProcessEnv = process.env): string {
  return p === "~" || p.startsWith("~/") ? path.join(env.HOME || os.homedir(), p.slice(1)) : p;
}

/** The bundle's own state (logs, index cache) under the gateway's state folder. */
export function bundleStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(openClawStateDir(env), "openclaw-context");
}
