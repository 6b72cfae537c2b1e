import { boundedId, storedSessionKey } from "../core/bounded-id.ts";
import type { SkipReason } from "./skip.ts";
import type { RetrievedMemory } from "../memory/types.ts";

// Per-session state of the memory-context service, shared by every adapter (hook and plugin). It
// lives in this src/ module, not in a handler: the gateway re-imports a changed handler.ts under a
// new URL but keeps imported modules cached, so de-duplication survives handler reload. The gateway
// process is long-lived and every event of a turn runs in it, so nothing is persisted.

export type RetrievalOutcome = { results: RetrievedMemory[]; label: string; gate: number; dropped?: boolean };

type PendingTurn = {
  /** messageId when the channel gives one, else the receive time. */
  turnKey: string;
  query: string;
  skip?: SkipReason;
  receivedAt: number;
  /** What the early retrieval was started against (undefined: deferred to bootstrap). */
  sourceKey?: string;
  retrieval?: Promise<RetrievalOutcome>;
  /** Drops the search if it has not started (called when the session is evicted). */
  abandon?: () => void;
};

export type TurnOutcome = {
  block: string;
  injectedIds: string[];
  reason: string;
  /** Story 007's layout of the same memories for ETHOS_CONTEXT.md (the block uses the compact layout). */
  fileBlock?: string;
  /** Memories the search found that this session was shown earlier (held back by de-duplication). */
  alreadyShown?: number;
  /** Room the model's window left for the block (tokens, after the headroom), and where the window came from. */
  room?: { tokens: number; source: string };
};

export type CurrentTurn = { turnKey: string; startedAt: number; workspaceDir: string; outcome: Promise<TurnOutcome> };

/** When a memory was last delivered: de-duplication forgets it after a number of turns or a time. */
export type InjectedMark = { turn: number; at: number };

export type SessionMemoryState = {
  /** Memories delivered earlier in this session (id → when), not injected again until they expire. */
  injected: Map<string, InjectedMark>;
  /** Turns planned in this session (the de-duplication clock). */
  turnCount: number;
  /** Message captured on message:received, not yet claimed by a bootstrap (hook adapter). */
  pending?: PendingTurn;
  /** The turn the last bootstrap served; a repeated bootstrap for it re-injects the same block. */
  current?: CurrentTurn;
  /** Turn memo by turn key: a retried prompt build for the same turn gets the same block. */
  turns: Map<string, Promise<TurnOutcome>>;
};

const MAX_SESSIONS = 5000;
/**
 * Ceiling on what the map holds, least recently used session out first. Counted (UTF-16 chars × 2
 * plus a fixed overhead per entry): keys, delivered memory ids, turn memos and the blocks they
 * settled to, the current turn, and each session's pending work (its query, turn key, source key
 * and the promise, closures and queue entry of its search). An evicted session's pending search is
 * dropped, so nothing keeps its memory alive.
 */
const MAX_STATE_BYTES = 16 * 1024 * 1024;
/** Delivered-memory marks kept per session (oldest forgotten first; they only prevent repeats). */
export const MAX_INJECTED_PER_SESSION = 2048;
const TURN_MEMO_SIZE = 4;
// Fixed costs per entry, set from heap measurements (bench/session-memory.ts, ~4.5 kB of heap per
// session with a parked search): the state object and its maps, a turn memo's promise chain, and a
// pending search's promise, job closures and queue entry.
const ENTRY_OVERHEAD_BYTES = 1024;
const TURN_OVERHEAD_BYTES = 2048;
export const PENDING_WORK_OVERHEAD_BYTES = 3072;

const chars = (text: string | undefined) => (text ? text.length * 2 : 0);

export class SessionStates {
  private readonly states = new Map<string, SessionMemoryState>();
  /** Bytes of each stored session as last counted, and their sum (the cap compares against it). */
  private readonly sizes = new Map<string, number>();
  private total = 0;
  /** Characters of a settled turn outcome (block and file block), counted while a memo or `current` holds it. */
  private readonly outcomeChars = new WeakMap<Promise<TurnOutcome>, number>();
  private readonly maxSessions: number;
  private readonly maxBytes: number;

  constructor(limits: { maxSessions?: number; maxBytes?: number } = {}) {
    this.maxSessions = limits.maxSessions ?? MAX_SESSIONS;
    this.maxBytes = limits.maxBytes ?? MAX_STATE_BYTES;
  }

  get(sessionKey: string): SessionMemoryState {
    const key = storedSessionKey(sessionKey);
    let state = this.states.get(key);
    if (state) {
      this.states.delete(key); // keep the map in least-recently-used order
      this.states.set(key, state);
      return state;
    }
    state = { injected: new Map(), turnCount: 0, turns: new Map() };
    this.states.set(key, state);
    this.recount(key, state);
    return state;
  }

