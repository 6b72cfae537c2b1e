// Bounded, contained reads of workspace files we add ourselves (TOOLS_COMPACT.md, HEARTBEAT.md, …).
// The real path must stay inside the real workspace, so a symlink that points outside is not followed.
import fs from "node:fs/promises";
import path from "node:path";

export type WorkspaceReadFailure = "missing" | "outside-workspace" | "over-cap" | "not-a-file" | "unreadable";
export type WorkspaceRead =
  | { ok: true; path: string; content: string }
  | { ok: false; path: string; reason: WorkspaceReadFailure; detail?: string };

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : undefined;
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
  let realFile: string;
  let realRoot: string;
  try {
    realRoot = await fs.realpath(root);
    realFile = await fs.realpath(lexical);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return { ok: false, path: lexical, reason: "missing" };
    return { ok: false, path: lexical, reason: "unreadable", detail: code };
  }
  if (!isInside(realRoot, realFile)) return { ok: false, path: lexical, reason: "outside-workspace" };

  try {
    const stat = await fs.stat(realFile);
    if (!stat.isFile()) return { ok: false, path: lexical, reason: "not-a-file" };
    if (stat.size > maxBytes) return { ok: false, path: lexical, reason: "over-cap", detail: `${stat.size} > ${maxBytes} bytes` };
    const cached = contentCache.get(realFile);
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size && cached.ino === stat.ino) {
      return { ok: true, path: lexical, content: cached.content };
    }
  } catch (error) {
    return { ok: false, path: lexical, reason: "unreadable", detail: errorCode(error) };
  }

  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(realFile, "r");
    const stat = await handle.stat();
    if (!stat.isFile()) return { ok: false, path: lexical, reason: "not-a-file" };
    if (stat.size > maxBytes) return { ok: false, path: lexical, reason: "over-cap", detail: `${stat.size} > ${maxBytes} bytes` };
    // Read at most maxBytes + 1 so a file that grows after stat still cannot blow the cap.
    const buffer = Buffer.alloc(Math.min(maxBytes + 1, Math.max(stat.size, 0) + 1));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > maxBytes) return { ok: false, path: lexical, reason: "over-cap", detail: `> ${maxBytes} bytes` };
    const content = buffer.subarray(0, bytesRead).toString("utf8");
    if (bytesRead === stat.size) {
      if (contentCache.size >= MAX_CACHED_FILES) contentCache.clear();
      contentCache.set(realFile, { mtimeMs: stat.mtimeMs, size: stat.size, ino: stat.ino, content });
    }
    return { ok: true, path: lexical, content };
  } catch (error) {
    return { ok: false, path: lexical, reason: "unreadable", detail: errorCode(error) };
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
