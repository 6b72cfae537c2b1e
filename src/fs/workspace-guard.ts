// We never create a workspace. A workspaceDir that is relative (it would resolve against the
// gateway's working directory) or does not exist is a host or config problem: writers log it once
// and skip, instead of `mkdir -p`-ing a stray folder and filling it with ETHOS_CONTEXT.md,
// CORRECTIONS.md and memory/.triage.
import fs from "node:fs/promises";
import path from "node:path";
import { getLogger } from "../core/log.ts";

export type WorkspaceProblem = "relative" | "missing" | "not-a-directory";

const warned = new Set<string>();
const MAX_WARNED = 256;

/** Why `dir` is not an existing absolute directory, or undefined when it is one. */
export async function workspaceProblem(dir: string): Promise<WorkspaceProblem | undefined> {
  if (!path.isAbsolute(dir)) return "relative";
  try {
    return (await fs.stat(dir)).isDirectory() ? undefined : "not-a-directory";
  } catch {
    return "missing";
  }
}

/** True when writers may write into `dir`; otherwise logs once per folder (per writer) and returns false. */
export async function canWriteIntoWorkspace(dir: string, writer: string): Promise<boolean> {
  const problem = await workspaceProblem(dir);
  if (!problem) return true;
  const key = `${writer}\u0000${dir}`;
  if (!warned.has(key) && warned.size < MAX_WARNED) {
    warned.add(key);
    getLogger("openclaw-context.workspace").warn({ workspaceDir: dir, problem, writer }, `workspace is ${problem}; ${writer} skipped (a workspace is never created)`);
  }
  return false;
}
