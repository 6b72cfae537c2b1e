import fs from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { flushContextFileWrites } from "../../src/context/context-file.ts";
import { sourcesKey, workspaceMemorySources } from "../../src/memory/sources.ts";
import { bootstrapOnly, hookTurn, makeWorkspace, startFakeEthos, tempRoot, useHookConfig } from "./ethos-turns.ts";
import type { FakeEthos, Handler } from "./ethos-turns.ts";
import { webchatMessageEvent } from "./ethos-events.ts";
import { advanceUntilSettled, holdTurnClock } from "./turn-clock.ts";

// One test per documented ethos-context option (docs/runbooks/context-injection.md), each showing
// the option's effect through the hook handler: the option set one way and the other, and what
// the turn injects (or writes) differs. Retrieval timing is controlled, never raced: the Ethos
// backend here is a loopback server that answers at once or holds a request until told, and the
// turn's await window and the "same turn" / "repeated message" windows run on a faked clock.
//
// Mutations this file kills (each option made to do nothing in src/context, one at a time; the
// test named after the option fails): awaitTimeoutMs fixed at 250 ms, debounceMs fixed at 500,
// sameTurnWindowMs fixed at 60 s, highConfidence fixed at 0.75, dedupeAcrossTurns ignored,
// writeContextFile always on, assembleBlock always on, triage always on, extraGlobs dropped,
// persistIndex ignored, indexCacheDir ignored.

const root = tempRoot("ethos-options-");
let handler: Handler;
let ethos: FakeEthos;
let ws: string;
let session = 0;
/** A session key of its own for each turn sequence, so no test sees another's state. */
const freshMain = () => `agent:opt${(session += 1)}:main`;
const today = new Date().toISOString().slice(0, 10);

const HIT = { id: "8d3c6b9e-0000-4000-8000-00000000aa01", content: "The harbour gate code for the marina is OPTION_SENTINEL_6f1d.", score: 0.9 };
const QUESTION = "What is the harbour gate code for the marina?";
/** Ethos backend against the fake server; a long client timeout so only awaitTimeoutMs bounds a turn. */
const viaEthos = (extra: Record<string, unknown> = {}) => ({
  backend: "ethos",
  ethos: { socketPath: ethos.socketPath, timeoutMs: 60_000 },
  awaitTimeoutMs: 5000,
  writeContextFile: false,
  triage: false,
  ...extra,
});

beforeAll(async () => {
  ws = makeWorkspace(root, "workspace");
  ethos = await startFakeEthos(root);
  vi.stubEnv("OPENCLAW_CONTEXT_INDEX_CACHE_DIR", path.join(root, "env-index-cache"));
  setLogDestination(new Writable({ write: (_chunk, _e, cb) => cb() }) as never);
  handler = (await import("../../hooks/ethos-context/handler.ts")).default;
});
// Every turn runs on a held clock (turn-clock.ts): it ends when its search settles, on any machine.
beforeEach(() => holdTurnClock());
afterEach(() => {
  ethos.releaseAll();
  ethos.reset();
  vi.useRealTimers();
});
afterAll(async () => {
  await flushContextFileWrites();
  await ethos.close();
  vi.unstubAllEnvs();
  setLogDestination(undefined);
  fs.rmSync(root, { recursive: true, force: true });
});

/** A turn through the handler with this hook config (also written to openclaw.json). */
async function turn(entry: Record<string, unknown>, sessionKey: string, question = QUESTION, workspace = ws) {
  return hookTurn(handler, { ws: workspace, cfg: useHookConfig(root, entry), sessionKey, question });
}

