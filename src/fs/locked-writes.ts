import fs from "node:fs/promises";
import path from "node:path";
import { getLogger } from "../core/log.ts";
import { contentHash, MAX_LOCKED_FILE_BYTES, readFileOrEmpty, writeFileAtomic } from "./atomic.ts";
import { identityOf, sameFileIdentity } from "./file-identity.ts";
import type { FileIdentity } from "./file-identity.ts";
import { isPathInside, readRegularFile, realPathOrResolved } from "./safe-read.ts";
import { withFileLock } from "./lock.ts";
import type { LockOptions } from "./lock.ts";

const log = () => getLogger("openclaw-context.lock");

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// The locked writers (persistent memory spec §4.1): every write of a shared file goes through one
// of these, under the file's lock (lock.ts).
//   updateFileLocked  read-modify-write, for in-place edits (a synchronous transform, compare-and-swap
//                     against writers that ignore our lock);
//   appendFileLocked  one O_APPEND write, for files OpenClaw's own writers append to as well.

/** Someone outside our lock (OpenClaw's writers, the agent's edit tool) changed the file mid-write. */
export class ConcurrentEditError extends Error {
  readonly code = "ECONCURRENTEDIT";
  readonly file: string;
  constructor(file: string) {
    super(`${file} changed while we were writing it`);
    this.name = "ConcurrentEditError";
    this.file = file;
  }
}

/** The caller's `expectedHash` no longer matches the file: re-read and decide again. */
export class ContentChangedError extends Error {
  readonly code = "ECONTENTCHANGED";
  readonly file: string;
  readonly actualHash: string;
  constructor(file: string, actualHash: string) {
    super(`${file} no longer has the expected content hash`);
    this.name = "ContentChangedError";
    this.file = file;
    this.actualHash = actualHash;
  }
}

export type LockedWriteOptions = LockOptions & {
  /** Compare-and-swap: abort with ContentChangedError unless the file still hashes to this. */
  expectedHash?: string;
  /** How many times to redo the read-modify-write when an unlocked writer interferes (default 3). */
  maxConflictRetries?: number;
  /**
   * Refuse (throw) when the file's real path leaves this folder: a CORRECTIONS.md that is a link to
   * somewhere else must not have that file's text copied into the workspace.
   */
  containWithin?: string;
};

export type LockedWriteResult = {
  written: boolean;
  hashBefore: string;
  hashAfter: string;
  conflicts: number;
  /**
   * An append's bytes (separator included) and the file's identity right after them, when the file
   * is then exactly the text read under the lock followed by these bytes: a caller that keeps an
   * index of the file need not read it again.
   */
  appended?: { text: string } & FileIdentity;
};

/**
 * A result whose hashes are computed when first read: most callers never read them, and hashing a
 * day file of a few hundred KiB twice per capture was a third of a capture's CPU time.
 */
function lockedWriteResult(written: boolean, conflicts: number, before: () => string, after: () => string = before): LockedWriteResult {
  const lazy = (compute: () => string) => {
    let value: string | undefined;
    return { enumerable: true, get: () => (value ??= compute()) };
  };
  return Object.defineProperties({ written, conflicts } as LockedWriteResult, { hashBefore: lazy(before), hashAfter: lazy(after) });
}

/**
 * Read-modify-write under the lock. `transform` is synchronous on purpose: it must only compute the
 * new text (no network, no LLM). Returns null or the same text to skip the write.
 *
 * Writers that ignore our lock are detected by hashing: the file is re-read right before the
 * rename, and if it changed since we read it the attempt is thrown away and redone from the new
 * content, so their edit is never overwritten by a stale copy. (A change landing in the
 * microseconds between that check and the rename can still be lost; only a lock they also take
 * could close that window.)
 */
