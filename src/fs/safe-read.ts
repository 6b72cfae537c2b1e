// The one way this bundle reads a file it did not write itself (workspace files, memory folders,
// config files). Every read is:
//   - opened with O_NONBLOCK, so a FIFO (named pipe) or device cannot park a libuv thread forever;
//   - checked on the open descriptor (fstat): only regular files are read;
//   - bounded: the size is checked before reading and at most maxBytes + 1 bytes are read;
//   - contained, when a root is given: the file's real path (symlinks resolved) must stay inside
//     the root's real path, so a link that points out of the workspace is not followed.
// It never throws: failures come back as a reason the caller can log or ignore.
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";

export type SafeReadFailure = "missing" | "outside-root" | "over-cap" | "not-a-file" | "unreadable";

export type SafeReadOk = { ok: true; path: string; realPath: string; bytes: Buffer; truncated: boolean; mtimeMs: number; size: number; ino: number };
export type SafeReadResult = SafeReadOk | { ok: false; path: string; reason: SafeReadFailure; detail?: string };

export type SafeReadOptions = {
  /** Largest file read, in bytes; a bigger file is refused with "over-cap". */
  maxBytes: number;
  /** When set, the real path of the file must lie inside the real path of this folder. */
  root?: string;
  /** Read the first maxBytes of a bigger file instead of refusing it (`truncated` says so). */
  truncate?: boolean;
};

// O_NONBLOCK is what makes opening a FIFO return at once instead of waiting for a writer.
// O_NOCTTY keeps a terminal device from becoming our controlling terminal. Both are 0 on Windows.
const READ_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOCTTY ?? 0);

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : undefined;
}

function missingOrUnreadable(file: string, error: unknown): SafeReadResult {
  const code = errorCode(error);
  if (code === "ENOENT" || code === "ENOTDIR") return { ok: false, path: file, reason: "missing" };
  return { ok: false, path: file, reason: "unreadable", detail: code ?? (error as Error)?.message };
}

/** Strictly inside (or equal to, when allowEqual) `root`, comparing resolved paths. */
export function isPathInside(root: string, candidate: string, allowEqual = false): boolean {
  const relative = path.relative(root, candidate);
  if (relative === "") return allowEqual;
  return !relative.startsWith("..") && !path.isAbsolute(relative) && relative !== "..";
}

/** Real path of `dir`, or the resolved path when it does not exist (nothing to follow then). */
export async function realPathOrResolved(dir: string): Promise<string> {
  const resolved = path.resolve(dir);
  try {
    return await fsp.realpath(resolved);
  } catch {
    return resolved;
  }
}

export function realPathOrResolvedSync(dir: string): string {
  const resolved = path.resolve(dir);
  try {
    return fs.realpathSync(resolved);
  } catch {
    return resolved;
  }
}

/** The checks on the open file's stat, shared by both readers: regular files only, size cap. */
function refuseBeforeRead(stat: fs.Stats, lexical: string, options: SafeReadOptions): SafeReadResult | undefined {
  if (!stat.isFile()) return { ok: false, path: lexical, reason: "not-a-file" };
  if (stat.size > options.maxBytes && !options.truncate) return { ok: false, path: lexical, reason: "over-cap", detail: `${stat.size} > ${options.maxBytes} bytes` };
  return undefined;
}

/** The result of a bounded read (at most maxBytes + 1 bytes were read), shared by both readers. */
function resultAfterRead(read: { lexical: string; target: string; buffer: Buffer; filled: number; stat: fs.Stats }, options: SafeReadOptions): SafeReadResult {
  const { lexical, target, buffer, filled, stat } = read;
  const truncated = filled > options.maxBytes;
  if (truncated && !options.truncate) return { ok: false, path: lexical, reason: "over-cap", detail: `> ${options.maxBytes} bytes` };
  return { ok: true, path: lexical, realPath: target, bytes: buffer.subarray(0, Math.min(filled, options.maxBytes)), truncated, mtimeMs: stat.mtimeMs, size: stat.size, ino: stat.ino };
}

/** Read a regular file safely (see the header). `bytes.length <= maxBytes` on success. */
export async function readRegularFile(file: string, options: SafeReadOptions): Promise<SafeReadResult> {
  const lexical = path.resolve(file);
  let target = lexical;
  if (options.root !== undefined) {
    const root = path.resolve(options.root);
    if (!isPathInside(root, lexical)) return { ok: false, path: lexical, reason: "outside-root" };
    let realRoot: string;
    try {
      realRoot = await fsp.realpath(root);
      target = await fsp.realpath(lexical);
    } catch (error) {
      return missingOrUnreadable(lexical, error);
    }
    if (!isPathInside(realRoot, target)) return { ok: false, path: lexical, reason: "outside-root" };
  }
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(target, READ_FLAGS);
    const stat = await handle.stat();
    const refused = refuseBeforeRead(stat, lexical, options);
    if (refused) return refused;
    // Read at most maxBytes + 1, so a file that grows after fstat still cannot exceed the cap.
    const buffer = Buffer.alloc(Math.min(options.maxBytes, stat.size) + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return resultAfterRead({ lexical, target, buffer, filled, stat }, options);
  } catch (error) {
    return missingOrUnreadable(lexical, error);
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** Synchronous twin for the few start-up readers (ethos.toml, openclaw.json). */
export function readRegularFileSync(file: string, options: SafeReadOptions): SafeReadResult {
  const lexical = path.resolve(file);
  let target = lexical;
  if (options.root !== undefined) {
    const root = path.resolve(options.root);
    if (!isPathInside(root, lexical)) return { ok: false, path: lexical, reason: "outside-root" };
    let realRoot: string;
    try {
      realRoot = fs.realpathSync(root);
      target = fs.realpathSync(lexical);
    } catch (error) {
      return missingOrUnreadable(lexical, error);
    }
    if (!isPathInside(realRoot, target)) return { ok: false, path: lexical, reason: "outside-root" };
  }
  let fd: number | undefined;
  try {
    fd = fs.openSync(target, READ_FLAGS);
    const stat = fs.fstatSync(fd);
    const refused = refuseBeforeRead(stat, lexical, options);
    if (refused) return refused;
    const buffer = Buffer.alloc(Math.min(options.maxBytes, stat.size) + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const bytesRead = fs.readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return resultAfterRead({ lexical, target, buffer, filled, stat }, options);
  } catch (error) {
    return missingOrUnreadable(lexical, error);
  } finally {
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {
        // already closed
      }
    }
  }
}

/** Text of a safe read (UTF-8), or undefined when it failed. */
export async function readRegularText(file: string, options: SafeReadOptions): Promise<string | undefined> {
  const read = await readRegularFile(file, options);
  return read.ok ? read.bytes.toString("utf8") : undefined;
}

/** A NUL byte in the first 8 KiB marks a binary file (the same test git uses). */
export function looksBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8192).includes(0);
}

/** Synchronous text read for start-up config files; throws with the reason when unusable. */
export function readTextSync(file: string, maxBytes: number): string {
  const read = readRegularFileSync(file, { maxBytes });
  if (!read.ok) throw new Error(`${file}: ${read.reason}${read.detail ? ` (${read.detail})` : ""}`);
  return read.bytes.toString("utf8");
}
