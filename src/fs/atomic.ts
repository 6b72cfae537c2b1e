import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { readRegularFile } from "./safe-read.ts";

// Every write in the bundle goes through here: temp file in the same directory, write, fsync,
// close, rename over the target, then fsync the directory. Readers see the old file or the new
// one, never half of either, and a crash leaves at most one hidden temp file behind.
//
// We do not use write-file-atomic for this because appends need a hook between "temp file is
// durable" and "rename": the last moment to notice that a writer outside our lock changed the
// target (see `beforeCommit` and `updateFileLocked` in lock.ts).

export type AtomicWriteOptions = {
  /** Runs after the temp file is fsynced and before the rename; throw to abort the write. */
  beforeCommit?: () => Promise<void>;
  /** File mode for a new file (an existing file keeps its mode). Default 0o644. */
  mode?: number;
};

/** Hidden temp name beside the target, so globs like `memory/*.md` never pick it up. */
function tempPathFor(file: string): string {
  const suffix = `${process.pid}.${randomBytes(4).toString("hex")}`;
  return path.join(path.dirname(file), `.${path.basename(file)}.${suffix}.tmp`);
}

/** True for names produced by `tempPathFor` (used by tests and cleanup tools). */
export function isAtomicTempName(name: string): boolean {
  return /^\..+\.\d+\.[0-9a-f]{8}\.tmp$/.test(name);
}

export function contentHash(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Largest file we rewrite under a lock (CORRECTIONS.md, triage queues): bigger ones abort the write. */
export const MAX_LOCKED_FILE_BYTES = 16 * 1024 * 1024;

/**
 * The file's text, or "" when it does not exist yet. Read through the shared safe reader: a FIFO
 * or other non-regular file throws at once instead of blocking, and so does an oversized file.
 */
export async function readFileOrEmpty(file: string, maxBytes = MAX_LOCKED_FILE_BYTES, root?: string): Promise<string> {
  const read = await readRegularFile(file, { maxBytes, ...(root !== undefined ? { root } : {}) });
  if (read.ok) return read.bytes.toString("utf8");
  if (read.reason === "missing") return "";
  throw Object.assign(new Error(`${file}: ${read.reason}${read.detail ? ` (${read.detail})` : ""}, not read`), { code: "EUNSAFEREAD" });
}

async function existingMode(file: string): Promise<number | undefined> {
  try {
    return (await fs.stat(file)).mode & 0o7777;
  } catch {
    return undefined;
  }
}

async function fsyncDirectory(dir: string): Promise<void> {
  // Makes the rename itself durable. Not supported everywhere (e.g. some network filesystems),
  // and the data is already safe in the renamed file, so failure here is not an error.
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, "r");
    await handle.sync();
  } catch {
    // best effort
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** temp file + fsync + rename, so readers never see a half-written file. */
export async function writeFileAtomic(file: string, data: string | Buffer, options: AtomicWriteOptions = {}): Promise<void> {
  await writeFileAtomicWith(file, (handle) => handle.writeFile(data), options);
}

/**
 * `writeFileAtomic` for content written in pieces: `writeContent` writes it into the open temp
 * file (a large file need not be one buffer first). If it throws, the temp file is removed and
 * the target is left as it was.
 */
export async function writeFileAtomicWith(file: string, writeContent: (handle: fs.FileHandle) => Promise<void>, options: AtomicWriteOptions = {}): Promise<void> {
  const dir = path.dirname(file);
  await fs.mkdir(dir, { recursive: true });
  const mode = (await existingMode(file)) ?? options.mode ?? 0o644;
  const temp = tempPathFor(file);
  let renamed = false;
  try {
    const handle = await fs.open(temp, "wx", mode);
    try {
      await writeContent(handle);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (options.beforeCommit) await options.beforeCommit();
    await fs.rename(temp, file);
    renamed = true;
  } finally {
    if (!renamed) await fs.rm(temp, { force: true }).catch(() => undefined);
  }
  await fsyncDirectory(dir);
}
