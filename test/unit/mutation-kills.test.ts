import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import lockfile from "proper-lockfile";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { filesAfterFailure } from "../../src/bootstrap/fail-closed.ts";
import { ALWAYS_KEPT, DEFAULT_POLICY, fileSetFor, policyFromConfig, resolveBootstrapPolicy } from "../../src/bootstrap/policy.ts";
import { parseEthosContextConfig } from "../../src/context/config.ts";
import { applyConfidenceGate } from "../../src/context/gate.ts";
import { isSafeGroupMemoryDir, resolveRetrievalScope } from "../../src/context/scope.ts";
import { LockUnavailableError, lockPathFor, ownerPathFor, parseOwner, withFileLock } from "../../src/fs/lock.ts";
import { ConcurrentEditError, ContentChangedError, updateFileLocked } from "../../src/fs/locked-writes.ts";
import { classifySession, keyShapeOf, resetClassifierWarnings } from "../../src/session/classify.ts";
import { resolveMainKeys, resolveOwners } from "../../src/session/owners.ts";
import { sampleOrchestration, sampleSessionKeys } from "../../src/session/sample-keys.ts";
import { SESSION_TYPES } from "../../src/session/types.ts";
import { bootstrapEvent, hostList, namesOf } from "./hardening/bootstrap-events.ts";

// Behaviour the mutation run (`npm run mutation`, stryker.config.mjs) showed no test pinned down:
// key shapes and rules of odd keys, owner-list bookkeeping, config error messages, gate boundaries,
// lock logging and error details. Each block names the file whose mutants it kills.

type LogEntry = { level: number; name: string; msg: string; [field: string]: unknown };
let logged: LogEntry[];
beforeEach(() => {
  logged = [];
  resetClassifierWarnings();
  setLogDestination({ write: (line: string) => void logged.push(JSON.parse(line) as LogEntry) });
});
afterEach(() => {
  vi.restoreAllMocks();
  setLogDestination(undefined);
});
const none = { ownerIds: [] as string[] };

describe("classify.ts: key shapes", () => {
  it("keeps every structural word and replaces ids", () => {
    const words = "main:global:direct:dm:group:channel:room:topic:direct-topic:thread:subagent:spawn:acp:binding:cron:run:hook:boot:heartbeat:dashboard:explicit:agent";
    expect(keyShapeOf(`agent:x:${words}`.split(":"))).toBe(`agent:<id>:${words}`);
    expect(keyShapeOf(["agent", "x", "secret"])).toBe("agent:<id>:<id>");
  });

  it("keeps a channel name only where the channel sits, and only when it looks like one", () => {
    expect(classifySession("agent:main:telegram:direct:5", none).keyShape).toBe("agent:<id>:telegram:direct:<id>");
    expect(classifySession("agent:main:9gag:direct:5", none).keyShape).toBe("agent:<id>:<id>:direct:<id>");
    expect(classifySession("agent:main:tele!gram:direct:5", none).keyShape).toBe("agent:<id>:<id>:direct:<id>");
    expect(classifySession("agent:main:telegram:acct:direct:5", none).keyShape).toBe("agent:<id>:telegram:<id>:direct:<id>");
  });

  it("only an `agent:` key has its second segment replaced", () => {
    expect(classifySession("main:heartbeat", none).keyShape).toBe("main:heartbeat");
    expect(classifySession("cron:daily", none).keyShape).toBe("cron:<id>");
  });

  it("empty segments stay empty, incognito ids keep their marker", () => {
    expect(classifySession("agent::main", none).keyShape).toBe("agent::main");
    expect(classifySession(" agent::x ", none)).toMatchObject({ rule: "malformed-agent-key", keyShape: "agent::<id>" });
    expect(classifySession("agent:main:foo::bar", none).keyShape).toBe("agent:<id>:<id>::<id>");
    expect(classifySession("agent:main:subagent:incognito-abc", none).keyShape).toBe("agent:<id>:subagent:incognito-<id>");
    expect(classifySession("agent:main:subagent:x-incognito-", none).keyShape).toBe("agent:<id>:subagent:<id>");
  });

  it("a key longer than 24 segments is cut with a count; 24 segments are not", () => {
    const long = ["agent", "main", ...Array.from({ length: 28 }, (_, i) => `s${i}`)].join(":");
    expect(classifySession(long, none).keyShape).toBe(`agent:<id>${":<id>".repeat(22)}:…(30 segments)`);
    const exact = ["agent", "main", ...Array.from({ length: 22 }, (_, i) => `s${i}`)].join(":");
    expect(classifySession(exact, none).keyShape).toBe(`agent:<id>${":<id>".repeat(22)}`);
  });

  it("a key that is not there has the shape <none>", () => {
    expect(classifySession(undefined, none)).toMatchObject({ type: "FALLBACK", rule: "empty-key", keyShape: "<none>" });
    expect(classifySession("   ", none)).toMatchObject({ rule: "empty-key", keyShape: "<none>" });
  });
});

