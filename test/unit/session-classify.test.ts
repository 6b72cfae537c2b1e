import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { classifySession, resetClassifierWarnings } from "../../src/session/classify.ts";
import type { SessionType } from "../../src/session/types.ts";

const owners = { ownerIds: ["123456789", "+15555550123"] };

// [key, expected type, expected rule, extra expectations]
const table: Array<[string, SessionType, string, Record<string, string>?]> = [
  ["agent:main:main", "MAIN_SESSION", "main", { agentId: "main" }],
  ["agent:Jules:MAIN", "MAIN_SESSION", "main", { agentId: "jules" }],
  ["agent:main:main:thread:42", "MAIN_SESSION", "main"],
  ["global", "MAIN_SESSION", "main"],
  ["agent:main:direct:123456789", "PRIVATE_DM", "dm-owner", { peerId: "123456789" }],
  ["agent:main:telegram:direct:123456789", "PRIVATE_DM", "dm-owner", { channel: "telegram" }],
  ["agent:main:telegram:work:direct:123456789", "PRIVATE_DM", "dm-owner", { channel: "telegram" }],
  ["agent:main:whatsapp:direct:+15555550123", "PRIVATE_DM", "dm-owner"],
  ["agent:main:telegram:direct:123456789:thread:9", "PRIVATE_DM", "dm-owner", { peerId: "123456789" }],
  ["agent:main:telegram:direct:123456789:direct-topic:4", "PRIVATE_DM", "dm-owner", { topicId: "4" }],
  ["agent:main:telegram:direct:555", "EXTERNAL_DM", "dm-other", { peerId: "555" }],
  ["agent:main:slack:dm:u999", "EXTERNAL_DM", "dm-other"],
  ["agent:main:matrix:direct:@eve:matrix.org", "EXTERNAL_DM", "dm-other", { peerId: "@eve:matrix.org" }],
  ["agent:main:telegram:group:-1001234567890", "GROUP_CHAT", "group", { peerId: "-1001234567890" }],
  ["agent:main:discord:channel:987", "GROUP_CHAT", "group"],
  ["agent:main:matrix:room:!abc:matrix.org", "GROUP_CHAT", "group"],
  ["agent:main:slack:group:c1:thread:1700000000.1", "GROUP_CHAT", "group"],
  ["agent:zu:telegram:group:-1001234567890:topic:3", "FORUM_TOPIC", "group-topic", { topicId: "3", agentId: "zu" }],
  ["agent:main:telegram:acct2:group:-100:topic:15:thread:7", "FORUM_TOPIC", "group-topic", { topicId: "15" }],
  ["agent:main:subagent:3f1c2a9e-0000-4000-8000-000000000001", "SUBAGENT", "subagent"],
  ["agent:main:subagent:incognito-3f1c2a9e", "SUBAGENT", "subagent-incognito"],
  ["agent:main:subagent:codex-diagnostic", "SUBAGENT", "subagent"],
  ["agent:main:spawn:3f1c2a9e", "SUBAGENT", "spawn-seed"],
  ["agent:main:acp:3f1c2a9e", "SUBAGENT", "acp"],
  ["agent:main:acp:binding:telegram:default:abc123", "SUBAGENT", "acp"],
  ["subagent:workboard-1", "SUBAGENT", "subagent"],
  ["agent:main:cron:638814b0:run:1ffbdd69", "HEARTBEAT_CRON", "cron-run"],
  ["agent:main:cron:638814b0", "HEARTBEAT_CRON", "cron"],
  ["cron:daily-digest", "HEARTBEAT_CRON", "cron"],
  ["agent:main:hook:0b7e5a52-1111", "HEARTBEAT_CRON", "webhook"],
  ["agent:main:boot:4d2c", "HEARTBEAT_CRON", "boot"],
  ["agent:main:main:heartbeat", "HEARTBEAT_CRON", "heartbeat-isolated"],
  ["agent:main:telegram:direct:123456789:heartbeat", "HEARTBEAT_CRON", "heartbeat-isolated"],
  ["agent:main:dashboard:5e1d", "MAIN_SESSION", "operator-ui-dashboard"],
  ["agent:main:explicit:portal-1", "MAIN_SESSION", "operator-ui-explicit"],
  ["agent:main:my-custom-key", "FALLBACK", "unknown-shape"],
  // Ids that contain rule words never change the type: rules look at segment positions.
  ["agent:main:telegram:group:subagent", "GROUP_CHAT", "group", { peerId: "subagent" }],
  ["agent:main:telegram:group:my-subagent-fans:topic:3", "FORUM_TOPIC", "group-topic"],
  ["agent:main:telegram:direct:cron", "EXTERNAL_DM", "dm-other", { peerId: "cron" }],
  ["agent:main:telegram:direct:heartbeat", "EXTERNAL_DM", "dm-other", { peerId: "heartbeat" }],
  ["agent:main:discord:channel:subagent:thread:cron", "GROUP_CHAT", "group"],
];

