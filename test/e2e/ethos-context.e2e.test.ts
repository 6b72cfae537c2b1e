import crypto from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway } from "./gateway.ts";
import type { Gateway } from "./gateway.ts";
import { OPENCLAW_TARGETS } from "./versions.ts";
import { waitForFileContaining } from "./wait-file.ts";

// Same-turn memory injection on a real gateway: a `chat.send` about a fact that lives only in
// memory/2026-02-22.md (core never loads daily memory files into the prompt) must put that fact
// into the system prompt of THAT turn, through the ethos-context record. A group session and a
// subagent session asking the same thing must get nothing.

const FACT = "Jeff's sailboat is named Halcyon Drift; it is moored at slip 14 in Sausalito.";
// Three phrasings with the same search terms (sailboat, moor, name), none a substring of another,
// so the mock model can match each request by its text.
const MAIN_QUESTION = "What is my sailboat named, and where is it moored?";
const GROUP_QUESTION = "Where is my sailboat moored, and what is it named?";
const SUBAGENT_QUESTION = "Remind me where my sailboat is moored and what it is named.";

/** chat.send; the system prompt of the model request that carries `text`. */
async function chatSend(gateway: Gateway, sessionKey: string, text: string): Promise<string> {
  return (await gateway.chatSend(sessionKey, text, 60_000)).systemPrompt;
}

/** The body of the `## <path>` section a record renders as in "# Project Context", or undefined. */
function projectContextSection(systemPrompt: string, recordPath: string): string | undefined {
  const heading = `## ${recordPath}\n`;
  const start = systemPrompt.indexOf(heading);
  if (start === -1) return undefined;
  const rest = systemPrompt.slice(start + heading.length);
  // Core renders each record under `## <absolute path>`; our own block has a `## 🧠` heading inside.
  const next = rest.search(/\n## \/|\n<!-- \/openclaw:attempt/);
  return next === -1 ? rest : rest.slice(0, next);
}

describe.each(OPENCLAW_TARGETS.map((t) => [t.label, t.openclaw] as const))("ethos-context on OpenClaw %s", (_label, version) => {
  let gateway: Gateway;

  beforeAll(async () => {
    gateway = await startGateway({
      version,
      // The first turn builds the memory index cold inside the gateway: on a busy machine that can
      // take longer than the default 250 ms wait, so give it a bound no machine misses (the turn
      // goes on as soon as retrieval is done). What is checked is same-turn injection, not speed.
      hooks: { "ethos-context": { enabled: true, awaitTimeoutMs: 5000 }, "aci-bootstrap": { enabled: true } },
    });
    console.log(`e2e boot seconds openclaw ${version}: ${JSON.stringify(gateway.bootSeconds)}`);
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it("puts the memory fact into the system prompt of the same turn (main session, chat.send)", { timeout: 120_000 }, async () => {
    const systemPrompt = await chatSend(gateway, "agent:main:main", MAIN_QUESTION);
    const recordPath = path.join(gateway.workspaceDir, "ETHOS_CONTEXT.md");
    const section = projectContextSection(systemPrompt, recordPath);
    expect(section, `no "## ${recordPath}" section in the system prompt`).toBeDefined();
    // The model reads the compact layout.
    expect(section).toContain("Relevant memories (workspace memory), by date:");
    expect(section).toContain("\n[2026-02-22]\n");
    expect(section).toContain(`\n- ${FACT}`);
    // Observability copy on disk: the same memories in story 007's layout, written in the background.
    const written = await waitForFileContaining(recordPath, FACT);
    expect(written).toContain(`**[2026-02-22]** ${FACT}`);
    expect(written).toContain("<!-- ethos:context ts=");
  });

  it("a group session asking the same thing gets nothing", { timeout: 120_000 }, async () => {
    const systemPrompt = await chatSend(gateway, "agent:main:telegram:group:-1009876543210", GROUP_QUESTION);
    expect(systemPrompt).not.toContain("Halcyon Drift");
    expect(systemPrompt).not.toContain("Relevant memories (");
  });

  it("a subagent session asking the same thing gets nothing", { timeout: 120_000 }, async () => {
    const systemPrompt = await chatSend(gateway, `agent:main:subagent:${crypto.randomUUID()}`, SUBAGENT_QUESTION);
    expect(systemPrompt).not.toContain("Halcyon Drift");
    expect(systemPrompt).not.toContain("Relevant memories (");
  });
});
