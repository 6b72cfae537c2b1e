import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { flushContextFileWrites } from "../../src/context/context-file.ts";
import { HookPack } from "../../src/hook-pack/service.ts";
import { createMemoryContextService } from "../../src/context/service.ts";
import type { MemoryContextDeps, RetrieverFactory } from "../../src/context/service.ts";
import { MAX_STORED_KEY_CHARS } from "../../src/core/bounded-id.ts";
import { SessionStates } from "../../src/context/session-state.ts";
import type { RetrievedMemory } from "../../src/memory/types.ts";
import { setLogDestination } from "../../src/core/log.ts";
import { RETRIEVED_MEMORY_RECORD_NAME } from "../../src/host/ids.ts";
import type { AgentBootstrapEvent, BootstrapFileRecord, MessageReceivedEvent } from "../../src/host/events.ts";

// The memory-context service with fake retrievers and controllable promises: no sleeps, no real
// time. Fake timers only where a bounded wait has to expire.

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ethos-service-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const SAILBOAT: RetrievedMemory = {
  id: "sailboat",
  text: "Jeff's sailboat is named Halcyon Drift; it is moored at slip 14 in Sausalito.",
  score: 0.91,
  date: "2026-02-22",
  headingPath: ["Personal"],
  source: "embedded",
};
const MAIN = "agent:main:main";

type Deferred<T> = { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void };
function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

let ws: string;
let queries: string[];
/** Each search takes the next controllable answer, or answers [SAILBOAT] at once. */
let answers: Deferred<RetrievedMemory[]>[];
let hookConfig: Record<string, unknown>;
let logs: string[];
let clock: number;

const cfg = () => ({ agents: { defaults: { workspace: ws } }, hooks: { internal: { entries: { "ethos-context": hookConfig } } } });
const factory: RetrieverFactory = () => ({
  label: "workspace memory",
  search(query) {
    queries.push(query);
    const next = answers.shift();
    return next ? next.promise : Promise.resolve([SAILBOAT]);
  },
});
const deps = (extra: MemoryContextDeps = {}): MemoryContextDeps => ({ createRetriever: factory, composeBlock: null, now: () => clock, ...extra });
const runtime = (extra: MemoryContextDeps = {}) => new HookPack({ ...deps(extra), loadOpenClawConfig: cfg });

function message(content: unknown, messageId: string): MessageReceivedEvent {
  return { type: "message", action: "received", sessionKey: MAIN, context: { content, messageId, channelId: "webchat" }, messages: [] };
}
function bootstrap(): AgentBootstrapEvent {
  const files: BootstrapFileRecord[] = [{ name: "SOUL.md", path: path.join(ws, "SOUL.md"), content: "# SOUL", missing: false }];
  return { type: "agent", action: "bootstrap", sessionKey: MAIN, context: { workspaceDir: ws, bootstrapFiles: files, cfg: cfg(), sessionKey: MAIN, agentId: "main" }, messages: [] };
}
const record = (files: unknown[] | undefined) => (files ?? []).find((f) => (f as BootstrapFileRecord).name === RETRIEVED_MEMORY_RECORD_NAME) as BootstrapFileRecord | undefined;

beforeEach(() => {
  ws = fs.mkdtempSync(path.join(tmp, "ws-"));
  queries = [];
  answers = [];
  hookConfig = {};
  logs = [];
  clock = 1_800_000_000_000;
  setLogDestination(new Writable({ write: (chunk, _e, cb) => (logs.push(String(chunk)), cb()) }) as never);
});
afterEach(async () => {
  vi.useRealTimers();
  await flushContextFileWrites();
  setLogDestination(undefined);
});

