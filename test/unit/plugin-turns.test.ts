import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { flushContextFileWrites } from "../../src/context/context-file.ts";
import { PluginConfigSchema } from "../../src/context/plugin-config.ts";
import type { RetrieverFactory } from "../../src/context/service.ts";
import { sessionTag } from "../../src/core/bounded-id.ts";
import { setLogDestination } from "../../src/core/log.ts";
import { hostVersionOf, pluginServesHost } from "../../src/host/version.ts";
import type { RetrievedMemory } from "../../src/memory/types.ts";
import { classifySession } from "../../src/session/classify.ts";
import { pluginTurns } from "./plugin-fixtures.ts";

// The plugin's turn adapter with a fake retriever and no engine selected (so before_prompt_build
// carries memory as prependContext): which channel carries what, per session type, trigger and
// sender. The real-gateway proof is the package e2e suites.

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "plugin-turns-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const SAILBOAT: RetrievedMemory = { id: "sailboat", text: "Jeff's sailboat is named Halcyon Drift.", score: 0.91, headingPath: [], source: "embedded" };
let ws: string;
let searches: string[];
let lines: string[];

const retriever: RetrieverFactory = () => ({
  label: "workspace memory",
  async search(query) {
    searches.push(query);
    return [SAILBOAT];
  },
});
const hostConfig = { commands: { ownerAllowFrom: ["telegram:4242"] } };

function adapter(pluginConfig: Record<string, unknown> = {}, config: Record<string, unknown> = hostConfig) {
  return pluginTurns(config, pluginConfig, { createRetriever: retriever });
}
const ctx = (sessionKey: string, trigger = "user", runId = `run-${Math.random()}`, extra: Record<string, unknown> = {}) => ({ sessionKey, workspaceDir: ws, trigger, runId, ...extra });
const event = (prompt: string) => ({ prompt, messages: [] });

beforeEach(() => {
  ws = fs.mkdtempSync(path.join(tmp, "ws-"));
  fs.writeFileSync(path.join(ws, "SOUL.md"), "# Soul\nCalm and exact.\n");
  fs.writeFileSync(path.join(ws, "HEARTBEAT.md"), "# Heartbeat\nCheck the inbox.\n");
  fs.writeFileSync(path.join(ws, "USER.md"), "# User\nprivate\n");
  searches = [];
  lines = [];
  setLogDestination(new Writable({ write: (chunk, _e, cb) => (lines.push(String(chunk)), cb()) }) as never);
});
afterEach(async () => {
  setLogDestination(undefined);
  await flushContextFileWrites();
});

