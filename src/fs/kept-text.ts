import fsp from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { identityOf, sameFileIdentity } from "./file-identity.ts";
import type { FileIdentity } from "./file-identity.ts";
import { readRegularFile } from "./safe-read.ts";
import type { SafeReadResult } from "./safe-read.ts";
import { TIMESTAMP_TICK_MS } from "./timestamp-tick.ts";

// Workspace files a turn reads every time (the Recent-memory slot's day files, CORRECTIONS.md,
// the bootstrap files it counts) are mostly as the last turn left them. A file whose identity
// (device, inode, size, mtime, ctime) is what the last safe read saw is not read again: a stat
// answers, and the text is the same string as before, so whatever was worked out from it can be
// found again by identity. A change a stat cannot see is one made in the same timestamp tick as
// the read, so a file read less than TIMESTAMP_TICK_MS after its last change is read again next time.

export type KeptTextResult = { ok: true; text: string; mtimeMs: number } | Extract<SafeReadResult, { ok: false }>;
export type KeptTextOptions = { root: string; maxBytes: number };

type KnownRead = FileIdentity & { readAtMs: number; text: string };

/** Files whose last read is kept: a turn's handful, for a few agents' workspaces. */
const MAX_KEPT_FILES = 24;
const known = new Map<string, KnownRead>();

/**
 * Now, by the earlier of the wall clock (ctime's clock) and the process's monotonic clock: a clock
 * stepped back, or a test's fake Date, can only make a file look changed more recently, never settled.
 */
const readClock = () => Math.min(Date.now(), performance.timeOrigin + performance.now());

/**
 * The text of `file` inside `options.root` (UTF-8), read safely (regular file, contained, the
 * first `maxBytes` bytes), or why it cannot be read. The last read is reused while a stat shows the
 * same file unchanged and settled.
 */
export async function readKeptText(file: string, options: KeptTextOptions): Promise<KeptTextResult> {
  const key = `${options.root}\0${file}\0${options.maxBytes}`;
  const last = known.get(key);
  if (last && last.readAtMs - last.ctimeMs >= TIMESTAMP_TICK_MS) {
    const stat = await fsp.stat(file).catch(() => undefined);
    // The stat follows links: a file swapped for a link elsewhere has another identity and is read safely.
    if (stat?.isFile() && sameFileIdentity(stat, last)) return { ok: true, text: last.text, mtimeMs: last.mtimeMs };
  }
  const readAtMs = readClock();
  const read = await readRegularFile(file, { maxBytes: options.maxBytes, root: options.root, truncate: true });
  known.delete(key); // re-inserted below: the map's order is the order of use
  if (!read.ok) return read;
  const text = read.bytes.toString("utf8");
  known.set(key, { ...identityOf(read), readAtMs, text });
  if (known.size > MAX_KEPT_FILES) known.delete(known.keys().next().value as string);
  return { ok: true, text, mtimeMs: read.mtimeMs };
}