describe("classify.ts: rules of odd keys", () => {
  it.each([
    ["agent", "malformed-agent-key"],
    ["agent:main", "malformed-agent-key"],
    ["agent:main:", "malformed-agent-key"],
    ["agent: :main", "malformed-agent-key"],
    ["", "empty-key"],
  ])("%j → FALLBACK by %s", (key, rule) => {
    expect(classifySession(key, none)).toMatchObject({ type: "FALLBACK", rule });
  });

  it("surrounding spaces do not change a key", () => {
    expect(classifySession(" agent:main:main ", none)).toMatchObject({ type: "MAIN_SESSION", agentId: "main" });
  });

  it("subagent, spawn, acp, cron, hook and boot need an id", () => {
    for (const head of ["subagent", "spawn", "acp", "cron", "hook", "boot"]) {
      expect(classifySession(`agent:main:${head}`, none).type).toBe("FALLBACK");
      expect(classifySession(`agent:main:${head}:`, none).type).toBe("FALLBACK");
      expect(classifySession(`agent:main:${head}::x`, none).type).toBe("FALLBACK");
    }
  });

  it("a DM or group with an empty peer is no conversation", () => {
    expect(classifySession("agent:main:telegram:direct::555", { ownerIds: ["555", ":555"] }).type).toBe("FALLBACK");
  });

  it("a bare DM has no channel", () => {
    const got = classifySession("agent:main:direct:555", none);
    expect(got).toMatchObject({ type: "EXTERNAL_DM", peerId: "555" });
    expect(got.channel).toBeUndefined();
  });

  it("the topic id is the segment after `topic`, wherever the topic sits in the suffix", () => {
    expect(classifySession("agent:main:telegram:group:-100:thread:5:topic:7", none)).toMatchObject({ type: "FORUM_TOPIC", topicId: "7" });
    expect(classifySession("agent:main:telegram:group:-100:topic:", none).type).toBe("GROUP_CHAT");
    expect(classifySession("agent:main:telegram:group:-100:topic::thread:3", none).type).toBe("GROUP_CHAT");
    expect(classifySession("agent:main:telegram:group:-100:thread:5:topic:", none).type).toBe("GROUP_CHAT");
  });

  it("owner ids that are not strings, or blank, are ignored", () => {
    const ownerIds = [42, "  ", "555"] as unknown as string[];
    expect(classifySession("agent:main:telegram:direct:555", { ownerIds }).type).toBe("PRIVATE_DM");
    expect(classifySession("agent:main:telegram:direct: :thread:1", { ownerIds }).type).toBe("EXTERNAL_DM");
  });

  it("an isolated heartbeat of a main thread is a heartbeat run", () => {
    expect(classifySession("agent:main:main:thread:42:heartbeat", none)).toMatchObject({ type: "HEARTBEAT_CRON", rule: "heartbeat-isolated" });
  });

  it("a custom main key named like a rule word is still the main session", () => {
    expect(classifySession("agent:main:heartbeat", { ownerIds: [], mainKeys: ["heartbeat"] }).type).toBe("MAIN_SESSION");
  });

  it("main keys are trimmed and lower-cased; blanks and non-strings are ignored", () => {
    const mainKeys = [" Home ", "  ", 7] as unknown as string[];
    expect(classifySession("agent:main:home", { ownerIds: [], mainKeys }).type).toBe("MAIN_SESSION");
    expect(classifySession(":thread:1", { ownerIds: [], mainKeys }).type).toBe("FALLBACK");
  });
});

