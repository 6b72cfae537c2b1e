import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway } from "./gateway.ts";
import type { Gateway, StartGatewayOptions } from "./gateway.ts";
import { messagesOf as allMessagesOf, messageText } from "./mock-model.ts";
import type { RecordedRequest } from "./mock-model.ts";

// Memory as OpenClaw's own runtime-context carrier, through the companion plugin's context engine
// (2026.9.6, Anthropic messages API so the requests show where OpenClaw puts cache_control).
// What the engine relies on is a row of HOOK_ASSUMPTIONS.md ("Runtime-context carrier").

const FACT = "Jeff's sailboat is named Halcyon Drift; it is moored at slip 14 in Sausalito.";
const PLUGIN_ID = "openclaw-context-companion";
const MAIN = "agent:main:main";

type Block = { type?: string; text?: string; cache_control?: unknown };
type Message = { role: string; content: string | Block[] };

const messagesOf = (request: RecordedRequest) => allMessagesOf(request) as Message[];
const hasBreakpoint = (message: Message) => Array.isArray(message.content) && message.content.some((block) => block.cache_control !== undefined);
const textOf = (message: Message) => messageText(message.content);

/** chat.send, wait for the model request, then for the run to end (the next turn starts on a complete transcript). */
async function turn(gateway: Gateway, sessionKey: string, text: string) {
  // Generous bounds: a cold gateway on a loaded 2-core machine can take minutes for its first turn.
  const result = await gateway.chatSend(sessionKey, text, 600_000);
  const runId = (result.cliJson as { runId?: unknown } | undefined)?.runId;
  if (typeof runId === "string") await gateway.call("agent.wait", { runId, timeoutMs: 600_000 }, { timeoutMs: 605_000 });
  return result;
}

async function chatHistory(gateway: Gateway, sessionKey: string): Promise<string> {
  // As `gateway call chat.history --json` prints it.
  return JSON.stringify(await gateway.call("chat.history", { sessionKey }, { timeoutMs: 60_000 }), null, 2);
}

const hex = () => crypto.randomBytes(3).toString("hex");

/**
 * A 2026.9.6 gateway with both hooks and the companion plugin (its engine selected), on the
 * Anthropic messages API so the requests show where OpenClaw puts cache_control. De-duplication
 * forgets after one turn, so every memory question can get the fact.
 */
function startCarrierGateway(extra: Pick<StartGatewayOptions, "config" | "modelId"> = {}): Promise<Gateway> {
  return startGateway({
    version: "2026.9.6",
    hooks: { "ethos-context": { enabled: true, dedupeExpiryTurns: 1 }, "aci-bootstrap": { enabled: true } },
    installPlugin: true,
    installProbe: false,
    modelApi: "anthropic-messages",
    ...extra,
  });
}

describe("memory as a runtime-context carrier on OpenClaw 2026.9.6 (the plugin's context engine)", () => {
  let gateway: Gateway;

  beforeAll(async () => {
    gateway = await startCarrierGateway();
  }, 600_000);
  afterAll(async () => {
    await gateway?.stop();
  });

  it("the plugin registers its engine, OpenClaw selects it (plugins.slots.contextEngine), and the log says which delivery is in use", { timeout: 120_000 }, async () => {
    expect(gateway.logs()).toContain(`[${PLUGIN_ID}] memory delivery: runtime-context carrier through context engine ${PLUGIN_ID}`);
  });

  it("a memory turn: the block is its own user message after this turn's message, with no breakpoint on it; the system prompt holds no memory", { timeout: 900_000 }, async () => {
    const text = `What is my sailboat named, and where is it moored? ${hex()}`;
    const { request, systemPrompt } = await turn(gateway, MAIN, text);
    const messages = messagesOf(request);
    const own = messages.findIndex((m) => m.role === "user" && textOf(m).includes(text));
    expect(own).toBeGreaterThanOrEqual(0);
    expect(textOf(messages[own]!)).not.toContain("Halcyon Drift");
    // OpenClaw's message breakpoint stays on the turn's own message, which is replayed unchanged.
    expect(hasBreakpoint(messages[own]!)).toBe(true);
    const carriers = messages.slice(own + 1).filter((m) => textOf(m).includes(FACT));
    expect(carriers).toHaveLength(1);
    expect(carriers[0]!.role).toBe("user");
    expect(hasBreakpoint(carriers[0]!)).toBe(false);
    expect(textOf(carriers[0]!)).toContain("Relevant memories (workspace memory), by date:");
    expect(systemPrompt).not.toContain("Halcyon Drift");
  });

  it("the next request replays that turn without the block (entry readable), and nothing of it is in chat.history", { timeout: 900_000 }, async () => {
    const memoryText = `Where is my sailboat moored, and what is it called? ${hex()}`;
    const first = await turn(gateway, MAIN, memoryText);
    const second = await turn(gateway, MAIN, `Thanks, that is all for now, have a nice evening! ${hex()}`);
    const before = messagesOf(first.request);
    const after = messagesOf(second.request);
    const own = before.findIndex((m) => m.role === "user" && textOf(m).includes(memoryText));
    // Everything up to and including the breakpoint message comes back with the same role and text
    // (OpenClaw sends the current turn as a text block and replays it as a string: the same content
    // for Anthropic's cache; bench/cache/analyse.ts prices exactly this).
    const same = (m: Message) => `${m.role}: ${textOf(m)}`;
    expect(after.slice(0, own + 1).map(same)).toEqual(before.slice(0, own + 1).map(same));
    expect(gateway.model.userTextOf(second.request)).not.toContain("Halcyon Drift");
    expect(second.systemPrompt).toBe(first.systemPrompt);
    const history = await chatHistory(gateway, MAIN);
    expect(history).toContain(memoryText);
    expect(history).not.toContain("Halcyon Drift");
    expect(history).not.toContain("Relevant memories (");
  });

  it("a subagent run gets no memory (session-key rule: the engine sees no trigger)", { timeout: 900_000 }, async () => {
    const { request, systemPrompt } = await turn(gateway, `agent:main:subagent:${crypto.randomUUID()}`, `Where is my sailboat moored, and what is it named? ${hex()}`);
    expect(systemPrompt + gateway.model.userTextOf(request)).not.toContain("Halcyon Drift");
  });

  it("a cron run gets no memory", { timeout: 900_000 }, async () => {
    const run = await gateway.cronTurn(`Cron check: where is my sailboat moored? ${hex()}`);
    expect(run.systemPrompt + gateway.model.userTextOf(run.request)).not.toContain("Halcyon Drift");
  });

  it("a heartbeat run in the main session gets no memory", { timeout: 900_000 }, async () => {
    const run = await gateway.heartbeatTurn(`Heartbeat: where is my sailboat moored? ${hex()}`);
    expect(run.systemPrompt + gateway.model.userTextOf(run.request)).not.toContain("Halcyon Drift");
  });
});

