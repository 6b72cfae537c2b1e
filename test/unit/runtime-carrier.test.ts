import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { flushContextFileWrites } from "../../src/context/context-file.ts";
import { PLUGIN_ID } from "../../src/host/ids.ts";
import { carrierMessage, createCarrierEngine, hostBuildsMemorySection, RUNTIME_CONTEXT_CUSTOM_TYPE } from "../../src/context/carrier-engine.ts";
import { describeDelivery, engineSelection, keepsCarriersInHistory, memoryDeliveryFor } from "../../src/context/delivery.ts";
import { estimateMessagesTokens } from "../../src/context/host-window.ts";
import type { RetrieverFactory } from "../../src/context/service.ts";
import { pluginTurns } from "./plugin-fixtures.ts";
import type { RetrievedMemory } from "../../src/memory/types.ts";
import { revertPluginConfig, selectContextEngine } from "../../src/ops/plugin-install.ts";

// The runtime-context carrier engine with a fake retriever and a fake host SDK, as the plugin builds
// it. The real-gateway proof is test/e2e/package-turns.e2e.test.ts and the cache suite.

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "runtime-carrier-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const SAILBOAT: RetrievedMemory = { id: "sailboat", text: "Jeff's sailboat is named Halcyon Drift.", score: 0.91, headingPath: [], source: "embedded" };
let ws: string;
let searches: string[];
let compactions: Record<string, unknown>[];
const retriever: RetrieverFactory = () => ({
  label: "workspace memory",
  async search(query) {
    searches.push(query);
    return [SAILBOAT];
  },
});
const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const selected = { plugins: { slots: { contextEngine: PLUGIN_ID } } };
const sdk = {
  async delegateCompactionToRuntime(params: Record<string, unknown>) {
    compactions.push(params);
    return { ok: true, compacted: true };
  },
  buildMemorySystemPromptAddition: () => "## Memory Recall\nrun memory_search first.",
};

function adapter(config: Record<string, unknown> = selected, pluginConfig: Record<string, unknown> = {}) {
  return pluginTurns(config, pluginConfig, { createRetriever: retriever });
}
const history = [{ role: "user", content: "hi" }, { role: "assistant", content: [{ type: "text", text: "hello" }] }];
const assembleParams = (sessionKey: string, prompt: string, extra: Record<string, unknown> = {}) => ({ sessionId: "s1", sessionKey, messages: history, prompt, model: "mock-model", availableTools: new Set(["memory_search"]), ...extra });

beforeEach(() => {
  ws = fs.mkdtempSync(path.join(tmp, "ws-"));
  searches = [];
  compactions = [];
});
afterEach(async () => {
  await flushContextFileWrites();
});

