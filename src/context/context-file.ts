import path from "node:path";
import { getLogger } from "../core/log.ts";
import { RETRIEVED_MEMORY_RECORD_NAME } from "../host/ids.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { canWriteIntoWorkspace } from "../fs/workspace-guard.ts";
import { redactSecretsByLine } from "../memory/secrets.ts";

// <workspace>/ETHOS_CONTEXT.md: what the model was given this turn, for operators and for
// tools that read the story-007 file. Core does not load it (it is not one of the six bootstrap
// names); the same text reaches the prompt through the injected record. Written atomically,
// overwritten every turn, empty (not missing) when nothing passed the gate. Writes never hold up a
// turn: they are queued per file so the last turn's content always lands last.

// Looked up on each use, so a test (or operator) redirecting log output is honoured.
const log = () => getLogger("ethos-context.file");
const queues = new Map<string, Promise<void>>();

export function contextFilePath(workspaceDir: string): string {
  return path.join(workspaceDir, RETRIEVED_MEMORY_RECORD_NAME);
}

export function writeContextFile(workspaceDir: string, content: string): Promise<void> {
  const file = contextFilePath(workspaceDir);
  const previous = queues.get(file) ?? Promise.resolve();
  const next = previous
    .then(async () => {
      // An operator's copy: a secret's value, kept or not in memory, is never written here.
      if (await canWriteIntoWorkspace(workspaceDir, "ETHOS_CONTEXT.md")) await writeFileAtomic(file, redactSecretsByLine(content));
    })
    .catch((error: unknown) => log().warn({ file, err: (error as Error).message }, "could not write ETHOS_CONTEXT.md"));
  queues.set(file, next);
  void next.then(() => {
    if (queues.get(file) === next) queues.delete(file);
  });
  return next;
}

/** Resolves when every queued context-file write has finished (tests, shutdown). */
export async function flushContextFileWrites(): Promise<void> {
  while (queues.size > 0) await Promise.all(queues.values());
}
