import type { SkipReason } from "./skip.ts";
import type { RetrievedMemory } from "./types.ts";

// Per-session state shared by the message:received and agent:bootstrap handlers. It lives in this
// src/ module, not in handler.ts: the gateway re-imports a changed handler.ts under a new URL but
// keeps imported modules cached, so debounce and de-duplication survive handler re-entry and reload.
// The gateway process is long-lived and both events of a turn run in it, so nothing is persisted.

export type RetrievalOutcome = { results: RetrievedMemory[]; label: string; gate: number };

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

export type SessionMemoryState = {
  /** Memories injected earlier in this session: never injected again. */
  injectedIds: Set<string>;
  /** Message captured on message:received, not yet claimed by a bootstrap. */
  pending?: PendingTurn;
  /** The turn the last bootstrap served; a repeated bootstrap for it re-injects the same block. */
  current?: CurrentTurn;
};

const MAX_SESSIONS = 5000;

export class SessionStates {
  private readonly states = new Map<string, SessionMemoryState>();

  get(sessionKey: string): SessionMemoryState {
    let state = this.states.get(sessionKey);
    if (state) {
      this.states.delete(sessionKey); // keep the map in least-recently-used order
    } else {
      state = { injectedIds: new Set() };
    }
    this.states.set(sessionKey, state);
    while (this.states.size > MAX_SESSIONS) {
      const oldest = this.states.keys().next().value;
      if (oldest === undefined) break;
      this.states.delete(oldest);
    }
    return state;
  }

  peek(sessionKey: string): SessionMemoryState | undefined {
    return this.states.get(sessionKey);
  }

  clear(): void {
    this.states.clear();
  }
}
