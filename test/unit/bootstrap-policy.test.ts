import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { DEFAULT_POLICY, fileSetFor, resolveBootstrapPolicy, SESSION_FILE_SETS } from "../../src/bootstrap/policy.ts";
import { classifySession } from "../../src/session/classify.ts";
import { SESSION_TYPES } from "../../src/session/types.ts";

let lines: string[] = [];
beforeEach(() => {
  lines = [];
  setLogDestination(new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } }));
});
afterEach(() => setLogDestination(undefined));

const errorsLogged = () => lines.map((line) => JSON.parse(line)).filter((entry) => entry.level === 50);

describe("default file sets", () => {
  it("match the ACI spec table", () => {
    expect(SESSION_FILE_SETS.MAIN_SESSION).toEqual(["SOUL.md", "USER.md", "TOOLS_COMPACT.md"]);
    expect(SESSION_FILE_SETS.PRIVATE_DM).toEqual(["SOUL.md", "USER.md", "TOOLS_COMPACT.md"]);
    for (const type of ["EXTERNAL_DM", "FORUM_TOPIC", "GROUP_CHAT"] as const) {
      expect(SESSION_FILE_SETS[type]).toEqual(["SOUL.md", "TOOLS_COMPACT.md"]);
    }
    expect(SESSION_FILE_SETS.SUBAGENT).toEqual(["SOUL.md"]);
    expect(SESSION_FILE_SETS.HEARTBEAT_CRON).toEqual(["SOUL.md", "HEARTBEAT.md"]);
    expect(SESSION_FILE_SETS.FALLBACK).toEqual(["SOUL.md", "USER.md", "AGENTS.md", "TOOLS_COMPACT.md"]);
  });

  it("never contain MEMORY.md or IDENTITY.md", () => {
    for (const type of SESSION_TYPES) {
      expect(DEFAULT_POLICY.sets[type]).not.toContain("MEMORY.md");
      expect(DEFAULT_POLICY.sets[type]).not.toContain("IDENTITY.md");
    }
  });
});

describe("operator overrides", () => {
  it("replace one type's set and keep the others", () => {
    const policy = resolveBootstrapPolicy({ fileSets: { GROUP_CHAT: ["SOUL.md"], SUBAGENT: ["SOUL.md", "AGENTS.md"] } });
    expect(policy.configOk).toBe(true);
    expect(policy.sets.GROUP_CHAT).toEqual(["SOUL.md"]);
    expect(policy.sets.SUBAGENT).toEqual(["SOUL.md", "AGENTS.md"]);
    expect(policy.sets.MAIN_SESSION).toEqual(SESSION_FILE_SETS.MAIN_SESSION);
  });

  it("add per-topic extras to forum topics only", () => {
    const policy = resolveBootstrapPolicy({ topicFiles: { "15": ["topics/ops.md"] } });
    const ops = classifySession("agent:main:telegram:group:-100:topic:15", { ownerIds: [] });
    const ideas = classifySession("agent:main:telegram:group:-100:topic:14", { ownerIds: [] });
    expect(fileSetFor(policy, ops)).toEqual(["SOUL.md", "TOOLS_COMPACT.md", "topics/ops.md"]);
    expect(fileSetFor(policy, ideas)).toEqual(["SOUL.md", "TOOLS_COMPACT.md"]);
  });

  it("accept numeric owner ids as strings", () => {
    expect(resolveBootstrapPolicy({ ownerIds: [123456789, "U07ABC"] }).ownerIds).toEqual(["123456789", "U07ABC"]);
  });
});

describe("config errors name the key; only the bad key (or list entry) is dropped", () => {
  const bad: Array<[string, unknown, string]> = [
    ["unknown session type", { fileSets: { WEBHOOK: ["AGENTS.md"] } }, "hooks.internal.entries.aci-bootstrap.fileSets"],
    ["non-.md name", { fileSets: { GROUP_CHAT: ["notes.txt"] } }, "hooks.internal.entries.aci-bootstrap.fileSets.GROUP_CHAT.0"],
    ["absolute path", { fileSets: { GROUP_CHAT: ["/etc/SOUL.md"] } }, "fileSets.GROUP_CHAT.0"],
    ["windows absolute path", { topicFiles: { "15": ["C:\\x\\ops.md"] } }, "topicFiles.15.0"],
    ["dot-dot", { topicFiles: { "15": ["../other/SOUL.md"] } }, "topicFiles.15.0"],
    ["MEMORY.md", { fileSets: { MAIN_SESSION: ["SOUL.md", "MEMORY.md"] } }, "fileSets.MAIN_SESSION.1"],
    ["IDENTITY.md in a subfolder", { fileSets: { MAIN_SESSION: ["x/identity.md"] } }, "fileSets.MAIN_SESSION.0"],
    ["wrong type: fileSets as array", { fileSets: ["SOUL.md"] }, "fileSets"],
    ["wrong type: maxFileBytes as string", { maxFileBytes: "64k" }, "maxFileBytes"],
    ["typo'd key", { filesets: {} }, "hooks.internal.entries.aci-bootstrap.filesets: unknown key (did you mean fileSets?)"],
    ["whole entry of the wrong type", "yes", "hooks.internal.entries.aci-bootstrap"],
  ];

  it.each(bad)("%s", (label, raw, keyPath) => {
    const policy = resolveBootstrapPolicy(raw);
    expect(policy.configOk).toBe(false);
    expect(policy.configError).toContain(keyPath);
    // The one bad entry goes: MAIN_SESSION keeps SOUL.md; a list left empty falls back to its default.
    const expected = label === "MEMORY.md" ? { ...DEFAULT_POLICY.sets, MAIN_SESSION: ["SOUL.md"] } : DEFAULT_POLICY.sets;
    expect(policy.sets).toEqual(expected);
    const errors = errorsLogged();
    expect(errors).toHaveLength(1);
    expect(errors[0].msg).toContain(keyPath);
  });

  it("explains why MEMORY.md is refused", () => {
    const policy = resolveBootstrapPolicy({ fileSets: { MAIN_SESSION: ["MEMORY.md"] } });
    expect(policy.configError).toMatch(/MEMORY\.md is never bulk-injected/);
  });
});
