import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { flushContextFileWrites } from "../../src/context/context-file.ts";
import { upsertMemoryRecord } from "../../src/hook-pack/memory-turns.ts";
import { HookPack } from "../../src/hook-pack/service.ts";
import { configuredWorkspace } from "../../src/context/workspace.ts";
import { classifySession } from "../../src/session/classify.ts";
import type { RetrieverFactory } from "../../src/context/service.ts";
import type { RetrievedMemory } from "../../src/memory/types.ts";
import { setLogDestination } from "../../src/core/log.ts";
import { RETRIEVED_MEMORY_RECORD_NAME } from "../../src/host/ids.ts";
import type { AgentBootstrapEvent, BootstrapFileRecord, MessageReceivedEvent } from "../../src/host/events.ts";
import { holdTurnClock } from "./turn-clock.ts";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ethos-runtime-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const SAILBOAT: RetrievedMemory = {
  id: "sailboat",
  text: "Jeff's sailboat is named Halcyon Drift; it is moored at slip 14 in Sausalito.",
  score: 0.91,
  date: "2026-02-22",
  file: "memory/2026-02-22.md",
  headingPath: ["Personal"],
  source: "embedded",
};
const COFFEE: RetrievedMemory = { ...SAILBOAT, id: "coffee", text: "Jeff's favourite coffee is a cortado.", score: 0.4, date: undefined };

const MAIN = "agent:main:main";
const GROUP = "agent:main:telegram:group:-100777";
const SUBAGENT = "agent:main:subagent:0b7c1e0e-1111-4222-8333-944445555666";
const OWNER_DM = "agent:main:telegram:direct:4242";
const STRANGER_DM = "agent:main:telegram:direct:9999";

let ws: string;
let calls: { workspaceDir: string; source: string; query: string }[];
let results: RetrievedMemory[];
let pendingSearch: Promise<RetrievedMemory[]> | undefined;
let hookConfig: Record<string, unknown>;
let now: number;
let logs: string[];

let agentsConfig: Record<string, unknown>;
// A roster without a workspace: message:received cannot know the workspace until a bootstrap.
const cfg = () => ({ agents: agentsConfig, hooks: { internal: { entries: { "ethos-context": hookConfig } } } });

const factory: RetrieverFactory = ({ source, workspaceDir }) => ({
  label: "workspace memory",
  async search(query) {
    calls.push({ workspaceDir, source: source.kind === "group" ? `group:${source.memoryDir}` : "workspace", query });
    return pendingSearch ?? results;
  },
});

function runtime(options: Partial<ConstructorParameters<typeof HookPack>[0]> = {}) {
  return new HookPack({ loadOpenClawConfig: cfg, now: () => now, createRetriever: factory, ...options });
}

function message(sessionKey: string, content: string, messageId = `m${now}`): MessageReceivedEvent {
  return { type: "message", action: "received", sessionKey, context: { content, messageId, channelId: "webchat" }, messages: [] };
}

const coreFiles = (): BootstrapFileRecord[] => [
  { name: "AGENTS.md", path: path.join(ws, "AGENTS.md"), content: "# AGENTS", missing: false },
  { name: "SOUL.md", path: path.join(ws, "SOUL.md"), content: "# SOUL", missing: false },
];

function bootstrap(sessionKey: string, files: unknown[] = coreFiles(), workspaceDir = ws): AgentBootstrapEvent {
  return { type: "agent", action: "bootstrap", sessionKey, context: { workspaceDir, bootstrapFiles: files, cfg: cfg(), sessionKey, agentId: "main" }, messages: [] };
}

const contextFile = () => fs.readFileSync(path.join(ws, RETRIEVED_MEMORY_RECORD_NAME), "utf8");
const ourRecords = (files: unknown[] | undefined) => (files ?? []).filter((f) => (f as BootstrapFileRecord).name === RETRIEVED_MEMORY_RECORD_NAME) as BootstrapFileRecord[];

