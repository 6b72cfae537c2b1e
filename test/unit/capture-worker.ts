// Child process for the capture concurrency test (spawned with `node --import tsx`):
//   <workerId> <count> <dayFile>   append <count> agent-style lines to the day file under its lock
import { appendFileLocked } from "../../src/fs/locked-writes.ts";

const [workerId, count, dayFile] = process.argv.slice(2);
const fastRetry = { retryIntervalSeconds: 0.005, maxRetries: 100_000, agentName: "capture-worker" };
for (let i = 0; i < Number(count); i++) {
  await appendFileLocked(dayFile, `- [w${workerId}-e${i}] agent note ${i}`, fastRetry);
}
process.stdout.write("done\n");
