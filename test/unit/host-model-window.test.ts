// The model's window where the host gives no budget (agent:bootstrap on 2026.3.13, before_prompt_build
// on 2026.9.6): openclaw.json's model entry, resolved as OpenClaw resolves it, and the hook pack's
// turn bounded by it (persistent memory spec §6, headroom).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { flushContextFileWrites } from "../../src/context/context-file.ts";
import { bootstrapWindow } from "../../src/hook-pack/memory-turns.ts";
import { HookPack } from "../../src/hook-pack/service.ts";
import { RETRIEVED_MEMORY_RECORD_NAME } from "../../src/host/ids.ts";
import type { AgentBootstrapEvent, BootstrapFileRecord, MessageReceivedEvent } from "../../src/host/events.ts";
import { modelContextWindow } from "../../src/host/model-window.ts";

const models = (contextWindow: number) => ({ providers: { mock: { models: [{ id: "mock-model", contextWindow }] }, big: { models: [{ id: "wide", contextWindow: 1_000_000 }] } } });

describe("modelContextWindow (openclaw.json)", () => {
  it("the agent's model, else the default model (a string or { primary }), capped by agents.defaults.contextTokens", () => {
    const cfg = { models: models(128_000), agents: { defaults: { model: { primary: "mock/mock-model" } }, list: [{ id: "scout", model: "big/wide" }] } };
    expect(modelContextWindow(cfg)).toBe(128_000);
    expect(modelContextWindow(cfg, { agentId: "main" })).toBe(128_000);
    expect(modelContextWindow(cfg, { agentId: "scout" })).toBe(1_000_000);
    expect(modelContextWindow({ ...cfg, agents: { ...cfg.agents, defaults: { model: "mock/mock-model", contextTokens: 32_000 } } })).toBe(32_000);
    // The turn's provider and model when the host names them (before_prompt_build on 2026.9.6).
    expect(modelContextWindow(cfg, { provider: "big", modelId: "wide" })).toBe(1_000_000);
  });

  it("no window when the config does not say: a built-in catalog model, no model, a bad value, a hostile object", () => {
    expect(modelContextWindow(undefined)).toBeUndefined();
    expect(modelContextWindow({ agents: { defaults: { model: "anthropic/claude-sonnet-5" } }, models: models(128_000) })).toBeUndefined();
    expect(modelContextWindow({ agents: { defaults: { model: "mock/mock-model" } }, models: models(-5) })).toBeUndefined();
    expect(modelContextWindow({ agents: { defaults: { model: "mock-model" } }, models: models(128_000) })).toBeUndefined();
    expect(modelContextWindow({ agents: { defaults: { model: "__proto__/x" } }, models: models(128_000) })).toBeUndefined();
    const hostile = Object.defineProperty({}, "agents", { get: () => { throw new Error("getter"); }, enumerable: true });
    expect(modelContextWindow(hostile)).toBeUndefined();
  });
});

describe("the hook pack's turn (agent:bootstrap: no budget from the host)", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "model-window-"));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  afterEach(async () => {
    await flushContextFileWrites();
    setLogDestination(undefined);
  });
  const MAIN = "agent:main:main";
  const HIT = { id: "sailboat", text: "Jeff's sailboat is named Halcyon Drift.", score: 0.91, headingPath: [], source: "embedded" as const };

  function bootstrap(ws: string, cfg: Record<string, unknown>, soulChars: number): AgentBootstrapEvent {
    const files: BootstrapFileRecord[] = [{ name: "SOUL.md", path: path.join(ws, "SOUL.md"), content: "s".repeat(soulChars), missing: false }];
    return { type: "agent", action: "bootstrap", sessionKey: MAIN, context: { workspaceDir: ws, bootstrapFiles: files, cfg, sessionKey: MAIN, agentId: "main" }, messages: [] };
  }

  it("the window is the model's contextWindow, less the bootstrap files the event carries", () => {
    const cfg = { models: models(16_000), agents: { defaults: { model: "mock/mock-model" } } };
    expect(bootstrapWindow(bootstrap(tmp, cfg, 40_000), cfg, undefined)).toEqual({ tokens: 16_000, usedTokens: 10_000, source: "model-config" });
    expect(bootstrapWindow(bootstrap(tmp, {}, 40_000), {}, undefined)).toBeUndefined();
  });

  it("bootstrap files that fill the window (with the headroom) leave no memory record; a roomy window gets it", async () => {
    setLogDestination({ write: () => {} } as never);
    const run = async (soulChars: number) => {
      const ws = fs.mkdtempSync(path.join(tmp, "ws-"));
      const cfg = { models: models(16_000), agents: { defaults: { model: "mock/mock-model", workspace: ws } }, hooks: { internal: { entries: { "ethos-context": {} } } } };
      const pack = new HookPack({ createRetriever: () => ({ label: "workspace memory", search: async () => [HIT] }), composeBlock: null, loadOpenClawConfig: () => cfg });
      const message: MessageReceivedEvent = { type: "message", action: "received", sessionKey: MAIN, context: { content: "What is my sailboat called?", messageId: `m${soulChars}`, channelId: "webchat" }, messages: [] };
      pack.onMessageReceived(message);
      const files = await pack.onAgentBootstrap(bootstrap(ws, cfg, soulChars));
      return (files ?? []).find((file) => (file as BootstrapFileRecord).name === RETRIEVED_MEMORY_RECORD_NAME) as BootstrapFileRecord | undefined;
    };
    expect(await run(4 * 15_600)).toBeUndefined(); // 16,000 − 15,600 − 500 headroom < 0
    expect((await run(4 * 1_000))?.content).toContain("Halcyon Drift");
  });
});
