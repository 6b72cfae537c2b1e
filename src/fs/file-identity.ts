/**
 * A file as a read, a stat or a write saw it. The same device, inode, size, mtime and ctime later
 * mean no one wrote to it since, short of a same-size rewrite within one timestamp tick of the
 * file system (src/fs/timestamp-tick.ts).
 */
export type FileIdentity = { dev: number; ino: number; size: number; mtimeMs: number; ctimeMs: number };

/** The identity fields of a stat (or of a safe read's result), nothing else kept. */
export function identityOf(stat: FileIdentity): FileIdentity {
  return { dev: stat.dev, ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs };
}

export function sameFileIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}
