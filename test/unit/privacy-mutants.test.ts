import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { filesAfterFailure } from "../../src/bootstrap/fail-closed.ts";
import { DEFAULT_POLICY, fileSetFor, policyFromConfig, aciBootstrapConfigSchema } from "../../src/bootstrap/policy.ts";
import { isSafeGroupMemoryDir } from "../../src/context/scope.ts";
import { ownerPathFor, parseOwner, withFileLock } from "../../src/fs/lock.ts";
import { classifySession, resetClassifierWarnings } from "../../src/session/classify.ts";
import { ownerFromEntry, resolveOwners } from "../../src/session/owners.ts";
import { bootstrapEvent, hostList, namesOf } from "./hardening/bootstrap-events.ts";

// Mutants that survived the unit suite in issue 20 (Stryker, `npm run mutation`), each one a change
// in who sees private data. Every test below fails on the named mutant and passes on the code.

const OWNER = "424242";
const owners = { ownerIds: [OWNER] };
const hasUserFile = (key: string, ownerIds: string[] = [OWNER]) =>
  fileSetFor(DEFAULT_POLICY, classifySession(key, { ownerIds })).includes("USER.md");

beforeEach(() => {
  resetClassifierWarnings();
  setLogDestination({ write: () => undefined });
});
afterEach(() => setLogDestination(undefined));

describe("policy.ts: topic extras reach configured forum topics only (mutant: `&&` → `||`)", () => {
  const policy = policyFromConfig(aciBootstrapConfigSchema.parse({ topicFiles: { "7": ["topics/ops.md"] } }));

  it("a stranger's DM topic with the same topic id gets no topic extras", () => {
    const dmTopic = classifySession("agent:main:telegram:direct:555:direct-topic:7", owners);
    expect(dmTopic).toMatchObject({ type: "EXTERNAL_DM", topicId: "7" });
    expect(fileSetFor(policy, dmTopic)).toEqual(["SOUL.md", "TOOLS_COMPACT.md"]);
  });

  it("the forum topic itself gets them", () => {
    const topic = classifySession("agent:main:telegram:group:-100:topic:7", owners);
    expect(fileSetFor(policy, topic)).toEqual(["SOUL.md", "TOOLS_COMPACT.md", "topics/ops.md"]);
  });
});

describe("classify.ts: heartbeat and main-key rules", () => {
  it("`<base>:heartbeat` under an unknown base is a heartbeat run without USER.md (mutant: rule removed)", () => {
    expect(classifySession("agent:main:foo:heartbeat", owners)).toMatchObject({ type: "HEARTBEAT_CRON", rule: "heartbeat-isolated" });
    expect(hasUserFile("agent:main:foo:heartbeat")).toBe(false);
  });

  it("a lone `heartbeat` segment is not a heartbeat run (the rule needs a base)", () => {
    expect(classifySession("agent:main:heartbeat", owners).type).toBe("FALLBACK");
    expect(classifySession("heartbeat", owners).type).toBe("FALLBACK");
  });

  it("`global` is the main session only as the bare key, not under an agent (mutant: `agentId === undefined` → true)", () => {
    expect(classifySession("global", owners).type).toBe("MAIN_SESSION");
    const agentGlobal = classifySession("agent:main:global", owners);
    expect(agentGlobal).toMatchObject({ type: "FALLBACK", rule: "unknown-shape" });
  });

  it("`main` is the main session only under an agent (bare `main` is an unknown key)", () => {
    expect(classifySession("main", owners).type).toBe("FALLBACK");
    expect(classifySession("main:heartbeat", owners).type).toBe("HEARTBEAT_CRON");
    expect(classifySession("agent:main:main:heartbeat", owners)).toMatchObject({ type: "HEARTBEAT_CRON", rule: "heartbeat-isolated" });
  });

  it("only `main:thread:<t>` extends the main session; other suffixes do not", () => {
    expect(classifySession("agent:main:main:thread:9", owners).type).toBe("MAIN_SESSION");
    expect(classifySession("agent:main:main:other:9", owners).type).toBe("FALLBACK");
  });
});