describe("delivery rule", () => {
  it("the carrier when our engine is selected, prependContext for models that keep carriers in history", () => {
    expect(memoryDeliveryFor({ engineSelected: true, modelId: "claude-sonnet-5" })).toBe("runtime-carrier");
    expect(memoryDeliveryFor({ engineSelected: true, modelId: "anthropic/claude-opus-5.5" })).toBe("prepend-context");
    expect(memoryDeliveryFor({ engineSelected: true, modelId: "claude-fable-5-1-20260901" })).toBe("prepend-context");
    expect(memoryDeliveryFor({ engineSelected: false, modelId: "claude-sonnet-5" })).toBe("prepend-context");
    expect(keepsCarriersInHistory("claude-fable-5")).toBe(false);
    expect(keepsCarriersInHistory("opus-5-5")).toBe(true);
    expect(keepsCarriersInHistory("claude-opus-5")).toBe(false);
  });

  it("slot: ours, unset/legacy, or another engine (then the plugin stands aside)", () => {
    expect(engineSelection(selected, PLUGIN_ID).kind).toBe("ours");
    expect(engineSelection({}, PLUGIN_ID).kind).toBe("not-selected");
    expect(engineSelection({ plugins: { slots: { contextEngine: "legacy" } } }, PLUGIN_ID).kind).toBe("not-selected");
    const other = engineSelection({ plugins: { slots: { contextEngine: "lossless-claw" } } }, PLUGIN_ID);
    expect(other).toEqual({ kind: "other", engineId: "lossless-claw" });
    expect(describeDelivery(other)).toMatch(/^prependContext \(context engine lossless-claw is configured/);
    expect(describeDelivery(engineSelection({}, PLUGIN_ID))).toContain("select it with: openclaw config set plugins.slots.contextEngine openclaw-context");
  });

  it("install selects our engine only when no other one is configured; uninstall removes only ours", () => {
    const fresh: Record<string, unknown> = {};
    expect(selectContextEngine(fresh)).toEqual({ changed: true, engine: PLUGIN_ID });
    expect(fresh).toEqual({ plugins: { slots: { contextEngine: PLUGIN_ID } } });
    const theirs = { plugins: { slots: { contextEngine: "lossless-claw" } } };
    expect(selectContextEngine(theirs)).toEqual({ changed: false, engine: "lossless-claw" });
    expect(theirs.plugins.slots.contextEngine).toBe("lossless-claw");
    expect(revertPluginConfig(fresh)).toBe(true);
    expect(fresh).toEqual({ plugins: { slots: {} } });
    expect(revertPluginConfig(theirs)).toBe(false);
  });

  it("the memory section comes back only where the host builds it (not for subagent or cron keys)", () => {
    expect(hostBuildsMemorySection("agent:main:main")).toBe(true);
    expect(hostBuildsMemorySection("agent:main:subagent:1b2c")).toBe(false);
    expect(hostBuildsMemorySection("agent:main:cron:job:run:s")).toBe(false);
  });
});

describe("the carrier message", () => {
  it("is OpenClaw's runtime-context shape, hidden, the block as its content", () => {
    const message = carrierMessage("Relevant memories (workspace memory), by date:", 5);
    expect(message).toEqual({
      role: "custom",
      customType: RUNTIME_CONTEXT_CUSTOM_TYPE,
      content: "Relevant memories (workspace memory), by date:",
      display: false,
      details: { source: "openclaw-context", runtimeContextCarrier: true },
      timestamp: 5,
    });
  });
});

describe("the engine (pass-through + one carrier)", () => {
  it("a main-session memory turn: history unchanged, the block appended as a carrier, the memory section handed back", async () => {
    const engine = adapter().contextEngine(sdk, ws)!;
    expect(engine).toBeDefined();
    const result = await engine.assemble(assembleParams("agent:main:main", "What is my sailboat called?"));
    expect(result.messages.slice(0, history.length)).toEqual(history);
    expect(result.messages[0]).toBe(history[0]);
    expect(result.messages).toHaveLength(history.length + 1);
    const carrier = result.messages.at(-1) as { customType: string; content: string };
    expect(carrier.customType).toBe(RUNTIME_CONTEXT_CUSTOM_TYPE);
    expect(carrier.content).toContain(SAILBOAT.text);
    expect(result.systemPromptAddition).toBe("## Memory Recall\nrun memory_search first.");
  });

  it("the tool loop's second assemble of the same turn gets the same carrier, without a second search", async () => {
    const engine = adapter().contextEngine(sdk, ws)!;
    const first = await engine.assemble(assembleParams("agent:main:main", "What is my sailboat called?"));
    const again = await engine.assemble(assembleParams("agent:main:main", undefined as unknown as string));
    expect((again.messages.at(-1) as { content: string }).content).toBe((first.messages.at(-1) as { content: string }).content);
    expect(searches).toHaveLength(1);
  });

  it("subagent, cron and heartbeat runs get no memory (session key and skip rules: the engine sees no trigger)", async () => {
    const engine = adapter().contextEngine(sdk, ws)!;
    for (const [key, prompt] of [
      ["agent:main:subagent:5f1e", "Where is my sailboat moored?"],
      ["agent:main:cron:job1:run:s9", "Where is my sailboat moored?"],
      ["agent:main:main:heartbeat", "Where is my sailboat moored?"],
      ["agent:main:main", "Read HEARTBEAT.md if it exists. If nothing needs attention, reply HEARTBEAT_OK."],
    ] as const) {
      const result = await engine.assemble(assembleParams(key, prompt));
      expect(result.messages, key).toEqual(history);
    }
    const subagent = await engine.assemble(assembleParams("agent:main:subagent:5f1e", "hi there"));
    expect(subagent.systemPromptAddition).toBeUndefined();
  });

  it("Claude Opus 5.5 gets no carrier from the engine; before_prompt_build delivers prependContext instead", async () => {
    const plugin = adapter();
    const engine = plugin.contextEngine(sdk, ws)!;
    const result = await engine.assemble(assembleParams("agent:main:main", "What is my sailboat called?", { model: "claude-opus-5-5" }));
    expect(result.messages).toEqual(history);
    const built = await plugin.beforePromptBuild({ prompt: "What is my sailboat called?", messages: [] }, { sessionKey: "agent:main:main", workspaceDir: ws, trigger: "user", runId: "r1", modelId: "claude-opus-5-5" });
    expect(built?.prependContext).toContain(SAILBOAT.text);
  });

  it("with the engine delivering, before_prompt_build adds no memory (no double delivery)", async () => {
    const plugin = adapter();
    const built = await plugin.beforePromptBuild({ prompt: "What is my sailboat called?", messages: [] }, { sessionKey: "agent:main:main", workspaceDir: ws, trigger: "user", runId: "r2", modelId: "mock-model" });
    expect(built?.prependContext ?? "").not.toContain(SAILBOAT.text);
  });

  it("another engine configured: no engine from us, prependContext as before", async () => {
    const plugin = adapter({ plugins: { slots: { contextEngine: "lossless-claw" } } });
    expect(plugin.contextEngine(sdk, ws)).toBeUndefined();
    expect(plugin.deliveryLine).toContain("lossless-claw");
    const built = await plugin.beforePromptBuild({ prompt: "What is my sailboat called?", messages: [] }, { sessionKey: "agent:main:main", workspaceDir: ws, trigger: "user", runId: "r3", modelId: "mock-model" });
    expect(built?.prependContext).toContain(SAILBOAT.text);
  });

  it("engine unavailable (host SDK missing): memory goes back to prependContext", async () => {
    const plugin = adapter();
    plugin.engineUnavailable("no sdk");
    const built = await plugin.beforePromptBuild({ prompt: "What is my sailboat called?", messages: [] }, { sessionKey: "agent:main:main", workspaceDir: ws, trigger: "user", runId: "r4", modelId: "mock-model" });
    expect(built?.prependContext).toContain(SAILBOAT.text);
  });

  it("compaction is OpenClaw's (the host delegate gets the call as is); commitTurn stores nothing and answers retries as duplicate", async () => {
    const engine = adapter().contextEngine(sdk, ws)!;
    expect(engine.info.ownsCompaction).toBe(false);
    const params = { sessionId: "s1", sessionKey: "agent:main:main", force: true };
    expect(await engine.compact(params)).toEqual({ ok: true, compacted: true });
    expect(compactions).toEqual([params]);
    expect(await engine.commitTurn({ advancementKey: "k1" })).toEqual({ status: "committed" });
    expect(await engine.commitTurn({ advancementKey: "k1" })).toEqual({ status: "duplicate" });
    expect(await engine.ingest()).toEqual({ ingested: false });
  });

  it("the host's budget reaches the turn: tokenBudget less the history it hands over", async () => {
    const seen: unknown[] = [];
    const engine = createCarrierEngine({
      engineId: PLUGIN_ID,
      workspaceDir: ws,
      memoryBlock: async (input) => (seen.push(input.window), undefined),
      delegateCompaction: async () => ({}),
      log: quiet,
    });
    await engine.assemble(assembleParams("agent:main:main", "What is my sailboat called?", { tokenBudget: 97_017 }));
    await engine.assemble(assembleParams("agent:main:main", "And where is it moored?", { sessionId: "s2" })); // no budget given
    expect(seen).toEqual([{ tokens: 97_017, usedTokens: estimateMessagesTokens(history), source: "host-budget" }, undefined]);
  });

  it("no room left in the host's budget (the history fills it, with the headroom): no carrier, the history as it was", async () => {
    const engine = adapter().contextEngine(sdk, ws)!;
    const long = [...history, { role: "user", content: "x".repeat(40_000) }]; // 10,000 tokens of history
    const full = await engine.assemble(assembleParams("agent:main:main", "What is my sailboat called?", { messages: long, tokenBudget: 10_300 }));
    expect(full.messages).toEqual(long);
    const roomy = await engine.assemble(assembleParams("agent:main:main", "What is my sailboat called?", { sessionId: "s2", messages: long, tokenBudget: 12_000 }));
    expect((roomy.messages.at(-1) as { content: string }).content).toContain(SAILBOAT.text);
  });

  it("before_prompt_build (no budget from the host): the model's contextWindow from openclaw.json, less the history", async () => {
    const models = { models: { providers: { mock: { models: [{ id: "mock-model", contextWindow: 16_000 }] } } } };
    const plugin = adapter({ ...models, plugins: { slots: { contextEngine: "lossless-claw" } } });
    const ctx = (runId: string) => ({ sessionKey: "agent:main:main", workspaceDir: ws, trigger: "user", runId, modelProviderId: "mock", modelId: "mock-model" });
    const history15k = [{ role: "user", content: "x".repeat(4 * 15_600) }]; // 16,000 − 15,600 − 500 headroom: no room
    const full = await plugin.beforePromptBuild({ prompt: "What is my sailboat called?", messages: history15k }, ctx("w1"));
    expect(full?.prependContext ?? "").not.toContain(SAILBOAT.text);
    const roomy = await plugin.beforePromptBuild({ prompt: "What is my sailboat called?", messages: history }, ctx("w2"));
    expect(roomy?.prependContext).toContain(SAILBOAT.text);
  });

  it("a failing memory source never breaks assemble: the host's messages come back as received", async () => {
    const engine = createCarrierEngine({
      engineId: PLUGIN_ID,
      workspaceDir: ws,
      memoryBlock: async () => {
        throw new Error("boom");
      },
      delegateCompaction: async () => ({}),
      memoryPromptAddition: () => {
        throw new Error("sdk");
      },
      log: quiet,
    });
    const result = await engine.assemble(assembleParams("agent:main:main", "What is my sailboat called?"));
    expect(result.messages).toBe(history);
    expect(result.systemPromptAddition).toBeUndefined();
  });
});

describe("static context through the engine", () => {
  const packaged = adapter;
  beforeEach(() => {
    fs.writeFileSync(path.join(ws, "SOUL.md"), "# SOUL\nsoul-text-7d\n");
    fs.writeFileSync(path.join(ws, "HEARTBEAT.md"), "# HEARTBEAT\nheartbeat-text-3c\n");
    fs.writeFileSync(path.join(ws, "USER.md"), "# USER\nuser-text-9a\n");
  });

  it("a subagent gets SOUL.md and a cron run HEARTBEAT.md as systemPromptAddition, neither USER.md nor memory; a main turn neither file", async () => {
    const engine = packaged().contextEngine(sdk, ws)!;
    const sub = await engine.assemble(assembleParams("agent:main:subagent:5f1e", "Where is my sailboat moored?"));
    expect(sub.systemPromptAddition).toBe("## SOUL.md\n\n# SOUL\nsoul-text-7d\n");
    expect(sub.messages).toEqual(history);
    const cron = await engine.assemble(assembleParams("agent:main:cron:job1:run:s9", "Where is my sailboat moored?"));
    expect(cron.systemPromptAddition).toBe("## HEARTBEAT.md\n\n# HEARTBEAT\nheartbeat-text-3c\n");
    expect(JSON.stringify(cron)).not.toContain("user-text-9a");
    const main = await engine.assemble(assembleParams("agent:main:main", "What is my sailboat called?"));
    expect(main.systemPromptAddition).toBe("## Memory Recall\nrun memory_search first.");
  });

  it("before_prompt_build then adds no second copy; with the engine not selected it still delivers appendSystemContext", async () => {
    const ctx = { sessionKey: "agent:main:subagent:5f1e", workspaceDir: ws, trigger: "user", runId: "r9", modelId: "mock-model" };
    expect(await packaged().beforePromptBuild({ prompt: "hi", messages: [] }, ctx)).toBeUndefined();
    const legacy = await packaged({}).beforePromptBuild({ prompt: "hi", messages: [] }, ctx);
    expect(legacy?.appendSystemContext).toContain("soul-text-7d");
  });

  it("bootstrap: false switches static context off; subagentSoul and heartbeatNotes each switch their file off", async () => {
    const off = packaged(selected, { bootstrap: false }).contextEngine(sdk, ws)!;
    expect((await off.assemble(assembleParams("agent:main:subagent:5f1e", "hi"))).systemPromptAddition).toBeUndefined();
    const noSoul = packaged(selected, { subagentSoul: false }).contextEngine(sdk, ws)!;
    expect((await noSoul.assemble(assembleParams("agent:main:subagent:5f1e", "hi"))).systemPromptAddition).toBeUndefined();
    expect((await noSoul.assemble(assembleParams("agent:main:cron:job1:run:s9", "hi"))).systemPromptAddition).toContain("heartbeat-text-3c");
    const noNotes = packaged(selected, { heartbeatNotes: false }).contextEngine(sdk, ws)!;
    expect((await noNotes.assemble(assembleParams("agent:main:cron:job1:run:s9", "hi"))).systemPromptAddition).toBeUndefined();
  });

  it("a failing static source never breaks assemble", async () => {
    const engine = createCarrierEngine({
      engineId: "x",
      workspaceDir: ws,
      memoryBlock: async () => undefined,
      delegateCompaction: async () => ({}),
      staticPromptAddition: async () => {
        throw new Error("disk gone");
      },
      log: quiet,
    });
    const result = await engine.assemble(assembleParams("agent:main:subagent:5f1e", "hi"));
    expect(result.messages).toEqual(history);
    expect(result.systemPromptAddition).toBeUndefined();
  });
});