beforeEach(() => {
  ws = fs.mkdtempSync(path.join(tmp, "ws-"));
  calls = [];
  results = [SAILBOAT, COFFEE];
  pendingSearch = undefined;
  hookConfig = { scope: { ownerIds: ["4242"] } };
  agentsConfig = { list: [{ id: "main" }] };
  now = 1_800_000_000_000;
  logs = [];
  setLogDestination(new Writable({ write: (chunk, _e, cb) => (logs.push(String(chunk)), cb()) }) as never);
  // The composer reads the workspace inside the turn's window: hold that clock (turn-clock.ts), so
  // a turn ends when its work settles on any machine. Timeout tests move it themselves.
  holdTurnClock();
});
afterEach(async () => {
  await flushContextFileWrites();
  setLogDestination(undefined);
  vi.useRealTimers();
});

describe("same-turn injection", () => {
  it("message:received then agent:bootstrap injects the memory as an inline record in the same turn", async () => {
    const rt = runtime();
    const received = coreFiles();
    rt.onMessageReceived(message(MAIN, "What's my sailboat called and where is it moored?"));
    const files = await rt.onAgentBootstrap(bootstrap(MAIN, received));
    expect(files).toHaveLength(3);
    expect(received).toHaveLength(2); // the event's array is never mutated in place
    const [record] = ourRecords(files);
    expect(record).toMatchObject({ name: "ETHOS_CONTEXT.md", path: path.join(ws, "ETHOS_CONTEXT.md"), missing: false });
    // The model reads the compact layout; ETHOS_CONTEXT.md keeps story 007's layout of the same memories.
    expect(record.content).toBe(
      "Relevant memories (workspace memory), by date:\n- Jeff's favourite coffee is a cortado.\n[2026-02-22]\n- Jeff's sailboat is named Halcyon Drift; it is moored at slip 14 in Sausalito.\n",
    );
    await flushContextFileWrites();
    expect(contextFile()).toContain("1. **[2026-02-22]** Jeff's sailboat is named Halcyon Drift; it is moored at slip 14 in Sausalito. *(score: 0.91)*");
    expect(contextFile()).toMatch(/^<!-- ethos:context ts=\S+Z query_score=0\.91 -->\n## 🧠 Memory Context\n/);
    expect(contextFile()).toContain("2. **[undated]** Jeff's favourite coffee is a cortado. *(score: 0.40)*");
  });

  it("starts retrieval on message:received when the workspace is known, else at bootstrap", async () => {
    const rt = runtime();
    rt.onMessageReceived(message(MAIN, "first message about my sailboat"));
    expect(calls).toHaveLength(0); // no bootstrap seen yet: workspace unknown, deferred
    await rt.onAgentBootstrap(bootstrap(MAIN));
    expect(calls).toEqual([{ workspaceDir: ws, source: "workspace", query: "first message about my sailboat" }]);
    now += 10_000;
    rt.onMessageReceived(message(MAIN, "second message about my coffee"));
    expect(calls).toHaveLength(2); // started synchronously, before bootstrap
  });

  it("starts retrieval on the very first message when config names the workspace", async () => {
    agentsConfig = { defaults: { workspace: ws } };
    const rt = runtime();
    rt.onMessageReceived(message(MAIN, "first message about my sailboat"));
    expect(calls).toEqual([{ workspaceDir: ws, source: "workspace", query: "first message about my sailboat" }]);
    expect(ourRecords(await rt.onAgentBootstrap(bootstrap(MAIN)))).toHaveLength(1);
    expect(calls).toHaveLength(1); // the early retrieval was used, not repeated
  });

  it("a retrieval started against another workspace is discarded and redone at bootstrap", async () => {
    agentsConfig = { defaults: { workspace: path.join(tmp, "some-other-workspace") } };
    const rt = runtime();
    rt.onMessageReceived(message(MAIN, "first message about my sailboat"));
    await rt.onAgentBootstrap(bootstrap(MAIN));
    expect(calls.map((c) => c.workspaceDir)).toEqual([path.join(tmp, "some-other-workspace"), ws]);
  });

  it("a message whose run never came does not feed a much later run", async () => {
    const rt = runtime();
    rt.onMessageReceived(message(MAIN, "What's my sailboat called?"));
    now += 11 * 60_000;
    expect(await rt.onAgentBootstrap(bootstrap(MAIN))).toBeUndefined();
  });

  it("with the Ethos backend the first message starts retrieval at once (no workspace needed)", async () => {
    hookConfig = { backend: "ethos" };
    const rt = runtime();
    rt.onMessageReceived(message(MAIN, "first message about my sailboat"));
    expect(calls).toHaveLength(1);
    expect(ourRecords(await rt.onAgentBootstrap(bootstrap(MAIN)))).toHaveLength(1);
    expect(calls).toHaveLength(1);
  });

  it("learns the agent's workspace from an operator's bootstrap only, never from a group's sandbox (issue 24)", async () => {
    const rt = runtime();
    const roster = { agents: { list: [{ id: "main" }] } }; // config states no workspace for main
    expect(rt.context.workspaces.forAgent("main", roster)).toBeUndefined();
    const sandbox = fs.mkdtempSync(path.join(os.tmpdir(), "ctx-sandbox-"));
    await rt.onAgentBootstrap(bootstrap(GROUP, coreFiles(), sandbox));
    expect(rt.context.workspaces.forAgent("main", roster)).toBeUndefined();
    await rt.onAgentBootstrap(bootstrap(MAIN));
    expect(rt.context.workspaces.forAgent("main", roster)).toBe(ws);
    await rt.onAgentBootstrap(bootstrap(GROUP, coreFiles(), sandbox));
    expect(rt.context.workspaces.forAgent("main", roster)).toBe(ws);
    expect(runtime().context.workspaces.forAgent("main", { agents: { defaults: { workspace: "/configured/ws" } } })).toBe("/configured/ws");
    fs.rmSync(sandbox, { recursive: true, force: true });
  });

  it("a run without a user message (heartbeat, agent RPC) gets nothing", async () => {
    const rt = runtime();
    expect(await rt.onAgentBootstrap(bootstrap(MAIN))).toBeUndefined();
    expect(calls).toHaveLength(0);
  });

  it("times out after awaitTimeoutMs and injects nothing, leaving the files as received", async () => {
    vi.useFakeTimers();
    pendingSearch = new Promise(() => {}); // a backend that never answers
    const rt = runtime();
    rt.onMessageReceived(message(MAIN, "What's my sailboat called again?"));
    let settled: unknown[] | undefined | "pending" = "pending";
    const done = rt.onAgentBootstrap(bootstrap(MAIN)).then((v) => (settled = v));
    await vi.advanceTimersByTimeAsync(249);
    expect(settled).toBe("pending");
    await vi.advanceTimersByTimeAsync(2);
    await done;
    expect(settled).toBeUndefined();
    vi.useRealTimers();
    await flushContextFileWrites();
    expect(contextFile()).toBe("");
  });

  it("skipped messages inject nothing and write an empty ETHOS_CONTEXT.md", async () => {
    const rt = runtime();
    fs.writeFileSync(path.join(ws, "ETHOS_CONTEXT.md"), "stale content from an earlier turn");
    rt.onMessageReceived(message(MAIN, "ok thx"));
    expect(await rt.onAgentBootstrap(bootstrap(MAIN))).toBeUndefined();
    await flushContextFileWrites();
    expect(contextFile()).toBe("");
    expect(calls).toHaveLength(0);
  });

  it("a slash command (/context list) keeps the last turn's record instead of clearing it", async () => {
    const rt = runtime();
    rt.onMessageReceived(message(MAIN, "What's my sailboat called?"));
    const first = await rt.onAgentBootstrap(bootstrap(MAIN));
    now += 5_000;
    rt.onMessageReceived(message(MAIN, "/context list"));
    const report = await rt.onAgentBootstrap(bootstrap(MAIN));
    expect(ourRecords(report)[0].content).toBe(ourRecords(first)[0].content);
    await flushContextFileWrites();
    expect(contextFile()).toContain("## 🧠 Memory Context");
    expect(contextFile()).toContain("Halcyon Drift");
  });

  it("nothing over the gate: no record, empty file", async () => {
    results = [{ ...COFFEE, score: 0.3 }];
    const rt = runtime();
    rt.onMessageReceived(message(MAIN, "What's my sailboat called and where is it moored?"));
    expect(await rt.onAgentBootstrap(bootstrap(MAIN))).toBeUndefined();
    await flushContextFileWrites();
    expect(contextFile()).toBe("");
  });
});

describe("per-session de-duplication", () => {
  it("never injects the same memory twice in one session, but does in another session", async () => {
    const rt = runtime();
    rt.onMessageReceived(message(MAIN, "What's my sailboat called?"));
    const first = ourRecords(await rt.onAgentBootstrap(bootstrap(MAIN)))[0]?.content ?? "";
    // Top score 0.91 is over highConfidence: every result over the gate goes in, coffee included.
    expect([first.includes("Halcyon Drift"), first.includes("cortado")]).toEqual([true, true]);
    now += 120_000;
    // The search finds both again plus a new, strong memory: only the new one is injected.
    const MOORING: RetrievedMemory = { ...SAILBOAT, id: "mooring", text: "The mooring fee is due every March.", score: 0.85 };
    results = [SAILBOAT, MOORING, COFFEE];
    rt.onMessageReceived(message(MAIN, "Remind me: what's my sailboat called?"));
    const second = ourRecords(await rt.onAgentBootstrap(bootstrap(MAIN)))[0]?.content ?? "";
    expect(second).toContain("The mooring fee is due every March.");
    expect(second).not.toContain("Halcyon Drift");
    expect(second).not.toContain("cortado");
    now += 120_000;
    // Nothing new left at all: no record.
    rt.onMessageReceived(message(MAIN, "One more time: what's my sailboat called?"));
    expect(await rt.onAgentBootstrap(bootstrap(MAIN))).toBeUndefined();
    results = [SAILBOAT, COFFEE];
    rt.onMessageReceived(message(OWNER_DM, "What's my sailboat called?"));
    expect(ourRecords(await rt.onAgentBootstrap(bootstrap(OWNER_DM)))[0].content).toContain("Halcyon Drift");
  });

  it("calling the hook twice for one turn re-injects the same block once, without a duplicate record", async () => {
    const rt = runtime();
    rt.onMessageReceived(message(MAIN, "What's my sailboat called?"));
    const first = await rt.onAgentBootstrap(bootstrap(MAIN));
    now += 2_000;
    const again = await rt.onAgentBootstrap(bootstrap(MAIN, first));
    expect(ourRecords(again)).toHaveLength(1);
    expect(ourRecords(again)[0].content).toBe(ourRecords(first)[0].content);
    expect(again).toHaveLength(3);
    expect(calls).toHaveLength(1);
  });

  it("debounces a repeated identical message within debounceMs (one retrieval)", async () => {
    const rt = runtime();
    rt.onMessageReceived(message(MAIN, "What's my sailboat called?", "a"));
    await rt.onAgentBootstrap(bootstrap(MAIN));
    now += 10_000;
    rt.onMessageReceived(message(MAIN, "and my coffee order?", "b"));
    now += 100;
    rt.onMessageReceived(message(MAIN, "and my coffee order?", "c"));
    expect(calls).toHaveLength(2);
  });
});

describe("privacy scope", () => {
  it("group, subagent and external DM sessions get nothing and trigger no retrieval", async () => {
    const rt = runtime();
    for (const key of [GROUP, SUBAGENT, STRANGER_DM]) {
      rt.onMessageReceived(message(key, "What's my sailboat called and where is it moored?"));
      expect(await rt.onAgentBootstrap(bootstrap(key))).toBeUndefined();
    }
    expect(calls).toHaveLength(0);
  });

  it("a private DM with the owner gets workspace memories", async () => {
    const rt = runtime();
    rt.onMessageReceived(message(OWNER_DM, "What's my sailboat called?"));
    expect(ourRecords(await rt.onAgentBootstrap(bootstrap(OWNER_DM)))).toHaveLength(1);
  });

  it("an enabled group searches only its own folder; a folder overlapping the workspace memory is refused", async () => {
    const groupDir = fs.mkdtempSync(path.join(tmp, "group-"));
    hookConfig = { scope: { groups: [{ peerId: "-100777", channel: "telegram", memoryDir: groupDir }] } };
    const rt = runtime();
    rt.onMessageReceived(message(GROUP, "When is the family picnic this year?"));
    await rt.onAgentBootstrap(bootstrap(GROUP));
    expect(calls.map((c) => c.source)).toEqual([`group:${groupDir}`]);

    hookConfig = { scope: { groups: [{ peerId: "-100777", memoryDir: path.join(ws, "memory") }] } };
    const real = new HookPack({ loadOpenClawConfig: cfg, now: () => now });
    real.onMessageReceived(message(GROUP, "What's my sailboat called and where is it moored?"));
    expect(await real.onAgentBootstrap(bootstrap(GROUP))).toBeUndefined();
    expect(logs.some((l) => l.includes("group memoryDir overlaps"))).toBe(true);
  });

  it("scope.sessionTypes can narrow the default (PRIVATE_DM off)", async () => {
    hookConfig = { scope: { ownerIds: ["4242"], sessionTypes: ["MAIN_SESSION"] } };
    const rt = runtime();
    rt.onMessageReceived(message(OWNER_DM, "What's my sailboat called?"));
    expect(await rt.onAgentBootstrap(bootstrap(OWNER_DM))).toBeUndefined();
    expect(calls).toHaveLength(0);
  });
});

describe("configuration sources", () => {
  it("reads the gate from ethos.toml [retrieval].confidence_gate when configured", async () => {
    const toml = path.join(ws, "ethos.toml");
    fs.writeFileSync(toml, "[retrieval]\nconfidence_gate = 0.95\n\n[service]\nsocket_path = \"/tmp/x.sock\"\n");
    hookConfig = { ethos: { configPath: toml } };
    const rt = runtime();
    rt.onMessageReceived(message(MAIN, "What's my sailboat called?"));
    expect(await rt.onAgentBootstrap(bootstrap(MAIN))).toBeUndefined(); // 0.91 < 0.95 gate
  });

  it("an invalid hook config logs one error naming the key and uses defaults", async () => {
    hookConfig = { searchTopK: "three" };
    const rt = runtime();
    for (let i = 0; i < 3; i++) {
      now += 120_000;
      rt.onMessageReceived(message(MAIN, `What's my sailboat called, take ${i}?`));
      await rt.onAgentBootstrap(bootstrap(MAIN));
    }
    const errors = logs.filter((l) => l.includes("invalid config"));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("hooks.internal.entries.ethos-context.searchTopK");
  });
});

describe("replaceable block layout (context assembler)", () => {
  it("uses a formatter given to the service, still inside the budget", async () => {
    hookConfig = { maxInjectedCharsTotal: 120 };
    const rt = runtime({ format: ({ entries }) => (entries.length ? entries.map((e) => `* ${e.text}`).join("\n") : "") });
    rt.onMessageReceived(message(MAIN, "What's my sailboat called?"));
    const [record] = ourRecords(await rt.onAgentBootstrap(bootstrap(MAIN)));
    expect(record.content?.startsWith("* Jeff's sailboat is named Halcyon Drift")).toBe(true);
    expect(record.content!.length).toBeLessThanOrEqual(120);
  });
});

describe("block composer (context assembler wiring)", () => {
  const ask = async (rt: HookPack) => {
    rt.onMessageReceived(message(MAIN, "What's my sailboat called?"));
    return ourRecords(await rt.onAgentBootstrap(bootstrap(MAIN)))[0]?.content;
  };

  it("injects the composer's block, given the gated selection and the budget", async () => {
    const seen: { injected: string[]; maxTokens: number; maxChars: number; workspaceDir: string }[] = [];
    const rt = runtime({
      composeBlock: async ({ selection, maxTokens, maxChars, workspaceDir }) => {
        seen.push({ injected: selection.injected.map((m) => m.id), maxTokens, maxChars, workspaceDir });
        return `## Relevant memories\n${selection.injected.map((m) => `- ${m.text}`).join("\n")}`;
      },
    });
    expect(await ask(rt)).toBe(`## Relevant memories\n- ${SAILBOAT.text}\n- ${COFFEE.text}`);
    expect(seen).toEqual([{ injected: ["sailboat", "coffee"], maxTokens: 1000, maxChars: 4000, workspaceDir: ws }]);
  });

  it("falls back to the default block when the composer throws, answers too late or exceeds the budget", async () => {
    const defaultBlock = await ask(runtime());
    expect(defaultBlock).toContain("Relevant memories (workspace memory), by date:");
    for (const composeBlock of [
      () => Promise.reject(new Error("boom")),
      () => new Promise<string>(() => {}),
      () => "x".repeat(4001),
    ]) {
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
      const pending = ask(runtime({ composeBlock }));
      await vi.advanceTimersByTimeAsync(300);
      const content = await pending;
      vi.useRealTimers();
      expect(content).toBe(defaultBlock);
      expect(content).toContain(SAILBOAT.text);
    }
  });
});

describe("upsertMemoryRecord (load order with aci-bootstrap)", () => {
  it("replaces an existing record with our name or path instead of appending a duplicate", () => {
    const ws2 = "/ws";
    const ours: BootstrapFileRecord = { name: RETRIEVED_MEMORY_RECORD_NAME, path: "/ws/ETHOS_CONTEXT.md", content: "new", missing: false };
    const files = [
      { name: "AGENTS.md", path: "/ws/AGENTS.md", missing: false },
      { name: RETRIEVED_MEMORY_RECORD_NAME, path: "/ws/ETHOS_CONTEXT.md", content: "old", missing: false },
      { name: "OTHER.md", path: "ETHOS_CONTEXT.md", content: "dup by relative path", missing: false },
    ];
    const out = upsertMemoryRecord(files, ours, ws2);
    expect(out).toEqual([files[0], ours]);
    expect(upsertMemoryRecord([files[0]], ours, ws2)).toEqual([files[0], ours]);
  });
});

describe("configuredWorkspace (workspace for message:received before any bootstrap)", () => {
  const env = { HOME: "/home/jeff", OPENCLAW_STATE_DIR: "/state" };
  it("uses an explicit per-agent workspace, or the sole main agent's defaults", () => {
    expect(configuredWorkspace({ agents: { list: [{ id: "work", workspace: "~/w" }] } }, "work", env)).toBe("/home/jeff/w");
    expect(configuredWorkspace({ agents: { entries: { ops: { workspace: "/srv/ops" } } } }, "ops", env)).toBe("/srv/ops");
    expect(configuredWorkspace({ agents: { defaults: { workspace: "/ws" } } }, "main", env)).toBe("/ws");
    expect(configuredWorkspace({}, "main", { ...env, OPENCLAW_WORKSPACE_DIR: "/envws" })).toBe("/envws");
    expect(configuredWorkspace(undefined, "main", env)).toBe("/state/workspace");
  });

  it("never guesses in a multi-agent roster or for other agents", () => {
    expect(configuredWorkspace({ agents: { defaults: { workspace: "/ws" }, list: [{ id: "main" }, { id: "work" }] } }, "main", env)).toBeUndefined();
    expect(configuredWorkspace({ agents: { defaults: { workspace: "/ws" } } }, "work", env)).toBeUndefined();
  });
});

describe("one classification per turn (issue 25)", () => {
  it("message:received, aci-bootstrap and ethos-context of one turn classify the session key once, and a stranger's sender applies to all of them", async () => {
    let classified = 0;
    const counting: typeof classifySession = (key, options) => ((classified += 1), classifySession(key, options));
    const rt = runtime({ classify: counting });
    rt.onMessageReceived(message(MAIN, "What's my sailboat called?"));
    const event = bootstrap(MAIN);
    await rt.bootstrapFiles(event, coreFiles());
    expect(ourRecords(await rt.onAgentBootstrap(event))).toHaveLength(1);
    expect(classified).toBe(1);

    // A paired friend's message in the same main session (dmScope "main"): no memory, USER.md's set goes too.
    const friend = { ...message(MAIN, "What's my sailboat called?", "m-friend"), context: { content: "What's my sailboat called?", messageId: "m-friend", channelId: "telegram", metadata: { senderId: "777", provider: "telegram" } } };
    rt.onMessageReceived(friend as MessageReceivedEvent);
    const next = bootstrap(MAIN);
    expect(rt.turnOfBootstrap(next).classification).toMatchObject({ type: "EXTERNAL_DM", rule: "sender-not-owner" });
    expect(await rt.onAgentBootstrap(next)).toBeUndefined();
    expect(classified).toBe(1);
  });
});
