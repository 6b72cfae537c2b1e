import os from "node:os";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { HookPack } from "../../src/hook-pack/service.ts";
import { createMemoryContextService } from "../../src/context/service.ts";
import type { RetrieverFactory } from "../../src/context/service.ts";
import { MAX_STORED_KEY_CHARS } from "../../src/core/bounded-id.ts";
import { MAX_INJECTED_PER_SESSION, PENDING_WORK_OVERHEAD_BYTES, SessionStates } from "../../src/context/session-state.ts";
import type { TurnOutcome } from "../../src/context/session-state.ts";
import type { RetrievedMemory } from "../../src/memory/types.ts";
import type { MessageReceivedEvent } from "../../src/host/events.ts";

// Issue 20: every per-session structure is bounded by bytes, pending work included. These tests
// count bytes, entries and searches; the heap figure is measured by bench/session-memory.ts.

const MB = 1024 * 1024;
/** The longest id a session keeps: a key of at most MAX_STORED_KEY_CHARS, or `sha256:` + 64 hex. */
const BOUNDED = Math.max(MAX_STORED_KEY_CHARS, "sha256:".length + 64);
const cfg = () => ({ agents: { defaults: { workspace: os.tmpdir() } } });
/** The operator's main session (in scope, so each message starts a search), made `bytes` long. */
const hugeKey = (i: number, bytes = MB) => `agent:main:main:thread:${i}-`.padEnd(bytes, "x");

let searches: { query: string; answer: (results: RetrievedMemory[]) => void }[];
/** Every search waits until the test answers it: pending work stays alive while we count. */
const heldFactory: RetrieverFactory = () => ({
  label: "workspace memory",
  search: (query) => new Promise((answer) => searches.push({ query, answer })),
});
let clock: number;

function message(sessionKey: string, content: string, messageId: string): MessageReceivedEvent {
  return { type: "message", action: "received", sessionKey, context: { content, messageId }, messages: [] };
}

beforeEach(() => {
  searches = [];
  clock = 1_800_000_000_000;
  setLogDestination({ write: () => undefined } as never);
});
afterEach(() => setLogDestination(undefined));

