import crypto from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway } from "./gateway.ts";
import type { Gateway } from "./gateway.ts";
import { messagesOf, messageText } from "./mock-model.ts";
import type { RecordedRequest } from "./mock-model.ts";
import { HEARTBEAT_SENTINEL, MEMORY_SENTINEL, SOUL_SENTINEL, sentinelFiles, USER_SENTINEL } from "./sentinels.ts";
import { waitForFileContaining } from "./wait-file.ts";

// The companion plugin on real gateways. On 2026.9.6 the memory block travels with this turn only,
// as a runtime-context carrier through the plugin's context engine (test/e2e/runtime-carrier.e2e.test.ts
// covers the carrier and the prependContext fallback), the system prompt stays byte-identical from
// turn to turn, subagents get
// SOUL.md and cron runs HEARTBEAT.md through appendSystemContext, and the ethos-context hook adds no
// record of its own. On 2026.3.13 the plugin stands aside and the hook's record is the delivery.

const FACT = "Jeff's sailboat is named Halcyon Drift; it is moored at slip 14 in Sausalito.";
const PLUGIN_ID = "openclaw-context-companion";
const RECORD_HEADING = (workspaceDir: string) => `## ${path.join(workspaceDir, "ETHOS_CONTEXT.md")}\n`;

/** The user message that carries this turn's text (OpenClaw appends internal-context user messages after it). */
function turnMessage(request: RecordedRequest, text: string): string {
  return messagesOf(request).filter((m) => m.role === "user").map((m) => messageText(m.content)).find((t) => t.includes(text)) ?? "";
}

/** chat.send; the model request that carries `text`, its system prompt and user messages. */
async function chatSend(gateway: Gateway, sessionKey: string, text: string) {
  const { request } = await gateway.chatSend(sessionKey, text, 60_000);
  return { request, systemPrompt: gateway.model.systemPromptOf(request), lastUser: turnMessage(request, text), allUser: gateway.model.userTextOf(request) };
}

