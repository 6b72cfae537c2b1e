// Bounded, contained reads of workspace files we add ourselves (TOOLS_COMPACT.md, HEARTBEAT.md, …).
// The real path must stay inside the real workspace, so a symlink that points outside is not followed.
import fs from "node:fs/promises";
import path from "node:path";
import { readRegularFile } from "../fs/safe-read.ts";

export type WorkspaceReadFailure = "missing" | "outside-workspace" | "over-cap" | "not-a-file" | "unreadable";
export type WorkspaceRead =
  | { ok: true; path: string; content: string }
  | { ok: false; path: string; reason: WorkspaceReadFailure; detail?: string };

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}

// Small content cache keyed by real path and validated by (mtime, size, inode) on every read, so a
// turn costs realpath + stat instead of a full open/read/close when the file has not changed.
type CachedContent = { mtimeMs: number; size: number; ino: number; content: string };
const contentCache = new Map<string, CachedContent>();
const MAX_CACHED_FILES = 64;

export async function readWorkspaceFile(workspaceDir: string, relativeName: string, maxBytes: number): Promise<WorkspaceRead> {
  const root = path.resolve(workspaceDir);
  const lexical = path.resolve(root, relativeName);
  if (!isInside(root, lexical)) return { ok: false, path: lexical, reason: "outside-workspace" };
  // Cheap path for an unchanged file: realpath + stat, no open. The stat follows links, so the
  // containment check of the shared reader still runs before anything new is read.
  try {
    const [realRoot, realFile] = await Promise.all([fs.realpath(root), fs.realpath(lexical)]);
    const cached = contentCache.get(realFile);
    if (cached && isInside(realRoot, realFile)) {
      const stat = await fs.stat(realFile);
      if (stat.isFile() && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size && cached.ino === stat.ino) {
        return { ok: true, path: lexical, content: cached.content };
      }
    }
  } catch {
    // fall through: the shared reader reports the reason
  }
  const read = await readRegularFile(lexical, { maxBytes, root });
  if (!read.ok) {
    const reason: WorkspaceReadFailure = read.reason === "outside-root" ? "outside-workspace" : read.reason;
    return { ok: false, path: lexical, reason, ...(read.detail ? { detail: read.detail } : {}) };
  }
  const content = read.bytes.toString("utf8");
  if (read.bytes.length === read.size) {
    if (contentCache.size >= MAX_CACHED_FILES) contentCache.clear();
    contentCache.set(read.realPath, { mtimeMs: read.mtimeMs, size: read.size, ino: read.ino, content });
  }
  return { ok: true, path: lexical, content };
}

/**
 * Whether a regular file of that name lies in the workspace (its real path inside the real
 * workspace). A stat, never a read: used for private files (MEMORY.md) that the hook only names.
 */
export async function workspaceFileExists(workspaceDir: string, relativeName: string): Promise<boolean> {
  const root = path.resolve(workspaceDir);
  const lexical = path.resolve(root, relativeName);
  if (!isInside(root, lexical)) return false;
  try {
    const [realRoot, realFile] = await Promise.all([fs.realpath(root), fs.realpath(lexical)]);
    return isInside(realRoot, realFile) && (await fs.stat(realFile)).isFile();
  } catch {
    return false;
  }
}