describe("classify.ts: DMs and groups deeper in the key than core builds them", () => {
  // Core puts `<kind>:<peer>` at rest index 0, 1 or 2. Deeper, the key is an unknown shape, which
  // must not hand a stranger USER.md (mutant: the depth bound removed makes every depth a real DM).
  it("a stranger's DM at rest index 3 is EXTERNAL_DM by the unknown-shape rule, without USER.md", () => {
    const got = classifySession("agent:main:telegram:work:extra:direct:555", owners);
    expect(got).toMatchObject({ type: "EXTERNAL_DM", rule: "dm-other-unknown-shape", peerId: "555" });
    expect(got.channel).toBeUndefined();
    expect(hasUserFile("agent:main:telegram:work:extra:direct:555")).toBe(false);
  });

  it("the owner's DM at rest index 3 stays FALLBACK (an unknown shape, not a verified owner DM)", () => {
    const got = classifySession(`agent:main:telegram:work:extra:direct:${OWNER}`, owners);
    expect(got).toMatchObject({ type: "FALLBACK", rule: "unknown-shape" });
  });

  it("a group at rest index 3 is GROUP_CHAT with no peer kept (no group memory, no topic extras)", () => {
    const got = classifySession("agent:main:a:b:c:group:-100:topic:7", owners);
    expect(got).toMatchObject({ type: "GROUP_CHAT", rule: "group-unknown-shape" });
    expect(got.peerId).toBeUndefined();
    expect(got.topicId).toBeUndefined();
    expect(hasUserFile("agent:main:a:b:c:group:-100:topic:7")).toBe(false);
  });

  it("at rest index 2 a DM is a real DM with its channel", () => {
    expect(classifySession("agent:main:telegram:work:direct:555", owners)).toMatchObject({ type: "EXTERNAL_DM", rule: "dm-other", channel: "telegram" });
    expect(classifySession(`agent:main:telegram:work:direct:${OWNER}`, owners)).toMatchObject({ type: "PRIVATE_DM", rule: "dm-owner" });
  });

  it("a kind word with no peer after it names no conversation", () => {
    expect(classifySession("agent:main:a:b:c:direct", owners).type).toBe("FALLBACK");
    expect(classifySession("agent:main:a:b:c:direct::x", owners).type).toBe("FALLBACK");
  });
});

