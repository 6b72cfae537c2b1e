import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import lockfile from "proper-lockfile";
import { getLogger } from "../core/log.ts";
import { contentHash, MAX_LOCKED_FILE_BYTES, readFileOrEmpty, writeFileAtomic } from "./atomic.ts";
import { isPathInside, readRegularFile, readRegularText, realPathOrResolved } from "./safe-read.ts";

// Advisory per-file locks, persistent memory spec §4.1.
//
// - The lock for `<path>` is `<path>.lock`. proper-lockfile creates it with mkdir (atomic on every
//   local filesystem) and keeps its mtime fresh while the holder is alive, so "stale" means "the
//   holder stopped refreshing for lock_stale_threshold_seconds", i.e. it crashed or was killed.
//   A live holder doing a long write is never robbed.
// - Owner info lives in a sidecar `<path>.lock.owner` (PID, AGENT, TIMESTAMP as in §4.1). It cannot
//   live inside the lock directory: proper-lockfile releases with rmdir and treats any mtime change
//   of the directory as a compromised lock.
// - Attempts: at most `maxRetries` attempts, `retryIntervalSeconds` apart; then the write is aborted
//   with LockUnavailableError. Nothing is written without the lock.
// - Callers in the same process queue up in memory first, so they never spin on their own lock.
// - Hold locks briefly: the callback should only write. Do all network and LLM work before taking
//   the lock; `updateFileLocked` enforces that with a synchronous transform.

export type LockOptions = {
  /** Seconds between attempts (spec default 2). Fractions are allowed (tests use milliseconds). */
  retryIntervalSeconds?: number;
  /** Maximum acquisition attempts before aborting (spec default 5). */
  maxRetries?: number;
  /** A lock not refreshed for this long is stale and overridden with a warning (default 3600, min 2). */
  staleThresholdSeconds?: number;
  /** Written into the owner sidecar so the operator can see who holds the lock. */
  agentName?: string;
};

export type LockOwner = { pid: number; agent: string; timestamp: string; host?: string; token?: string };

export const LOCK_DEFAULTS = {
  retryIntervalSeconds: 2,
  maxRetries: 5,
  staleThresholdSeconds: 3600,
  agentName: "openclaw-context",
} as const;

/** proper-lockfile refuses stale thresholds under 2 s. */
export const MIN_STALE_THRESHOLD_SECONDS = 2;

const log = () => getLogger("openclaw-context.lock");

/** The lock could not be acquired within the configured attempts: the write did not happen. */
export class LockUnavailableError extends Error {
  readonly code = "ELOCKUNAVAILABLE";
  readonly file: string;
  readonly attempts: number;
  readonly owner: LockOwner | null;
  constructor(file: string, attempts: number, owner: LockOwner | null) {
    const holder = owner ? ` (held by ${owner.agent} pid ${owner.pid} since ${owner.timestamp})` : "";
    super(`Failed to acquire lock for ${file} after ${attempts} attempts${holder}; write aborted`);
    this.name = "LockUnavailableError";
    this.file = file;
    this.attempts = attempts;
    this.owner = owner;
  }
}

/** An owner record is a few short lines; anything bigger is not one of ours. */
const MAX_OWNER_BYTES = 4096;

export function lockPathFor(file: string): string {
  return `${file}.lock`;
}

export function ownerPathFor(file: string): string {
  return `${file}.lock.owner`;
}

function formatOwner(owner: Required<LockOwner>): string {
  return `PID: ${owner.pid}\nAGENT: ${owner.agent}\nTIMESTAMP: ${owner.timestamp}\nHOST: ${owner.host}\nTOKEN: ${owner.token}\n`;
}

export function parseOwner(text: string): LockOwner | null {
  const field = (key: string) => new RegExp(`^${key}:[ \\t]*(.*)$`, "m").exec(text)?.[1].trim(); // (.*) always captures
  const pid = Number(field("PID"));
  const agent = field("AGENT");
  const timestamp = field("TIMESTAMP");
  if (!Number.isInteger(pid) || !agent || !timestamp) return null;
  return { pid, agent, timestamp, host: field("HOST") || undefined, token: field("TOKEN") || undefined };
}

/** Who holds (or last held, if it crashed) the lock on `file`; null when nobody does. */
export async function readLockOwner(file: string): Promise<LockOwner | null> {
  // Our sidecar, else a spec-format lock file written by someone else's script.
  for (const candidate of [ownerPathFor(file), lockPathFor(file)]) {
    try {
      // Stryker disable next-line StringLiteral: any text without the PID/AGENT/TIMESTAMP lines parses to null, as "" does
      const owner = parseOwner((await readRegularText(candidate, { maxBytes: MAX_OWNER_BYTES })) ?? "");
      if (owner) return owner;
    } catch {
      // missing, or the lock is a directory
    }
  }
  return null;
}

