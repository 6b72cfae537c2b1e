// Child process for the mixed-writer lock test: a writer that ignores our lock and appends to the
// file the way OpenClaw's own writers do (fs.appendFile, O_APPEND), until it is told to stop.
//   plain-appender.ts <file>     prints "wrote <n>" after every 10 lines; stdin "stop" ends it
import fs from "node:fs/promises";

const file = process.argv[2]!;
let stop = false;
process.stdin.on("data", (chunk) => {
  if (String(chunk).includes("stop")) stop = true;
});
let n = 0;
while (!stop) {
  await fs.appendFile(file, `plain ${n}\n`);
  n += 1;
  if (n % 10 === 0) process.stdout.write(`wrote ${n}\n`);
  await new Promise((resolve) => setImmediate(resolve));
}
process.stdout.write(`done ${n}\n`);
process.stdin.destroy();
