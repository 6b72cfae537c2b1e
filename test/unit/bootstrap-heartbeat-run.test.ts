// Heartbeat runs in the main session (issue 28 item 2): 2026.3.13 announces each run with
// message:preprocessed (provider "heartbeat" for a heartbeat), so the hook gives that run's
// agent:bootstrap the HEARTBEAT_CRON set; a lightweight heartbeat list (HEARTBEAT.md alone, core's
// filter) is left as received. The real gateway: test/e2e/aci.e2e.test.ts ("heartbeat run").
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { applyBootstrapPolicy } from "../../src/bootstrap/apply.ts";
import { HEARTBEAT_MARK_TTL_MS, noteRunStart, resetHeartbeatMarks, takeHeartbeatMark } from "../../src/bootstrap/heartbeat-run.ts";
import { DEFAULT_POLICY } from "../../src/bootstrap/policy.ts";
import { setLogDestination } from "../../src/core/log.ts";
import type { BootstrapFileRecord } from "../../src/host/events.ts";
import { classifySession } from "../../src/session/classify.ts";

const WS = path.resolve("fixtures/workspace");
const preprocessed = (sessionKey: string, provider: unknown) => ({ type: "message", action: "preprocessed", sessionKey, context: { provider, from: "x", to: "x" } });
const hostList = (): BootstrapFileRecord[] =>
  ["AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "MEMORY.md"].map((name) => ({ name, path: path.join(WS, name), content: fs.readFileSync(path.join(WS, name), "utf8"), missing: false }));
const bootstrap = (sessionKey: string, files: BootstrapFileRecord[]) => ({ type: "agent", action: "bootstrap", sessionKey, context: { workspaceDir: WS, bootstrapFiles: files, cfg: {} } });
const names = (files: unknown) => (files as BootstrapFileRecord[]).map((f) => f.name);

beforeEach(() => resetHeartbeatMarks());

describe("the note", () => {
  it("a heartbeat provider marks the key; the next take uses it up", () => {
    for (const provider of ["heartbeat", "exec-event", "cron-event", "Heartbeat"]) {
      noteRunStart(preprocessed("agent:main:main", provider));
      expect(takeHeartbeatMark("agent:main:main"), provider).toBe(true);
      expect(takeHeartbeatMark("agent:main:main"), `${provider} used up`).toBe(false);
    }
  });

  it("any other run of the key clears it; other keys, other events and odd shapes never mark", () => {
    noteRunStart(preprocessed("agent:main:main", "heartbeat"));
    noteRunStart(preprocessed("agent:main:main", "webchat"));
    expect(takeHeartbeatMark("agent:main:main")).toBe(false);
    noteRunStart(preprocessed("agent:main:main", "heartbeat"));
    expect(takeHeartbeatMark("agent:main:telegram:direct:1")).toBe(false);
    noteRunStart({ type: "message", action: "received", sessionKey: "agent:x:main", context: { provider: "heartbeat" } });
    noteRunStart(preprocessed("agent:y:main", undefined));
    noteRunStart(null);
    noteRunStart({ type: "message", action: "preprocessed", sessionKey: "agent:z:main", get context() { throw new Error("boom"); } });
    for (const key of ["agent:x:main", "agent:y:main", "agent:z:main"]) expect(takeHeartbeatMark(key), key).toBe(false);
  });

  it(`a note older than ${HEARTBEAT_MARK_TTL_MS / 1000} s is not this run's`, () => {
    noteRunStart(preprocessed("agent:main:main", "heartbeat"), 1_000);
    expect(takeHeartbeatMark("agent:main:main", 1_000 + HEARTBEAT_MARK_TTL_MS + 1)).toBe(false);
    noteRunStart(preprocessed("agent:main:main", "heartbeat"), 1_000);
    expect(takeHeartbeatMark("agent:main:main", 1_000 + HEARTBEAT_MARK_TTL_MS)).toBe(true);
  });
});

describe("through the hook's handler", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "aci-heartbeat-"));
  let handler: (event: unknown) => Promise<void>;
  const lines: string[] = [];
  beforeAll(async () => {
    vi.stubEnv("OPENCLAW_CONFIG_PATH", path.join(root, "absent.json"));
    setLogDestination(new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }) as never);
    handler = (await import("../../hooks/aci-bootstrap/handler.ts")).default;
  });
  afterAll(() => {
    setLogDestination(undefined);
    vi.unstubAllEnvs();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("a heartbeat run in the main session gets SOUL.md and HEARTBEAT.md; the user turn after it the main set again", async () => {
    await handler(preprocessed("agent:main:main", "heartbeat"));
    const beat = bootstrap("agent:main:main", hostList());
    await handler(beat);
    expect(names(beat.context.bootstrapFiles)).toEqual(["SOUL.md", "HEARTBEAT.md"]);
    const decision = JSON.parse(lines.filter((line) => line.includes("aci-bootstrap.decision")).at(-1)!);
    expect(decision).toMatchObject({ sessionType: "HEARTBEAT_CRON", rule: "heartbeat-run" });
    await handler(preprocessed("agent:main:main", "webchat"));
    const user = bootstrap("agent:main:main", hostList());
    await handler(user);
    expect(names(user.context.bootstrapFiles)).toEqual(["SOUL.md", "USER.md", "TOOLS_COMPACT.md"]);
  });

  it("a subagent or cron key stays what it is even if a note names it", async () => {
    await handler(preprocessed("agent:main:subagent:abc", "heartbeat"));
    const sub = bootstrap("agent:main:subagent:abc", hostList());
    await handler(sub);
    expect(names(sub.context.bootstrapFiles)).toEqual(["SOUL.md"]);
  });
});

describe("a lightweight heartbeat list (core's applyContextModeFilter keeps HEARTBEAT.md alone)", () => {
  it("is left exactly as received (before: HEARTBEAT.md was dropped from the main set and SOUL.md added)", async () => {
    const light = [hostList().find((f) => f.name === "HEARTBEAT.md")!];
    const { files, decision } = await applyBootstrapPolicy({ files: light, workspaceDir: WS, classification: classifySession("agent:main:main", { ownerIds: [] }), policy: DEFAULT_POLICY });
    expect(files).toEqual(light);
    expect(files[0]).toBe(light[0]);
    expect(decision).toMatchObject({ lightContext: true, dropped: [], added: [], onDemand: [] });
  });
});
