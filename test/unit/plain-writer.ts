import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

// Drives plain-appender.ts (a writer that ignores our lock and appends the way OpenClaw's own
// writers do) from a test: progress is reported by the child, so tests wait for lines written,
// never for time.

const appender = path.join(path.dirname(fileURLToPath(import.meta.url)), "plain-appender.ts");

export type PlainWriter = {
  /** Resolves once the writer has written more than `count` lines (it reports every 10). */
  passed(count: number): Promise<void>;
  /** Stops the writer, waits for it to exit, and returns how many lines it wrote. */
  stop(): Promise<number>;
  written(): number;
  stderr(): string;
};

export function startPlainWriter(file: string): PlainWriter {
  const child = spawn(process.execPath, ["--import", "tsx", appender, file], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let wrote = 0;
  const listeners = new Set<() => void>();
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
    for (const match of String(chunk).matchAll(/wrote (\d+)/g)) wrote = Math.max(wrote, Number(match[1]));
    for (const listener of listeners) listener();
  });
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  const passed = (count: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (wrote > count) {
          listeners.delete(check);
          resolve();
        }
      };
      listeners.add(check);
      void exited.then(() => reject(new Error(`plain writer exited early: ${stderr}`)));
      check();
    });
  const stop = async () => {
    child.stdin.end("stop\n");
    await exited;
    return Number(/done (\d+)/.exec(stdout)?.[1] ?? Number.NaN);
  };
  return { passed, stop, written: () => wrote, stderr: () => stderr };
}