describe("buildTurnContext (the plugin's one call)", () => {
  it("returns the gated, budgeted block for a main-session turn and writes ETHOS_CONTEXT.md", async () => {
    const service = createMemoryContextService(deps());
    const turn = await service.buildTurnContext({ sessionKey: MAIN, cfg: cfg(), text: "What is my sailboat called?", workspaceDir: ws, turnKey: "run-1" });
    expect(turn.status).toBe("ok");
    expect(turn.block).toContain(SAILBOAT.text);
    expect(turn.injectedIds).toEqual(["sailboat"]);
    await flushContextFileWrites();
    // The model reads the compact block; the operators' file keeps story 007's layout of the same memories.
    expect(turn.block.startsWith("Relevant memories (workspace memory), by date:\n")).toBe(true);
    expect(turn.fileBlock).toMatch(/^<!-- ethos:context ts=\S+ query_score=\S+ -->\n## 🧠 Memory Context\n/);
    expect(fs.readFileSync(path.join(ws, RETRIEVED_MEMORY_RECORD_NAME), "utf8")).toBe(turn.fileBlock);
  });

  it("a retried prompt build for the same turn gets the same block, not an empty one", async () => {
    const service = createMemoryContextService(deps());
    const input = { sessionKey: MAIN, cfg: cfg(), text: "What is my sailboat called?", workspaceDir: ws, turnKey: "run-1" };
    const first = await service.buildTurnContext(input);
    const retry = await service.buildTurnContext(input);
    expect(retry.block).toBe(first.block);
    expect(queries).toHaveLength(1);
    const next = await service.buildTurnContext({ ...input, turnKey: "run-2" });
    expect(next.block).toBe(""); // a new turn: already shown, de-duplicated
  });

  it("de-duplication forgets a memory after dedupeExpiryTurns turns", async () => {
    hookConfig = { dedupeExpiryTurns: 2 };
    const service = createMemoryContextService(deps());
    const ask = (turnKey: string) => service.buildTurnContext({ sessionKey: MAIN, cfg: cfg(), text: "What is my sailboat called?", workspaceDir: ws, turnKey });
    expect((await ask("t1")).injectedIds).toEqual(["sailboat"]);
    expect((await ask("t2")).injectedIds).toEqual([]);
    expect((await ask("t3")).injectedIds).toEqual(["sailboat"]);
  });

  it("de-duplication forgets a memory after dedupeExpiryMs", async () => {
    hookConfig = { dedupeExpiryMs: 60_000 };
    const service = createMemoryContextService(deps());
    const ask = (turnKey: string) => service.buildTurnContext({ sessionKey: MAIN, cfg: cfg(), text: "What is my sailboat called?", workspaceDir: ws, turnKey });
    expect((await ask("t1")).injectedIds).toEqual(["sailboat"]);
    clock += 59_999;
    expect((await ask("t2")).injectedIds).toEqual([]);
    clock += 1;
    expect((await ask("t3")).injectedIds).toEqual(["sailboat"]);
  });

  it("tells a timeout from an error: a timeout marks nothing, an error is logged once", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const service = createMemoryContextService(deps());
    const slow = deferred<RetrievedMemory[]>();
    answers.push(slow);
    const pending = service.buildTurnContext({ sessionKey: MAIN, cfg: cfg(), text: "What is my sailboat called?", workspaceDir: ws, turnKey: "t1", waitMs: 100 });
    await vi.advanceTimersByTimeAsync(100);
    const timedOut = await pending;
    expect(timedOut).toMatchObject({ status: "timeout", block: "" });
    slow.resolve([SAILBOAT]); // late: not marked, so the next turn still gets it
    await vi.advanceTimersByTimeAsync(0);
    vi.useRealTimers();
    expect((await service.buildTurnContext({ sessionKey: MAIN, cfg: cfg(), text: "What is my sailboat called?", workspaceDir: ws, turnKey: "t2" })).injectedIds).toEqual(["sailboat"]);

    const failing = deferred<RetrievedMemory[]>();
    answers.push(failing);
    const failed = service.buildTurnContext({ sessionKey: MAIN, cfg: cfg(), text: "What is my sailboat called?", workspaceDir: ws, turnKey: "t3" });
    failing.reject(new Error("index exploded"));
    expect(await failed).toMatchObject({ status: "error", block: "" });
    expect(logs.filter((line) => line.includes("index exploded"))).toHaveLength(1);
  });

  it("array content parts are one text: their words are searched", async () => {
    const rt = runtime();
    rt.onMessageReceived(message([{ type: "text", text: "What is my sailboat" }, { type: "image", url: "x" }, { type: "text", text: "called?" }], "m1"));
    expect(queries).toEqual(["What is my sailboat called?"]);
    expect(record(await rt.onAgentBootstrap(bootstrap()))?.content).toContain(SAILBOAT.text);
  });
});