describe("owners.ts: owner ids", () => {
  it("trims nothing: an id with blanks is another id (issue 24)", () => {
    const spaced = classifySession("agent:main:telegram:direct:4242 42", owners);
    expect(spaced.type).toBe("EXTERNAL_DM");
    expect(classifySession("agent:main:telegram:direct: 424242", owners).type).toBe("EXTERNAL_DM");
    expect(classifySession("agent:main:telegram:direct:424242", owners).type).toBe("PRIVATE_DM");
  });

  it('"*", NaN and ±Infinity identify nobody', () => {
    expect(ownerFromEntry("*")).toBeUndefined();
    expect(ownerFromEntry(Number.NaN)).toBeUndefined();
    expect(ownerFromEntry(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(ownerFromEntry(Number.NEGATIVE_INFINITY)).toBeUndefined();
    expect(ownerFromEntry(424242)).toEqual({ id: "424242" });
    expect(ownerFromEntry("telegram:*")).toBeUndefined();
    const cfg = { commands: { ownerAllowFrom: ["*", Number.NaN, Number.POSITIVE_INFINITY] } };
    expect(resolveOwners(cfg as never).owners).toEqual([]);
    for (const peer of ["*", "NaN", "Infinity"]) {
      expect(classifySession(`agent:main:telegram:direct:${peer}`, { ownerIds: resolveOwners(cfg as never).owners }).type).toBe("EXTERNAL_DM");
    }
  });

  it('a prefix needs a known channel: ":123" and "foo:123" are whole ids, "telegram:123" is 123 on Telegram', () => {
    expect(ownerFromEntry(":123")).toEqual({ id: ":123" });
    expect(ownerFromEntry("foo:123")).toEqual({ id: "foo:123" });
    expect(ownerFromEntry("telegram:")).toBeUndefined();
    expect(ownerFromEntry("telegram:123")).toEqual({ channel: "telegram", id: "123" });
    const owned = resolveOwners({ commands: { ownerAllowFrom: [":123"] } } as never).owners;
    expect(classifySession("agent:main:telegram:direct:123", { ownerIds: owned }).type).toBe("EXTERNAL_DM");
  });
});

describe("fail-closed.ts: the list after a failure", () => {
  let workspace: string;
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), "mutants-failclosed-"));
  });
  afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }));

  it("a record without a string name is dropped in a non-owner session; named records stay", () => {
    const soul = { name: "SOUL.md", path: path.join(workspace, "SOUL.md") };
    const out = filesAfterFailure(bootstrapEvent(workspace, "agent:main:telegram:group:-100"), [{ path: path.join(workspace, "notes.md") }, null, soul]);
    expect(out).toMatchObject({ action: "private-files-removed", sessionType: "GROUP_CHAT" });
    expect(out.files).toEqual([soul]);
  });

  it("a list that cannot be walked is emptied, never handed back", () => {
    const unwalkable = new Proxy([], {
      get(target, property) {
        if (property === Symbol.iterator) throw new Error("no walking");
        return Reflect.get(target, property);
      },
    });
    const out = filesAfterFailure(bootstrapEvent(workspace, "agent:main:telegram:direct:999"), unwalkable);
    expect(out).toEqual({ files: [], sessionType: "EXTERNAL_DM", action: "emptied" });
  });

  it("a stranger's deep DM key loses USER.md and MEMORY.md", () => {
    const out = filesAfterFailure(bootstrapEvent(workspace, "agent:main:a:b:c:direct:999"), hostList(workspace));
    expect(out.sessionType).toBe("EXTERNAL_DM");
    expect(namesOf(out.files)).not.toContain("USER.md");
    expect(namesOf(out.files)).not.toContain("MEMORY.md");
  });
});

describe("scope.ts: group memory folders", () => {
  it("with no workspace known, any folder is accepted (nothing to overlap); with one, the workspace is refused", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "mutants-scope-"));
    try {
      expect(isSafeGroupMemoryDir(root, undefined)).toBe(true);
      expect(isSafeGroupMemoryDir(root, "")).toBe(true);
      expect(isSafeGroupMemoryDir(root, root)).toBe(false);
      expect(isSafeGroupMemoryDir(path.join(root, "..", "elsewhere"), root)).toBe(true);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("lock.ts: a release removes only its own owner record", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "mutants-lock-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("an owner record written by another holder during our hold survives our release", async () => {
    const file = path.join(dir, "MEMORY.md");
    const theirs = "PID: 999\nAGENT: other\nTIMESTAMP: 2026-11-25T00:00:00.000Z\nHOST: h\nTOKEN: theirtoken\n";
    await withFileLock(file, async () => {
      // What a holder that took over our (compromised) lock leaves behind.
      fs.writeFileSync(ownerPathFor(file), theirs);
    });
    expect(fs.readFileSync(ownerPathFor(file), "utf8")).toBe(theirs);
  });

  it("our own owner record is written while we hold the lock and removed on release", async () => {
    const file = path.join(dir, "MEMORY.md");
    const seen = await withFileLock(file, async () => parseOwner(fs.readFileSync(ownerPathFor(file), "utf8")), { agentName: "tester" });
    expect(seen).toMatchObject({ pid: process.pid, agent: "tester" });
    expect(seen?.token).toMatch(/^[0-9a-f]{12}$/);
    expect(fs.existsSync(ownerPathFor(file))).toBe(false);
  });
});
