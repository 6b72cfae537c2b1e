import fs from "node:fs";
import path from "node:path";
import { SAMPLE_WORKSPACE } from "./gateway.ts";

// Marker lines appended to the sample workspace's private and per-session files, so a test can tell
// from the exact request which of them reached the model.

export const SOUL_SENTINEL = "SOUL-SENTINEL-7f3a";
export const USER_SENTINEL = "USER-SENTINEL-91c2";
export const MEMORY_SENTINEL = "MEMORY-SENTINEL-44d8";
export const HEARTBEAT_SENTINEL = "HEARTBEAT-SENTINEL-2b6e";

/** SOUL.md, USER.md, MEMORY.md and HEARTBEAT.md of `workspace`, each with its sentinel appended (for `workspaceFiles`). */
export function sentinelFiles(workspace: string = SAMPLE_WORKSPACE): Record<string, string> {
  const read = (name: string) => fs.readFileSync(path.join(workspace, name), "utf8");
  return {
    "SOUL.md": `${read("SOUL.md")}\n${SOUL_SENTINEL}\n`,
    "USER.md": `${read("USER.md")}\n${USER_SENTINEL}\n`,
    "MEMORY.md": `${read("MEMORY.md")}\n${MEMORY_SENTINEL}\n`,
    "HEARTBEAT.md": `${read("HEARTBEAT.md")}\n${HEARTBEAT_SENTINEL}\n`,
  };
}
