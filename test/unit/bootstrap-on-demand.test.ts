// The on-demand index (issue 28 item 1): which sessions get the line, what it names, where it rides,
// that it is the same bytes on every turn, and what it costs.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyBootstrapPolicy } from "../../src/bootstrap/apply.ts";
import { explainWorkspace } from "../../src/ops/explain-workspace.ts";
import { MAX_ON_DEMAND_TOKENS, ON_DEMAND_FILES, onDemandLine } from "../../src/bootstrap/on-demand.ts";
import { DEFAULT_POLICY, resolveBootstrapPolicy } from "../../src/bootstrap/policy.ts";
import { REQUIRED_MEMORY_ENTRY, TOOLS_INSTRUCTION } from "../../src/bootstrap/soul-instructions.ts";
import { estimateTokens } from "../../src/core/tokens.ts";
import type { BootstrapFileRecord } from "../../src/host/events.ts";
import { classifySession } from "../../src/session/classify.ts";
import type { SessionType } from "../../src/session/types.ts";

const SAMPLE = path.resolve("fixtures/workspace");
const OWNER = "123";
let root: string;
let ws: string;

const write = (name: string, content: string) => fs.writeFileSync(path.join(ws, name), content);
const records = (names: string[]): BootstrapFileRecord[] =>
  names.map((name) => ({ name, path: path.join(ws, name), content: fs.existsSync(path.join(ws, name)) ? fs.readFileSync(path.join(ws, name), "utf8") : `# ${name}\n`, missing: false }));
const classify = (key: string, orchestration?: { sessionKeys: string[]; agentIds: string[]; topics: string[] }) => classifySession(key, { ownerIds: [OWNER], orchestration });

async function run(key: string, incoming: string[], options: { policy?: typeof DEFAULT_POLICY; hostVersion?: string } = {}) {
  const policy = { ...(options.policy ?? DEFAULT_POLICY), ...(options.hostVersion ? { hostVersion: options.hostVersion } : {}) };
  const files = records(incoming);
  const result = await applyBootstrapPolicy({ files, workspaceDir: ws, classification: classify(key, policy.orchestration), policy });
  return { ...result, incoming: files };
}
const soulOf = (files: BootstrapFileRecord[]) => files.find((f) => f.name === "SOUL.md")?.content as string;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "aci-on-demand-"));
  ws = path.join(root, "workspace");
  fs.mkdirSync(ws);
  write("SOUL.md", "# SOUL\nI am Jules.\n");
  write("USER.md", "# USER\nJeff\n");
  write("TOOLS_COMPACT.md", "# TOOLS_COMPACT\nCDP :9222\n");
  write("AGENTS.md", "# AGENTS\nSpawn workers with a brief.\n");
  write("TOOLS.md", "# TOOLS\nEverything.\n");
  write("MEMORY.md", "# MEMORY\nprivate\n");
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const CORE = ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md"];

describe("what the line names", () => {
  it("a forum topic: AGENTS.md and TOOLS.md, appended to SOUL.md; never MEMORY.md", async () => {
    const { files, decision } = await run("agent:main:telegram:group:-100:topic:15", CORE.filter((n) => n !== "MEMORY.md"));
    expect(decision.onDemand).toEqual(["AGENTS.md", "TOOLS.md"]);
    expect(decision.onDemandCarrier).toBe("SOUL.md");
    expect(soulOf(files)).toBe("# SOUL\nI am Jules.\n\nOn demand: AGENTS.md (dispatching agents), TOOLS.md (tool details).\n");
  });

  it("MEMORY.md only in the operator's own sessions; every other type that loses files gets the line without it", async () => {
    const keys: Record<string, string> = {
      MAIN_SESSION: "agent:main:main",
      PRIVATE_DM: `agent:main:telegram:direct:${OWNER}`,
      EXTERNAL_DM: "agent:main:telegram:direct:999",
      GROUP_CHAT: "agent:main:telegram:group:-100",
      HEARTBEAT_CRON: "agent:main:cron:job:run:r1",
    };
    for (const [type, key] of Object.entries(keys)) {
      const { decision } = await run(key, CORE, { hostVersion: "2026.3.13" });
      expect(decision.sessionType, key).toBe(type);
      const owner = type === "MAIN_SESSION" || type === "PRIVATE_DM";
      expect(decision.onDemand, type).toEqual(owner ? ["AGENTS.md", "TOOLS.md", "MEMORY.md"] : ["AGENTS.md", "TOOLS.md"]);
    }
  });

  it("a file the set injects, or that does not exist, is not named", async () => {
    fs.rmSync(path.join(ws, "TOOLS.md"));
    const fallback = await run("agent:main:webchat:lobby", CORE);
    expect(fallback.decision.sessionType).toBe("FALLBACK");
    expect(fallback.decision.onDemand).toEqual([]); // AGENTS.md injected, TOOLS.md absent, MEMORY.md not an operator session
    expect(fallback.files.find((f) => f.name === "SOUL.md")).toBe(fallback.incoming[1]); // no line: SOUL.md is the host's object
  });

  it("what SOUL.md already points to (required memory entry, Phase 4 TOOLS.md line) is not named again", async () => {
    write("SOUL.md", `# SOUL\n## Wisdom\n${REQUIRED_MEMORY_ENTRY}\n`);
    expect((await run("agent:main:main", CORE)).decision.onDemand).toEqual(["AGENTS.md", "TOOLS.md"]);
    write("SOUL.md", `# SOUL\n## Wisdom\n${REQUIRED_MEMORY_ENTRY}\n## On demand\n${TOOLS_INSTRUCTION}\n`);
    expect((await run("agent:main:main", CORE)).decision.onDemand).toEqual(["AGENTS.md"]);
  });

  it("an orchestration session (SOUL + AGENTS) is told about TOOLS.md only, never MEMORY.md", async () => {
    const policy = resolveBootstrapPolicy({ orchestration: { agentIds: ["main"] } });
    const { files, decision } = await run("agent:main:main", CORE, { policy });
    expect(decision.sessionType).toBe("ORCHESTRATION");
    expect(files.map((f) => f.name)).toEqual(["AGENTS.md", "SOUL.md"]);
    expect(decision.onDemand).toEqual(["TOOLS.md"]);
  });
});

