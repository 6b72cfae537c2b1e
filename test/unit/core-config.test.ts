import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveBootstrapPolicy } from "../../src/bootstrap/policy.ts";
import { EthosContextConfigSchema, parseEthosContextConfig } from "../../src/context/config.ts";
import { CONFIG_ISSUE_EVENT, parseConfigOrDefaults, suggestKey } from "../../src/core/config.ts";
import { setLogDestination } from "../../src/core/log.ts";

let lines: Record<string, unknown>[] = [];

beforeEach(() => {
  lines = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  setLogDestination(sink as never);
});

afterEach(() => setLogDestination(undefined));

const issuesLogged = () => lines.filter((line) => line.event === CONFIG_ISSUE_EVENT);

describe("hook config: strict on unknown keys, every valid key kept", () => {
  it("ethos-context: a misspelt key is logged with its key path and the nearest valid key; the rest is kept", () => {
    const result = parseEthosContextConfig({ serchTopK: 5, maxInjectedCharsTotal: 1234, scope: { ownerIds: ["42"] } });
    expect(result.ok).toBe(false);
    expect(result.config.searchTopK).toBeUndefined(); // the default (unset: the budget decides): the typo did not set it
    expect(result.config.maxInjectedCharsTotal).toBe(1234);
    expect(result.config.scope.ownerIds).toEqual(["42"]);
    expect(result.issues).toEqual([{ key: "hooks.internal.entries.ethos-context.serchTopK", reason: "unknown key (did you mean searchTopK?)" }]);
    const logged = issuesLogged();
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 50, key: "hooks.internal.entries.ethos-context.serchTopK" });
    expect(String(logged[0].msg)).toContain("did you mean searchTopK?");
    expect(String(logged[0].msg)).toContain("the other settings are kept");
  });

  it("ethos-context: unknown keys are found in nested objects too", () => {
    const result = parseEthosContextConfig({ memory: { persistIndx: false, maxFiles: 10 }, ethos: { timeoutMs: 100 } });
    expect(result.config.memory.maxFiles).toBe(10);
    expect(result.config.memory.persistIndex).toBe(true);
    expect(result.config.ethos.timeoutMs).toBe(100);
    expect(result.issues.map((issue) => issue.key)).toEqual(["hooks.internal.entries.ethos-context.memory.persistIndx"]);
    expect(result.issues[0].reason).toContain("did you mean persistIndex?");
  });

  it("ethos-context: a value of the wrong type drops only that key", () => {
    const result = parseEthosContextConfig({ searchTopK: "five", awaitTimeoutMs: 100, scope: { ownerIds: ["1", 2, "3"] } });
    expect(result.config.searchTopK).toBeUndefined(); // the default: unset, the budget decides
    expect(result.config.awaitTimeoutMs).toBe(100);
    // The bad element goes; the other owner ids stay.
    expect(result.config.scope.ownerIds).toEqual(["1", "3"]);
    expect(result.issues.map((issue) => issue.key).sort()).toEqual([
      "hooks.internal.entries.ethos-context.scope.ownerIds.1",
      "hooks.internal.entries.ethos-context.searchTopK",
    ]);
  });

  it("aci-bootstrap: the typo `fileSet` no longer costs the operator's ownerIds (owner DMs stay owner DMs)", () => {
    const policy = resolveBootstrapPolicy({ fileSet: { MAIN_SESSION: ["SOUL.md"] }, ownerIds: ["12345"], maxFileBytes: 1000 });
    expect(policy.ownerIds).toEqual(["12345"]);
    expect(policy.maxFileBytes).toBe(1000);
    expect(policy.configOk).toBe(false);
    expect(policy.configError).toBe("hooks.internal.entries.aci-bootstrap.fileSet: unknown key (did you mean fileSets?)");
    expect(issuesLogged().map((line) => line.key)).toEqual(["hooks.internal.entries.aci-bootstrap.fileSet"]);
  });

  it("aci-bootstrap: a refused file in one set drops that file only, other sets stay", () => {
    const policy = resolveBootstrapPolicy({ fileSets: { MAIN_SESSION: ["SOUL.md", "MEMORY.md", "USER.md"], SUBAGENT: ["AGENTS.md"] }, ownerIds: ["7"] });
    expect(policy.sets.MAIN_SESSION).toEqual(["SOUL.md", "USER.md"]);
    expect(policy.sets.SUBAGENT).toEqual(["AGENTS.md"]);
    expect(policy.ownerIds).toEqual(["7"]);
    expect(policy.configError).toContain("fileSets.MAIN_SESSION.1: MEMORY.md is never bulk-injected");
  });

  it("a valid entry logs nothing and is ok", () => {
    const result = parseEthosContextConfig({ searchTopK: 5 });
    expect(result).toMatchObject({ ok: true, issues: [] });
    expect(result.config.searchTopK).toBe(5);
    expect(lines).toEqual([]);
  });

  it("an entry that is not an object falls back to the defaults and says so", () => {
    const result = parseEthosContextConfig("verbose");
    expect(result.ok).toBe(false);
    expect(result.config.searchTopK).toBeUndefined(); // the default: unset, the budget decides
    expect(String(issuesLogged()[0].msg)).toContain("using the defaults for the whole entry");
  });
});

describe("once per load, and what passed", () => {
  it("the same entry parsed again (a second registration, another reader) logs nothing new; a changed entry logs its issues", () => {
    parseEthosContextConfig({ serchTopK: 5 });
    parseEthosContextConfig({ serchTopK: 5 });
    expect(issuesLogged().map((line) => line.key)).toEqual(["hooks.internal.entries.ethos-context.serchTopK"]);
    parseEthosContextConfig({ serchTopK: 5, triag: false });
    expect(issuesLogged()).toHaveLength(3);
    // Fixed, then broken the same way again: a new load, logged again.
    parseEthosContextConfig({});
    parseEthosContextConfig({ serchTopK: 5 });
    expect(issuesLogged()).toHaveLength(4);
  });

  it("report: false returns the issues without logging them", () => {
    const result = parseConfigOrDefaults(EthosContextConfigSchema, { serchTopK: 5 }, "x", "ethos-context", { report: false });
    expect(result.issues).toEqual([{ key: "x.serchTopK", reason: "unknown key (did you mean searchTopK?)" }]);
    expect(issuesLogged()).toEqual([]);
  });

  it("`input` is what the operator wrote minus every dropped key: parsed again it has no issue", () => {
    const raw = { serchTopK: 5, awaitTimeoutMs: 100, scope: { ownerIds: ["1", 2, "3"], sessionTypez: [] } };
    const result = parseEthosContextConfig(raw);
    expect(result.input).toEqual({ awaitTimeoutMs: 100, scope: { ownerIds: ["1", "3"] } });
    expect(raw.scope.ownerIds).toEqual(["1", 2, "3"]); // the operator's object is not touched
    expect(parseConfigOrDefaults(EthosContextConfigSchema, result.input, "y", "ethos-context", { report: false }).issues).toEqual([]);
    expect(parseEthosContextConfig("verbose").input).toEqual({});
  });
});

describe("suggestKey", () => {
  it("suggests the nearest key for a typo, a different case, and nothing for an unrelated word", () => {
    const valid = ["searchTopK", "maxInjectedCharsTotal", "triage", "backend"];
    expect(suggestKey("serchTopK", valid)).toBe("searchTopK");
    expect(suggestKey("SEARCHTOPK", valid)).toBe("searchTopK");
    expect(suggestKey("triag", valid)).toBe("triage");
    expect(suggestKey("colour", valid)).toBeUndefined();
  });
});
