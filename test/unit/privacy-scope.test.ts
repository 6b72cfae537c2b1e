import fs from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { parseEthosContextConfig } from "../../src/context/config.ts";
import { isSafeGroupMemoryDir, resolveRetrievalScope } from "../../src/context/scope.ts";
import { classifySession } from "../../src/session/classify.ts";
import type { SessionType } from "../../src/session/types.ts";
import { hookTurn, hostFiles, makeWorkspace, tempRoot, useHookConfig } from "./ethos-turns.ts";
import type { Handler, TurnResult } from "./ethos-turns.ts";
import { holdTurnClock } from "./turn-clock.ts";

// Memory-scope privacy: which sessions may receive retrieved memories, and from where.
//
// Mutations this file kills (each applied by hand, the suite run, then reverted):
//   scope.ts  resolveRetrievalScope lets FALLBACK / HEARTBEAT_CRON have workspace memory
//             → "resolveRetrievalScope: only MAIN_SESSION and PRIVATE_DM…", hook path FALLBACK/HEARTBEAT_CRON rows
//   scope.ts  matchGroup ignores `channel`
//             → "an opted-in group matches on peer id AND channel", hook path "same peer id on another channel"
//   scope.ts  isSafeGroupMemoryDir drops `isInside(workspace, dir)`
//             → "isSafeGroupMemoryDir refuses the workspace…", hook path "memoryDir = the workspace"
//   classify.ts  `agent:<id>:main:<x>` promoted to MAIN_SESSION
//             → "unknown agent:<id>:main:<x> keys are FALLBACK", hook path FALLBACK row
//   classify.ts  owner ids compared case-sensitively
//             → "owner ids match whatever the case on either side", hook path PRIVATE_DM row (owner id in upper case)

const OWNER_ID = "U07ABC"; // Slack-style id: configured in upper case, lower-cased in session keys by the host
const QUESTION = "What is the harbour gate code for the marina?";
const WORKSPACE_SENTINEL = "WORKSPACE_MEMORY_SENTINEL_5d2e";
const USER_SENTINEL = "USER_FILE_SENTINEL_88b1";
const GROUP_SENTINEL = "GROUP_MEMORY_SENTINEL_31c4";
const GROUP_PEER = "-100777";

// ------------------------------------------------------------------------------------------
// Pure scope rules

const config = (raw: unknown = {}) => parseEthosContextConfig(raw).config;
/** The operator's orchestration rule (aci-bootstrap entry): it names one of the operator's main-session threads. */
const ORCHESTRATION_RULE = { sessionKeys: ["agent:*:main:thread:orchestrator"], agentIds: [], topics: [] };
const classify = (key: string) => classifySession(key, { ownerIds: [OWNER_ID], orchestration: ORCHESTRATION_RULE });

/** One key per session type; each row also checks the classifier still says that type. */
const KEYS: Record<SessionType, string[]> = {
  MAIN_SESSION: ["agent:main:main"],
  PRIVATE_DM: [`agent:main:slack:direct:${OWNER_ID.toLowerCase()}`],
  EXTERNAL_DM: ["agent:main:telegram:direct:555001"],
  GROUP_CHAT: [`agent:main:telegram:group:${GROUP_PEER}`],
  FORUM_TOPIC: [`agent:main:telegram:group:${GROUP_PEER}:topic:3`],
  // A main-session thread by its shape: the rule makes it an orchestration session, which gets no memory.
  ORCHESTRATION: ["agent:main:main:thread:orchestrator"],
  SUBAGENT: ["agent:main:subagent:3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b"],
  HEARTBEAT_CRON: ["agent:main:cron:nightly:run:r1", "agent:main:main:heartbeat"],
  FALLBACK: ["agent:main:main:extra", "agent:main:my-custom-key"],
};
const ALLOWED: SessionType[] = ["MAIN_SESSION", "PRIVATE_DM"];

