import path from "node:path";
import { describe, expect, it } from "vitest";
import { currentSetup, pluginConfigured } from "../../src/context/channels.ts";
import { explainWorkspace, formatExplanation } from "../../src/ops/explain-workspace.ts";

const workspaceDir = path.resolve(__dirname, "../../fixtures/workspace");

describe("explain: which channel carries what", async () => {
  const explanation = await explainWorkspace({ workspaceDir });
  const row = (type: string) => explanation.channels!.rows.find((r) => r.sessionType === type)!.setups;

  it("main session: memory is a record on 2026.3.13 and without the plugin, a runtime-context carrier with it", () => {
    expect(row("MAIN_SESSION")["2026.3.13"].memory).toMatch(/^ETHOS_CONTEXT\.md bootstrap record/);
    expect(row("MAIN_SESSION")["2026.9+ with plugin"].memory).toMatch(/^runtime-context carrier through context engine openclaw-context-companion/);
    expect(row("MAIN_SESSION")["2026.9+ without plugin"].memory).toMatch(/^ETHOS_CONTEXT\.md bootstrap record.*cached prefix/);
    expect(row("MAIN_SESSION")["2026.9+ with plugin"].bootstrapRecords).toEqual(["SOUL.md", "USER.md", "TOOLS_COMPACT.md"]);
  });

  it("with another context engine configured, the plugin's memory goes as prependContext and explain says why", async () => {
    const cfg = { plugins: { slots: { contextEngine: "lossless-claw" }, entries: { "openclaw-context-companion": { enabled: true } } }, hooks: { internal: { entries: { "ethos-context": { enabled: true } } } } };
    const other = await explainWorkspace({ workspaceDir, cfg });
    const main = other.channels!.rows.find((r) => r.sessionType === "MAIN_SESSION")!.setups["2026.9+ with plugin"];
    expect(main.memory).toMatch(/^prependContext \(context engine lossless-claw is configured/);
  });

  it("subagent: SOUL.md is a record on 2026.3.13, appendSystemContext with the plugin, absent without it; never memory", () => {
    expect(row("SUBAGENT")["2026.3.13"].bootstrapRecords).toEqual(["SOUL.md"]);
    expect(row("SUBAGENT")["2026.9+ with plugin"]).toMatchObject({ bootstrapRecords: [], appendSystemContext: "SOUL.md" });
    expect(row("SUBAGENT")["2026.9+ without plugin"].bootstrapRecords).toEqual([]);
    expect(row("SUBAGENT")["2026.9+ without plugin"].appendSystemContext).toBeUndefined();
    for (const setup of Object.values(row("SUBAGENT"))) expect(setup.memory).toMatch(/^none/);
  });

  it("cron: HEARTBEAT.md is a record on 2026.3.13 and appendSystemContext through the plugin on 2026.9", () => {
    expect(row("HEARTBEAT_CRON")["2026.3.13"].bootstrapRecords).toContain("HEARTBEAT.md");
    expect(row("HEARTBEAT_CRON")["2026.9+ with plugin"].bootstrapRecords).not.toContain("HEARTBEAT.md");
    expect(row("HEARTBEAT_CRON")["2026.9+ with plugin"].appendSystemContext).toBe("HEARTBEAT.md");
  });

  it("groups and external DMs get no memory unless configured", () => {
    for (const type of ["GROUP_CHAT", "EXTERNAL_DM"]) expect(row(type)["2026.9+ with plugin"].memory).toMatch(/^none/);
  });

  it("the Markdown report has the channel table and marks this config's setup", () => {
    const text = formatExplanation(explanation);
    expect(text).toContain("## Channels: which channel carries what");
    expect(text).toContain("**2026.9+ with plugin** (this config)");
  });

  it("the setup follows the config: host version and whether the plugin entry is there and enabled", () => {
    expect(currentSetup("2026.3.13", undefined)).toBe("2026.3.13");
    expect(currentSetup("2026.9.6", {})).toBe("2026.9+ without plugin");
    expect(pluginConfigured({ plugins: { entries: { "openclaw-context-companion": { enabled: true } } } })).toBe(true);
    expect(pluginConfigured({ plugins: { entries: { "openclaw-context-companion": { enabled: false } } } })).toBe(false);
  });

  it("an ethos-context entry that is not enabled means no memory on any channel", async () => {
    const off = await explainWorkspace({ workspaceDir, cfg: { hooks: { internal: { entries: { "ethos-context": { enabled: false } } } } } });
    const main = off.channels!.rows.find((r) => r.sessionType === "MAIN_SESSION")!.setups;
    for (const setup of Object.values(main)) expect(setup.memory).toBe("none (ethos-context disabled)");
  });
});