describe("before_prompt_build: which channel carries what", () => {
  it("a main-session user turn gets the memory block as prependContext, nothing in the system prompt", async () => {
    const result = await adapter().beforePromptBuild(event("What is my sailboat called?"), ctx("agent:main:main"));
    expect(result?.prependContext).toContain(SAILBOAT.text);
    expect(result?.prependContext).toContain("Relevant memories (workspace memory), by date:"); // the compact layout
    expect(result?.appendSystemContext).toBeUndefined();
  });

  it("an owner DM gets memory; a group, an external DM and an unknown key do not (and no search runs)", async () => {
    const a = adapter();
    expect((await a.beforePromptBuild(event("What is my sailboat called?"), ctx("agent:main:telegram:direct:4242")))?.prependContext).toContain(SAILBOAT.text);
    searches = [];
    for (const key of ["agent:main:telegram:group:-100123", "agent:main:telegram:direct:9999", "agent:main:irc:direct:4242", "agent:main:weird:thing:here"]) {
      expect(await a.beforePromptBuild(event("What is my sailboat called?"), ctx(key))).toBeUndefined();
    }
    expect(searches).toEqual([]);
  });

  it("a subagent gets SOUL.md as appendSystemContext, the same text every run, and no memory or USER.md", async () => {
    const a = adapter();
    const first = await a.beforePromptBuild(event("What is my sailboat called?"), ctx("agent:main:subagent:aaaa-1111"));
    const second = await a.beforePromptBuild(event("Different question entirely"), ctx("agent:main:subagent:bbbb-2222"));
    expect(first).toEqual({ appendSystemContext: "## SOUL.md\n\n# Soul\nCalm and exact.\n" });
    expect(second).toEqual(first);
    expect(searches).toEqual([]);
  });

  it("a cron run gets HEARTBEAT.md as appendSystemContext; a heartbeat in the main session gets it as prependContext", async () => {
    const a = adapter();
    const cron = await a.beforePromptBuild(event("Daily check"), ctx("agent:main:cron:job-1:run:abc", "cron"));
    expect(cron).toEqual({ appendSystemContext: "## HEARTBEAT.md\n\n# Heartbeat\nCheck the inbox.\n" });
    const heartbeat = await a.beforePromptBuild(event("heartbeat"), ctx("agent:main:main", "heartbeat"));
    expect(heartbeat).toEqual({ prependContext: "## HEARTBEAT.md\n\n# Heartbeat\nCheck the inbox.\n" });
    expect(searches).toEqual([]);
  });

  it("the plugin's switches turn each channel off: memory, subagentSoul, heartbeatNotes, bootstrap", async () => {
    const a = adapter({ memory: false, subagentSoul: false, heartbeatNotes: false });
    expect(await a.beforePromptBuild(event("What is my sailboat called?"), ctx("agent:main:main"))).toBeUndefined();
    expect(await a.beforePromptBuild(event("x"), ctx("agent:main:subagent:aaaa"))).toBeUndefined();
    expect(await a.beforePromptBuild(event("x"), ctx("agent:main:cron:job-1:run:abc", "cron"))).toBeUndefined();
    const noFiles = adapter({ bootstrap: false });
    expect(await noFiles.beforePromptBuild(event("x"), ctx("agent:main:subagent:aaaa"))).toBeUndefined();
    expect((await noFiles.beforePromptBuild(event("What is my sailboat called?"), ctx("agent:main:main")))?.prependContext).toContain(SAILBOAT.text);
  });

  it("a forum topic not opted in gets nothing; a heartbeat in the main session gets HEARTBEAT.md but no memory", async () => {
    const a = adapter();
    expect(await a.beforePromptBuild(event("What is my sailboat called?"), ctx("agent:main:telegram:group:-100123:topic:7"))).toBeUndefined();
    const heartbeat = await a.beforePromptBuild(event("What is my sailboat called?"), ctx("agent:main:main", "heartbeat"));
    expect(heartbeat?.prependContext).not.toContain(SAILBOAT.text);
    expect(searches).toEqual([]);
  });

  it("logs why it injects nothing: one memory line per turn, with its session tag (never the key)", async () => {
    await adapter().beforePromptBuild(event("ok"), ctx("agent:main:main"));
    const memory = lines.filter((line) => line.includes('"event":"memory.turn"'));
    expect(memory).toHaveLength(1);
    expect(memory[0]).toContain('"status":"skipped"');
    expect(memory[0]).toContain(`"session":"${sessionTag("agent:main:main")}"`);
    expect(memory[0]).not.toContain("agent:main:main");
  });

  it("never throws: a malformed event or context gives undefined", async () => {
    const a = adapter();
    expect(await a.beforePromptBuild(null, null)).toBeUndefined();
    expect(await a.beforePromptBuild(event("x"), { sessionKey: 42 })).toBeUndefined();
  });

  it("the config schema is strict and names the key", () => {
    expect(PluginConfigSchema.safeParse({ waitMs: 500 }).success).toBe(true);
    const bad = PluginConfigSchema.safeParse({ waitMS: 500 });
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toContain("waitMS");
  });
});

