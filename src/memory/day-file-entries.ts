import fsp from "node:fs/promises";
import { readRegularFile } from "../fs/safe-read.ts";
import type { MemoryEntry } from "./confidence.ts";
import { memoryEntriesOf } from "./growing-entries.ts";

// The Recent-memory slot reads the newest day files on every turn, and most turns find them as the
// last turn left them. A file whose identity (device, inode, size, mtime, ctime) is what the last
// safe read saw is not read again: a stat answers. A change a stat cannot see is one made in the
// same timestamp tick as the read, so a file read less than SETTLED_MS after its last change is
// read again next time.

export type DayFileEntries = { entries: readonly MemoryEntry[]; mtimeMs: number };

type Identity = { dev: number; ino: number; size: number; mtimeMs: number; ctimeMs: number };
type KnownRead = Identity & { readAtMs: number; result: DayFileEntries };

/** Longer than any file system's timestamp tick (whole seconds on some). */
const SETTLED_MS = 2_000;
/** Day files whose last read is kept (the window is a day or two of files; growing-entries keeps as many). */
const MAX_KNOWN_FILES = 8;
const known = new Map<string, KnownRead>();

const sameIdentity = (a: Identity, b: Identity) =>
  a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;

/**
 * The entries of a day file inside `root`, read safely (regular file, contained, at most `maxBytes`
 * from its start), or undefined when it cannot be read. The last read is reused while a stat
 * shows the same file unchanged and settled.
 */
export async function dayFileEntries(file: string, root: string, maxBytes: number): Promise<DayFileEntries | undefined> {
  const last = known.get(file);
  if (last && last.readAtMs - last.ctimeMs >= SETTLED_MS) {
    const stat = await fsp.stat(file).catch(() => undefined);
    // The stat follows links: a file swapped for a link elsewhere has another identity and is read safely.
    if (stat?.isFile() && sameIdentity(stat, last)) return last.result;
  }
  const readAtMs = Date.now();
  const read = await readRegularFile(file, { maxBytes, root, truncate: true });
  known.delete(file); // re-inserted below: the map's order is the order of use
  if (!read.ok) return undefined;
  const result = { entries: memoryEntriesOf(file, read.bytes.toString("utf8")), mtimeMs: read.mtimeMs };
  known.set(file, { dev: read.dev, ino: read.ino, size: read.size, mtimeMs: read.mtimeMs, ctimeMs: read.ctimeMs, readAtMs, result });
  if (known.size > MAX_KNOWN_FILES) known.delete(known.keys().next().value as string);
  return result;
}