describe("classify.ts: unknown-shape warnings", () => {
  const warnings = () => logged.filter((entry) => entry.level === 40 && entry.name === "aci-bootstrap");

  it("names the logger, the shape and the file set used", () => {
    classifySession("agent:main:mystery", none);
    expect(warnings()).toEqual([
      expect.objectContaining({ keyShape: "agent:<id>:<id>", rule: "unknown-shape", msg: "unrecognised session key shape, using the FALLBACK file set" }),
    ]);
  });

  it("warns about at most 256 shapes, then stays quiet", () => {
    for (let n = 1; n <= 300; n += 1) classifySession(`agent:main${":x".repeat(n)}`, none);
    expect(warnings()).toHaveLength(256);
  });

  it("forgets the warned shapes on reset", () => {
    classifySession("agent:main:mystery", none);
    classifySession("agent:main:mystery", none);
    resetClassifierWarnings();
    classifySession("agent:main:mystery", none);
    expect(warnings()).toHaveLength(2);
  });
});

describe("sample-keys.ts", () => {
  it("each sample key classifies as its own session type", () => {
    const orchestration = sampleOrchestration(undefined);
    const samples = sampleSessionKeys("77", "telegram", orchestration.key);
    expect(Object.keys(samples).sort()).toEqual([...SESSION_TYPES].sort());
    for (const type of SESSION_TYPES) expect(classifySession(samples[type], { ownerIds: ["77"], orchestration: orchestration.rule }).type).toBe(type);
    // Without the rule the orchestration sample is the forum topic it is.
    expect(classifySession(samples.ORCHESTRATION, none).type).toBe("FORUM_TOPIC");
    expect(classifySession(samples.FORUM_TOPIC, none).topicId).toBe("15");
    expect(classifySession(samples.FALLBACK, none)).toMatchObject({ rule: "unknown-shape", keyShape: "agent:<id>:<id>:<id>" });
  });
});

describe("owners.ts", () => {
  it("names only the lists that contributed an id, never the caller's", () => {
    const cfg = {
      hooks: { internal: { entries: { "aci-bootstrap": { ownerIds: ["*"] } } } },
      commands: { ownerAllowFrom: ["telegram:1"] },
    };
    expect(resolveOwners(cfg as never, ["9"])).toMatchObject({ source: "owner-lists", lists: ["commands.ownerAllowFrom"] });
    expect(resolveOwners({} as never, ["9"]).lists).toEqual([]);
  });

  it("channel allowlists skip entries that are not objects", () => {
    const cfg = { channels: { a: null, b: { allowFrom: ["7"], accounts: { x: null, y: { allowFrom: ["8"] } } } } };
    const got = resolveOwners(cfg as never);
    expect(got.owners).toEqual([{ channel: "b", id: "7" }, { channel: "b", id: "8" }]);
    expect(got).toMatchObject({ source: "channels.allowFrom", lists: ["channels.allowFrom"] });
    expect(resolveOwners({} as never)).toEqual({ owners: [], source: "none", lists: [] });
  });

  it("main keys: a custom one is trimmed and lower-cased, a blank one ignored", () => {
    expect(resolveMainKeys({ session: { mainKey: " Home " } } as never)).toEqual(["main", "home"]);
    expect(resolveMainKeys({ session: { mainKey: "  " } } as never)).toEqual(["main"]);
  });
});