describe("resolveRetrievalScope", () => {
  it("only MAIN_SESSION and PRIVATE_DM get workspace memory by default; the seven others get nothing", () => {
    for (const [type, keys] of Object.entries(KEYS) as [SessionType, string[]][]) {
      for (const key of keys) {
        const classification = classify(key);
        expect(classification.type, key).toBe(type);
        const scope = resolveRetrievalScope(classification, config());
        if (ALLOWED.includes(type)) expect(scope, key).toEqual({ allowed: true, sessionType: type, source: { kind: "workspace" } });
        else expect(scope.allowed, key).toBe(false);
      }
    }
  });

  it("scope.sessionTypes cannot list any other type", () => {
    for (const type of ["FALLBACK", "HEARTBEAT_CRON", "SUBAGENT", "EXTERNAL_DM", "GROUP_CHAT", "FORUM_TOPIC", "ORCHESTRATION"]) {
      const parsed = parseEthosContextConfig({ scope: { sessionTypes: [type] } });
      expect(parsed.config.scope.sessionTypes, type).toEqual(["MAIN_SESSION", "PRIVATE_DM"]); // invalid key dropped, default kept
      expect(parsed.ok, type).toBe(false);
      expect(parsed.error, type).toContain("sessionTypes");
    }
  });

  it("an opted-in group matches on peer id AND channel; a topic of that group inherits it", () => {
    const groupDir = "/srv/group-777";
    const scoped = config({ scope: { groups: [{ peerId: GROUP_PEER, channel: "telegram", memoryDir: groupDir }] } });
    const group = { allowed: true, source: { kind: "group", memoryDir: groupDir } };
    expect(resolveRetrievalScope(classify(`agent:main:telegram:group:${GROUP_PEER}`), scoped)).toMatchObject({ ...group, sessionType: "GROUP_CHAT" });
    expect(resolveRetrievalScope(classify(`agent:main:telegram:group:${GROUP_PEER}:topic:3`), scoped)).toMatchObject({ ...group, sessionType: "FORUM_TOPIC" });
    expect(resolveRetrievalScope(classify(`agent:main:discord:channel:${GROUP_PEER}`), scoped)).toMatchObject({ allowed: false, reason: "group-not-enabled" });
    expect(resolveRetrievalScope(classify(`agent:main:telegram:group:-100778`), scoped)).toMatchObject({ allowed: false, reason: "group-not-enabled" });
    // Without a channel the entry matches that peer id on any channel.
    const anyChannel = config({ scope: { groups: [{ peerId: GROUP_PEER, memoryDir: groupDir }] } });
    expect(resolveRetrievalScope(classify(`agent:main:discord:channel:${GROUP_PEER}`), anyChannel)).toMatchObject(group);
    // A group entry never opens a DM with the same peer id.
    expect(resolveRetrievalScope(classify(`agent:main:telegram:direct:${GROUP_PEER}`), anyChannel).allowed).toBe(false);
  });
});

describe("isSafeGroupMemoryDir", () => {
  const root = tempRoot("scope-safe-");
  const ws = path.join(root, "workspace");
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it("refuses the workspace, anything above it, its memory/ folder and anything inside memory/", () => {
    for (const dir of [ws, `${ws}/`, path.join(ws, "."), root, "/", path.join(ws, "memory"), path.join(ws, "memory", "groups"), path.join(ws, "memory", "..")]) {
      expect(isSafeGroupMemoryDir(dir, ws), dir).toBe(false);
    }
  });

  it("accepts a folder beside the workspace, or one inside it that is not memory/", () => {
    expect(isSafeGroupMemoryDir(path.join(root, "group-777"), ws)).toBe(true);
    expect(isSafeGroupMemoryDir(path.join(ws, "groups", "g1"), ws)).toBe(true); // not indexed as workspace memory
    expect(isSafeGroupMemoryDir(path.join(root, "workspace-groups"), ws)).toBe(true); // shares a name prefix, not a path
  });
});