describe("ethos-context options, each shown by its effect", () => {
  it("awaitTimeoutMs: the turn waits for retrieval exactly that long on its clock, then injects nothing", async () => {
    // The handler's waits run on faked timers: only this test moves its clock.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    ethos.hits = [HIT];
    ethos.holdRequests = new Set([0, 1]);
    /** Start a turn, let its waits be armed, move the clock by `advanceMs`, then answer the search. */
    const turnAnsweredAfter = async (awaitTimeoutMs: number, advanceMs: number) => {
      const requests = ethos.queries.length;
      const timersBefore = vi.getTimerCount();
      const pending = turn(viaEthos({ awaitTimeoutMs }), freshMain());
      await ethos.received(requests + 1);
      // The search timeout and both bounded waits of the turn are armed before the clock moves.
      for (let spins = 0; vi.getTimerCount() < timersBefore + 3 && spins < 100_000; spins += 1) await new Promise((resolve) => setImmediate(resolve));
      await vi.advanceTimersByTimeAsync(advanceMs);
      ethos.releaseAll();
      return (await pending).block;
    };
    // 4 s into a 5 s wait the answer still makes it; past a 1 s wait it does not.
    expect(await turnAnsweredAfter(5000, 4000)).toContain("OPTION_SENTINEL_6f1d");
    expect(await turnAnsweredAfter(1000, 1100)).toBeUndefined();
  });

  it("debounceMs: an identical message inside the window reuses the running retrieval; with 0 it starts a new one", async () => {
    holdTurnClock({ date: true });
    vi.setSystemTime(new Date("2026-03-01T10:00:00Z"));
    ethos.hits = [HIT];
    // The first search of each case never answers: #0 (debounced case: the only one), #1 (no window).
    ethos.holdRequests = new Set([0, 1]);
    const twice = async (entry: Record<string, unknown>, releaseFirst: boolean) => {
      const before = ethos.queries.length;
      const sessionKey = freshMain();
      const cfg = useHookConfig(root, entry);
      await handler(webchatMessageEvent(sessionKey, QUESTION, `d-${sessionKey}-1`));
      await handler(webchatMessageEvent(sessionKey, QUESTION, `d-${sessionKey}-2`)); // same instant on the faked clock
      // A session runs one search at a time: a second one waits for the first to answer.
      if (releaseFirst) {
        await ethos.received(before + 1); // the first search reached the server and is held
        ethos.releaseAll();
      }
      return bootstrapOnly(handler, { ws, cfg, sessionKey });
    };
    // Default window: the second message reuses the first (held) search, so the turn waits it out
    // (the clock is moved until its 100 ms wait ends).
    expect((await advanceUntilSettled(twice(viaEthos({ awaitTimeoutMs: 100 }), false), 50)).block).toBeUndefined();
    expect(ethos.queries).toHaveLength(1);
    // No window: the second message gets a search of its own (after the first), which answers.
    expect((await twice(viaEthos({ debounceMs: 0 }), true)).block).toContain("OPTION_SENTINEL_6f1d");
    await ethos.received(3);
    expect(ethos.queries).toHaveLength(3);
  });

  it("highConfidence: a single hit between the gate and highConfidence is injected only when highConfidence allows it", async () => {
    // 0.3: above the gate (0.15) but below the small-vault rule for a lone result (0.35).
    ethos.hits = [{ ...HIT, score: 0.3 }];
    expect((await turn(viaEthos(), freshMain())).block).toBeUndefined(); // default 0.75: one result is not enough
    expect((await turn(viaEthos({ highConfidence: 0.3 }), freshMain())).block).toContain("OPTION_SENTINEL_6f1d");
  });

  it("dedupeAcrossTurns: by default a memory is shown once per session; false shows it again", async () => {
    ethos.hits = [HIT];
    for (const [dedupeAcrossTurns, second] of [[true, undefined], [false, "OPTION_SENTINEL_6f1d"]] as const) {
      const sessionKey = freshMain();
      const entry = viaEthos({ dedupeAcrossTurns });
      expect((await turn(entry, sessionKey)).block, `first turn, dedupe ${dedupeAcrossTurns}`).toContain("OPTION_SENTINEL_6f1d");
      const again = await turn(entry, sessionKey, "And the harbour gate code for the marina, once more?");
      if (second) expect(again.block, "second turn, no dedupe").toContain(second);
      else expect(again.block, "second turn, dedupe").toBeUndefined();
    }
  });

  it("sameTurnWindowMs: a second bootstrap of the same turn re-injects the block only inside the window", async () => {
    holdTurnClock({ date: true });
    ethos.hits = [HIT];
    for (const [window, expected] of [[60_000, "OPTION_SENTINEL_6f1d"], [1000, undefined]] as const) {
      vi.setSystemTime(new Date("2026-03-01T11:00:00Z"));
      const sessionKey = freshMain();
      const entry = viaEthos({ sameTurnWindowMs: window });
      expect((await turn(entry, sessionKey)).block).toContain("OPTION_SENTINEL_6f1d");
      vi.setSystemTime(new Date("2026-03-01T11:00:05Z")); // 5 s later, no new message (fallback attempt)
      const retry = await bootstrapOnly(handler, { ws, cfg: useHookConfig(root, entry), sessionKey });
      if (expected) expect(retry.block, `window ${window}`).toContain(expected);
      else expect(retry.block, `window ${window}`).toBeUndefined();
    }
  });

  it("assembleBlock: today's notes share the block by default; false leaves only the retrieved hits", async () => {
    const notes = makeWorkspace(root, "ws-assemble", { [`memory/${today}.md`]: `# ${today}\n\n- Jeff booked the rigger for Thursday morning.\n` });
    ethos.hits = [HIT];
    const assembled = await turn(viaEthos(), freshMain(), QUESTION, notes);
    expect(assembled.block).toContain("OPTION_SENTINEL_6f1d");
    expect(assembled.block).toContain("booked the rigger");
    const plain = await turn(viaEthos({ assembleBlock: false }), freshMain(), QUESTION, notes);
    expect(plain.block).toContain("OPTION_SENTINEL_6f1d");
    expect(plain.block).not.toContain("booked the rigger");
  });

  it("writeContextFile: the block is copied to <workspace>/ETHOS_CONTEXT.md by default, and not when false", async () => {
    ethos.hits = [HIT];
    const written = makeWorkspace(root, "ws-write");
    const notWritten = makeWorkspace(root, "ws-nowrite");
    const a = await turn(viaEthos({ writeContextFile: true }), freshMain(), QUESTION, written);
    const b = await turn(viaEthos({ writeContextFile: false }), freshMain(), QUESTION, notWritten);
    await flushContextFileWrites();
    // The model reads the compact block; the operator's file keeps the story-007 layout, same memory.
    const file = fs.readFileSync(path.join(written, "ETHOS_CONTEXT.md"), "utf8");
    expect(a.block).toContain("OPTION_SENTINEL_6f1d");
    expect(file).toContain("## 🧠 Memory Context");
    expect(file).toContain("OPTION_SENTINEL_6f1d");
    expect(b.block).toContain("OPTION_SENTINEL_6f1d"); // injected all the same
    expect(fs.existsSync(path.join(notWritten, "ETHOS_CONTEXT.md"))).toBe(false);
  });

  it("memory.extraGlobs: a fact outside MEMORY.md and memory/ is found only when its folder is listed", async () => {
    const globs = makeWorkspace(root, "ws-globs", { "notes/boat-log.md": "# Boat log\n\n- The spare anchor is stowed in the forward locker, tag EXTRA_GLOB_SENTINEL_2b7c.\n" });
    const question = "Where is the spare anchor stowed on the boat?";
    const embedded = { awaitTimeoutMs: 5000, writeContextFile: false, triage: false, memory: { persistIndex: false } };
    expect((await turn(embedded, freshMain(), question, globs)).block ?? "").not.toContain("EXTRA_GLOB_SENTINEL_2b7c");
    const listed = { ...embedded, memory: { persistIndex: false, extraGlobs: ["notes/**/*.md"] } };
    expect((await turn(listed, freshMain(), question, globs)).block).toContain("EXTRA_GLOB_SENTINEL_2b7c");
  });

  it("memory.indexCacheDir and memory.persistIndex: the index is saved in the configured folder, or not at all", async () => {
    const cacheDir = path.join(root, "configured-cache");
    const cacheFileOf = (workspace: string) => `${sourcesKey(workspaceMemorySources(workspace))}.idx`;
    const embedded = (memory: Record<string, unknown>) => ({ awaitTimeoutMs: 5000, writeContextFile: false, triage: false, memory });
    const question = "What is my sailboat named, and where is it moored?";
    // persistIndex false first: if it saved anyway, its file would land before the next one's.
    const memoryOnly = makeWorkspace(root, "ws-no-persist");
    expect((await turn(embedded({ indexCacheDir: cacheDir, persistIndex: false }), freshMain(), question, memoryOnly)).block).toContain("Halcyon Drift");
    const persisted = makeWorkspace(root, "ws-persist");
    expect((await turn(embedded({ indexCacheDir: cacheDir }), freshMain(), question, persisted)).block).toContain("Halcyon Drift");
    // The save runs in the background after the build: wait for the file, not for a time.
    await vi.waitFor(() => expect(fs.existsSync(path.join(cacheDir, cacheFileOf(persisted)))).toBe(true), { timeout: 60_000, interval: 20 });
    expect(fs.readdirSync(cacheDir).filter((name) => name.endsWith(".idx"))).toEqual([cacheFileOf(persisted)]);
    // Not in the default (here: $OPENCLAW_CONTEXT_INDEX_CACHE_DIR) folder.
    expect(fs.existsSync(path.join(root, "env-index-cache", cacheFileOf(persisted)))).toBe(false);
  });

  it("triage: the operator's correction is queued by default; triage: false leaves the workspace untouched", async () => {
    const tri = makeWorkspace(root, "ws-triage");
    // message:received carries no workspace: the agent's one comes from config.
    const agents = { agents: { list: [{ id: "tri", workspace: tri }] } };
    const queue = path.join(tri, "memory", ".triage");
    const message = (id: string) => webchatMessageEvent("agent:tri:main", "You forgot, I already told you: the boat moved to slip 22", id);
    useHookConfig(root, { triage: false }, {}, agents);
    await handler(message("tri-off"));
    useHookConfig(root, {}, {}, agents);
    await handler(message("tri-on"));
    // Both messages take the same path to the same queue file, the first one first: once the
    // second one's line is there, the first one's would be too.
    const lines = () => (fs.existsSync(queue) ? fs.readdirSync(queue).map((f) => fs.readFileSync(path.join(queue, f), "utf8")).join("") : "");
    await vi.waitFor(() => expect(lines()).toContain("tri-on"), { timeout: 60_000, interval: 20 });
    expect(lines()).not.toContain("tri-off");
    expect(lines().trim().split("\n")).toHaveLength(1);
  });
});