describe("who sent the message (issue 24: identity by sender)", () => {
  const dmScopeMain = { commands: { ownerAllowFrom: ["telegram:4242"] } };

  it("the main session with a non-owner sender gets no memory and no search; the owner's turn does", async () => {
    const a = adapter({}, dmScopeMain);
    const friend = await a.beforePromptBuild(event("What is my sailboat called?"), ctx("agent:main:main", "user", "r-friend", { channel: "telegram", senderId: "5555" }));
    expect(friend).toBeUndefined();
    expect(searches).toEqual([]);
    expect(lines.some((line) => line.includes('"event":"memory.turn"') && line.includes('"status":"out-of-scope"') && line.includes('"reason":"not-owner"'))).toBe(true);
    const owner = await a.beforePromptBuild(event("What is my sailboat called?"), ctx("agent:main:main", "user", "r-owner", { channel: "telegram", senderId: "4242" }));
    expect(owner?.prependContext).toContain(SAILBOAT.text);
  });

  it("the owner's id on another channel is someone else; the gateway's own surfaces (webchat) are the operator", async () => {
    const a = adapter({}, dmScopeMain);
    expect(await a.beforePromptBuild(event("What is my sailboat called?"), ctx("agent:main:main", "user", "r-irc", { channel: "irc", senderId: "4242" }))).toBeUndefined();
    const webchat = await a.beforePromptBuild(event("What is my sailboat called?"), ctx("agent:main:main", "user", "r-web", { channel: "webchat", senderId: "cli" }));
    expect(webchat?.prependContext).toContain(SAILBOAT.text);
  });

  it("a stranger's message noted for the session keeps the engine's carrier (no sender there) free of memory", async () => {
    const a = adapter({}, { ...dmScopeMain, plugins: { slots: { contextEngine: "openclaw-context" } } });
    a.context.turns.message("agent:main:main", a.cfg(), { channel: "telegram", id: "5555" }); // message:received of a paired friend
    const sdk = { delegateCompactionToRuntime: async () => ({}) };
    const engine = a.contextEngine(sdk, ws)!;
    const result = await engine.assemble({ sessionId: "s", sessionKey: "agent:main:main", messages: [], prompt: "What is my sailboat called?", model: "mock" });
    expect(result.messages).toEqual([]);
    expect(searches).toEqual([]);
  });
});

describe("one classification per turn (issue 25)", () => {
  it("a turn's events (message, engine, before_prompt_build) classify its key once, and the config view is built once", async () => {
    let calls = 0;
    const counting: typeof classifySession = (key, options) => ((calls += 1), classifySession(key, options));
    const a = pluginTurns({ plugins: { slots: { contextEngine: "openclaw-context" } } }, {}, { createRetriever: retriever, classify: counting });
    const sdk = { delegateCompactionToRuntime: async () => ({}) };
    const engine = a.contextEngine(sdk, ws)!;
    a.context.turns.message("agent:main:main", a.cfg(), { channel: "webchat", id: "cli" }); // message:received
    await engine.assemble({ sessionId: "s", sessionKey: "agent:main:main", messages: [], prompt: "What is my sailboat called?", model: "mock" });
    await a.beforePromptBuild(event("What is my sailboat called?"), ctx("agent:main:main", "user", "r1", { channel: "webchat", senderId: "cli" }));
    await engine.assemble({ sessionId: "s", sessionKey: "agent:main:main", messages: [{ role: "user" }], prompt: "And where is it moored?", model: "mock" });
    expect(calls).toBe(1);
  });
});

describe("the version gate and the host version", () => {
  it("serves 2026.9 and later, stands aside on 2026.3.x and unknown versions", () => {
    expect(pluginServesHost("2026.9.6")).toBe(true);
    expect(pluginServesHost("2027.1.0")).toBe(true);
    expect(pluginServesHost("2026.9.0")).toBe(true);
    expect(pluginServesHost("2026.3.13")).toBe(false);
    expect(pluginServesHost(undefined)).toBe(false);
  });

  it("reads the host version from the runtime, else from the openclaw package the gateway runs, else from openclaw.json", () => {
    expect(hostVersionOf({ runtime: { version: "2026.9.6" } })).toBe("2026.9.6");
    const host = fs.mkdtempSync(path.join(tmp, "host-"));
    fs.mkdirSync(path.join(host, "dist"));
    fs.writeFileSync(path.join(host, "package.json"), JSON.stringify({ name: "openclaw", version: "2026.3.13" }));
    fs.writeFileSync(path.join(host, "openclaw.mjs"), "");
    expect(hostVersionOf({ runtime: { version: "unknown" } }, path.join(host, "openclaw.mjs"))).toBe("2026.3.13");
    expect(hostVersionOf({ runtime: {}, config: { meta: { lastTouchedVersion: "2026.3.13" } } }, path.join(tmp, "nowhere.mjs"))).toBe("2026.3.13");
    expect(hostVersionOf({}, path.join(tmp, "nowhere.mjs"))).toBeUndefined();
  });
});
