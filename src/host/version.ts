// Which OpenClaw runs us, and whether the plugin serves it (the version gate).
import fs from "node:fs";
import path from "node:path";
import type { PluginApi } from "./plugin-api.ts";

/** First host line where prependContext stays out of the transcript and the system prompt has a cache boundary. */
export const FIRST_PLUGIN_HOST = [2026, 9, 0] as const;

export function versionParts(version: unknown): number[] | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(String(version ?? ""));
  return match ? match.slice(1, 4).map(Number) : undefined;
}

/** True on hosts the plugin serves; false (stand aside: the hook pack's host) on older or unknown ones. */
export function pluginServesHost(version: string | undefined): boolean {
  const parts = versionParts(version);
  if (!parts) return false;
  for (let i = 0; i < 3; i += 1) if (parts[i] !== FIRST_PLUGIN_HOST[i]) return parts[i]! > FIRST_PLUGIN_HOST[i]!;
  return true;
}

/** The `openclaw` package the gateway (or CLI) runs from: its folder and version, found from the entry script. */
export function hostPackageOf(entryScript: string | undefined = process.argv[1]): { dir: string; version: string } | undefined {
  try {
    if (!entryScript) return undefined;
    let dir = path.dirname(fs.realpathSync(entryScript));
    for (let depth = 0; depth < 4; depth += 1) {
      const manifest = path.join(dir, "package.json");
      if (fs.existsSync(manifest)) {
        const parsed = JSON.parse(fs.readFileSync(manifest, "utf8")) as { name?: unknown; version?: unknown };
        if (parsed.name === "openclaw" && typeof parsed.version === "string" && versionParts(parsed.version)) return { dir, version: parsed.version };
      }
      dir = path.dirname(dir);
    }
  } catch {
    // not found
  }
  return undefined;
}

/**
 * The host's version: `api.runtime.version` (2026.9), else the `openclaw` package the gateway runs
 * from (2026.3.13 answers "unknown" there), else the version that last wrote openclaw.json.
 */
export function hostVersionOf(api: Pick<PluginApi, "runtime" | "config">, entryScript: string | undefined = process.argv[1]): string | undefined {
  let fromRuntime: unknown;
  try {
    fromRuntime = api.runtime?.version;
  } catch {
    // 2026.9 throws on api.runtime while it only collects CLI commands
  }
  if (versionParts(fromRuntime)) return String(fromRuntime);
  const host = hostPackageOf(entryScript);
  if (host) return host.version;
  const touched = (api.config?.meta as { lastTouchedVersion?: unknown } | undefined)?.lastTouchedVersion;
  return versionParts(touched) ? String(touched) : undefined;
}