/** Is `<file>.lock` present and fresh (held by a live process)? */
export async function isLocked(file: string, options: LockOptions = {}): Promise<boolean> {
  return lockfile.check(file, { realpath: false, lockfilePath: lockPathFor(file), stale: staleMs(options) });
}

function staleMs(options: LockOptions): number {
  const seconds = options.staleThresholdSeconds ?? LOCK_DEFAULTS.staleThresholdSeconds;
  return Math.max(MIN_STALE_THRESHOLD_SECONDS, seconds) * 1000;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// In-process queue per target file: later callers wait for earlier ones without touching disk.
const inProcessTails = new Map<string, Promise<void>>();

async function waitForInProcessTurn(key: string): Promise<() => void> {
  const previous = inProcessTails.get(key) ?? Promise.resolve();
  let endTurn!: () => void;
  const turn = new Promise<void>((resolve) => (endTurn = resolve));
  const tail = previous.then(() => turn);
  inProcessTails.set(key, tail);
  await previous;
  return () => {
    endTurn();
    if (inProcessTails.get(key) === tail) inProcessTails.delete(key);
  };
}

/**
 * Look at an existing `<file>.lock` before an attempt. A stale one gets the §4.1 warning (and is
 * then overridden by proper-lockfile). A plain *file* there is a lock in the spec's own format
 * (PID/AGENT/TIMESTAMP lines, e.g. from an operator's shell script): it is honoured while fresh,
 * judged by its TIMESTAMP (else its mtime), and removed here when stale, since proper-lockfile
 * only knows how to remove directories.
 */
async function inspectExistingLock(file: string, thresholdMs: number): Promise<void> {
  const lockPath = lockPathFor(file);
  let stat;
  try {
    stat = await fs.stat(lockPath);
  } catch {
    return; // no lock: nothing to do
  }
  let owner: LockOwner | null;
  let since = stat.mtimeMs;
  if (stat.isFile()) {
    // Stryker disable next-line StringLiteral: any text without the owner lines parses to null, as "" does
    owner = parseOwner((await readRegularText(lockPath, { maxBytes: MAX_OWNER_BYTES })) ?? "");
    const stamped = owner ? Date.parse(owner.timestamp) : Number.NaN;
    if (Number.isFinite(stamped)) since = stamped;
  } else {
    owner = await readLockOwner(file);
  }
  const ageMs = Date.now() - since;
  if (ageMs <= thresholdMs) return;
  log().warn(
    { file, lockAgeSeconds: Math.round(ageMs / 1000), ownerPid: owner?.pid, ownerAgent: owner?.agent },
    `Stale lock detected from ${owner?.agent ?? "unknown agent"} at ${owner?.timestamp ?? new Date(since).toISOString()}, overriding`,
  );
  // unlink, never rm: if another process already replaced the stale file with its own lock
  // directory, this fails harmlessly instead of touching that lock.
  if (stat.isFile()) await fs.unlink(lockPath).catch(() => undefined);
}

async function acquire(file: string, options: LockOptions): Promise<() => Promise<void>> {
  const attempts = Math.max(1, Math.floor(options.maxRetries ?? LOCK_DEFAULTS.maxRetries));
  const intervalMs = Math.max(0, (options.retryIntervalSeconds ?? LOCK_DEFAULTS.retryIntervalSeconds) * 1000);
  const stale = staleMs(options);
  await fs.mkdir(path.dirname(file), { recursive: true });
  for (let attempt = 1; ; attempt++) {
    await inspectExistingLock(file, stale);
    try {
      return await lockfile.lock(file, {
        realpath: false,
        lockfilePath: lockPathFor(file),
        stale,
        retries: 0,
        // The default throws from a timer, which would crash the gateway. A compromised lock
        // (holder's event loop stalled past the threshold and someone took over) is logged instead.
        onCompromised: (error) => log().error({ file, error: error.message }, "lock compromised while held"),
      });
    } catch (error) {
      // ENOTDIR: a spec-format lock *file* that proper-lockfile judged stale by mtime while its
      // TIMESTAMP says fresh; treat it as held.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ELOCKED" && code !== "ENOTDIR") throw error;
      if (attempt >= attempts) {
        const owner = await readLockOwner(file);
        log().error({ file, attempts, ownerPid: owner?.pid, ownerAgent: owner?.agent }, `Failed to acquire lock for ${file} after ${attempts} attempts`);
        throw new LockUnavailableError(file, attempts, owner);
      }
      // A little jitter so processes that collided once do not keep colliding in lockstep.
      await sleep(intervalMs * (1 + Math.random() * 0.25));
    }
  }
}

async function writeOwner(file: string, owner: Required<LockOwner>): Promise<void> {
  try {
    await fs.writeFile(ownerPathFor(file), formatOwner(owner));
  } catch (error) {
    // A full disk (ENOSPC) can leave an empty or partial sidecar behind. We hold the lock, so the
    // sidecar is ours: remove it now rather than leave debris until the next successful write.
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: without force a missing file throws, which is ignored
    await fs.rm(ownerPathFor(file), { force: true }).catch(() => undefined);
    log().warn({ file, error: (error as Error).message }, "could not record lock owner");
  }
}

async function removeOwner(file: string, token: string): Promise<void> {
  // Only remove our own record: if our lock was ever taken over, the sidecar belongs to the new holder.
  try {
    // Stryker disable next-line StringLiteral: any text without the owner lines parses to null, as "" does
    const current = parseOwner((await readRegularText(ownerPathFor(file), { maxBytes: MAX_OWNER_BYTES })) ?? "");
    // Stryker disable next-line OptionalChaining,ObjectLiteral,BooleanLiteral: a throw (null owner, file gone) is caught below with the same effect
    if (current?.token === token) await fs.rm(ownerPathFor(file), { force: true });
  } catch {
    // already gone
  }
}

/**
 * Run `fn` while holding the advisory lock on `file`. Throws LockUnavailableError (and does not run
 * `fn`) when the lock cannot be acquired. The lock and owner record are released in `finally`.
 * Not re-entrant: do not take the same file's lock again inside `fn`.
 */
export async function withFileLock<T>(file: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const target = path.resolve(file);
  const endTurn = await waitForInProcessTurn(target);
  try {
    const release = await acquire(target, options);
    const token = randomBytes(6).toString("hex");
    try {
      await writeOwner(target, {
        pid: process.pid,
        agent: options.agentName ?? LOCK_DEFAULTS.agentName,
        timestamp: new Date().toISOString(),
        host: os.hostname(),
        token,
      });
      return await fn();
    } finally {
      await removeOwner(target, token);
      await release().catch((error: Error) => log().warn({ file: target, error: error.message }, "lock release failed"));
    }
  } finally {
    endTurn();
  }
}

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

export type LockedWriteResult = { written: boolean; hashBefore: string; hashAfter: string; conflicts: number };

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
        const hashBefore = contentHash(current);
        if (options.expectedHash !== undefined && options.expectedHash !== hashBefore) {
          throw new ContentChangedError(file, hashBefore);
        }
        const next = transform(current);
        if (next === null || next === current) return { written: false, hashBefore, hashAfter: hashBefore, conflicts };
        try {
          await writeFileAtomic(file, next, {
            beforeCommit: async () => {
              if (contentHash(await readFileOrEmpty(file, undefined, options.containWithin)) !== hashBefore) throw new ConcurrentEditError(file);
            },
          });
          return { written: true, hashBefore, hashAfter: contentHash(next), conflicts };
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
      const hashBefore = contentHash(current);
      if (options.expectedHash !== undefined && options.expectedHash !== hashBefore) throw new ContentChangedError(file, hashBefore);
      const entry = typeof text === "function" ? text(current) : text;
      if (entry === null || (options.skipIfPresent && current.includes(entry))) return { written: false, hashBefore, hashAfter: hashBefore, conflicts: 0 };
      const landed = await appendBytes(target, appendText("", entry));
      if (!landed.alone) log().warn({ file }, "another writer appended next to our locked append; both entries kept");
      const hashAfter =
        landed.alone && landed.sizeBefore === Buffer.byteLength(current)
          ? contentHash(current + landed.written)
          : contentHash(await readFileOrEmpty(target, undefined, options.containWithin));
      return { written: true, hashBefore, hashAfter, conflicts: landed.alone ? 0 : 1 };
    },
    options,
  );
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

type Appended = { written: string; sizeBefore: number; alone: boolean };

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

/** One O_APPEND write of `entry` (after a newline when the file's last byte is not one), fsynced. */
async function appendBytes(target: string, entry: string): Promise<Appended> {
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
    return { written, sizeBefore, alone: after.size - sizeBefore === bytes.length };
  } finally {
    await handle.close();
  }
}