  peek(sessionKey: string): SessionMemoryState | undefined {
    return this.states.get(storedSessionKey(sessionKey));
  }

  /**
   * Count one session again after it grew (pending work parked, a turn started, memories
   * delivered) and evict others over the caps. A turn outcome still in flight is counted once more
   * when it settles.
   */
  refit(sessionKey: string, outcome?: Promise<TurnOutcome>): void {
    const key = storedSessionKey(sessionKey);
    const state = this.states.get(key);
    if (!state) return;
    if (outcome) this.countWhenSettled(key, state, outcome);
    this.recount(key, state);
  }

  /** A turn's memoised outcome, by turn key. */
  memoFor(state: SessionMemoryState, turnKey: string): Promise<TurnOutcome> | undefined {
    return state.turns.get(boundedId(turnKey));
  }

  /** Remember a turn's outcome under its key (bounded: the last few turns of the session). */
  memoTurn(sessionKey: string, state: SessionMemoryState, turnKey: string, outcome: Promise<TurnOutcome>): void {
    state.turns.set(boundedId(turnKey), outcome);
    while (state.turns.size > TURN_MEMO_SIZE) {
      const oldest = state.turns.keys().next().value;
      if (oldest === undefined) break;
      state.turns.delete(oldest);
    }
    this.refit(sessionKey, outcome);
  }

  /** Mark memories delivered (bounded per session: the oldest marks go first). */
  markInjected(sessionKey: string, state: SessionMemoryState, ids: readonly string[], mark: InjectedMark): void {
    for (const id of ids) {
      state.injected.delete(id); // re-inserted at the end: the newest mark is the last to go
      state.injected.set(id, mark);
    }
    while (state.injected.size > MAX_INJECTED_PER_SESSION) {
      const oldest = state.injected.keys().next().value;
      if (oldest === undefined) break;
      state.injected.delete(oldest);
    }
    this.refit(sessionKey);
  }

  /** Bytes held, counted afresh (keys, ids, queries, blocks and pending work), for the size cap and its test. */
  storedBytes(): number {
    let total = 0;
    for (const [key, state] of this.states) total += this.stateBytes(key, state);
    return total;
  }

  get size(): number {
    return this.states.size;
  }

  private stateBytes(key: string, state: SessionMemoryState): number {
    let bytes = ENTRY_OVERHEAD_BYTES + chars(key);
    for (const id of state.injected.keys()) bytes += chars(id) + 32;
    for (const [turnKey, outcome] of state.turns) bytes += chars(turnKey) + TURN_OVERHEAD_BYTES + (this.outcomeChars.get(outcome) ?? 0) * 2;
    const pending = state.pending;
    if (pending) {
      bytes += chars(pending.query) + chars(pending.turnKey) + chars(pending.sourceKey) + 64;
      if (pending.retrieval) bytes += PENDING_WORK_OVERHEAD_BYTES;
    }
    const current = state.current;
    if (current) bytes += chars(current.turnKey) + chars(current.workspaceDir) + TURN_OVERHEAD_BYTES + (this.outcomeChars.get(current.outcome) ?? 0) * 2;
    return bytes;
  }

  private countWhenSettled(key: string, state: SessionMemoryState, outcome: Promise<TurnOutcome>): void {
    outcome.then(
      (settled) => {
        this.outcomeChars.set(outcome, (settled?.block?.length ?? 0) + (settled?.fileBlock?.length ?? 0));
        if (this.states.get(key) === state) this.recount(key, state);
      },
      () => undefined,
    );
  }

  private recount(key: string, state: SessionMemoryState): void {
    const bytes = this.stateBytes(key, state);
    this.total += bytes - (this.sizes.get(key) ?? 0);
    this.sizes.set(key, bytes);
    this.evict(key);
  }

  private evict(keep: string): void {
    while (this.states.size > this.maxSessions && this.dropOldest(keep)) {}
    while (this.total > this.maxBytes && this.states.size > 1 && this.dropOldest(keep)) {}
  }

  private dropOldest(keep: string): boolean {
    for (const [key, state] of this.states) {
      if (key === keep) continue;
      this.states.delete(key);
      this.total -= this.sizes.get(key) ?? 0;
      this.sizes.delete(key);
      state.pending?.abandon?.(); // nobody will claim it: its search is dropped before it starts
      state.pending = undefined;
      return true;
    }
    return false;
  }

  clear(): void {
    for (const state of this.states.values()) state.pending?.abandon?.();
    this.states.clear();
    this.sizes.clear();
    this.total = 0;
  }
}
