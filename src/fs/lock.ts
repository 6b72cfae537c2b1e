import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import lockfile from "proper-lockfile";
import { getLogger } from "../core/log.ts";
import { readRegularText } from "./safe-read.ts";

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
//   the lock; `updateFileLocked` (locked-writes.ts) enforces that with a synchronous transform.

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

const LOCK_DEFAULTS = {
  retryIntervalSeconds: 2,
  maxRetries: 5,
  staleThresholdSeconds: 3600,
  agentName: "openclaw-context",
} as const;

/** proper-lockfile refuses stale thresholds under 2 s. */
const MIN_STALE_THRESHOLD_SECONDS = 2;

const log = () => getLogger("openclaw-context.lock");
const HOST = os.hostname();

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
  let madeFolder = false;
  const attempts = Math.max(1, Math.floor(options.maxRetries ?? LOCK_DEFAULTS.maxRetries));
  const intervalMs = Math.max(0, (options.retryIntervalSeconds ?? LOCK_DEFAULTS.retryIntervalSeconds) * 1000);
  const stale = staleMs(options);
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
      // ENOENT: the folder is not there yet (the first write of a new day's folder, say): made once
      // here rather than checked before every lock.
      if (code === "ENOENT" && !madeFolder) {
        madeFolder = true;
        await fs.mkdir(path.dirname(file), { recursive: true });
        attempt--;
        continue;
      }
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
    // unlink, not rm: rm walks the path in JavaScript (an lstat first), and this runs on every write.
    // Stryker disable next-line OptionalChaining: a throw (null owner) is caught below with the same effect
    if (current?.token === token) await fs.unlink(ownerPathFor(file));
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
        host: HOST,
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
