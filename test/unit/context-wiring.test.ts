import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { flushContextFileWrites } from "../../src/context/context-file.ts";
import { assemblerBlockComposer } from "../../src/context/memory-composer.ts";
import type { Selection } from "../../src/context/pipeline.ts";
import type { AgentBootstrapEvent, BootstrapFileRecord } from "../../src/host/events.ts";
import { bootstrapEventFor, webchatMessageEvent } from "./ethos-events.ts";
import { holdTurnClock } from "./turn-clock.ts";

// The ethos-context handler with triage and the context assembler wired in: an operator's
// correction is logged on message:received and then competes for the next turn's block.

const repo = path.resolve(__dirname, "../..");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ethos-wiring-"));
const ws = path.join(tmp, "workspace");
const today = new Date().toISOString().slice(0, 10);
type Handler = (event: unknown) => Promise<void>;
let handler: Handler;
const CFG = { hooks: { internal: { entries: { "ethos-context": { awaitTimeoutMs: 5000 } } } } };

beforeAll(async () => {
  fs.cpSync(path.join(repo, "fixtures/workspace"), ws, { recursive: true });
  fs.writeFileSync(path.join(ws, "memory", `${today}.md`), `# ${today}\n\n- Jeff wants the sailboat hauled out for bottom paint before the regatta.\n`);
  // Any awaitTimeoutMs will do: the tests hold the turn clock (turn-clock.ts), so a
  // turn ends when its search and the assembler settle, on any machine.
  fs.writeFileSync(path.join(tmp, "openclaw.json"), JSON.stringify(CFG));
  vi.stubEnv("OPENCLAW_CONFIG_PATH", path.join(tmp, "openclaw.json"));
  vi.stubEnv("OPENCLAW_WORKSPACE_DIR", ws);
  vi.stubEnv("OPENCLAW_CONTEXT_INDEX_CACHE_DIR", path.join(tmp, "index-cache"));
  setLogDestination(new Writable({ write: (_chunk, _e, cb) => cb() }) as never);
  handler = (await import("../../hooks/ethos-context/handler.ts")).default;
});
beforeEach(() => holdTurnClock());
afterEach(() => vi.useRealTimers());
afterAll(async () => {
  await flushContextFileWrites();
  vi.unstubAllEnvs();
  setLogDestination(undefined);
  fs.rmSync(tmp, { recursive: true, force: true });
});

const bootstrapEvent = (sessionKey: string): AgentBootstrapEvent => {
  const event = bootstrapEventFor(ws, sessionKey, [{ name: "AGENTS.md", path: path.join(ws, "AGENTS.md"), content: "# AGENTS", missing: false }]);
  event.context.cfg = CFG;
  return event;
};
const messageEvent = webchatMessageEvent;
const injected = (event: AgentBootstrapEvent) =>
  (event.context.bootstrapFiles as BootstrapFileRecord[]).find((file) => file.name === "ETHOS_CONTEXT.md")?.content;
const corrections = () => path.join(ws, "CORRECTIONS.md");

describe("ethos-context with triage and the context assembler", () => {
  it("does not triage group messages", async () => {
    const { hookPack } = await import("../../src/hook-pack/service.ts");
    const event = messageEvent("agent:main:telegram:group:-100777", "You forgot, I already told you the boat moved to slip 22", "g1");
    const cfg = hookPack.cfgForMessage();
    const turn = hookPack.context.messageTurn(event as never, cfg);
    expect(hookPack.context.captureWorkspace(turn, cfg)).toBeUndefined();
    await hookPack.context.triage(event as never, turn, cfg);
    expect(fs.existsSync(corrections())).toBe(false);
  });

  it("logs the operator's correction, then injects it next to the semantic hits, once per session", async () => {
    const session = "agent:main:main";
    await handler(messageEvent(session, "You forgot, I already told you: Halcyon Drift moved to slip 22 last week", "m1"));
    await vi.waitFor(() => expect(fs.readFileSync(corrections(), "utf8")).toContain("slip 22"), { timeout: 120_000 });
    const first = bootstrapEvent(session);
    await handler(first);

    await handler(messageEvent(session, "What is my sailboat named, and where is it moored?", "m2"));
    const second = bootstrapEvent(session);
    await handler(second);
    const block = injected(second) ?? "";
    expect(block.startsWith("Relevant memories (workspace memory), by date:\n")).toBe(true);
    // The first message already named Halcyon Drift, so its turn may have shown the boat fact (and the
    // fresh correction) once; across the two turns the semantic hit, the correction from the previous
    // message (now in CORRECTIONS.md) and today's note all reached the model.
    const shown = `${injected(first) ?? ""}\n${block}`;
    expect(shown).toContain("Halcyon Drift; it is moored at slip 14 in Sausalito.");
    expect([shown.includes("slip 22"), shown.includes("bottom paint")]).toEqual([true, true]);
    await flushContextFileWrites();
    // The operators' copy: story 007's layout for the same hits, then the same extra sections.
    const file = fs.readFileSync(path.join(ws, "ETHOS_CONTEXT.md"), "utf8");
    expect(file.startsWith("<!-- ethos:context ts=")).toBe(true);
    expect(file).toContain("## 🧠 Memory Context");
    expect(file).toContain("bottom paint");

    // Same question again in the same session: nothing already shown is shown again.
    await handler(messageEvent(session, "What is my sailboat named, and where is it moored?", "m3"));
    const third = bootstrapEvent(session);
    await handler(third);
    expect(injected(third)).toBeUndefined();
    // The search still finds the fact: another operator session asking the same gets it.
    await handler(messageEvent("agent:main:dashboard:d1", "What is my sailboat named, and where is it moored?", "m4"));
    const otherSession = bootstrapEvent("agent:main:dashboard:d1");
    await handler(otherSession);
    expect(injected(otherSession)).toContain("slip 14 in Sausalito");
  });

  it("keeps corrections and daily notes out of a group's block", async () => {
    const selection = {
      block: "<!-- ethos:context ts=2026-11-22T00:00:00Z query_score=0.90 -->\n## 🧠 Memory Context\n",
      injected: [{ id: "g-1", text: "Group fact", score: 0.9, headingPath: [], source: "embedded" }],
      render: () => "unused",
    } as unknown as Selection;
    const composed = await assemblerBlockComposer({
      workspaceDir: ws,
      sessionType: "GROUP_CHAT",
      selection,
      maxTokens: 500,
      maxChars: 2000,
      now: new Date(),
      excludeIds: new Set(),
    });
    expect(composed).toEqual({ block: selection.block, injectedIds: ["g-1"] });
  });
});
