import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPluginAdapter } from "../../src/plugin/turns.ts";
import pluginEntry, { hostVersionOf, resolveBundleRoot, servesHost } from "../../plugin/index.js";
import { flushContextFileWrites } from "../../src/context/context-file.ts";
import { pluginDeliveryClaim, releaseMemoryDelivery } from "../../src/context/delivery.ts";
import { PluginConfigSchema } from "../../src/context/static-context.ts";
import { createMemoryContextService } from "../../src/context/service.ts";
import type { RetrieverFactory } from "../../src/context/service.ts";
import type { RetrievedMemory } from "../../src/memory/types.ts";
import { allowConversationAccess, installedPluginDir, pluginSupported, revertPluginConfig } from "../../src/ops/plugin-install.ts";

// The plugin adapter with a fake retriever and a fake host api: which channel carries what, per
// session type and trigger. The real-gateway proof is test/e2e/plugin.e2e.test.ts.

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "plugin-adapter-"));
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
const logger = { debug: (m: string) => lines.push(m), info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m), error: (m: string) => lines.push(m) };
const hostConfig = { hooks: { internal: { entries: { "ethos-context": { scope: { ownerIds: ["4242"] } } } } } };

function adapter(pluginConfig: unknown = {}, config: Record<string, unknown> = hostConfig) {
  const service = createMemoryContextService({ createRetriever: retriever, composeBlock: null, log: () => ({ debug: () => {}, info: () => {}, warn: () => {}, error: () => {} }) });
  return createPluginAdapter({ api: { config, pluginConfig, logger }, service });
}
const ctx = (sessionKey: string, trigger = "user", runId = `run-${Math.random()}`) => ({ sessionKey, workspaceDir: ws, trigger, runId });
const event = (prompt: string) => ({ prompt, messages: [] });

beforeEach(() => {
  ws = fs.mkdtempSync(path.join(tmp, "ws-"));
  fs.writeFileSync(path.join(ws, "SOUL.md"), "# Soul\nCalm and exact.\n");
  fs.writeFileSync(path.join(ws, "HEARTBEAT.md"), "# Heartbeat\nCheck the inbox.\n");
  fs.writeFileSync(path.join(ws, "USER.md"), "# User\nprivate\n");
  searches = [];
  lines = [];
});
afterEach(async () => {
  releaseMemoryDelivery();
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
    for (const key of ["agent:main:telegram:group:-100123", "agent:main:telegram:direct:9999", "agent:main:weird:thing:here"]) {
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

  it("options switch each channel off", async () => {
    const a = adapter({ memory: false, subagentSoul: false, heartbeatNotes: false });
    expect(await a.beforePromptBuild(event("What is my sailboat called?"), ctx("agent:main:main"))).toBeUndefined();
    expect(await a.beforePromptBuild(event("x"), ctx("agent:main:subagent:aaaa"))).toBeUndefined();
    expect(await a.beforePromptBuild(event("x"), ctx("agent:main:cron:job-1:run:abc", "cron"))).toBeUndefined();
  });

  it("a forum topic not opted in gets nothing; a heartbeat in the main session gets HEARTBEAT.md but no memory", async () => {
    const a = adapter();
    expect(await a.beforePromptBuild(event("What is my sailboat called?"), ctx("agent:main:telegram:group:-100123:topic:7"))).toBeUndefined();
    const heartbeat = await a.beforePromptBuild(event("What is my sailboat called?"), ctx("agent:main:main", "heartbeat"));
    expect(heartbeat?.prependContext).not.toContain(SAILBOAT.text);
    expect(searches).toEqual([]);
  });

  it("the hooks' switches stay in charge: ethos-context off → no memory; aci-bootstrap off → no static files", async () => {
    const off = (key: string) => ({ hooks: { internal: { entries: { ...hostConfig.hooks.internal.entries, [key]: { enabled: false } } } } });
    expect(await adapter({}, off("ethos-context")).beforePromptBuild(event("What is my sailboat called?"), ctx("agent:main:main"))).toBeUndefined();
    expect(await adapter({}, off("aci-bootstrap")).beforePromptBuild(event("x"), ctx("agent:main:subagent:aaaa"))).toBeUndefined();
    expect((await adapter({}, off("aci-bootstrap")).beforePromptBuild(event("What is my sailboat called?"), ctx("agent:main:main")))?.prependContext).toContain(SAILBOAT.text);
  });

  it("logs why it injects nothing", async () => {
    const a = adapter();
    await a.beforePromptBuild(event("ok"), ctx("agent:main:main"));
    expect(lines.some((line) => line.includes("no memory for this turn") && line.includes("skipped"))).toBe(true);
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
    const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, "..", "..", "plugin", "openclaw.plugin.json"), "utf8"));
    expect(manifest.configSchema.additionalProperties).toBe(false);
    expect(Object.keys(manifest.configSchema.properties).sort()).toEqual(Object.keys(PluginConfigSchema.shape).sort());
  });
});

