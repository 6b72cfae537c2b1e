import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { explainWorkspace, formatExplanation } from "../../src/ops/explain-workspace.ts";

const repo = path.resolve(__dirname, "../..");
const workspaceDir = path.join(repo, "fixtures/workspace");

describe("explain on the sample workspace", async () => {
  const explanation = await explainWorkspace({ workspaceDir });
  const byType = Object.fromEntries(explanation.sessions.map((session) => [session.sessionType, session]));
  const injectedNames = (type: string) => byType[type].injected.map((file: { name: string }) => file.name);

  it("covers all nine session types", () => {
    expect(Object.keys(byType).sort()).toEqual(
      ["EXTERNAL_DM", "FALLBACK", "FORUM_TOPIC", "GROUP_CHAT", "HEARTBEAT_CRON", "MAIN_SESSION", "ORCHESTRATION", "PRIVATE_DM", "SUBAGENT"],
    );
  });

  it("AC-2: main and private DM get SOUL, USER and TOOLS_COMPACT within 500 tokens", () => {
    for (const type of ["MAIN_SESSION", "PRIVATE_DM"]) {
      expect(injectedNames(type)).toEqual(["SOUL.md", "USER.md", "TOOLS_COMPACT.md"]);
      expect(byType[type].tokensAfter).toBeLessThanOrEqual(500);
    }
  });

  it("AC-1a/1b: topic and group sessions get SOUL and TOOLS_COMPACT within 500 tokens", () => {
    for (const type of ["FORUM_TOPIC", "GROUP_CHAT"]) {
      expect(injectedNames(type)).toEqual(["SOUL.md", "TOOLS_COMPACT.md"]);
      expect(byType[type].tokensAfter).toBeLessThanOrEqual(500);
    }
  });

  it("SUBAGENT asks for SOUL.md only and reports the host gap", () => {
    expect(byType.SUBAGENT.added).toEqual(["SOUL.md"]);
    expect(byType.SUBAGENT.hostGaps).toEqual(["SOUL.md"]);
    expect(byType.SUBAGENT.injected).toEqual([]);
    expect(formatExplanation(explanation)).toMatch(/SUBAGENT: the set asks for SOUL\.md, but openclaw 2026\.9\.6 drops it/);
  });

  it("never injects MEMORY.md or IDENTITY.md, and always reduces against the host default", () => {
    for (const session of explanation.sessions) {
      expect(session.injected.map((file) => file.name)).not.toContain("MEMORY.md");
      expect(session.injected.map((file) => file.name)).not.toContain("IDENTITY.md");
      expect(session.tokensAfter).toBeLessThan(session.tokensBefore);
      expect(session.tokensAfter).toBeLessThan(session.bulkTokens);
    }
  });

  it("a heartbeat run the host announced (2026.3.13) is explained with the heartbeat set, the same key otherwise with the main set", async () => {
    const explain = (heartbeatRun: boolean) => explainWorkspace({ workspaceDir, sessionKey: "agent:main:main", heartbeatRun, hostVersion: "2026.3.13", channels: false });
    const beat = (await explain(true)).sessions[0]!;
    expect([beat.sessionType, beat.injected.map((file) => file.name)]).toEqual(["HEARTBEAT_CRON", ["SOUL.md", "HEARTBEAT.md"]]);
    const main = (await explain(false)).sessions[0]!;
    expect([main.sessionType, main.injected.map((file) => file.name)]).toEqual(["MAIN_SESSION", ["SOUL.md", "USER.md", "TOOLS_COMPACT.md"]]);
  });

  it("explains one key with a config file's owners", async () => {
    const one = await explainWorkspace({
      workspaceDir,
      sessionKey: "agent:main:telegram:direct:777",
      cfg: { channels: { telegram: { allowFrom: ["777"] } } },
    });
    expect(one.sessions).toHaveLength(1);
    expect(one.sessions[0].sessionType).toBe("PRIVATE_DM");
    expect(one.ownerSource).toBe("channels.allowFrom");
  });
});

describe("explain CLI", () => {
  const tsx = path.join(repo, "node_modules/.bin/tsx");
  it("rejects a missing workspace with exit code 2 and a clear message", () => {
    const run = spawnSync(tsx, ["scripts/explain.ts", "--workspace", "/definitely/not/here"], { cwd: repo, encoding: "utf8" });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("workspace not found: /definitely/not/here");
  });
});
