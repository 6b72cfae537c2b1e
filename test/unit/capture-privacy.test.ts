import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { HookPack } from "../../src/hook-pack/service.ts";
import { dayFileFor } from "../../src/capture/capture.ts";
import type { MessageReceivedEvent } from "../../src/host/events.ts";
import { webchatMessageEvent } from "./ethos-events.ts";

// Who may write a captured fact: the handler classifies the turn once and passes that
// classification to triage; only the operator's main session and owner DMs write.

const OWNER = "4242";
const REMEMBER = "Remember that my locker code is 4312";

let ws: string;
let runtime: HookPack;
beforeEach(() => {
  ws = fs.mkdtempSync(path.join(os.tmpdir(), "capture-privacy-"));
  setLogDestination({ write: () => true } as never);
  const cfg = { agents: { defaults: { workspace: ws } }, hooks: { internal: { entries: { "ethos-context": { scope: { ownerIds: [OWNER] } } } } } };
  runtime = new HookPack({ loadOpenClawConfig: () => cfg });
});
afterEach(() => {
  setLogDestination(undefined);
  fs.rmSync(ws, { recursive: true, force: true });
});

async function send(sessionKey: string, text = REMEMBER): Promise<void> {
  const event = webchatMessageEvent(sessionKey, text, `m-${sessionKey}`) as unknown as MessageReceivedEvent;
  const cfg = runtime.cfgForMessage();
  await runtime.context.triage(event, runtime.context.messageTurn(event, cfg), cfg);
}
const dayFile = () => dayFileFor(ws, new Date());
const written = () => (fs.existsSync(dayFile()) ? fs.readFileSync(dayFile(), "utf8") : "");

describe("capture privacy", () => {
  it.each([
    ["a group", "agent:main:telegram:group:-100777"],
    ["a forum topic", "agent:main:telegram:group:-100777:topic:9"],
    ["a stranger's DM", "agent:main:telegram:direct:9999"],
    ["a subagent", "agent:main:subagent:6f1a1c2e-0d8e-4a43-9a43-1c2d3e4f5a6b"],
    ["a cron run", "agent:main:cron:nightly:run:abc"],
  ])("%s never writes", async (_what, sessionKey) => {
    await send(sessionKey);
    expect(written()).toBe("");
    expect(fs.existsSync(path.join(ws, "memory", ".triage"))).toBe(false);
  });

  it.each([
    ["the main session", "agent:main:main"],
    ["the owner's DM", `agent:main:telegram:direct:${OWNER}`],
  ])("%s writes the fact", async (_what, sessionKey) => {
    await send(sessionKey);
    expect(written()).toContain("- my locker code is 4312 #knowledge <!-- confidence: 0.95 source: operator mentions: 1");
  });
});