describe("policy.ts: config errors name the reason", () => {
  const errorFor = (raw: unknown) => resolveBootstrapPolicy(raw).configError ?? "";

  it.each([
    [[""], "empty file name"],
    [[`${"a".repeat(253)}.md`], "file name longer than 255 characters"],
    [["notes.txt"], "must be a .md file"],
    [["/etc/notes.md"], "must be relative to the workspace, not an absolute path"],
    [["~/notes.md"], "must be relative to the workspace, not an absolute path"],
    [["a/../notes.md"], "must not contain '..'"],
    [["a\0.md"], "must not contain NUL"],
    [["MEMORY.md"], "MEMORY.md is never bulk-injected; the agent reads it on demand"],
    [["IDENTITY.md"], "IDENTITY.md is never bulk-injected; SOUL.md covers identity"],
    [["BOOTSTRAP.md"], "BOOTSTRAP.md passes through untouched; do not list it"],
    [["ETHOS_CONTEXT.md"], "ETHOS_CONTEXT.md is managed by the ethos-context hook"],
    [Array.from({ length: 33 }, (_, i) => `f${i}.md`), "at most 32 files per set"],
  ])("fileSets %j → %s", (files, reason) => {
    expect(errorFor({ fileSets: { GROUP_CHAT: files } })).toContain(reason);
    expect(resolveBootstrapPolicy({ fileSets: { GROUP_CHAT: files } }).sets.GROUP_CHAT).toEqual(DEFAULT_POLICY.sets.GROUP_CHAT);
  });

  it("a name with ~ inside is fine; names are trimmed", () => {
    const policy = resolveBootstrapPolicy({ fileSets: { GROUP_CHAT: [" notes~1.md "] } });
    expect(policy).toMatchObject({ configOk: true, sets: { GROUP_CHAT: ["notes~1.md"] } });
  });

  it("topic ids must be short ids", () => {
    for (const bad of ["7 x", "x 7", "a".repeat(65)]) {
      expect(errorFor({ topicFiles: { [bad]: ["a.md"] } })).toContain(`topicFiles.${bad}: topic id must be a short id`);
      expect(resolveBootstrapPolicy({ topicFiles: { [bad]: ["a.md"] } }).topicFiles).toEqual({});
    }
    expect(resolveBootstrapPolicy({ topicFiles: { "-7.a_b": ["a.md"] } })).toMatchObject({ configOk: true, topicFiles: { "-7.a_b": ["a.md"] } });
  });

  it("maxFileBytes is 1 byte to 2 MiB", () => {
    expect(resolveBootstrapPolicy({ maxFileBytes: 2 * 1024 * 1024 })).toMatchObject({ configOk: true, maxFileBytes: 2 * 1024 * 1024 });
    expect(resolveBootstrapPolicy({ maxFileBytes: 1 })).toMatchObject({ configOk: true, maxFileBytes: 1 });
    expect(resolveBootstrapPolicy({ maxFileBytes: 2 * 1024 * 1024 + 1 })).toMatchObject({ configOk: false, maxFileBytes: 64 * 1024 });
    expect(resolveBootstrapPolicy({ maxFileBytes: 0 }).configOk).toBe(false);
  });

  it("hostVersion looks like 2026.9.6", () => {
    expect(resolveBootstrapPolicy({ hostVersion: "2026.9.6" })).toMatchObject({ configOk: true, hostVersion: "2026.9.6" });
    expect(resolveBootstrapPolicy({ hostVersion: "2026.10.13" })).toMatchObject({ configOk: true, hostVersion: "2026.10.13" });
    for (const bad of ["v2026.9.6", "2026.ab.6", "2026.9.x"]) expect(errorFor({ hostVersion: bad })).toContain("expected a version like 2026.9.6");
  });

  it("defaults: no owner ids, config ok, BOOTSTRAP.md and the memory record always kept", () => {
    expect(DEFAULT_POLICY).toMatchObject({ ownerIds: [], configOk: true });
    expect(policyFromConfig(DEFAULT_POLICY).configOk).toBe(true);
    expect([...ALWAYS_KEPT].sort()).toEqual(["BOOTSTRAP.md", "ETHOS_CONTEXT.md"]);
  });

  it("a private name is refused behind a Windows separator too", () => {
    expect(errorFor({ fileSets: { GROUP_CHAT: ["notes\\MEMORY.md"] } })).toContain("MEMORY.md is never bulk-injected");
  });

  it("topic extras already in the set are not added twice", () => {
    const policy = resolveBootstrapPolicy({ topicFiles: { "7": ["SOUL.md", "t.md"] } });
    expect(fileSetFor(policy, { type: "FORUM_TOPIC", rule: "group-topic", topicId: "7", keyShape: "" })).toEqual(["SOUL.md", "TOOLS_COMPACT.md", "t.md"]);
  });

  it("topic extras: only for a forum topic with an id that is configured", () => {
    const policy = resolveBootstrapPolicy({ topicFiles: { undefined: ["x.md"], "7": ["t.md"] } });
    expect(fileSetFor(policy, { type: "FORUM_TOPIC", rule: "group-topic", keyShape: "" })).toEqual(["SOUL.md", "TOOLS_COMPACT.md"]);
    expect(fileSetFor(policy, { type: "FORUM_TOPIC", rule: "group-topic", topicId: "8", keyShape: "" })).toEqual(["SOUL.md", "TOOLS_COMPACT.md"]);
    expect(fileSetFor(policy, { type: "FORUM_TOPIC", rule: "group-topic", topicId: "7", keyShape: "" })).toEqual(["SOUL.md", "TOOLS_COMPACT.md", "t.md"]);
  });
});