export async function updateFileLocked(
  file: string,
  transform: (current: string) => string | null,
  options: LockedWriteOptions = {},
): Promise<LockedWriteResult> {
  const maxConflicts = options.maxConflictRetries ?? 3;
  return withFileLock(
    file,
    async () => {
      for (let conflicts = 0; ; conflicts++) {
        const current = await readFileOrEmpty(file, undefined, options.containWithin);
        const hashBefore = () => contentHash(current);
        if (options.expectedHash !== undefined && options.expectedHash !== hashBefore()) {
          throw new ContentChangedError(file, hashBefore());
        }
        const next = transform(current);
        if (next === null || next === current) return lockedWriteResult(false, conflicts, hashBefore);
        try {
          await writeFileAtomic(file, next, {
            beforeCommit: async () => {
              // The same text as read: compared as is (a hash of each would cost more than the comparison).
              if ((await readFileOrEmpty(file, undefined, options.containWithin)) !== current) throw new ConcurrentEditError(file);
            },
          });
          return lockedWriteResult(true, conflicts, hashBefore, () => contentHash(next));
        } catch (error) {
          if (!(error instanceof ConcurrentEditError) || conflicts >= maxConflicts) throw error;
          log().warn({ file, conflicts: conflicts + 1 }, "file changed outside our lock during a write; retrying");
          // Back off (with jitter) before re-reading, so a busy plain writer gets a quiet moment.
          await sleep(Math.min(200, 5 * 2 ** conflicts) * (0.5 + Math.random()));
        }
      }
    },
    options,
  );
}

export type AppendOptions = LockedWriteOptions & {
  /** Skip the write when the exact text is already in the file (makes retries idempotent). */
  skipIfPresent?: boolean;
};

/** Text with a newline between it and existing content and a newline at its end. */
export function appendText(current: string, text: string): string {
  const entry = text.endsWith("\n") ? text : `${text}\n`;
  if (current === "") return entry;
  return current.endsWith("\n") ? current + entry : `${current}\n${entry}`;
}

/**
 * Append `text` to `file` under its lock, without ever rewriting the file: the new bytes (with a
 * separating newline when the file does not end in one) go out in one O_APPEND write. The kernel
 * places every O_APPEND write at the end of the file at the moment it lands, so a writer that
 * ignores our lock and appends too (OpenClaw's own writers) never has its bytes overwritten, and
 * our append never has to be redone because of it: locked appends make progress next to any
 * number of plain appenders. The lock still orders our own writers and keeps the read (for the
 * separator, `skipIfPresent` and `expectedHash`) consistent with the write.
 *
 * What a plain writer can still do: append an unterminated line in the microseconds between our
 * look at the last byte and our write; our entry then starts on that line (nothing is lost). And
 * when its append stays half-visible through every look of `lineEnd`, our entry follows a blank
 * line. The result's `conflicts` counts writes that landed next to someone else's (the file grew
 * by more than our bytes); `hashAfter` is then the hash of what is on disk after our write.
 *
 * `text` may be a function of the file's current text, called under the lock: it returns the entry
 * to append, or null to append nothing (e.g. the entry is a repeat of a line already there). Like
 * `updateFileLocked`'s transform it is synchronous: decide, do not do network or LLM work.
 */
export async function appendFileLocked(
  file: string,
  text: string | ((current: string) => string | null),
  options: AppendOptions = {},
): Promise<LockedWriteResult> {
  return withFileLock(
    file,
    async () => {
      const { current, target } = await readForAppend(file, options.containWithin);
      const hashBefore = () => contentHash(current);
      if (options.expectedHash !== undefined && options.expectedHash !== hashBefore()) throw new ContentChangedError(file, hashBefore());
      const entry = typeof text === "function" ? text(current) : text;
      if (entry === null || (options.skipIfPresent && current.includes(entry))) return lockedWriteResult(false, 0, hashBefore);
      const landed = await appendEntry(file, target, entry);
      // What is on disk after our write: our text after what we read, unless another writer's bytes
      // landed too (then read back now, while the lock is held, and hashed when asked for).
      const exact = landed.alone && landed.sizeBefore === Buffer.byteLength(current);
      const onDisk = exact ? undefined : await readFileOrEmpty(target, undefined, options.containWithin);
      const result = lockedWriteResult(true, landed.alone ? 0 : 1, hashBefore, () => contentHash(onDisk ?? current + landed.written));
      if (exact) result.appended = { text: landed.written, ...landed.after };
      return result;
    },
    options,
  );
}

