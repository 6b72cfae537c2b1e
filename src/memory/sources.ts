import path from "node:path";
import crypto from "node:crypto";
import { getLogger } from "../core/log.ts";
import { RETRIEVED_MEMORY_RECORD_NAME } from "../host/ids.ts";
import { looksBinary, readRegularFile } from "../fs/safe-read.ts";
import { bundleStateDir, expandHome } from "../core/paths.ts";

/** What an index covers: fast-glob patterns relative to one root folder. */
export type MemorySourceSpec = { rootDir: string; patterns: string[] };

/**
 * Core's memory locations (the same files memory-core indexes), the maintenance pass's archive
 * (Archive/Chronicles, Archive/Memory, Archive/Corrections: day files and entries moved out of the
 * live files, still found by retrieval; its dot folder of undo images is never matched), plus
 * operator patterns.
 */
const WORKSPACE_MEMORY_PATTERNS = ["MEMORY.md", "memory/*.md", "Archive/**/*.md"] as const;

/** Never indexed: our own output (indexing it would feed retrieved text back as a "memory"). */
export const ALWAYS_IGNORED = ["**/node_modules/**", `**/${RETRIEVED_MEMORY_RECORD_NAME}`];

/** A pattern must stay inside its root: no absolute paths, no `..` segments. */
function isContainedPattern(pattern: string): boolean {
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
  return env.OPENCLAW_CONTEXT_INDEX_CACHE_DIR || path.join(bundleStateDir(env), "memory-index");
}

export function sourcesKey(spec: MemorySourceSpec): string {
  return crypto.createHash("sha256").update(JSON.stringify([spec.rootDir, spec.patterns])).digest("hex").slice(0, 20);
}

export function isInside(child: string, parent: string): boolean {
  const rel = path.relative(path.resolve(parent), path.resolve(child));
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

// Files the index would not take, warned about once each (bounded, so a hostile folder cannot grow it).
const warnedFiles = new Set<string>();
const MAX_WARNED_FILES = 1024;

function warnOnce(file: string, reason: string, message: string): void {
  const key = `${reason}:${file}`;
  if (warnedFiles.has(key) || warnedFiles.size >= MAX_WARNED_FILES) return;
  warnedFiles.add(key);
  getLogger("openclaw-context.memory").warn({ file, reason }, message);
}

/**
 * One memory file's text for the index, through the shared safe reader: a regular file whose real
 * path stays inside the real root (a `memory/` folder that is a link to elsewhere is not indexed),
 * at most maxBytes, and not binary (a NUL byte: skipped with one warning). Undefined when skipped.
 * `realRoot`: the root's real path, resolved once by a caller that reads many files.
 */
export async function readMemorySourceFile(rootDir: string, file: string, maxBytes: number, realRoot?: string): Promise<MemorySourceText | undefined> {
  const read = await readRegularFile(file, { maxBytes, root: rootDir, ...(realRoot !== undefined ? { realRoot } : {}) });
  if (!read.ok) {
    if (read.reason === "outside-root") warnOnce(file, read.reason, "memory file is a link out of its folder, not indexed");
    else if (read.reason === "not-a-file") warnOnce(file, read.reason, "memory path is not a regular file, not indexed");
    return undefined;
  }
  if (looksBinary(read.bytes)) {
    warnOnce(file, "binary", "memory file looks binary (NUL byte), not indexed");
    return undefined;
  }
  return { text: read.bytes.toString("utf8"), bytes: read.bytes };
}

/** A memory file's text, and its bytes as read (the index hashes those: no re-encoding of the text). */
export type MemorySourceText = { text: string; bytes: Buffer };