describe("gate.ts: boundaries", () => {
  const memory = (score: number, id = String(score)) => ({ id, text: id, score, source: "workspace" }) as never;
  const thresholds = { gate: 0.12, high: 0.75 };

  it("one result between gate and high does not inject without the small-vault rule", () => {
    expect(applyConfidenceGate([memory(0.5)], thresholds)).toMatchObject({ inject: false, tier: "single-below-high", passing: [] });
    expect(applyConfidenceGate([memory(0.5), memory(0.05)], thresholds)).toMatchObject({ inject: false, tier: "single-below-high" });
  });

  it("the high tier needs a result that clears the gate (a gate set above `high`)", () => {
    expect(applyConfidenceGate([memory(0.7)], { gate: 0.9, high: 0.5 })).toMatchObject({ inject: false, tier: "below-gate" });
  });

  it("a lone result exactly at `single` injects", () => {
    expect(applyConfidenceGate([memory(0.35)], { ...thresholds, single: 0.35 })).toMatchObject({ inject: true, tier: "single" });
  });
});

describe("scope.ts: group matching", () => {
  const group = { peerId: "-100", channel: "telegram", memoryDir: "/tmp/group-memory" };
  const config = (groups: unknown[]) => parseEthosContextConfig({ scope: { groups } }).config;

  it("a group without a peer (unknown shape) or a channel never matches", () => {
    const deep = classifySession("agent:main:a:b:c:group:-100", none);
    expect(resolveRetrievalScope(deep, config([group]))).toEqual({ allowed: false, sessionType: "GROUP_CHAT", reason: "group-not-enabled" });
    const bare = classifySession("agent:main:group:-100", none);
    expect(resolveRetrievalScope(bare, config([group]))).toMatchObject({ allowed: false, reason: "group-not-enabled" });
    expect(resolveRetrievalScope(classifySession("agent:main:telegram:group:-100", none), config([group]))).toMatchObject({ allowed: true });
  });

  it("sessions outside the memory scope say so", () => {
    expect(resolveRetrievalScope(classifySession("agent:main:telegram:direct:5", none), config([]))).toEqual({
      allowed: false, sessionType: "EXTERNAL_DM", reason: "session-type-out-of-scope",
    });
  });

  it("a blank peer matches no group, even one configured blank", () => {
    const blank = classifySession("agent:main:telegram:group: :thread:1", none);
    expect(resolveRetrievalScope(blank, config([{ ...group, peerId: " " }]))).toMatchObject({ allowed: false, reason: "group-not-enabled" });
  });

  it("the folder holding a linked workspace path is refused, though the real workspace is elsewhere", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "mutants-scope-link-"));
    try {
      const realWorkspace = path.join(root, "real-ws");
      const links = path.join(root, "links");
      fs.mkdirSync(realWorkspace);
      fs.mkdirSync(links);
      fs.symlinkSync(realWorkspace, path.join(links, "ws"));
      expect(isSafeGroupMemoryDir(links, path.join(links, "ws"))).toBe(false);
      expect(isSafeGroupMemoryDir(path.join(root, "groups"), path.join(links, "ws"))).toBe(true);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("fail-closed.ts", () => {
  let workspace: string;
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), "mutants-fc-"));
  });
  afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }));

  it("a lower-case memory.md is private too; a record without a path is judged by its name", () => {
    const records = [{ name: "memory.md", path: path.join(workspace, "memory.md") }, { name: "SOUL.md" }, { name: "notes.md", path: path.join(workspace, "USER.md") }];
    const out = filesAfterFailure(bootstrapEvent(workspace, "agent:main:telegram:group:-1"), records);
    expect(namesOf(out.files)).toEqual(["SOUL.md"]);
  });

  it("a custom main key from cfg counts as the owner's session", () => {
    const cfg = { session: { mainKey: "home" } };
    expect(filesAfterFailure(bootstrapEvent(workspace, "agent:main:home", { cfg }), hostList(workspace))).toMatchObject({ action: "left-as-received", sessionType: "MAIN_SESSION" });
  });

  it("an unreadable event is treated as a non-owner session", () => {
    const event = bootstrapEvent(workspace, "agent:main:main");
    Object.defineProperty(event, "sessionKey", { get: () => { throw new Error("hostile"); } });
    Object.defineProperty(event.context, "sessionKey", { get: () => { throw new Error("hostile"); } });
    const out = filesAfterFailure(event, hostList(workspace));
    expect(out).toMatchObject({ sessionType: "unknown", action: "private-files-removed" });
    expect(namesOf(out.files)).not.toContain("USER.md");
  });
});