/**
 * `appendFileLocked` for a caller that keeps its own account of the file (the capture's fact
 * index): when the file, looked at under the lock, is still exactly `seen` (what the caller's last
 * read or its last append here recorded), its text is not read and `decide` gets `undefined`, to
 * answer from that account. Otherwise `decide` gets the text, as appendFileLocked's transform does.
 * A burst of captures appends to one day file back to back: reading the whole file each time (a few
 * hundred KiB at tens of thousands of facts) made most of the burst's garbage, and collecting it
 * held the event loop. No hashes here (they need the text); `appended` as for appendFileLocked.
 */
export async function appendFileLockedUnlessSeen(
  file: string,
  seen: FileIdentity | undefined,
  decide: (current: string | undefined) => string | null,
  options: LockedWriteOptions = {},
): Promise<Pick<LockedWriteResult, "written" | "appended">> {
  return withFileLock(
    file,
    async () => {
      const unchanged = seen !== undefined && (await stillSeen(file, seen));
      const read = unchanged ? undefined : await readForAppend(file, options.containWithin);
      const entry = decide(read?.current);
      if (entry === null) return { written: false };
      const landed = await appendEntry(file, read?.target ?? path.resolve(file), entry);
      const sizeRead = read ? Buffer.byteLength(read.current) : seen?.size;
      return landed.alone && landed.sizeBefore === sizeRead ? { written: true, appended: { text: landed.written, ...landed.after } } : { written: true };
    },
    options,
  );
}

/** Is `file` itself (not a link to it) still the regular file `seen` describes? */
async function stillSeen(file: string, seen: FileIdentity): Promise<boolean> {
  const stat = await fs.lstat(file).catch(() => undefined);
  return stat !== undefined && stat.isFile() && sameFileIdentity(seen, stat);
}

/** One append of `entry` at `target` (fsynced); a write that landed next to another writer's is logged. */
async function appendEntry(file: string, target: string, entry: string): Promise<Appended> {
  const landed = await appendBytes(target, appendText("", entry));
  if (!landed.alone) log().warn({ file }, "another writer appended next to our locked append; both entries kept");
  return landed;
}

/**
 * The file's text and the path to append to: its real path when it exists (a link inside
 * `containWithin` is followed, one leaving it is refused), else the path itself, whose folder must
 * then resolve inside `containWithin`. Same refusals as every read: regular files only, bounded.
 */
async function readForAppend(file: string, containWithin: string | undefined): Promise<{ current: string; target: string }> {
  const read = await readRegularFile(file, { maxBytes: MAX_LOCKED_FILE_BYTES, root: containWithin });
  if (read.ok) return { current: read.bytes.toString("utf8"), target: read.realPath };
  if (read.reason !== "missing") {
    throw Object.assign(new Error(`${file}: ${read.reason}${read.detail ? ` (${read.detail})` : ""}, not read`), { code: "EUNSAFEREAD" });
  }
  const target = path.resolve(file);
  if (containWithin !== undefined) {
    const [realRoot, realFolder] = await Promise.all([realPathOrResolved(containWithin), realPathOrResolved(path.dirname(target))]);
    if (!isPathInside(realRoot, path.join(realFolder, path.basename(target)))) {
      throw Object.assign(new Error(`${file}: outside-root, not written`), { code: "EUNSAFEREAD" });
    }
  }
  return { current: "", target };
}

// O_NOFOLLOW: never write through a symlink (a link inside the workspace is written at its real
// path, checked below). O_NONBLOCK: a FIFO without a reader fails at once instead of parking a thread.
const APPEND_FLAGS =
  fs.constants.O_RDWR |
  fs.constants.O_APPEND |
  fs.constants.O_CREAT |
  (fs.constants.O_NOFOLLOW ?? 0) |
  // Stryker disable next-line LogicalOperator: on Linux an O_RDWR open of a FIFO never blocks; only another OS (or a device node swapped in mid-append) tells it apart
  (fs.constants.O_NONBLOCK ?? 0);

type Appended = { written: string; sizeBefore: number; alone: boolean; after: FileIdentity };

const LINE_END_LOOKS = 8;

/**
 * The separator our entry needs: "\n" when the file's last byte is not a newline. A plain writer's
 * append that crosses a page boundary is visible for a moment at the boundary, mid-line (seen on
 * ext4, Linux 6.18: `fstat` between its two page copies); our write then waits for it and would
 * leave a blank line. Such a view does not last: the size moves between two looks, so we look
 * again. Bounded; a writer that stays mid-write through every look costs at most one blank line.
 */
