import path from "node:path";
import { describe, expect, it } from "vitest";
import { explainWorkspace } from "../../src/ops/explain-workspace.ts";

// The host-filter rows are what the e2e suite observed on each real gateway (HOOK_ASSUMPTIONS.md);
// explain must predict per host version, not carry one version's filters over to another.

const workspaceDir = path.resolve(__dirname, "../../fixtures/workspace");
const cfgFor = (hostVersion: string) => ({ hooks: { internal: { entries: { "aci-bootstrap": { hostVersion } } } } });
const injectedFor = async (hostVersion: string, sessionKey: string) =>
  (await explainWorkspace({ workspaceDir, cfg: cfgFor(hostVersion), sessionKey })).sessions[0]!.injected.map((file) => file.name);

describe("host filters per OpenClaw version", () => {
  it("2026.9.6 keeps only AGENTS.md for a subagent, so the SOUL.md the set asks for never arrives", async () => {
    expect(await injectedFor("2026.9.6", "agent:main:subagent:0b7c2a4e-2f7d-4c1e-9d6a-3f1e2d4c5b6a")).toEqual([]);
  });

  it("2026.3.13 has no post-hook subagent filter: the subagent gets SOUL.md", async () => {
    expect(await injectedFor("2026.3.13", "agent:main:subagent:0b7c2a4e-2f7d-4c1e-9d6a-3f1e2d4c5b6a")).toEqual(["SOUL.md"]);
  });

  it("2026.3.13 still loads HEARTBEAT.md itself, so a cron run gets it; 2026.9.6 drops it", async () => {
    expect(await injectedFor("2026.3.13", "agent:main:cron:daily:run:1ffbdd69")).toEqual(["SOUL.md", "HEARTBEAT.md"]);
    expect(await injectedFor("2026.9.6", "agent:main:cron:daily:run:1ffbdd69")).toEqual(["SOUL.md"]);
  });

  it("2026.3.13 bulk-injects TOOLS.md, which the policy drops", async () => {
    const explanation = (await explainWorkspace({ workspaceDir, cfg: cfgFor("2026.3.13"), sessionKey: "agent:main:main" })).sessions[0]!;
    expect(explanation.before.map((file) => file.name)).toContain("TOOLS.md");
    expect(explanation.injected.map((file) => file.name)).toEqual(["SOUL.md", "USER.md", "TOOLS_COMPACT.md"]);
  });
});