describe("lock.ts: owner records and errors", () => {
  let dir: string;
  let file: string;
  const fast = { retryIntervalSeconds: 0.01, maxRetries: 2 };
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "mutants-lock-"));
    file = path.join(dir, "MEMORY.md");
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("parseOwner needs PID, AGENT and TIMESTAMP, trims values and reads HOST and TOKEN", () => {
    expect(parseOwner("PID: 42  \nAGENT: backup.sh  \nTIMESTAMP: 2026-01-01T00:00:00Z\nHOST: box\nTOKEN: abc\n")).toEqual({
      pid: 42, agent: "backup.sh", timestamp: "2026-01-01T00:00:00Z", host: "box", token: "abc",
    });
    expect(parseOwner("PID: 42\nAGENT: a\nTIMESTAMP: t\n")).toEqual({ pid: 42, agent: "a", timestamp: "t", host: undefined, token: undefined });
    expect(parseOwner("AGENT: a\nTIMESTAMP: t\n")).toBeNull();
    expect(parseOwner("PID: 42\nTIMESTAMP: t\n")).toBeNull();
    expect(parseOwner("PID: 42\nAGENT: a\n")).toBeNull();
  });

  it("the owner record carries this host while held; the lock and its owner file go with the release", async () => {
    const seen = await withFileLock(file, async () => ({ owner: parseOwner(fs.readFileSync(ownerPathFor(file), "utf8")), locked: fs.existsSync(lockPathFor(file)) }));
    expect(seen.owner?.host).toBe(os.hostname());
    expect(seen.locked).toBe(true);
    expect(fs.existsSync(lockPathFor(file))).toBe(false);
    expect(fs.existsSync(ownerPathFor(file))).toBe(false);
  });

  it("an unavailable lock says who holds it, and logs the failure", async () => {
    fs.writeFileSync(lockPathFor(file), `PID: 4242\nAGENT: backup.sh\nTIMESTAMP: ${new Date().toISOString()}\n`);
    const error = await withFileLock(file, async () => "ran", fast).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LockUnavailableError);
    expect((error as Error).name).toBe("LockUnavailableError");
    expect((error as Error).message).toMatch(new RegExp(`^Failed to acquire lock for .*MEMORY\\.md after 2 attempts \\(held by backup\\.sh pid 4242 since .+\\); write aborted$`));
    expect(logged).toContainEqual(expect.objectContaining({ level: 50, name: "openclaw-context.lock", attempts: 2, ownerPid: 4242, msg: `Failed to acquire lock for ${file} after 2 attempts` }));
  });

  it("an unavailable lock with no owner record says so plainly", async () => {
    fs.mkdirSync(lockPathFor(file));
    const error = await withFileLock(file, async () => "ran", fast).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe(`Failed to acquire lock for ${file} after 2 attempts; write aborted`);
  });

  it("a spec lock file whose TIMESTAMP is fresh is held even when its mtime is old; a garbled TIMESTAMP falls back to the mtime", async () => {
    fs.writeFileSync(lockPathFor(file), `PID: 1\nAGENT: a\nTIMESTAMP: ${new Date().toISOString()}\n`);
    const old = new Date(Date.now() - 3_600_000);
    fs.utimesSync(lockPathFor(file), old, old);
    await expect(withFileLock(file, async () => "ran", { ...fast, staleThresholdSeconds: 60 })).rejects.toBeInstanceOf(LockUnavailableError);
    fs.writeFileSync(lockPathFor(file), "PID: 1\nAGENT: a\nTIMESTAMP: garbled\n");
    await expect(withFileLock(file, async () => "ran", { ...fast, staleThresholdSeconds: 60 })).rejects.toBeInstanceOf(LockUnavailableError);
  });

  it("a spec lock exactly as old as the threshold is still fresh; older is stale, logged with its age and owner", async () => {
    const stamp = Date.parse("2026-01-01T00:00:00.000Z");
    fs.writeFileSync(lockPathFor(file), "PID: 7\nAGENT: backup.sh\nTIMESTAMP: 2026-01-01T00:00:00.000Z\n");
    vi.spyOn(Date, "now").mockReturnValue(stamp + 10_000);
    await expect(withFileLock(file, async () => "ran", { ...fast, maxRetries: 1, staleThresholdSeconds: 10 })).rejects.toBeInstanceOf(LockUnavailableError);
    vi.spyOn(Date, "now").mockReturnValue(stamp + 10_001);
    await expect(withFileLock(file, async () => "ran", { ...fast, maxRetries: 1, staleThresholdSeconds: 10 })).resolves.toBe("ran");
    expect(logged).toContainEqual(expect.objectContaining({
      level: 40, name: "openclaw-context.lock", lockAgeSeconds: 10, ownerPid: 7, ownerAgent: "backup.sh",
      msg: "Stale lock detected from backup.sh at 2026-01-01T00:00:00.000Z, overriding",
    }));
  });

  it("a stale lock directory is reported with its owner record, or as unknown with its mtime", async () => {
    fs.mkdirSync(lockPathFor(file));
    const old = new Date("2026-01-01T00:00:00.000Z");
    fs.utimesSync(lockPathFor(file), old, old);
    await withFileLock(file, async () => "ran", { ...fast, staleThresholdSeconds: 2 });
    expect(logged).toContainEqual(expect.objectContaining({ msg: "Stale lock detected from unknown agent at 2026-01-01T00:00:00.000Z, overriding" }));
    fs.mkdirSync(lockPathFor(file));
    fs.writeFileSync(ownerPathFor(file), "PID: 9\nAGENT: crashed\nTIMESTAMP: 2026-01-01T00:00:00.000Z\n");
    fs.utimesSync(lockPathFor(file), old, old);
    await withFileLock(file, async () => "ran", { ...fast, staleThresholdSeconds: 2 });
    expect(logged).toContainEqual(expect.objectContaining({ ownerAgent: "crashed", msg: "Stale lock detected from crashed at 2026-01-01T00:00:00.000Z, overriding" }));
  });

  it("an error other than a held lock is thrown at once, not retried into 'unavailable'", async () => {
    const longName = path.join(dir, `${"a".repeat(250)}.md`);
    const error = await withFileLock(longName, async () => "ran", fast).catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(LockUnavailableError);
    expect((error as NodeJS.ErrnoException).code).toBe("ENAMETOOLONG");
  });

  it("three callers in this process each get the lock in turn", async () => {
    const once = { retryIntervalSeconds: 0.01, maxRetries: 1 };
    let releaseFirst!: () => void;
    let releaseSecond!: () => void;
    let secondInside!: () => void;
    const secondEntered = new Promise<void>((resolve) => (secondInside = resolve));
    const first = withFileLock(file, () => new Promise<void>((resolve) => (releaseFirst = resolve)), once);
    const second = withFileLock(file, () => { secondInside(); return new Promise<void>((resolve) => (releaseSecond = resolve)); }, once);
    await vi.waitUntil(() => releaseFirst !== undefined);
    releaseFirst();
    await secondEntered;
    const third = withFileLock(file, async () => "third", once);
    releaseSecond();
    await Promise.all([first, second]);
    await expect(third).resolves.toBe("third");
  });

  it("a lock on a file whose folder is not there yet makes the folder", async () => {
    const nested = path.join(dir, "memory", "new", "2026-01-01.md");
    await expect(withFileLock(nested, async () => fs.existsSync(lockPathFor(nested)))).resolves.toBe(true);
    expect(fs.readdirSync(path.dirname(nested))).toEqual([]);
  });

  it("an owner record that cannot be written is logged and the write still happens", async () => {
    fs.mkdirSync(ownerPathFor(file));
    await expect(withFileLock(file, async () => "ran")).resolves.toBe("ran");
    expect(logged).toContainEqual(expect.objectContaining({ level: 40, file, msg: "could not record lock owner" }));
  });

  it("a lock lost while held is logged, and so is the failed release; the caller still gets its result", async () => {
    const result = await withFileLock(file, async () => {
      fs.rmSync(lockPathFor(file), { recursive: true });
      await vi.waitUntil(() => logged.some((entry) => entry.msg === "lock compromised while held"), { timeout: 20_000, interval: 50 });
      // Whoever took the lock over wrote its own record: ours is gone, theirs must stay.
      fs.writeFileSync(ownerPathFor(file), "PID: 7\nAGENT: other\nTIMESTAMP: 2026-01-01T00:00:00.000Z\nTOKEN: theirs\n");
      return "kept";
    }, { staleThresholdSeconds: 2 });
    expect(result).toBe("kept");
    expect(logged).toContainEqual(expect.objectContaining({ level: 50, file, msg: "lock compromised while held" }));
    expect(logged).toContainEqual(expect.objectContaining({ level: 40, file, msg: "lock release failed" }));
    expect(parseOwner(fs.readFileSync(ownerPathFor(file), "utf8"))?.token).toBe("theirs");
  });

  it("content errors carry their names and the file", async () => {
    fs.writeFileSync(file, "v1\n");
    const changed = await updateFileLocked(file, () => "v2\n", { expectedHash: "nope" }).catch((caught: unknown) => caught);
    expect(changed).toBeInstanceOf(ContentChangedError);
    expect(changed).toMatchObject({ name: "ContentChangedError", code: "ECONTENTCHANGED", file, message: `${file} no longer has the expected content hash` });
    const edits = await updateFileLocked(file, (current) => {
      fs.writeFileSync(file, `${current}x`);
      return "mine\n";
    }, { maxConflictRetries: 1 }).catch((caught: unknown) => caught);
    expect(edits).toBeInstanceOf(ConcurrentEditError);
    expect(edits).toMatchObject({ name: "ConcurrentEditError", code: "ECONCURRENTEDIT", file, message: `${file} changed while we were writing it` });
    expect(logged).toContainEqual(expect.objectContaining({ level: 40, file, conflicts: 1, msg: "file changed outside our lock during a write; retrying" }));
  });

  it("a transform that returns the text unchanged, or null, writes nothing", async () => {
    fs.writeFileSync(file, "same\n");
    const before = fs.statSync(file).mtimeMs;
    await expect(updateFileLocked(file, (current) => current)).resolves.toMatchObject({ written: false });
    await expect(updateFileLocked(path.join(dir, "new.md"), () => null)).resolves.toMatchObject({ written: false });
    expect(fs.existsSync(path.join(dir, "new.md"))).toBe(false);
    expect(fs.statSync(file).mtimeMs).toBe(before);
  });

  it("a lock taken by proper-lockfile elsewhere is honoured", async () => {
    const release = await lockfile.lock(file, { realpath: false, lockfilePath: lockPathFor(file) });
    try {
      await expect(withFileLock(file, async () => "ran", fast)).rejects.toBeInstanceOf(LockUnavailableError);
    } finally {
      await release();
    }
  });
});