describe("plugin/index.js", () => {
  it("serves 2026.9 and later, stands aside on 2026.3.x and unknown versions", () => {
    expect(servesHost("2026.9.6")).toBe(true);
    expect(servesHost("2027.1.0")).toBe(true);
    expect(servesHost("2026.3.13")).toBe(false);
    expect(servesHost(undefined)).toBe(false);
    expect(pluginSupported("2026.9.6")).toBe(true);
    expect(pluginSupported("2026.3.13")).toBe(false);
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

  it("finds the hook pack next to itself", () => {
    expect(resolveBundleRoot({}, {})).toBe(path.resolve(__dirname, "..", ".."));
  });

  function fakeApi(version: string, allow: boolean) {
    const handlers: string[] = [];
    const logs: string[] = [];
    const api = {
      id: "openclaw-context-companion",
      runtime: { version },
      config: allow ? { plugins: { entries: { "openclaw-context-companion": { hooks: { allowConversationAccess: true } } } } } : {},
      pluginConfig: {},
      logger: { info: (m: string) => logs.push(m), warn: (m: string) => logs.push(m), error: (m: string) => logs.push(m) },
      on: (name: string) => handlers.push(name),
    };
    return { api, handlers, logs };
  }

  it("on 2026.3.13 registers nothing and claims nothing (the hook keeps delivering)", () => {
    const { api, handlers, logs } = fakeApi("2026.3.13", true);
    pluginEntry.register(api);
    expect(handlers).toEqual([]);
    expect(pluginDeliveryClaim()).toBeUndefined();
    expect(logs.join("\n")).toContain("stands aside on OpenClaw 2026.3.13");
  });

  it("without allowConversationAccess registers nothing and says how to fix it", () => {
    const { api, handlers, logs } = fakeApi("2026.9.6", false);
    pluginEntry.register(api);
    expect(handlers).toEqual([]);
    expect(pluginDeliveryClaim()).toBeUndefined();
    expect(logs.join("\n")).toContain("allowConversationAccess");
  });

  it("on 2026.9.6 registers before_prompt_build and claims memory delivery", () => {
    const { api, handlers } = fakeApi("2026.9.6", true);
    pluginEntry.register(api);
    expect(handlers).toEqual(["before_prompt_build"]);
    expect(pluginDeliveryClaim()).toMatchObject({ owner: "plugin", hostVersion: "2026.9.6" });
  });
});

describe("plugin install unit: openclaw.json edits", () => {
  it("writes allowConversationAccess once and reverts exactly what it added", () => {
    const config: Record<string, unknown> = { plugins: { load: { paths: ["/other", "/state/hooks/openclaw-context/plugin"] }, entries: { other: { enabled: true } } } };
    expect(allowConversationAccess(config)).toBe(true);
    expect(allowConversationAccess(config)).toBe(false);
    expect(config).toMatchObject({ plugins: { entries: { "openclaw-context-companion": { hooks: { allowConversationAccess: true } } } } });
    expect(revertPluginConfig(config, { pluginDir: "/state/hooks/openclaw-context/plugin" })).toBe(true);
    expect(config).toEqual({ plugins: { load: { paths: ["/other"] }, entries: { other: { enabled: true } } } });
  });

  it("links the installed pack's plugin folder for each hook-pack mode", () => {
    const base = { workspace: "/ws", bundleRoot: "/checkout", env: { OPENCLAW_STATE_DIR: "/state" } };
    expect(installedPluginDir({ ...base, mode: "pack" })).toBe("/state/hooks/openclaw-context/plugin");
    expect(installedPluginDir({ ...base, mode: "link" })).toBe("/checkout/plugin");
    expect(installedPluginDir({ ...base, mode: "copy" })).toBe("/ws/hooks/openclaw-context/plugin");
  });
});