describe("issue 20: hostile session keys cost bounded memory", () => {
  it("a plan keeps only bounded ids, never the megabyte key", () => {
    const service = createMemoryContextService({ createRetriever: heldFactory });
    const plan = service.plan({ sessionKey: `agent:${"a".repeat(MB)}:telegram:direct:${"7".repeat(MB)}`, cfg: cfg(), text: "what did we decide about the garden plan?" });
    const strings = JSON.stringify(plan).match(/"(?:[^"\\]|\\.)*"/g) ?? [];
    expect(Math.max(...strings.map((s) => s.length))).toBeLessThanOrEqual(BOUNDED + 2);
    const search = service.plan({ sessionKey: hugeKey(1), cfg: cfg(), text: "what did we decide about the garden plan?" });
    expect(search.kind).toBe("search");
    if (search.kind === "search") expect(search.sessionKey.length).toBeLessThanOrEqual(BOUNDED);
  });

  it("300 messages with long keys: the pending work of each session is counted and stays under the byte cap", () => {
    const maxBytes = 256 * 1024;
    const rt = new HookPack({ createRetriever: heldFactory, composeBlock: null, now: () => clock, loadOpenClawConfig: cfg, sessionLimits: { maxBytes } });
    for (let i = 0; i < 300; i += 1) rt.onMessageReceived(message(hugeKey(i, 64 * 1024), `what did we decide about the garden plan, number ${i}?`, `m${i}`));
    expect(searches).toHaveLength(300); // every session's search started
    expect(rt.sessions.storedBytes()).toBeLessThanOrEqual(maxBytes);
    // Each kept session counts its parked search, so the cap holds far fewer than 300 of them.
    expect(rt.sessions.size).toBeLessThanOrEqual(Math.floor(maxBytes / PENDING_WORK_OVERHEAD_BYTES));
    expect(rt.sessions.size).toBeGreaterThan(0);
    expect(rt.sessions.peek(hugeKey(299, 64 * 1024))?.pending?.turnKey).toBe("m299");
  });

  it("an evicted session's queued search is dropped before it starts", async () => {
    const maxBytes = 64 * 1024;
    const rt = new HookPack({ createRetriever: heldFactory, composeBlock: null, now: () => clock, loadOpenClawConfig: cfg, sessionLimits: { maxBytes } });
    const sessions = 100;
    for (let i = 0; i < sessions; i += 1) {
      // The first message's search runs; the second one waits behind it in the session's queue.
      rt.onMessageReceived(message(hugeKey(i, 4096), `first question about the garden plan ${i}`, `a${i}`));
      clock += 1000;
      rt.onMessageReceived(message(hugeKey(i, 4096), `second question about the garden plan ${i}`, `b${i}`));
    }
    const kept = rt.sessions.size;
    expect(kept).toBeLessThan(sessions);
    expect(searches).toHaveLength(sessions);
    // Answer every running search: only the sessions still stored start their queued one.
    for (const search of searches.splice(0)) search.answer([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(searches).toHaveLength(kept);
    expect(searches.every((search) => search.query.startsWith("second question"))).toBe(true);
  });

  it("a megabyte turn key is memoised under its bounded form and still finds the same turn", async () => {
    let calls = 0;
    const service = createMemoryContextService({
      composeBlock: null,
      createRetriever: () => ({ label: "workspace memory", search: async () => (calls++, []) }),
    });
    const turnKey = `run-${"r".repeat(MB)}`;
    const input = { sessionKey: hugeKey(1), cfg: cfg(), text: "what did we decide about the garden plan?", workspaceDir: os.tmpdir(), turnKey };
    await service.buildTurnContext(input);
    await service.buildTurnContext(input);
    expect(calls).toBe(1);
    const state = service.sessions.peek(hugeKey(1))!;
    expect([...state.turns.keys()].every((key) => key.length <= BOUNDED)).toBe(true);
    expect(service.sessions.storedBytes()).toBeLessThan(16 * 1024);
  });
});

describe("issue 20: every per-session structure counts against the cap", () => {
  it("a settled turn's block is counted while its memo holds it", async () => {
    const states = new SessionStates();
    const state = states.get("agent:main:main");
    const before = states.storedBytes();
    let settle!: (outcome: TurnOutcome) => void;
    const outcome = new Promise<TurnOutcome>((resolve) => (settle = resolve));
    states.memoTurn("agent:main:main", state, "t1", outcome);
    const inFlight = states.storedBytes();
    expect(inFlight).toBeGreaterThan(before);
    settle({ block: "b".repeat(100_000), injectedIds: [], reason: "ok" });
    await outcome;
    expect(states.storedBytes() - inFlight).toBeGreaterThanOrEqual(200_000);
  });

  it("a settled block pushes older sessions out when it takes the map over the cap", async () => {
    const states = new SessionStates({ maxBytes: 300_000 });
    for (let i = 0; i < 20; i += 1) states.get(`agent:main:telegram:direct:${i}`);
    const state = states.get("agent:main:main");
    const outcome = Promise.resolve<TurnOutcome>({ block: "b".repeat(140_000), injectedIds: [], reason: "ok" });
    states.memoTurn("agent:main:main", state, "t1", outcome);
    await outcome;
    await Promise.resolve();
    expect(states.storedBytes()).toBeLessThanOrEqual(300_000);
    expect(states.size).toBeLessThan(21);
    expect(states.peek("agent:main:main")).toBe(state);
  });

  it("delivered-memory marks are capped per session, oldest first", () => {
    const states = new SessionStates();
    const state = states.get("agent:main:main");
    const ids = Array.from({ length: MAX_INJECTED_PER_SESSION + 500 }, (_, i) => `memory-${i}`);
    states.markInjected("agent:main:main", state, ids, { turn: 1, at: 0 });
    expect(state.injected.size).toBe(MAX_INJECTED_PER_SESSION);
    expect(state.injected.has("memory-0")).toBe(false);
    expect(state.injected.has(ids[ids.length - 1]!)).toBe(true);
  });

  it("the tracked total equals a fresh count after growth and eviction", () => {
    const states = new SessionStates({ maxBytes: 40_000 });
    for (let i = 0; i < 50; i += 1) {
      const key = `agent:main:telegram:direct:${i}`;
      states.markInjected(key, states.get(key), [`a-${i}`, `b-${i}`], { turn: 0, at: 0 });
    }
    expect(states.storedBytes()).toBeLessThanOrEqual(40_000);
    expect(states.size).toBeLessThan(50);
  });
});
