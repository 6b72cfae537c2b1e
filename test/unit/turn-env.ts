import path from "node:path";
import { afterEach, beforeEach, vi } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { flushContextFileWrites } from "../../src/context/context-file.ts";
import { resetSharedMemoryIndexes } from "../../src/memory/memory-index.ts";

/**
 * Turns over a real workspace index, in a test file: each test gets a state dir of its own under
 * `stateRoot()` (the seal key and index caches, never the real one), its log lines in `logs`, and
 * after it the context-file writes are flushed and the shared indexes dropped.
 */
export function useTurnEnv(stateRoot: () => string): { logs: string[] } {
  const env = { logs: [] as string[] };
  beforeEach(() => {
    vi.stubEnv("OPENCLAW_STATE_DIR", path.join(stateRoot(), ".state"));
    env.logs = [];
    setLogDestination({ write: (line: string) => void env.logs.push(line) } as never);
  });
  afterEach(async () => {
    await flushContextFileWrites();
    setLogDestination(undefined);
    resetSharedMemoryIndexes();
    vi.unstubAllEnvs();
  });
  return env;
}
