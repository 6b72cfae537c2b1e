// Child process for the multi-process lock tests (spawned with `node --import tsx`).
//   append <workerId> <count> <memoryFile> <dailyFile>  append <count> entries to both files
//   hold <file> <staleSeconds>                          take the lock, print "locked", then wait to be killed
import { withFileLock } from "../../src/fs/lock.ts";
import { appendFileLocked } from "../../src/fs/locked-writes.ts";

const [mode, ...args] = process.argv.slice(2);
// Attempts bounded by progress, not by a clock: a worker waits as long as the others keep writing
// (4,000 attempts of 5 ms gave up after 20 s on a machine at load 15).
const fastRetry = { retryIntervalSeconds: 0.005, maxRetries: Number.MAX_SAFE_INTEGER, agentName: "lock-worker" };

if (mode === "append") {
  const [workerId, count, memoryFile, dailyFile] = args;
  for (let i = 0; i < Number(count); i++) {
    const id = `w${workerId}-e${i}`;
    await appendFileLocked(memoryFile, `- [${id}] worker ${workerId} remembers entry ${i} <!-- confidence: 0.6 source: inferred -->`, fastRetry);
    await appendFileLocked(dailyFile, `- ${new Date().toISOString()} [${id}] daily note ${i}`, fastRetry);
  }
  process.stdout.write("done\n");
} else if (mode === "hold") {
  const [file, staleSeconds] = args;
  await withFileLock(
    file,
    async () => {
      process.stdout.write("locked\n");
      await new Promise(() => setInterval(() => undefined, 1000));
    },
    { ...fastRetry, staleThresholdSeconds: Number(staleSeconds), agentName: "holder" },
  );
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
