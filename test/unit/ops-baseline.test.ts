import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../src/core/tokens.ts";
import { measureFiles, measureSessions } from "../../src/ops/baseline.ts";
import { findContextReport } from "../../src/ops/live-context.ts";
import { SESSION_TYPES } from "../../src/session/types.ts";
import { makeFakeOpenClaw } from "./ops-fake-openclaw.ts";
import { REPO_ROOT, runOpsScript } from "./ops-run-script.ts";

function sampleWorkspace(): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), "ops-bl-"));
  fs.cpSync(path.join(REPO_ROOT, "fixtures", "workspace"), ws, { recursive: true });
  return ws;
}
const BASELINE = path.join("initiatives", "adaptive-context-injection", "baseline-context.txt");

describe("capture-baseline", () => {
  it("measures each file: injected tokens are estimateTokens of what OpenClaw injects; TOOLS.md is not loaded", async () => {
    const ws = sampleWorkspace();
    fs.writeFileSync(path.join(ws, "TOOLS.md"), "x".repeat(20_964));
    const rows = await measureFiles(ws);
    const soul = rows.find((row) => row.name === "SOUL.md")!;
    const soulText = fs.readFileSync(path.join(ws, "SOUL.md"), "utf8").trimEnd();
    expect(soul).toMatchObject({ present: true, rawChars: soulText.length, injectedChars: soulText.length, tokens: estimateTokens(soulText), loadedByHost: true });
    expect(rows.find((row) => row.name === "TOOLS.md")).toMatchObject({ loadedByHost: false, injectedChars: 0, tokens: 5241 });
  });

  it("per session type: today is the host's set, the bundle's set comes from the aci-bootstrap policy", async () => {
    const ws = sampleWorkspace();
    fs.writeFileSync(path.join(ws, "MEMORY.md"), "# MEMORY\n- a decision\n");
    const rows = await measureSessions({ workspace: ws, types: SESSION_TYPES, withBundle: true });
    const byType = Object.fromEntries(rows.map((row) => [row.type, row]));
    expect(byType.MAIN_SESSION.today.files).toEqual(["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md"]);
    expect(byType.MAIN_SESSION.bundle?.files).toEqual(["SOUL.md", "USER.md", "TOOLS_COMPACT.md"]);
    expect(byType.GROUP_CHAT.today.files).not.toContain("MEMORY.md");
    expect(byType.SUBAGENT.today.files).toEqual(["AGENTS.md"]);
    expect(byType.SUBAGENT.bundle?.hostFiltered).toContain("SOUL.md");
    expect(byType.FORUM_TOPIC.bundle?.files).toEqual(["SOUL.md", "TOOLS_COMPACT.md"]);
    for (const row of rows) expect(row.classifiedAs).toBe(row.type);
  });

  it("models the configured host version: 2026.3.13 still bulk-loads TOOLS.md and lets SOUL.md reach subagents", async () => {
    const ws = sampleWorkspace();
    const cfg = { hooks: { internal: { entries: { "aci-bootstrap": { hostVersion: "2026.3.13" } } } } };
    const rows = await measureSessions({ workspace: ws, types: SESSION_TYPES, cfg, withBundle: true });
    const byType = Object.fromEntries(rows.map((row) => [row.type, row]));
    expect(byType.MAIN_SESSION.today.files).toContain("TOOLS.md");
    expect(byType.GROUP_CHAT.today.files).toContain("MEMORY.md");
    expect(byType.SUBAGENT.bundle?.files).toEqual(["SOUL.md"]);
    expect(byType.SUBAGENT.bundle?.hostFiltered).toEqual([]);
    expect(byType.HEARTBEAT_CRON.bundle?.files).toEqual(["SOUL.md", "HEARTBEAT.md"]);
  });

  it("a 5 MB MEMORY.md is counted at OpenClaw's 20,000-char cap", async () => {
    const ws = sampleWorkspace();
    fs.writeFileSync(path.join(ws, "MEMORY.md"), "m".repeat(5 * 1024 * 1024));
    const memory = (await measureFiles(ws)).find((row) => row.name === "MEMORY.md")!;
    expect(memory).toMatchObject({ rawChars: 5 * 1024 * 1024, injectedChars: 20_000, truncated: true, tokens: 5_000 });
  });

  it("CLI writes the baseline file, reports MEMORY.md bulk injection, and backs up the previous file", async () => {
    const ws = sampleWorkspace();
    fs.writeFileSync(path.join(ws, "MEMORY.md"), "# MEMORY\n- a decision\n");
    const env = { OPENCLAW_CONFIG_PATH: path.join(ws, "no-config.json") };
    const first = await runOpsScript("capture-baseline.ts", ["--workspace", ws], env);
    expect(first.code).toBe(0);
    const text = fs.readFileSync(path.join(ws, BASELINE), "utf8");
    expect(text).toMatch(/Bulk-injected by OpenClaw 2026\.9\.6: YES in MAIN_SESSION, PRIVATE_DM, EXTERNAL_DM, FALLBACK/);
    expect(text).toMatch(/TOOLS\.md and HEARTBEAT\.md are not loaded by current OpenClaw/);
    const second = await runOpsScript("capture-baseline.ts", ["--workspace", ws], env);
    expect(second.code).toBe(0);
    expect(fs.readdirSync(path.join(ws, "initiatives/adaptive-context-injection/backups")).some((f) => f.startsWith("baseline-context.txt."))).toBe(true);
  });

  it("live mode records OpenClaw's own /context json report (fake CLI) and compares it", async () => {
    const ws = sampleWorkspace();
    const fake = makeFakeOpenClaw();
    const result = await runOpsScript("capture-baseline.ts", ["--workspace", ws, "--live", "--stdout", "--gateway-token", "t0k"], {
      OPENCLAW_CLI: fake.bin,
      OPENCLAW_CONFIG_PATH: path.join(ws, "no-config.json"),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("## OpenClaw's own report (/context json, agent:main:main)");
    expect(result.stdout).toMatch(/Live gateway report \(agent:main:main\): MEMORY\.md IS injected \(400 chars\)/);
    // A file the bundle adds: estimate 0, negative diff, and the reason in words.
    expect(result.stdout).toMatch(/^TOOLS_COMPACT\.md\s+false\s+354\s+354\s+false\s+0\s+-354\s+added by the bundle \(not in OpenClaw's own set\)/m);
    expect(result.stdout).toContain('"diff" is estimate − injected');
    const send = fake.calls().find((call) => call[2] === "chat.send")!;
    expect(JSON.parse(send[send.indexOf("--params") + 1])).toMatchObject({ sessionKey: "agent:main:main", message: "/context json" });
    expect(send).toContain("t0k");
  });

  it("live mode without a reachable gateway still writes the estimate and exits 1 with the reason", async () => {
    const ws = sampleWorkspace();
    const fake = makeFakeOpenClaw();
    const result = await runOpsScript("capture-baseline.ts", ["--workspace", ws, "--live"], { OPENCLAW_CLI: fake.bin, FAKE_OPENCLAW_FAIL: "gateway", OPENCLAW_CONFIG_PATH: path.join(ws, "none.json") });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/live capture failed.*gateway not reachable/);
    expect(fs.readFileSync(path.join(ws, BASELINE), "utf8")).toMatch(/offline estimate \(live capture failed/);
  });

  it("finds the newest report in chat.history, whatever the message shape", () => {
    const report = (n: number) => JSON.stringify({ report: { injectedWorkspaceFiles: [{ name: "SOUL.md", injectedChars: n }] } });
    const found = findContextReport({ messages: [{ content: report(1) }, { content: [{ type: "text", text: `Context:\n${report(2)}` }] }] });
    expect(found?.files[0].injectedChars).toBe(2);
    expect(findContextReport({ messages: [{ content: "hi" }] })).toBeUndefined();
  });
});