describe("where it rides", () => {
  it("a cron run on 2026.9.6: on SOUL.md, which the host keeps (a record of its own would be dropped)", async () => {
    const { files, decision } = await run("agent:main:cron:job:run:r1", ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md"]);
    expect(decision.hostFiltered).toEqual([]);
    expect(decision.onDemandCarrier).toBe("SOUL.md");
    expect(soulOf(files)).toContain("On demand: AGENTS.md");
  });

  it("a subagent on 2026.9.6 gets no line (no record of its set reaches the model); on 2026.3.13 it rides on SOUL.md", async () => {
    const nine = await run("agent:main:subagent:abc", ["AGENTS.md"]);
    expect(nine.decision.hostFiltered).toEqual(["SOUL.md"]);
    expect(nine.decision.onDemand).toEqual([]);
    expect(soulOf(nine.files)).not.toContain("On demand");
    const old = await run("agent:main:subagent:abc", ["AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md"], { hostVersion: "2026.3.13" });
    expect(old.decision.onDemand).toEqual(["AGENTS.md", "TOOLS.md"]);
  });

  it("without SOUL.md it rides on the first other record; never on BOOTSTRAP.md or the memory record", async () => {
    fs.rmSync(path.join(ws, "SOUL.md"));
    const incoming: BootstrapFileRecord[] = [
      { name: "BOOTSTRAP.md", path: path.join(ws, "BOOTSTRAP.md"), content: "first run", missing: false },
      { name: "ETHOS_CONTEXT.md", path: path.join(ws, "ETHOS_CONTEXT.md"), content: "memories", missing: false },
      { name: "SOUL.md", path: path.join(ws, "SOUL.md"), missing: true },
    ];
    const { files, decision } = await applyBootstrapPolicy({ files: incoming, workspaceDir: ws, classification: classify("agent:main:telegram:group:-100"), policy: DEFAULT_POLICY });
    expect(decision.onDemandCarrier).toBe("TOOLS_COMPACT.md");
    expect(files.slice(0, 3)).toEqual(incoming);
    expect(files.find((f) => f.name === "TOOLS_COMPACT.md")!.content).toMatch(/\n\nOn demand: AGENTS\.md \(dispatching agents\), TOOLS\.md \(tool details\)\.\n$/);
  });

  it("the carrier is a copy; every other record and the received array are untouched", async () => {
    const { files, incoming } = await run("agent:main:main", CORE);
    const before = structuredClone(incoming);
    expect(files[0]).not.toBe(incoming[1]);
    expect(files[0]).toEqual({ ...incoming[1], content: expect.stringContaining("On demand:") });
    expect(files[1]).toBe(incoming[3]);
    expect(incoming).toEqual(before);
  });

  it("nothing in lightweight runs (empty list), without a workspace, or with onDemandIndex: false", async () => {
    const light = await applyBootstrapPolicy({ files: [], workspaceDir: ws, classification: classify("agent:main:cron:job"), policy: DEFAULT_POLICY });
    expect(light.decision.onDemand).toEqual([]);
    expect(light.files).toEqual([]);
    const noWorkspace = await applyBootstrapPolicy({ files: records(CORE), workspaceDir: undefined, classification: classify("agent:main:main"), policy: DEFAULT_POLICY });
    expect(noWorkspace.decision.onDemand).toEqual([]);
    const off = await run("agent:main:main", CORE, { policy: resolveBootstrapPolicy({ onDemandIndex: false }) });
    expect(off.decision.onDemand).toEqual([]);
    expect(soulOf(off.files)).toBe("# SOUL\nI am Jules.\n");
  });
});

describe("cache-stable and cheap", () => {
  it("the same bytes on every turn", async () => {
    const first = soulOf((await run("agent:main:telegram:group:-100:topic:15", CORE)).files);
    for (let turn = 0; turn < 3; turn += 1) expect(soulOf((await run("agent:main:telegram:group:-100:topic:15", CORE)).files)).toBe(first);
  });

  it(`the longest line (all three files) costs at most ${MAX_ON_DEMAND_TOKENS} tokens, separator included`, () => {
    const longest = onDemandLine(ON_DEMAND_FILES.map((f) => f.name));
    expect(estimateTokens(`\n\n${longest}`)).toBeLessThanOrEqual(MAX_ON_DEMAND_TOKENS);
  });

  it("on the sample workspace every set the spec caps at 500 tokens stays within it, line included", async () => {
    const explanation = await explainWorkspace({ workspaceDir: SAMPLE, channels: false });
    const byType = new Map(explanation.sessions.map((s) => [s.sessionType, s]));
    for (const type of ["MAIN_SESSION", "PRIVATE_DM", "EXTERNAL_DM", "FORUM_TOPIC", "GROUP_CHAT"] as SessionType[]) {
      const session = byType.get(type)!;
      expect(session.onDemand?.text, type).toBe("On demand: AGENTS.md (dispatching agents), TOOLS.md (tool details).");
      expect(session.tokensAfter, type).toBeLessThanOrEqual(500);
    }
  });
});
