import lockfile from "proper-lockfile";

// Initial version: the memory-hygiene work owns and hardens this module (spec §4.1 semantics,
// owner info, stale-lock recovery). Callers depend only on `withFileLock`.
export type LockOptions = {
  retryIntervalSeconds?: number;
  maxRetries?: number;
  staleThresholdSeconds?: number;
  agentName?: string;
};

export async function withFileLock<T>(file: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const release = await lockfile.lock(file, {
    realpath: false,
    lockfilePath: `${file}.lock`,
    stale: (options.staleThresholdSeconds ?? 3600) * 1000,
    retries: { retries: options.maxRetries ?? 5, minTimeout: (options.retryIntervalSeconds ?? 2) * 1000, factor: 1 },
  });
  try {
    return await fn();
  } finally {
    await release();
  }
}