describe("classifySession: key table", () => {
  it.each(table)("%s → %s", (key, type, rule, extra) => {
    const got = classifySession(key, owners);
    expect(got.type).toBe(type);
    expect(got.rule).toBe(rule);
    for (const [field, value] of Object.entries(extra ?? {})) {
      expect(got[field as keyof typeof got]).toBe(value);
    }
  });
});

describe("classifySession: owners and main keys", () => {
  it("compares owner ids case-insensitively", () => {
    expect(classifySession("agent:main:slack:direct:u07abc", { ownerIds: ["U07ABC"] }).type).toBe("PRIVATE_DM");
  });
  it("treats every DM as external when no owner is known", () => {
    expect(classifySession("agent:main:telegram:direct:123456789", { ownerIds: [] }).type).toBe("EXTERNAL_DM");
  });
  it("accepts a custom main key from config", () => {
    expect(classifySession("agent:main:home", { ownerIds: [], mainKeys: ["home"] }).type).toBe("MAIN_SESSION");
    expect(classifySession("agent:main:home", { ownerIds: [] }).type).toBe("FALLBACK");
  });
});

describe("classifySession: hostile keys", () => {
  const hostile: Array<[string, string | undefined]> = [
    ["undefined", undefined],
    ["empty", ""],
    ["blank", "   "],
    ["agent::", "agent::"],
    ["agent::main", "agent::main"],
    ["agent:main", "agent:main"],
    ["agent:main:", "agent:main:"],
    ["only colons", "::::"],
    ["unicode", "agent:main:🦀:ünïcødé:漢字"],
    ["10 kB", "a".repeat(10_240)],
    ["10 kB of colons", ":".repeat(10_240)],
  ];
  it.each(hostile)("%s → FALLBACK", (_label, key) => {
    const got = classifySession(key, owners);
    expect(got.type).toBe("FALLBACK");
    expect(got.keyShape.length).toBeLessThan(400);
  });

  it("keeps a 10 kB peer id a DM and never logs the id", () => {
    const peer = "x".repeat(10_240);
    const got = classifySession(`agent:main:telegram:direct:${peer}`, owners);
    expect(got.type).toBe("EXTERNAL_DM");
    expect(got.keyShape).toBe("agent:<id>:telegram:direct:<id>");
  });

  it("unicode group ids stay group chats", () => {
    expect(classifySession("agent:main:telegram:group:çhät-🦀", owners).type).toBe("GROUP_CHAT");
  });
});

describe("classifySession: unknown-shape warnings", () => {
  let lines: string[] = [];
  beforeEach(() => {
    lines = [];
    resetClassifierWarnings();
    setLogDestination(new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } }));
  });
  afterEach(() => setLogDestination(undefined));

  it("warns once per distinct key shape, not once per turn", () => {
    for (let turn = 0; turn < 5; turn += 1) classifySession("agent:main:custom-a", owners);
    classifySession("agent:main:custom-b", owners); // same shape agent:<id>:<id>
    classifySession("agent:main:x:y:z", owners); // a new shape
    const warnings = lines.map((line) => JSON.parse(line)).filter((entry) => entry.level === 40);
    expect(warnings.map((entry) => entry.keyShape)).toEqual(["agent:<id>:<id>", "agent:<id>:<id>:<id>:<id>"]);
    expect(lines.join("")).not.toContain("custom-a");
  });
});
