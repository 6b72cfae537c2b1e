// Orchestration sessions (issue 28 item 3): the operator's rule (session-key globs, agent ids,
// forum topics) turns a conversation into ORCHESTRATION; the set is SOUL + AGENTS; USER.md and
// MEMORY.md never reach it unless the operator lists USER.md; the host still sees the key's shape.
import path from "node:path";
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyBootstrapPolicy } from "../../src/bootstrap/apply.ts";
import { filesAfterFailure } from "../../src/bootstrap/fail-closed.ts";
import { hostSessionKind } from "../../src/bootstrap/host-filters.ts";
import { DEFAULT_POLICY, SESSION_FILE_SETS, resolveBootstrapPolicy } from "../../src/bootstrap/policy.ts";
import { setLogDestination } from "../../src/core/log.ts";
import type { AgentBootstrapEvent, BootstrapFileRecord } from "../../src/host/events.ts";
import { classifySession, resetClassifierWarnings } from "../../src/session/classify.ts";
import type { OrchestrationRule } from "../../src/session/orchestration.ts";
import { sampleOrchestration } from "../../src/session/sample-keys.ts";

const rule = (partial: Partial<OrchestrationRule>): OrchestrationRule => ({ sessionKeys: [], agentIds: [], topics: [], ...partial });
const classify = (key: string, orchestration?: OrchestrationRule) => classifySession(key, { ownerIds: ["42"], orchestration });

let lines: string[] = [];
beforeEach(() => {
  lines = [];
  resetClassifierWarnings();
  setLogDestination(new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }) as never);
});
afterEach(() => setLogDestination(undefined));

describe("the rule", () => {
  it("by session-key glob (case-insensitive, * spans segments), agent id, or forum topic; the key's own type is kept as baseType", () => {
    expect(classify("agent:main:telegram:group:-100:topic:77", rule({ sessionKeys: ["AGENT:main:*:topic:77"] }))).toMatchObject({ type: "ORCHESTRATION", rule: "orchestration-key", baseType: "FORUM_TOPIC", topicId: "77" });
    expect(classify("agent:forge:main", rule({ agentIds: ["Forge"] }))).toMatchObject({ type: "ORCHESTRATION", rule: "orchestration-agent", baseType: "MAIN_SESSION" });
    expect(classify("agent:main:telegram:group:-100:topic:77", rule({ topics: ["77"] }))).toMatchObject({ type: "ORCHESTRATION", rule: "orchestration-topic", baseType: "FORUM_TOPIC" });
    expect(classify("agent:main:telegram:direct:42", rule({ agentIds: ["main"] }))).toMatchObject({ type: "ORCHESTRATION", baseType: "PRIVATE_DM" });
  });

  it("every kind of entry applies when a rule has several; the key is matched trimmed; * also covers a part after a slash that starts with a dot", () => {
    expect(classify("agent:main:ops", rule({ sessionKeys: ["agent:main:ops"], topics: ["77"] }))).toMatchObject({ type: "ORCHESTRATION", rule: "orchestration-key" });
    expect(classify("agent:main:ops", rule({ sessionKeys: ["agent:main:ops"], agentIds: ["forge"] }))).toMatchObject({ type: "ORCHESTRATION", rule: "orchestration-key" });
    expect(classify("  agent:main:ops  ", rule({ sessionKeys: ["agent:main:ops"] })).type).toBe("ORCHESTRATION");
    expect(classify("agent:main:ops/.x", rule({ sessionKeys: ["agent:main:ops/*"] })).type).toBe("ORCHESTRATION");
  });

  it("names nothing else: other topics, a DM's direct-topic, other agents, no rule, an empty rule", () => {
    expect(classify("agent:main:telegram:group:-100:topic:15", rule({ topics: ["77"] })).type).toBe("FORUM_TOPIC");
    expect(classify("agent:main:telegram:direct:42:direct-topic:77", rule({ topics: ["77"] })).type).toBe("PRIVATE_DM");
    expect(classify("agent:main:main", rule({ agentIds: ["forge"] })).type).toBe("MAIN_SESSION");
    expect(classify("agent:main:main").type).toBe("MAIN_SESSION");
    expect(classify("agent:main:main", rule({})).type).toBe("MAIN_SESSION");
    expect(classify("agent:main:main:thread:1", rule({ sessionKeys: ["agent:main:main"] })).type).toBe("MAIN_SESSION"); // a glob matches the whole key
  });

  it("never turns a subagent or a cron/heartbeat run into an orchestration session", () => {
    const everything = rule({ sessionKeys: ["*"], agentIds: ["main"] });
    expect(classify("agent:main:subagent:abc", everything).type).toBe("SUBAGENT");
    expect(classify("agent:main:cron:job:run:r1", everything).type).toBe("HEARTBEAT_CRON");
    expect(classify("agent:main:main:heartbeat", everything).type).toBe("HEARTBEAT_CRON");
  });

  it("a key of unknown shape that the rule names is not warned about; one it does not name is", () => {
    expect(classify("agent:main:orchestrator", rule({ sessionKeys: ["agent:main:orchestrator"] })).type).toBe("ORCHESTRATION");
    expect(lines.join("")).not.toContain("unrecognised session key shape");
    expect(classify("agent:main:other").type).toBe("FALLBACK");
    expect(lines.join("")).toContain("unrecognised session key shape");
  });
});

