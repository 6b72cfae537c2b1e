import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { flushContextFileWrites } from "../../src/context/context-file.ts";
import type { AgentBootstrapEvent, BootstrapFileRecord } from "../../src/host/events.ts";
import { bootstrapEventFor, webchatMessageEvent } from "./ethos-events.ts";
import { holdTurnClock } from "./turn-clock.ts";

// The real handler, the real runtime and the embedded retriever over a copy of the sample
// workspace: the path a gateway turn takes, minus the gateway.

const repo = path.resolve(__dirname, "../..");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ethos-handler-"));
const ws = path.join(tmp, "workspace");
type Handler = (event: unknown) => Promise<void>;
let handler: Handler;
const CFG = { hooks: { internal: { entries: { "ethos-context": { awaitTimeoutMs: 5000 } } } } };
const logs: string[] = [];

beforeAll(async () => {
  fs.cpSync(path.join(repo, "fixtures/workspace"), ws, { recursive: true });
  // Any awaitTimeoutMs will do: the tests hold the turn clock (turn-clock.ts), so a
  // turn ends when its search settles, on any machine.
  fs.writeFileSync(path.join(tmp, "openclaw.json"), JSON.stringify(CFG));
  vi.stubEnv("OPENCLAW_CONFIG_PATH", path.join(tmp, "openclaw.json"));
  vi.stubEnv("OPENCLAW_CONTEXT_INDEX_CACHE_DIR", path.join(tmp, "index-cache"));
  setLogDestination(new Writable({ write: (chunk, _e, cb) => (logs.push(String(chunk)), cb()) }) as never);
  handler = (await import("../../hooks/ethos-context/handler.ts")).default;
});
beforeEach(() => holdTurnClock());
afterEach(() => vi.useRealTimers());
afterAll(() => {
  vi.unstubAllEnvs();
  setLogDestination(undefined);
  fs.rmSync(tmp, { recursive: true, force: true });
});

const files = (): BootstrapFileRecord[] => [{ name: "AGENTS.md", path: path.join(ws, "AGENTS.md"), content: "# AGENTS", missing: false }];
const bootstrapEvent = (sessionKey: string, bootstrapFiles: unknown = files()): AgentBootstrapEvent => {
  const event = bootstrapEventFor(ws, sessionKey, bootstrapFiles);
  event.context.cfg = CFG;
  return event;
};
const messageEvent = webchatMessageEvent;

describe("ethos-context handler on the sample workspace", () => {
  it("injects the sailboat fact in the same turn, for the main session only", async () => {
    const question = "What is my sailboat named, and where is it moored?";
    await handler(messageEvent("agent:main:main", question, "m1"));
    const main = bootstrapEvent("agent:main:main");
    await handler(main);
    const record = (main.context.bootstrapFiles as BootstrapFileRecord[]).find((f) => f.name === "ETHOS_CONTEXT.md");
    expect(record?.content).toContain("[2026-02-22]\n- Jeff's sailboat is named Halcyon Drift; it is moored at slip 14 in Sausalito.");
    expect(record?.path).toBe(path.join(ws, "ETHOS_CONTEXT.md"));
    await flushContextFileWrites();
    expect(fs.readFileSync(path.join(ws, "ETHOS_CONTEXT.md"), "utf8")).toContain("**[2026-02-22]** Jeff's sailboat is named Halcyon Drift; it is moored at slip 14 in Sausalito.");

    for (const key of ["agent:main:telegram:group:-100123", "agent:main:subagent:6f1a1c2e-0d8e-4a43-9a43-1c2d3e4f5a6b"]) {
      await handler(messageEvent(key, question, `m-${key}`));
      const event = bootstrapEvent(key);
      await handler(event);
      expect(event.context.bootstrapFiles).toEqual(files());
    }
  });

  it("ignores other events and leaves a non-array bootstrapFiles alone", async () => {
    await expect(handler({ type: "command", action: "new", context: {} })).resolves.toBeUndefined();
    await expect(handler(null)).resolves.toBeUndefined();
    const odd = bootstrapEvent("agent:main:main", "not-an-array");
    await handler(odd);
    expect(odd.context.bootstrapFiles).toBe("not-an-array");
  });

  it("message:received captures the query synchronously (the gateway does not await it)", async () => {
    const { hookPack } = await import("../../src/hook-pack/service.ts");
    void handler(messageEvent("agent:main:main", "Where is Halcyon Drift moored these days?\n```\ncode\n```", "m2"));
    // No await between the call and the check: only the handler's synchronous prefix has run.
    const pending = hookPack.sessions.peek("agent:main:main")?.pending;
    expect(pending?.query).toBe("Where is Halcyon Drift moored these days?");
    expect(pending?.retrieval).toBeInstanceOf(Promise); // workspace known from the last bootstrap: started already
  });
});