describe("companion plugin on OpenClaw 2026.9.6", () => {
  let gateway: Gateway;

  beforeAll(async () => {
    gateway = await startGateway({
      version: "2026.9.6",
      // De-duplication forgets after one turn, so every memory question here can get the fact.
      hooks: { "ethos-context": { enabled: true, dedupeExpiryTurns: 1 }, "aci-bootstrap": { enabled: true } },
      installPlugin: true,
      workspaceFiles: sentinelFiles(),
    });
  }, 600_000);
  afterAll(async () => {
    await gateway?.stop();
  });

  it("loads the plugin and serves before_prompt_build (allowConversationAccess written, not blocked)", { timeout: 120_000 }, async () => {
    const inspect = await gateway.cli(["plugins", "inspect", PLUGIN_ID, "--json"], 60_000);
    expect(inspect).toContain(PLUGIN_ID);
    expect(inspect).not.toMatch(/before_prompt_build blocked/);
    expect(gateway.logs()).toContain(`[${PLUGIN_ID}] serving OpenClaw 2026.9.6`);
  });

  it("delivers the memory fact with this turn (runtime-context carrier after the user message), not in the system prompt, and the hook adds no record", { timeout: 180_000 }, async () => {
    const first = await chatSend(gateway, "agent:main:main", "What is my sailboat named, and where is it moored?");
    // The harness selects the plugin's context engine like install-hooks; the block arrives as
    // OpenClaw's runtime-context carrier (docs/plugin.md, delivery rule).
    expect(first.allUser).toContain(FACT);
    expect(first.allUser).toContain("Relevant memories (workspace memory), by date:");
    expect(first.systemPrompt).not.toContain("Halcyon Drift");
    expect(first.systemPrompt).not.toContain(RECORD_HEADING(gateway.workspaceDir));
    // ETHOS_CONTEXT.md is still written for operators (by the plugin's service).
    expect(await waitForFileContaining(path.join(gateway.workspaceDir, "ETHOS_CONTEXT.md"), FACT)).toContain(FACT);

    // Two more turns (chit-chat, coding): the system prompt stays byte-identical.
    const second = await chatSend(gateway, "agent:main:main", "Thanks, that is all for now, have a nice evening!");
    const third = await chatSend(gateway, "agent:main:main", "How do I reverse a linked list in TypeScript?");
    expect(second.systemPrompt).toBe(first.systemPrompt);
    expect(third.systemPrompt).toBe(first.systemPrompt);
    // The earlier turn is replayed clean: the block was for that model call only.
    expect(gateway.model.userTextOf(third.request)).not.toContain("Halcyon Drift");
    // No double injection, and the turn was served by the plugin: no record in any system prompt.
    expect(second.systemPrompt + third.systemPrompt).not.toContain("Relevant memories (");
  });

  it("serves `openclaw agent --session-key … --message …` turns, which emit no message:received", { timeout: 180_000 }, async () => {
    const text = `Remind me where my sailboat is moored and what it is named. ${crypto.randomBytes(3).toString("hex")}`;
    const turn = await gateway.agentTurn("agent:main:main", text);
    expect(gateway.model.userTextOf(turn.request)).toContain("Halcyon Drift");
    expect(turn.systemPrompt).not.toContain("Halcyon Drift");
  });

  it("a subagent gets SOUL.md through appendSystemContext, and no USER.md, MEMORY.md or memories", { timeout: 180_000 }, async () => {
    const { systemPrompt, allUser: lastUser } = await chatSend(gateway, `agent:main:subagent:${crypto.randomUUID()}`, "Where is my sailboat moored, and what is it named?");
    expect(systemPrompt).toContain(SOUL_SENTINEL);
    expect(systemPrompt).not.toContain(USER_SENTINEL);
    expect(systemPrompt).not.toContain(MEMORY_SENTINEL);
    expect(systemPrompt + lastUser).not.toContain("Halcyon Drift");
  });

  it("a group and an external DM get no memories", { timeout: 180_000 }, async () => {
    for (const key of ["agent:main:telegram:group:-1009876543210", "agent:main:telegram:direct:55501"]) {
      const { systemPrompt, allUser: lastUser } = await chatSend(gateway, key, `What is my sailboat named, and where is it moored? ${crypto.randomBytes(3).toString("hex")}`);
      expect(systemPrompt + lastUser).not.toContain("Halcyon Drift");
      expect(lastUser).not.toContain("Relevant memories (");
    }
  });

  it("a cron run gets HEARTBEAT.md and no memories", { timeout: 180_000 }, async () => {
    const turn = await gateway.cronTurn(`Cron check: where is my sailboat moored? ${crypto.randomBytes(3).toString("hex")}`);
    const everything = turn.systemPrompt + gateway.model.userTextOf(turn.request);
    expect(everything).toContain(HEARTBEAT_SENTINEL);
    expect(everything).not.toContain("Halcyon Drift");
    expect(everything).not.toContain(USER_SENTINEL);
  });
});

describe("companion plugin on OpenClaw 2026.3.13 stands aside", () => {
  let gateway: Gateway;

  beforeAll(async () => {
    // Installed by hand (install-hooks skips it there): it must load, serve nothing, and leave the
    // hook's record as the delivery, because 2026.3.13 writes prependContext into the transcript.
    gateway = await startGateway({
      version: "2026.3.13",
      hooks: { "ethos-context": { enabled: true }, "aci-bootstrap": { enabled: true } },
      installPlugin: true,
    });
  }, 600_000);
  afterAll(async () => {
    await gateway?.stop();
  });

  it("logs that it stands aside; the memory arrives through the hook's record, not on the user message", { timeout: 180_000 }, async () => {
    const text = "What is my sailboat named, and where is it moored?";
    const { systemPrompt, lastUser } = await chatSend(gateway, "agent:main:main", text);
    expect(gateway.logs()).toContain(`[${PLUGIN_ID}] stands aside on OpenClaw 2026.3.13`);
    expect(systemPrompt).toContain(RECORD_HEADING(gateway.workspaceDir));
    expect(systemPrompt).toContain(FACT);
    expect(lastUser).not.toContain("Halcyon Drift");
  });
});