describe("config: fileSets.ORCHESTRATION and orchestration are accepted, bad entries named", () => {
  it("the default set is SOUL + AGENTS (ACI spec §3), and an override is accepted", () => {
    expect(SESSION_FILE_SETS.ORCHESTRATION).toEqual(["SOUL.md", "AGENTS.md"]);
    const policy = resolveBootstrapPolicy({ fileSets: { ORCHESTRATION: ["SOUL.md", "AGENTS.md", "TOOLS.md"] }, orchestration: { topics: [77], agentIds: ["forge"], sessionKeys: ["agent:*:ops"] } });
    expect(policy.configOk).toBe(true);
    expect(policy.sets.ORCHESTRATION).toEqual(["SOUL.md", "AGENTS.md", "TOOLS.md"]);
    expect(policy.orchestration).toEqual({ topics: ["77"], agentIds: ["forge"], sessionKeys: ["agent:*:ops"] });
  });

  it("a bad entry is dropped with its key path; a typo gets a did-you-mean; the rest applies", () => {
    const policy = resolveBootstrapPolicy({ ownerIds: ["7"], orchestration: { topics: ["77", "a b"], agentId: ["forge"] } });
    expect(policy.configOk).toBe(false);
    expect(policy.configError).toContain("hooks.internal.entries.aci-bootstrap.orchestration.topics.1");
    expect(policy.configError).toContain("hooks.internal.entries.aci-bootstrap.orchestration.agentId: unknown key (did you mean agentIds?)");
    expect(policy.orchestration?.topics).toEqual(["77"]);
    expect(policy.ownerIds).toEqual(["7"]);
  });
});

describe("privacy: an orchestration session never gets USER.md or MEMORY.md unless configured", () => {
  const ws = "/ws";
  const incoming = (): BootstrapFileRecord[] =>
    ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md"].map((name) => ({ name, path: path.join(ws, name), content: `# ${name}`, missing: false }));

  it("an operator's main session named by the rule: SOUL + AGENTS, no USER.md or MEMORY.md", async () => {
    const orchestration = rule({ agentIds: ["main"] });
    const { files, decision } = await applyBootstrapPolicy({ files: incoming(), workspaceDir: undefined, classification: classify("agent:main:main", orchestration), policy: DEFAULT_POLICY });
    expect(decision.sessionType).toBe("ORCHESTRATION");
    expect(files.map((f) => f.name)).toEqual(["AGENTS.md", "SOUL.md"]);
  });

  it("USER.md only when fileSets.ORCHESTRATION lists it (and the host sent it); MEMORY.md cannot be listed", async () => {
    const policy = resolveBootstrapPolicy({ fileSets: { ORCHESTRATION: ["SOUL.md", "AGENTS.md", "USER.md", "MEMORY.md"] } });
    expect(policy.configError).toContain("fileSets.ORCHESTRATION.3: MEMORY.md is never bulk-injected");
    const { files } = await applyBootstrapPolicy({ files: incoming(), workspaceDir: undefined, classification: classify("agent:main:main", rule({ agentIds: ["main"] })), policy });
    expect(files.map((f) => f.name)).toEqual(["AGENTS.md", "SOUL.md", "USER.md"]);
  });

  it("if the hook fails, a main key named by the rule loses USER.md and MEMORY.md (not an owner session)", () => {
    const cfg = { hooks: { internal: { entries: { "aci-bootstrap": { enabled: true, orchestration: { agentIds: ["main"] } } } } } };
    const event = { type: "agent", action: "bootstrap", sessionKey: "agent:main:main", context: { cfg, bootstrapFiles: incoming() } } as unknown as AgentBootstrapEvent;
    const outcome = filesAfterFailure(event, incoming());
    expect(outcome.sessionType).toBe("ORCHESTRATION");
    expect((outcome.files as BootstrapFileRecord[]).map((f) => f.name)).toEqual(["AGENTS.md", "SOUL.md", "IDENTITY.md"]);
    // A rule that is there but unusable: no session counts as the owner's.
    const broken = { ...event, context: { ...event.context, cfg: { hooks: { internal: { entries: { "aci-bootstrap": { orchestration: "all of them" } } } } } } } as unknown as AgentBootstrapEvent;
    expect(filesAfterFailure(broken, incoming())).toMatchObject({ sessionType: "unknown", action: "private-files-removed" });
  });

  it("the host still filters it as the key it is: an orchestration topic is a group for the host", () => {
    expect(hostSessionKind(classify("agent:main:telegram:group:-100:topic:77", rule({ topics: ["77"] })))).toBe("group");
    expect(hostSessionKind(classify("agent:forge:main", rule({ agentIds: ["forge"] })))).toBe("direct");
  });
});

describe("reports", () => {
  it("explain and baseline show ORCHESTRATION with the operator's rule, else with a sample topic", () => {
    expect(sampleOrchestration(undefined)).toMatchObject({ sample: true, key: "agent:main:telegram:group:-1001234567890:topic:77" });
    expect(sampleOrchestration(rule({ agentIds: ["forge"] }))).toMatchObject({ sample: false, key: "agent:forge:main" });
    expect(sampleOrchestration(rule({ sessionKeys: ["agent:main:ops-*"] }))).toMatchObject({ sample: false, key: "agent:main:ops-x" });
    const { rule: used, key } = sampleOrchestration(undefined);
    expect(classify(key, used).type).toBe("ORCHESTRATION");
  });
});