export async function lineEnd(handle: fs.FileHandle, firstSize: number): Promise<{ size: number; separator: string }> {
  let size = firstSize;
  for (let look = 1; ; look++) {
    if (size === 0) return { size, separator: "" };
    const last = Buffer.alloc(1);
    const { bytesRead } = await handle.read(last, 0, 1, size - 1);
    if (bytesRead === 1 && last[0] === 0x0a) return { size, separator: "" };
    const again = (await handle.stat()).size;
    if (again === size || look === LINE_END_LOOKS) return { size, separator: "\n" };
    size = again;
  }
}

/**
 * One O_APPEND write of `entry` (after a newline when the file's last byte is not one), fsynced;
 * regular files only, never through a link, never parked on a FIFO. Takes no lock: the callers
 * above hold one, and a file only its own process writes (the capture's journal) needs none.
 */
export async function appendBytes(target: string, entry: string): Promise<Appended> {
  const handle = await fs.open(target, APPEND_FLAGS, 0o644);
  try {
    const first = await handle.stat();
    if (!first.isFile()) throw Object.assign(new Error(`${target}: not-a-file, not written`), { code: "EUNSAFEREAD" });
    const { size: sizeBefore, separator } = await lineEnd(handle, first.size);
    const written = separator + entry;
    const bytes = Buffer.from(written);
    // One write call: a partial write of a small entry to a regular file does not happen in
    // practice, but if it did, the rest follows (still at the end, still never overwriting).
    let offset = 0;
    // Stryker disable next-line ArithmeticOperator: offset is 0 on the one write a regular file takes, where + and - agree
    while (offset < bytes.length) offset += (await handle.write(bytes, offset, bytes.length - offset)).bytesWritten;
    await handle.sync();
    const after = await handle.stat();
    return { written, sizeBefore, alone: after.size - sizeBefore === bytes.length, after: identityOf(after) };
  } finally {
    await handle.close();
  }
}

type GroupedResult = Pick<LockedWriteResult, "written" | "appended">;
type AppendGroup = { entries: string[]; result: Promise<GroupedResult> };
const openGroups = new Map<string, AppendGroup>();
/** What each file's last grouped append left it as (a few queue files): the next group need not read it. */
const groupedSeen = new Map<string, FileIdentity>();
const GROUPED_SEEN_FILES = 64;

/**
 * `appendFileLocked` for a file many callers append lines to at once (the triage queue in a burst
 * of messages): callers whose entries arrive while one write waits for the file's lock join that
 * write (group commit): one lock, one O_APPEND write and one fsync for all of them, in arrival
 * order. The group closes when it gets the lock, so an entry is never written twice and never
 * waits for a later write, or when its write fails before that (the lock not had): a failure fails
 * every entry of the group (each caller sees it), and the next entry starts a new group. Callers
 * with other options (another lock agent, another `containWithin`) get groups of their own.
 * The file's text is read only when it is not as the last group's write left it (a queue line
 * never depends on what is already there; reading a growing queue once per group was most of a
 * burst's garbage).
 */
export function appendLineGrouped(file: string, entry: string, options: LockedWriteOptions = {}): Promise<GroupedResult> {
  const key = `${path.resolve(file)}\u0000${JSON.stringify(options)}`;
  let group = openGroups.get(key);
  if (!group) {
    const entries: string[] = [];
    const close = () => {
      if (openGroups.get(key) === group) openGroups.delete(key);
    };
    const result = appendFileLockedUnlessSeen(
      file,
      groupedSeen.get(key),
      () => {
        close();
        return entries.map((line) => appendText("", line)).join("");
      },
      options,
    ).then((written) => {
      groupedSeen.delete(key);
      if (written.appended) groupedSeen.set(key, identityOf(written.appended));
      if (groupedSeen.size > GROUPED_SEEN_FILES) groupedSeen.delete(groupedSeen.keys().next().value as string);
      return written;
    });
    result.then(close, close);
    group = { entries, result };
    openGroups.set(key, group);
  }
  group.entries.push(entry);
  return group.result;
}