describe("classifySession: privacy-relevant edges", () => {
  it("unknown agent:<id>:main:<x> keys are FALLBACK, not MAIN_SESSION", () => {
    for (const key of ["agent:main:main:extra", "agent:main:main:x:y", "agent:main:main:direct"]) expect(classify(key).type, key).toBe("FALLBACK");
    expect(classify("agent:main:main:thread:7").type).toBe("MAIN_SESSION");
  });

  it("owner ids match whatever the case on either side", () => {
    expect(classifySession("agent:main:slack:direct:u07abc", { ownerIds: ["U07ABC"] }).type).toBe("PRIVATE_DM");
    expect(classifySession("agent:main:slack:direct:U07ABC", { ownerIds: ["u07abc"] }).type).toBe("PRIVATE_DM");
    expect(classifySession("agent:main:slack:direct:u07abd", { ownerIds: ["U07ABC"] }).type).toBe("EXTERNAL_DM");
  });
});

// ------------------------------------------------------------------------------------------
// Every session type through the real entry points. One row per path: the hook handler today;
// the companion plugin adds itself here with one line.

type PrivacyPath = {
  name: string;
  /** One turn: the question, then whatever the path adds to the model's input ("" for nothing). */
  turn(input: { sessionKey: string; question: string; entry: Record<string, unknown>; ws: string; aciEntry?: Record<string, unknown> }): Promise<string>;
};

const root = tempRoot("privacy-scope-");
const groupDir = path.join(root, "group-777");
let ws: string;
let handler: Handler;
const logs: string[] = [];

beforeAll(async () => {
  ws = makeWorkspace(root, "workspace", {
    "memory/2026-03-01.md": `# 2026-03-01\n\n- The harbour gate code for the marina is ${WORKSPACE_SENTINEL}.\n`,
  });
  fs.appendFileSync(path.join(ws, "USER.md"), `\n- Harbour gate code for the marina (backup): ${USER_SENTINEL}\n`);
  fs.appendFileSync(path.join(ws, "MEMORY.md"), `\n- The marina harbour gate code is written down: ${USER_SENTINEL}\n`);
  fs.mkdirSync(groupDir, { recursive: true });
  fs.writeFileSync(path.join(groupDir, "facts.md"), `# Club facts\n\n- The harbour gate code for the club marina is ${GROUP_SENTINEL}.\n`);
  vi.stubEnv("OPENCLAW_CONTEXT_INDEX_CACHE_DIR", path.join(root, "index-cache"));
  setLogDestination(new Writable({ write: (chunk, _e, cb) => (logs.push(String(chunk)), cb()) }) as never);
  handler = (await import("../../hooks/ethos-context/handler.ts")).default;
});
afterAll(() => {
  vi.unstubAllEnvs();
  setLogDestination(undefined);
  fs.rmSync(root, { recursive: true, force: true });
});

const hookPath: PrivacyPath = {
  name: "hook",
  async turn({ sessionKey, question, entry, ws: workspace, aciEntry }) {
    const cfg = useHookConfig(root, entry, aciEntry);
    const result: TurnResult = await hookTurn(handler, { ws: workspace, cfg, sessionKey, question });
    // The hook may only add its own record: every host record stays as received.
    const others = (result.files as { name: string }[]).filter((f) => f.name !== "ETHOS_CONTEXT.md");
    expect(others).toEqual(hostFiles(workspace));
    return result.block ?? "";
  },
};

const PATHS: PrivacyPath[] = [hookPath];

/**
 * The turn clock is held (turn-clock.ts): every turn ends when its search settles, so a positive
 * row never fails on speed and a negative row never passes by timing out. Every type gets a token
 * budget, so the scope rule alone has to keep memory out (not a zero ceiling).
 */
