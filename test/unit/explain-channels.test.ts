import path from "node:path";
import { describe, expect, it } from "vitest";
import { currentSetup } from "../../src/context/channels.ts";
import { explainWorkspace, formatExplanation } from "../../src/ops/explain-workspace.ts";

const workspaceDir = path.resolve(__dirname, "../../fixtures/workspace");

describe("explain: which channel carries what, per artifact", async () => {
  const explanation = await explainWorkspace({ workspaceDir });
  const row = (type: string) => explanation.channels!.rows.find((r) => r.sessionType === type)!.setups;

  it("main session: memory is a record with the hook pack, a runtime-context carrier with the plugin", () => {
    expect(row("MAIN_SESSION")["2026.3 hook pack"].memory).toMatch(/^ETHOS_CONTEXT\.md bootstrap record/);
    expect(row("MAIN_SESSION")["2026.9+ plugin"].memory).toMatch(/^runtime-context carrier through context engine openclaw-context/);
    expect(row("MAIN_SESSION")["2026.9+ plugin"].bootstrapRecords).toEqual(["SOUL.md", "USER.md", "TOOLS_COMPACT.md"]);
  });

  it("with another context engine configured, the plugin's memory goes as prependContext and explain says why", async () => {
    const cfg = { plugins: { slots: { contextEngine: "lossless-claw" }, entries: { "openclaw-context": { enabled: true } } } };
    const other = await explainWorkspace({ workspaceDir, cfg });
    const main = other.channels!.rows.find((r) => r.sessionType === "MAIN_SESSION")!.setups["2026.9+ plugin"];
    expect(main.memory).toMatch(/^prependContext \(context engine lossless-claw is configured/);
  });

  it("subagent: SOUL.md is a record with the hook pack, system text through the plugin; never memory", () => {
    expect(row("SUBAGENT")["2026.3 hook pack"].bootstrapRecords).toEqual(["SOUL.md"]);
    expect(row("SUBAGENT")["2026.9+ plugin"]).toMatchObject({ bootstrapRecords: [], systemText: "SOUL.md" });
    for (const setup of Object.values(row("SUBAGENT"))) expect(setup.memory).toMatch(/^none/);
  });

  it("cron: HEARTBEAT.md is a record with the hook pack and system text through the plugin", () => {
    expect(row("HEARTBEAT_CRON")["2026.3 hook pack"].bootstrapRecords).toContain("HEARTBEAT.md");
    expect(row("HEARTBEAT_CRON")["2026.9+ plugin"].bootstrapRecords).not.toContain("HEARTBEAT.md");
    expect(row("HEARTBEAT_CRON")["2026.9+ plugin"].systemText).toBe("HEARTBEAT.md");
  });

  it("groups and external DMs get no memory unless configured", () => {
    for (const type of ["GROUP_CHAT", "EXTERNAL_DM"]) for (const setup of Object.values(row(type))) expect(setup.memory).toMatch(/^none/);
  });

  it("the Markdown report has the channel table and marks this host's artifact", () => {
    const text = formatExplanation(explanation);
    expect(text).toContain("## Channels: which channel carries what");
    expect(text).toContain("**2026.9+ plugin** (this config)");
  });

  it("the artifact follows the host version", () => {
    expect(currentSetup("2026.3.13")).toBe("2026.3 hook pack");
    expect(currentSetup("2026.9.6")).toBe("2026.9+ plugin");
  });

  it("memory switched off (the hook's entry for the hook pack, the plugin's memory switch) means no memory on that artifact", async () => {
    const off = await explainWorkspace({
      workspaceDir,
      cfg: { hooks: { internal: { entries: { "ethos-context": { enabled: false } } } }, plugins: { entries: { "openclaw-context": { config: { memory: false } } } } },
    });
    const main = off.channels!.rows.find((r) => r.sessionType === "MAIN_SESSION")!.setups;
    for (const setup of Object.values(main)) expect(setup.memory).toBe("none (memory switched off)");
  });
});
