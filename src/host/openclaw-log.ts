// OpenClaw's own log file, the one `openclaw logs` reads: `logging.file` in openclaw.json, else the
// day's rolling file /tmp/openclaw/openclaw-YYYY-MM-DD.log (local date; OpenClaw 2026.9.6
// `resolveConfiguredLogFilePath`). One JSON object per line; its `message` is the text. Read by
// doctor to see what the host said (a context engine that fell back to legacy).
import path from "node:path";
import { readTailSync } from "../fs/safe-read.ts";
import { isObject } from "./events.ts";
import type { OpenClawConfig } from "./events.ts";

function localDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

export function openClawLogFile(cfg: OpenClawConfig | undefined, now = new Date()): string {
  const logging = isObject(cfg?.logging) ? cfg.logging : undefined;
  const configured = typeof logging?.file === "string" && logging.file.trim() ? logging.file.trim() : undefined;
  return configured ?? path.join("/tmp/openclaw", `openclaw-${localDate(now)}.log`);
}

/** The text of the file's last lines (at most `maxBytes` from its end); [] when it cannot be read. */
export function readOpenClawLogTail(file: string, maxBytes = 2 * 1024 * 1024): string[] {
  const tail = readTailSync(file, maxBytes);
  if (tail === undefined) return [];
  return tail
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      if (!line.startsWith("{")) return line;
      try {
        const parsed: unknown = JSON.parse(line);
        return isObject(parsed) && typeof parsed.message === "string" ? parsed.message : line;
      } catch {
        return line;
      }
    });
}
