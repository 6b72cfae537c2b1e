import crypto from "node:crypto";
import type { SkipReason } from "./skip.ts";
import type { RetrievedMemory } from "../memory/types.ts";

// Per-session state of the memory-context service, shared by every adapter (hook and plugin). It
// lives in this src/ module, not in a handler: the gateway re-imports a changed handler.ts under a
// new URL but keeps imported modules cached, so de-duplication survives handler reload. The gateway
// process is long-lived and every event of a turn runs in it, so nothing is persisted.

export type RetrievalOutcome = { results: RetrievedMemory[]; label: string; gate: number; dropped?: boolean };

export type PendingTurn = {
  /** messageId when the channel gives one, else the receive time. */
  turnKey: string;
  query: string;
  skip?: SkipReason;
  receivedAt: number;
  /** What the early retrieval was started against (undefined: deferred to bootstrap). */
  sourceKey?: string;
  retrieval?: Promise<RetrievalOutcome>;
};

export type TurnOutcome = {
  block: string;
  injectedIds: string[];
  reason: string;
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

export const MAX_SESSIONS = 5000;
/** Longer session keys are stored as a hash: a hostile 1 MB key must not cost 1 MB of heap. */
export const MAX_STORED_KEY_CHARS = 256;
/** Ceiling on what the map holds (keys and memory ids, in UTF-16 chars × 2), least recently used out first. */
export const MAX_STATE_BYTES = 16 * 1024 * 1024;
const TURN_MEMO_SIZE = 4;
const ENTRY_OVERHEAD_BYTES = 256;

export function storedSessionKey(sessionKey: string): string {
  if (sessionKey.length <= MAX_STORED_KEY_CHARS) return sessionKey;
  return `sha256:${crypto.createHash("sha256").update(sessionKey).digest("hex")}`;
}

function stateBytes(key: string, state: SessionMemoryState): number {
  let bytes = ENTRY_OVERHEAD_BYTES + key.length * 2;
  for (const id of state.injected.keys()) bytes += id.length * 2 + 32;
  for (const turnKey of state.turns.keys()) bytes += turnKey.length * 2 + 64;
  if (state.pending) bytes += (state.pending.query.length + state.pending.turnKey.length) * 2;
  return bytes;
}

export class SessionStates {
  private readonly states = new Map<string, SessionMemoryState>();
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
    this.evict(key); // only a new session can push the map over its caps
    return state;
  }

  peek(sessionKey: string): SessionMemoryState | undefined {
    return this.states.get(storedSessionKey(sessionKey));
  }

  /** Remember a turn's outcome under its key (bounded: the last few turns of the session). */
  memoTurn(state: SessionMemoryState, turnKey: string, outcome: Promise<TurnOutcome>): void {
    state.turns.set(turnKey, outcome);
    while (state.turns.size > TURN_MEMO_SIZE) {
      const oldest = state.turns.keys().next().value;
      if (oldest === undefined) break;
      state.turns.delete(oldest);
    }
  }

  /** Bytes held (an estimate of keys, ids and queries), for the size cap and its test. */
  storedBytes(): number {
    let total = 0;
    for (const [key, state] of this.states) total += stateBytes(key, state);
    return total;
  }

  get size(): number {
    return this.states.size;
  }

  private evict(keep: string): void {
    while (this.states.size > this.maxSessions) this.dropOldest(keep);
    let total = this.storedBytes();
    while (total > this.maxBytes && this.states.size > 1) {
      const dropped = this.dropOldest(keep);
      if (dropped === 0) break;
      total -= dropped;
    }
  }

  private dropOldest(keep: string): number {
    for (const [key, state] of this.states) {
      if (key === keep) continue;
      this.states.delete(key);
      return stateBytes(key, state);
    }
    return 0;
  }

  clear(): void {
    this.states.clear();
  }
}