describe("issue 11 item 3: only what reached the prompt is marked injected", () => {
  it("a block that completes after the bootstrap stopped waiting is not recorded as injected", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    hookConfig = { awaitTimeoutMs: 100 };
    const search = deferred<RetrievedMemory[]>();
    answers.push(search);
    const compose = deferred<string>();
    let composerCalls = 0;
    const rt = runtime({ composeBlock: ({ selection }) => (composerCalls++ === 0 ? compose.promise : selection.block) });
    rt.onMessageReceived(message("What is my sailboat called?", "m1"));
    const first = rt.onAgentBootstrap(bootstrap());
    await vi.advanceTimersByTimeAsync(99);
    search.resolve([SAILBOAT]); // in time for the search wait; the composer then starts late
    await vi.advanceTimersByTimeAsync(52); // the bootstrap's own wait (awaitTimeoutMs + 50) ends
    expect(record(await first)).toBeUndefined();
    compose.resolve(`late block ${SAILBOAT.text}`);
    await vi.advanceTimersByTimeAsync(200);
    vi.useRealTimers();

    clock += 10_000;
    rt.onMessageReceived(message("What is my sailboat called, again?", "m2"));
    // Not suppressed: the model never saw it.
    expect(record(await rt.onAgentBootstrap(bootstrap()))?.content).toContain(SAILBOAT.text);
  });
});

describe("issue 11 item 6: superseded searches are dropped, per-session work coalesced", () => {
  it("runs only the running search and the newest message's, not the ones in between", async () => {
    const first = deferred<RetrievedMemory[]>();
    answers.push(first);
    const rt = runtime();
    rt.onMessageReceived(message("What is my sailboat called?", "m1"));
    clock += 1000;
    rt.onMessageReceived(message("Where is my sailboat moored?", "m2"));
    clock += 1000;
    rt.onMessageReceived(message("Who sold me the sailboat?", "m3"));
    expect(queries).toEqual(["What is my sailboat called?"]);
    first.resolve([SAILBOAT]);
    const files = await rt.onAgentBootstrap(bootstrap());
    expect(queries).toEqual(["What is my sailboat called?", "Who sold me the sailboat?"]);
    expect(record(files)?.content).toContain(SAILBOAT.text);
  });

  it("a queued search whose turn stopped waiting never starts", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    hookConfig = { awaitTimeoutMs: 100 };
    const blocking = deferred<RetrievedMemory[]>();
    answers.push(blocking);
    const service = createMemoryContextService(deps());
    const busy = service.buildTurnContext({ sessionKey: MAIN, cfg: cfg(), text: "What is my sailboat called?", workspaceDir: ws, turnKey: "t1", waitMs: 1000 });
    const queued = service.buildTurnContext({ sessionKey: MAIN, cfg: cfg(), text: "Where is my sailboat moored?", workspaceDir: ws, turnKey: "t2", waitMs: 100 });
    await vi.advanceTimersByTimeAsync(100);
    expect((await queued).status).toBe("timeout");
    blocking.resolve([SAILBOAT]);
    await vi.advanceTimersByTimeAsync(0);
    expect((await busy).status).toBe("ok");
    await vi.advanceTimersByTimeAsync(0);
    vi.useRealTimers();
    expect(queries).toEqual(["What is my sailboat called?"]);
  });
});

describe("issue 11 item 10: session state is capped by key length and total bytes", () => {
  it("stores a huge session key as a short hash", () => {
    const states = new SessionStates();
    const huge = `agent:main:${"x".repeat(1024 * 1024)}`;
    states.get(huge).turnCount = 7;
    expect(states.peek(huge)?.turnCount).toBe(7);
    expect(states.storedBytes()).toBeLessThan(4 * MAX_STORED_KEY_CHARS + 1024);
  });

  it("evicts least recently used sessions when the byte ceiling is reached", () => {
    const states = new SessionStates({ maxBytes: 64 * 1024 });
    for (let i = 0; i < 300; i += 1) {
      const key = `agent:main:telegram:direct:${i}:${"k".repeat(200)}`;
      const ids = Array.from({ length: 20 }, (_, j) => `memory-${i}-${j}-${"i".repeat(40)}`);
      states.markInjected(key, states.get(key), ids, { turn: 0, at: 0 });
    }
    expect(states.storedBytes()).toBeLessThanOrEqual(64 * 1024 + 8 * 1024);
    expect(states.size).toBeLessThan(300);
    expect(states.peek(`agent:main:telegram:direct:299:${"k".repeat(200)}`)).toBeDefined();
  });
});
