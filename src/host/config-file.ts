import fs from "node:fs";
import path from "node:path";
import JSON5 from "json5";
import { readTextSync } from "../fs/safe-read.ts";
import { openClawStateDir } from "../core/paths.ts";
import type { OpenClawConfig } from "./events.ts";

/** Where the gateway reads openclaw.json from: $OPENCLAW_CONFIG_PATH, else <stateDir>/openclaw.json. */
export function resolveOpenClawConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.OPENCLAW_CONFIG_PATH || path.join(openClawStateDir(env), "openclaw.json");
}

const MAX_CONFIG_BYTES = 4 * 1024 * 1024;
let cached: { file: string; mtimeMs: number; size: number; config: OpenClawConfig } | undefined;

/**
 * Read openclaw.json (JSON5) for events that carry no `cfg` (message:received) and for
 * start-up resolution (owner ids). Cached by mtime+size; returns undefined when absent or unreadable.
 */
export function loadOpenClawConfigFile(file = resolveOpenClawConfigPath()): OpenClawConfig | undefined {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile() || stat.size > MAX_CONFIG_BYTES) return undefined;
    if (cached && cached.file === file && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) {
      return cached.config;
    }
    const parsed: unknown = JSON5.parse(readTextSync(file, MAX_CONFIG_BYTES));
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
    cached = { file, mtimeMs: stat.mtimeMs, size: stat.size, config: parsed as OpenClawConfig };
    return cached.config;
  } catch {
    return undefined;
  }
}