const BASE = {
  awaitTimeoutMs: 5000,
  writeContextFile: false,
  triage: false,
  memory: { persistIndex: false },
  maxTokensBySessionType: { EXTERNAL_DM: 1000, GROUP_CHAT: 1000, FORUM_TOPIC: 1000, ORCHESTRATION: 1000, SUBAGENT: 1000, HEARTBEAT_CRON: 1000, FALLBACK: 1000 },
  scope: { ownerIds: [OWNER_ID] },
};
const SECRETS = [WORKSPACE_SENTINEL, USER_SENTINEL, GROUP_SENTINEL];
const ACI_ENTRY = { orchestration: ORCHESTRATION_RULE };

describe.each(PATHS.map((p) => [p.name, p] as const))("memory privacy on the %s path", (_name, privacyPath) => {
  let turnNo = 0;
  beforeEach(() => holdTurnClock());
  afterEach(() => vi.useRealTimers());
  /** A fresh session key per turn (suffix-safe for each type), so no row depends on another. */
  const fresh = (key: string) => {
    turnNo += 1;
    return key.replace(/^agent:main:/, `agent:${privacyPath.name}${turnNo}:`);
  };

  for (const [type, keys] of Object.entries(KEYS) as [SessionType, string[]][]) {
    for (const key of keys) {
      if (ALLOWED.includes(type)) {
        it(`${type} (${key}) gets the workspace memory (positive control)`, async () => {
          const block = await privacyPath.turn({ sessionKey: fresh(key), question: QUESTION, entry: BASE, ws, aciEntry: ACI_ENTRY });
          expect(block).toContain(WORKSPACE_SENTINEL);
          expect(block).not.toContain(GROUP_SENTINEL);
        });
      } else {
        it(`${type} (${key}) gets nothing`, async () => {
          const sessionKey = fresh(key);
          expect(classify(sessionKey).type).toBe(type);
          expect(await privacyPath.turn({ sessionKey, question: QUESTION, entry: BASE, ws, aciEntry: ACI_ENTRY })).toBe("");
        });
      }
    }
  }

  const groups = (group: Record<string, unknown>) => ({ ...BASE, scope: { ...BASE.scope, groups: [{ peerId: GROUP_PEER, ...group }] } });

  it("an opted-in group gets its own folder's memory and nothing from the workspace; so does its topic", async () => {
    for (const key of [`agent:main:telegram:group:${GROUP_PEER}`, `agent:main:telegram:group:${GROUP_PEER}:topic:9`]) {
      const block = await privacyPath.turn({ sessionKey: fresh(key), question: QUESTION, entry: groups({ channel: "telegram", memoryDir: groupDir }), ws });
      expect(block, key).toContain(GROUP_SENTINEL);
      for (const secret of [WORKSPACE_SENTINEL, USER_SENTINEL]) expect(block, key).not.toContain(secret);
    }
  });

  it("the same peer id on another channel gets nothing", async () => {
    const block = await privacyPath.turn({ sessionKey: fresh(`agent:main:discord:group:${GROUP_PEER}`), question: QUESTION, entry: groups({ channel: "telegram", memoryDir: groupDir }), ws });
    expect(block).toBe("");
  });

  it("another group, and a stranger's DM with the group's peer id, get nothing", async () => {
    for (const key of ["agent:main:telegram:group:-100778", `agent:main:telegram:direct:${GROUP_PEER}`]) {
      expect(await privacyPath.turn({ sessionKey: fresh(key), question: QUESTION, entry: groups({ memoryDir: groupDir }), ws }), key).toBe("");
    }
  });

  it("memoryDir = the workspace, its memory/ folder, or a folder above it: the group gets nothing", async () => {
    for (const memoryDir of [ws, path.join(ws, "memory"), root]) {
      const block = await privacyPath.turn({ sessionKey: fresh(`agent:main:telegram:group:${GROUP_PEER}`), question: QUESTION, entry: groups({ channel: "telegram", memoryDir }), ws });
      for (const secret of SECRETS) expect(block, memoryDir).not.toContain(secret);
      expect(block, memoryDir).toBe("");
    }
  });
});
