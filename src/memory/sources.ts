import path from "node:path";
import crypto from "node:crypto";
import { RETRIEVED_MEMORY_RECORD_NAME } from "../core/records.ts";
import { expandHome, openClawStateDir } from "../openclaw/config-file.ts";

/** What an index covers: fast-glob patterns relative to one root folder. */
export type MemorySourceSpec = { rootDir: string; patterns: string[] };

/** Core's memory locations (the same files memory-core indexes), plus operator patterns. */
export const WORKSPACE_MEMORY_PATTERNS = ["MEMORY.md", "memory/*.md"] as const;

/** Never indexed: our own output (indexing it would feed retrieved text back as a "memory"). */
export const ALWAYS_IGNORED = ["**/node_modules/**", `**/${RETRIEVED_MEMORY_RECORD_NAME}`];

/** A pattern must stay inside its root: no absolute paths, no `..` segments. */
export function isContainedPattern(pattern: string): boolean {
  if (!pattern || path.isAbsolute(pattern) || pattern.startsWith("~")) return false;
  return !pattern.split(/[\\/]/).includes("..");
}

export function workspaceMemorySources(workspaceDir: string, extraGlobs: readonly string[] = []): MemorySourceSpec {
  return {
    rootDir: path.resolve(workspaceDir),
    patterns: [...WORKSPACE_MEMORY_PATTERNS, ...extraGlobs.filter(isContainedPattern)],
  };
}

/** A group's own memory folder: every markdown file in it, and nothing from the workspace. */
export function folderMemorySources(memoryDir: string): MemorySourceSpec {
  return { rootDir: path.resolve(expandHome(memoryDir)), patterns: ["**/*.md"] };
}


/**
 * Default index-cache folder: `<stateDir>/openclaw-context/memory-index/`, outside every memory
 * folder the host indexes. `OPENCLAW_CONTEXT_INDEX_CACHE_DIR` or the hook's
 * `memory.indexCacheDir` override it.
 */
export function defaultIndexCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.OPENCLAW_CONTEXT_INDEX_CACHE_DIR || path.join(openClawStateDir(env), "openclaw-context", "memory-index");
}

export function sourcesKey(spec: MemorySourceSpec): string {
  return crypto.createHash("sha256").update(JSON.stringify([spec.rootDir, spec.patterns])).digest("hex").slice(0, 20);
}

export function isInside(child: string, parent: string): boolean {
  const rel = path.relative(path.resolve(parent), path.resolve(child));
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}
