// Which senders a session's turn belongs to, for the events that carry no sender (agent:bootstrap,
// the context engine's assemble()). message:received carries the sender and fires before the run;
// the ledger keeps it under the session key. A turn is the owner's only when every sender noted for
// the session since the last turn started (and for a short while after that turn started) is an
// owner: when two people share the main session (dmScope "main"), which of their messages a run
// answers is not something a hook can see, so doubt counts as "not the owner". An owner's turn right
// after a stranger's message may therefore run without personal memory; per-peer DM scopes
// (`session.dmScope: "per-channel-peer"`) avoid the doubt.
import { storedSessionKey } from "../core/bounded-id.ts";

/** How long a sender still counts after the turn that consumed it started. */
export const SENDER_AFTER_TURN_MS = 2 * 60_000;
/** A noted sender never counts longer than this (a message whose run never came). */
export const SENDER_MAX_AGE_MS = 30 * 60_000;
/** Sessions remembered (the least recently noted out first) and senders kept per session. */
export const MAX_LEDGER_SESSIONS = 1024;
const MAX_SENDERS_PER_SESSION = 16;

type Entry = { owner: boolean; at: number; turnStartedAt?: number };

export class SenderLedger {
  private readonly sessions = new Map<string, Entry[]>();

  /** message:received: this session's next turn answers a message from a sender who is (not) an owner. */
  note(sessionKey: string, owner: boolean, now: number): void {
    const key = storedSessionKey(sessionKey);
    const entries = this.live(key, now);
    entries.push({ owner, at: now });
    // live() keeps at most MAX_SENDERS_PER_SESSION, so one push is at most one too many.
    if (entries.length > MAX_SENDERS_PER_SESSION) entries.shift();
    this.sessions.delete(key);
    this.sessions.set(key, entries);
    if (this.sessions.size > MAX_LEDGER_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
  }

  /**
   * The senders that count for a turn of this session starting now (empty: none known). Marks them
   * as taken by a turn, so they stop counting SENDER_AFTER_TURN_MS later.
   */
  turnSenders(sessionKey: string, now: number): { owner: boolean }[] {
    const key = storedSessionKey(sessionKey);
    const entries = this.live(key, now);
    for (const entry of entries) entry.turnStartedAt ??= now;
    return entries.map((entry) => ({ owner: entry.owner }));
  }

  /** Sessions with a sender that still counts (the bound: MAX_LEDGER_SESSIONS). */
  get size(): number {
    return this.sessions.size;
  }

  /** The session's senders that still count; a session left with none is forgotten. */
  private live(key: string, now: number): Entry[] {
    const entries =
      this.sessions
        .get(key)
        ?.filter((entry) => now - entry.at < SENDER_MAX_AGE_MS && (entry.turnStartedAt === undefined || now - entry.turnStartedAt < SENDER_AFTER_TURN_MS)) ?? [];
    if (entries.length > 0) this.sessions.set(key, entries);
    else this.sessions.delete(key);
    return entries;
  }
}