describe("compaction through the plugin's context engine (2026.9.6)", () => {
  let gateway: Gateway;

  beforeAll(async () => {
    // A fresh session with plain messages: OpenClaw's compaction safeguard audits the summary
    // (sections, identifiers, the latest ask), and the mock model's reply passes it only for a short,
    // plain history (a longer one with random ids was refused: "failed quality checks").
    gateway = await startCarrierGateway();
  }, 600_000);
  afterAll(async () => {
    await gateway?.stop();
  });

  it("a compaction mid-session goes through the engine to OpenClaw's own compaction; the session continues with memory", { timeout: 1_800_000 }, async () => {
    let lastBefore!: RecordedRequest;
    for (const text of ["What is my sailboat named?", "How do I reverse a linked list in TypeScript?", "Thanks, that helps!"]) lastBefore = (await turn(gateway, MAIN, text)).request;
    // The sessions.compact RPC (what `openclaw sessions compact` wraps), with an explicit RPC budget:
    // OpenClaw summarises with the model, which a loaded machine makes slow.
    const result = await gateway.call<{ ok?: boolean; compacted?: boolean; result?: { summary?: string } }>("sessions.compact", { key: MAIN }, { timeoutMs: 900_000 });
    const out = JSON.stringify(result);
    expect(result.ok, out).toBe(true);
    expect(result.compacted, out).toBe(true);
    expect(gateway.logs()).toContain(`[${PLUGIN_ID}] compaction handed to OpenClaw`);

    const text = `Remind me: what is my sailboat named? ${hex()}`;
    const { request } = await turn(gateway, MAIN, text);
    const messages = messagesOf(request);
    // The model sees the compacted history: OpenClaw's summary first, the earlier turns folded into it.
    expect(textOf(messages[0]!)).toMatch(/^The conversation history before this point was compacted into the following summary/);
    expect(messages.length).toBeLessThan(messagesOf(lastBefore).length);
    const own = messages.findIndex((m) => m.role === "user" && textOf(m).includes(text));
    expect(own).toBeGreaterThan(0);
    expect(messages.slice(own + 1).some((m) => textOf(m).includes(FACT))).toBe(true);
  });
});

describe("another context engine configured: the plugin stands aside and keeps prependContext (2026.9.6)", () => {
  let gateway: Gateway;

  beforeAll(async () => {
    gateway = await startCarrierGateway({ config: { plugins: { slots: { contextEngine: "e2e-other-engine" } } } });
  }, 600_000);
  afterAll(async () => {
    await gateway?.stop();
  });

  it("one log line says why, and the memory arrives on this turn's user message", { timeout: 900_000 }, async () => {
    const text = `What is my sailboat named, and where is it moored? ${hex()}`;
    const { request } = await turn(gateway, MAIN, text);
    const lines = gateway.logs().split("\n").filter((line) => line.includes(`[${PLUGIN_ID}] memory delivery:`));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => line.includes("prependContext (context engine e2e-other-engine is configured; only one engine can be active, so the plugin stands aside)"))).toBe(true);
    const own = messagesOf(request).find((m) => m.role === "user" && textOf(m).includes(text))!;
    expect(textOf(own)).toContain(FACT);
  });
});

describe("Claude Opus 5.5 (OpenClaw keeps its runtime context append-only): the engine adds no carrier, memory rides on the user message (2026.9.6)", () => {
  let gateway: Gateway;
  const OPUS = "claude-opus-5-5";

  beforeAll(async () => {
    // The mock answers whatever model the gateway names; this one is the id OpenClaw's
    // bindsClaudeThinkingPrefix matches (HOOK_ASSUMPTIONS.md `appendOnlyModels`).
    gateway = await startCarrierGateway({ modelId: OPUS });
  }, 600_000);
  afterAll(async () => {
    await gateway?.stop();
  });

  it("the request names the model, the fact is in this turn's own user message, and no message after it carries the block", { timeout: 900_000 }, async () => {
    const text = `What is my sailboat named, and where is it moored? ${hex()}`;
    const { request, systemPrompt } = await turn(gateway, MAIN, text);
    expect(request.body.model).toBe(OPUS);
    const messages = messagesOf(request);
    const own = messages.findIndex((m) => m.role === "user" && textOf(m).includes(text));
    expect(own).toBeGreaterThanOrEqual(0);
    expect(textOf(messages[own]!)).toContain(FACT);
    expect(messages.slice(own + 1).some((m) => textOf(m).includes("Halcyon Drift"))).toBe(false);
    expect(systemPrompt).not.toContain("Halcyon Drift");
  });
});
