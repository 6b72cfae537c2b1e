// `doctor`: each check against hand-built contexts (configs, workspaces, logs), the exit codes, and
// the command itself from the clone (no openclaw CLI). The real gateway: the plugin's e2e suite.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sessionTag } from "../../src/core/bounded-id.ts";
import { NPM_RUN, OPENCLAW_CONTEXT } from "../../src/ops/commands/command.ts";
import { doctorExitCode, formatDoctor, runChecks } from "../../src/ops/doctor/check.ts";
import type { DoctorCheck, DoctorContext } from "../../src/ops/doctor/check.ts";
import { DOCTOR_CHECKS } from "../../src/ops/doctor/checks.ts";
import { configCheck } from "../../src/ops/doctor/config.ts";
import { sharedMainSessionDms } from "../../src/ops/doctor/dm-scope.ts";
import { engineCheck, engineFallbackLine } from "../../src/ops/doctor/engine.ts";
import { hooksCheck } from "../../src/ops/doctor/hooks.ts";
import { lastTurnCheck } from "../../src/ops/doctor/last-turn.ts";
import { toolsCompactCheck } from "../../src/ops/doctor/tools-compact.ts";
import { versionCheck } from "../../src/ops/doctor/version.ts";
import { wisdomCheck } from "../../src/ops/doctor/wisdom.ts";
import type { LogRecord } from "../../src/ops/turn-log.ts";
import { runOpsScript } from "./ops-run-script.ts";

const SAMPLE = path.resolve(__dirname, "..", "..", "fixtures", "workspace");
const PLUGIN = "openclaw-context";
const HEALTHY = { plugins: { slots: { contextEngine: PLUGIN }, entries: { [PLUGIN]: { enabled: true, hooks: { allowConversationAccess: true } } } } };

function workspaceCopy(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "doctor-ws-"));
  fs.cpSync(SAMPLE, dir, { recursive: true });
  return dir;
}

function context(input: Partial<Omit<DoctorContext, "records" | "hostLogLines">> & { records?: LogRecord[]; hostLines?: string[] } = {}): DoctorContext {
  const { records = [], hostLines = [], ...rest } = input;
  return {
    configPath: "/nowhere/openclaw.json",
    cfg: HEALTHY,
    env: { OPENCLAW_CONTEXT_LOG_FILE: "/nowhere/openclaw-context.log" },
    now: new Date("2026-11-26T12:00:00Z"),
    hostVersion: "2026.9.6",
    installed: { plugin: true, hookPack: false, pluginDir: "/state/extensions/openclaw-context" },
    invocation: OPENCLAW_CONTEXT,
    insideOpenClaw: true,
    records: () => records,
    hostLogLines: () => hostLines,
    ...rest,
  };
}

const levels = async (check: DoctorCheck, ctx: DoctorContext) => (await check.run(ctx)).map((finding) => finding.level);

describe("doctor: the exit code a script can use", () => {
  it("0 with nothing to fix (a due chore does not count), 3 with warnings only, 1 with a problem", () => {
    const result = (...findings: ("ok" | "info" | "warn" | "fail")[]) => [{ check: "x", findings: findings.map((level) => ({ level, message: level })) }];
    expect(doctorExitCode(result("ok", "info"))).toBe(0);
    expect(doctorExitCode(result("ok", "warn", "info"))).toBe(3);
    expect(doctorExitCode(result("warn", "fail"))).toBe(1);
  });

  it("a check that throws is its own failure; the others still run", async () => {
    const broken: DoctorCheck = { id: "broken", run: () => { throw new Error("boom"); } };
    const results = await runChecks([broken, versionCheck], context());
    expect(results.map((r) => [r.check, r.findings[0]!.level])).toEqual([["broken", "fail"], ["version", "ok"]]);
    expect(formatDoctor(results, ["head"])).toContain("FAIL  broken: the check itself failed: boom");
  });
});

describe("doctor: version support", () => {
  it("2026.9 wants the plugin, 2026.3 the hook pack; both installed, the wrong one, or nothing is a problem", async () => {
    expect(await levels(versionCheck, context())).toEqual(["ok"]);
    expect(await levels(versionCheck, context({ hostVersion: "2026.3.13", installed: { plugin: false, hookPack: true } }))).toEqual(["ok"]);
    expect(await levels(versionCheck, context({ hostVersion: "2026.3.13" }))).toEqual(["fail"]);
    expect(await levels(versionCheck, context({ installed: { plugin: true, hookPack: true } }))).toEqual(["fail"]);
    expect(await levels(versionCheck, context({ hostVersion: "2026.1.4" }))).toEqual(["fail"]);
    const [none] = await versionCheck.run(context({ installed: { plugin: false, hookPack: false } }));
    expect(none).toMatchObject({ level: "fail", fix: "npm run install-hooks (in the openclaw-context clone)" });
    expect(await levels(versionCheck, context({ hostVersion: undefined }))).toEqual(["info"]);
  });
});

describe("doctor: the context-engine slot", () => {
  it("ours: ok; legacy: a warning with the command that selects ours", async () => {
    expect(await levels(engineCheck, context())).toEqual(["ok"]);
    const [legacy] = await engineCheck.run(context({ cfg: { plugins: { entries: { [PLUGIN]: { hooks: { allowConversationAccess: true } } } } } }));
    expect(legacy).toMatchObject({ level: "warn", fix: "openclaw config set plugins.slots.contextEngine openclaw-context, then openclaw gateway restart" });
  });

  it("another engine: a warning that explains the trade-off; without conversation access no memory at all (a problem)", async () => {
    const other = { plugins: { slots: { contextEngine: "lossless-claw" }, entries: { [PLUGIN]: { hooks: { allowConversationAccess: true } } } } };
    const [warn] = await engineCheck.run(context({ cfg: other }));
    expect(warn!.level).toBe("warn");
    expect(warn!.message).toContain("context engine lossless-claw holds plugins.slots.contextEngine");
    expect(warn!.detail!.join(" ")).toContain("Only one context engine can be active");
    expect(warn!.detail!.join(" ")).toContain("docs/benchmarks.md");
    const noAccess = { plugins: { slots: { contextEngine: "lossless-claw" } } };
    expect(await levels(engineCheck, context({ cfg: noAccess }))).toEqual(["warn", "fail"]);
  });

  it("the gateway fell back to legacy: from OpenClaw's own log line, or ours", async () => {
    const line = 'Context engine "openclaw-context" owner=plugin:openclaw-context failed during factory: boom; quarantining it for this process and falling back to default engine "legacy".';
    expect(engineFallbackLine(["x", line, "y"], PLUGIN)).toBe(line);
    expect(engineFallbackLine([line], "lossless-claw")).toBeUndefined();
    // A turn OpenClaw ran on legacy because the engine lacks what chat.send needs (2026.9.6's wording).
    const degraded = '[context-engine] Context engine "lossless-claw" degraded to "legacy" for this logical turn: current-turn transcript fencing is not declared. The "legacy" engine will handle only this turn; configuration is unchanged, and "lossless-claw" will be retried next turn.';
    expect(engineFallbackLine(["x", degraded], "lossless-claw")).toBe(degraded);
    expect(engineFallbackLine([degraded], PLUGIN)).toBeUndefined();
    expect(await levels(engineCheck, context({ hostLines: [line] }))).toEqual(["fail"]);
    const ours = [{ time: 1, level: 40, msg: "context engine unavailable: memory delivered as prependContext", reason: "sdk missing" }];
    expect(await levels(engineCheck, context({ records: ours }))).toEqual(["fail"]);
  });

  it("memory switched off: the slot does not matter; the hook pack: not asked", async () => {
    expect(await levels(engineCheck, context({ cfg: { plugins: { entries: { [PLUGIN]: { config: { memory: false } } } } } }))).toEqual(["ok"]);
    expect(await levels(engineCheck, context({ hostVersion: "2026.3.13", installed: { plugin: false, hookPack: true } }))).toEqual([]);
  });
});

describe("doctor: config validity", () => {
  it("names every key of ours that is ignored, by the operator's path, with did-you-mean and the command that removes it", async () => {
    const cfg = { plugins: { entries: { [PLUGIN]: { config: { memroy: true, aciBootstrap: { ownerIdz: ["7"] }, ethosContext: { scope: { ownerIds: ["1", 2] } } } } } } };
    const [finding] = await configCheck.run(context({ cfg }));
    expect(finding).toMatchObject({ level: "fail", message: "plugins.entries.openclaw-context.config: 3 key(s) ignored (every other setting applies)" });
    expect(finding!.detail).toEqual([
      "plugins.entries.openclaw-context.config.memroy: unknown key (did you mean memory?)",
      "plugins.entries.openclaw-context.config.aciBootstrap.ownerIdz: unknown key (did you mean ownerIds?)",
      "plugins.entries.openclaw-context.config.ethosContext.scope.ownerIds.1: Invalid input: expected string, received number",
    ]);
    expect(finding!.fix).toContain("openclaw config unset plugins.entries.openclaw-context.config.memroy");
    expect(finding!.fix).toContain("openclaw config set plugins.entries.openclaw-context.config.ethosContext.scope.ownerIds '<the list without that element>' --strict-json");
    expect(finding!.fix).toContain("openclaw doctor --fix");
  });

  it("the hook pack's entries are checked where the hook pack reads them; a valid config is ok", async () => {
    const cfg = { hooks: { internal: { entries: { "ethos-context": { enabled: true, serchTopK: 5 } } } } };
    const findings = await configCheck.run(context({ cfg, installed: { plugin: false, hookPack: true }, hostVersion: "2026.3.13" }));
    expect(findings.map((f) => f.level)).toEqual(["ok", "fail"]);
    expect(findings[1]!.detail).toEqual(["hooks.internal.entries.ethos-context.serchTopK: unknown key (did you mean searchTopK?)"]);
    expect(findings[1]!.fix).toBe("openclaw config unset hooks.internal.entries.ethos-context.serchTopK");
    expect(await levels(configCheck, context())).toEqual(["ok"]);
  });

  it("from a clone, OpenClaw's own verdict: a file it rejects is named by its paths", async () => {
    const verdict = { valid: false, issues: [{ path: "gateway", message: 'Unrecognized key: "prot"' }] };
    const openclaw = async () => ({ code: 1, stdout: JSON.stringify(verdict), stderr: "" });
    const [rejected] = await configCheck.run(context({ insideOpenClaw: false, openclaw }));
    expect(rejected).toMatchObject({ level: "fail", detail: ['gateway: Unrecognized key: "prot"'] });
    // Inside `openclaw context doctor` OpenClaw has accepted the file: it is not asked.
    expect(await levels(configCheck, context({ openclaw }))).toEqual(["ok"]);
  });
});

describe("doctor: the hook pack's hooks", () => {
  const hookPack = { installed: { plugin: false, hookPack: true }, hostVersion: "2026.3.13" };
  const enabled = { hooks: { internal: { enabled: true, entries: { "aci-bootstrap": { enabled: true }, "ethos-context": { enabled: true } } } } };
  const listed = (hooks: unknown[]) => async (args: string[]) => {
    expect(args).toEqual(["hooks", "list", "--json"]);
    return { code: 0, stdout: JSON.stringify({ hooks }), stderr: "" };
  };

  it("both enabled and eligible: ok per hook; the plugin registers its own hooks: nothing checked", async () => {
    const openclaw = listed([
      { name: "aci-bootstrap", source: "openclaw-managed", loadable: true },
      { name: "ethos-context", source: "openclaw-managed", loadable: true },
    ]);
    const findings = await hooksCheck.run(context({ ...hookPack, cfg: enabled, openclaw }));
    expect(findings.map((f) => `${f.level} ${f.message}`)).toEqual(["ok aci-bootstrap: eligible (openclaw-managed)", "ok ethos-context: eligible (openclaw-managed)"]);
    expect(await hooksCheck.run(context({ openclaw }))).toEqual([]);
  });

  it("not enabled, not listed or not eligible is a problem with its fix; without a CLI eligibility is not asked (info)", async () => {
    const cfg = { hooks: { internal: { enabled: true, entries: { "aci-bootstrap": { enabled: true }, "ethos-context": { enabled: false } } } } };
    const openclaw = listed([{ name: "aci-bootstrap", source: "openclaw-workspace", loadable: false, blockedReason: "missing handler" }]);
    const findings = await hooksCheck.run(context({ ...hookPack, cfg, openclaw }));
    expect(findings.map((f) => f.level)).toEqual(["fail", "fail", "fail"]);
    expect(findings[0]).toMatchObject({ message: "ethos-context is not enabled in openclaw.json: the gateway does not run it", fix: "openclaw hooks enable ethos-context, then openclaw gateway restart" });
    expect(findings[1]!.message).toBe("aci-bootstrap is not eligible: missing handler");
    expect(findings[2]!.message).toBe("openclaw hooks list does not show ethos-context");
    const offline = await hooksCheck.run(context({ ...hookPack, cfg: enabled }));
    expect(offline.map((f) => f.level)).toEqual(["info"]);
    expect(doctorExitCode([{ check: "hooks", findings: offline }])).toBe(0);
  });
});

describe("doctor: the last turn", () => {
  const main = sessionTag("agent:main:main");
  const turn = (memory: Record<string, unknown> | undefined, extra: LogRecord[] = []): LogRecord[] => [
    { time: 1_000, event: "aci-bootstrap.decision", session: main, sessionType: "MAIN_SESSION", rule: "main", kept: ["SOUL.md"], added: ["TOOLS_COMPACT.md"], dropped: [] },
    ...(memory ? [{ time: 1_050, event: "memory.turn", session: main, sessionType: "MAIN_SESSION", ...memory }] : []),
    ...extra,
  ];

  it("says what it got; memory that failed, a warning of that turn, or an operator turn without memory is a warning", async () => {
    const [ok] = await lastTurnCheck.run(context({ records: turn({ status: "ok", injected: 1, chars: 80, reason: "sure", delivery: "runtime-carrier" }) }));
    expect(ok).toMatchObject({ level: "ok" });
    expect(ok!.message).toContain("files SOUL.md, TOOLS_COMPACT.md; memory: 1 memory delivered as the runtime-context carrier (80 chars; gate: sure)");
    expect(await levels(lastTurnCheck, context({ records: turn({ status: "timeout", injected: 0, chars: 0, reason: "timeout" }) }))).toEqual(["warn"]);
    expect(await levels(lastTurnCheck, context({ records: turn(undefined) }))).toEqual(["warn"]);
    expect(await levels(lastTurnCheck, context({ cfg: { plugins: { entries: { [PLUGIN]: { config: { memory: false } } } } }, records: turn(undefined) }))).toEqual(["ok"]);
    const problem = { time: 1_010, level: 40, session: main, msg: "workspace file not delivered" };
    const [warn] = await lastTurnCheck.run(context({ records: turn({ status: "ok", injected: 0, chars: 0, reason: "below-gate" }, [problem]) }));
    expect(warn).toMatchObject({ level: "warn", detail: ["workspace file not delivered"] });
  });

  it("no turn yet is not a failure: it says how to get one", async () => {
    expect(await lastTurnCheck.run(context())).toEqual([expect.objectContaining({ level: "info", fix: expect.stringContaining("send the agent a message") })]);
  });
});

describe("doctor: dmScope", () => {
  const telegram = (channel: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ channels: { telegram: { enabled: true, botToken: "x", ...channel } }, ...extra });

  it("main scope with a policy that admits more than the owners: pairing, an allowlisted friend, open to anyone", () => {
    const owners = { commands: { ownerAllowFrom: ["telegram:111"] } };
    expect(sharedMainSessionDms(telegram({ dmPolicy: "pairing", allowFrom: ["111"] }, owners))).toEqual([expect.objectContaining({ channel: "telegram", policy: "pairing" })]);
    expect(sharedMainSessionDms(telegram({ dmPolicy: "allowlist", allowFrom: ["111", "222"] }, owners))).toEqual([{ channel: "telegram", policy: "allowlist", admits: "1 allowFrom id(s) that are not owners" }]);
    expect(sharedMainSessionDms(telegram({ dmPolicy: "open", allowFrom: ["*"] }, owners))[0]!.admits).toContain("anyone");
  });

  it("no warning: only owners allowlisted, DMs disabled, or a DM scope of their own (also per binding)", () => {
    const owners = { commands: { ownerAllowFrom: ["telegram:111"] } };
    expect(sharedMainSessionDms(telegram({ dmPolicy: "allowlist", allowFrom: ["111"] }, owners))).toEqual([]);
    expect(sharedMainSessionDms(telegram({ dmPolicy: "disabled" }, owners))).toEqual([]);
    expect(sharedMainSessionDms(telegram({ dmPolicy: "pairing" }, { ...owners, session: { dmScope: "per-channel-peer" } }))).toEqual([]);
    const binding = { bindings: [{ agentId: "main", match: { channel: "telegram" }, session: { dmScope: "per-peer" } }] };
    expect(sharedMainSessionDms(telegram({ dmPolicy: "pairing" }, { ...owners, ...binding }))).toEqual([]);
    // The plugin's own owner list counts.
    const pluginOwners = { plugins: { entries: { [PLUGIN]: { config: { aciBootstrap: { ownerIds: ["telegram:222"] } } } } }, ...owners };
    expect(sharedMainSessionDms(telegram({ dmPolicy: "allowlist", allowFrom: ["111", "222"] }, pluginOwners))).toEqual([]);
  });
});

describe("doctor: TOOLS_COMPACT.md and Wisdom", () => {
  it("missing or older than TOOLS.md: a warning with draft-tools in the operator's form", async () => {
    const ws = workspaceCopy();
    fs.writeFileSync(path.join(ws, "TOOLS.md"), "# Tools\n\n## Browser\n- http://127.0.0.1:9222\n");
    fs.utimesSync(path.join(ws, "TOOLS_COMPACT.md"), new Date("2026-01-01"), new Date("2026-01-01"));
    const [stale] = await toolsCompactCheck.run(context({ workspace: ws, invocation: NPM_RUN }));
    expect(stale).toMatchObject({ level: "warn", fix: expect.stringMatching(/^npm run draft-tools/) });
    expect(stale!.message).toContain("TOOLS.md changed after TOOLS_COMPACT.md");
    fs.rmSync(path.join(ws, "TOOLS_COMPACT.md"));
    const [missing] = await toolsCompactCheck.run(context({ workspace: ws }));
    expect(missing).toMatchObject({ level: "warn", fix: expect.stringMatching(/^openclaw context draft-tools/) });
    // A config whose sets ask for no TOOLS_COMPACT.md: nothing to check.
    const sets = Object.fromEntries(["MAIN_SESSION", "PRIVATE_DM", "EXTERNAL_DM", "FORUM_TOPIC", "GROUP_CHAT", "FALLBACK"].map((type) => [type, ["SOUL.md"]]));
    expect(await toolsCompactCheck.run(context({ workspace: ws, cfg: { plugins: { entries: { [PLUGIN]: { config: { aciBootstrap: { fileSets: sets } } } } } } }))).toEqual([]);
  });

  it("wisdom compression due is a chore (info), with the command; not due is ok", async () => {
    const ws = workspaceCopy();
    fs.writeFileSync(path.join(ws, "LESSONS_LEARNED.md"), "- lesson one about timeouts\n- lesson two about retries\n");
    // Recently, with as many lessons as there are now (the sample's other sources count too): not due.
    fs.writeFileSync(path.join(ws, "SOUL.md"), "# Soul\n\n## Wisdom\n_Last compressed: 2026-11-20 | Source lessons: 999_\n");
    expect(await levels(wisdomCheck, context({ workspace: ws }))).toEqual(["ok"]);
    fs.writeFileSync(path.join(ws, "SOUL.md"), "# Soul\n\n## Wisdom\n_Last compressed: 2026-09-01 | Source lessons: 999_\n");
    const [due] = await wisdomCheck.run(context({ workspace: ws }));
    expect(due).toMatchObject({ level: "info", fix: expect.stringMatching(/^openclaw context compress-wisdom/) });
  });
});

describe("npm run doctor", () => {
  it("a healthy plugin install exits 0; another engine in the slot exits 3; a typo exits 1 and names the key", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "doctor-run-"));
    const state = path.join(root, "state");
    const ws = workspaceCopy();
    fs.mkdirSync(path.join(state, "extensions", PLUGIN), { recursive: true });
    fs.writeFileSync(path.join(state, "extensions", PLUGIN, "openclaw.plugin.json"), "{}");
    const config = path.join(state, "openclaw.json");
    const write = (cfg: Record<string, unknown>) => fs.writeFileSync(config, JSON.stringify({ agents: { defaults: { workspace: ws } }, ...cfg }));
    const logFile = path.join(root, "openclaw-context.log");
    const main = sessionTag("agent:main:main");
    fs.writeFileSync(
      logFile,
      [
        { time: Date.now() - 5000, level: 30, event: "aci-bootstrap.decision", session: main, sessionType: "MAIN_SESSION", rule: "main", kept: ["SOUL.md", "USER.md"], added: ["TOOLS_COMPACT.md"], dropped: ["AGENTS.md"] },
        { time: Date.now() - 4900, level: 30, event: "memory.turn", session: main, sessionType: "MAIN_SESSION", status: "ok", injected: 1, chars: 90, reason: "sure", delivery: "runtime-carrier" },
      ]
        .map((record) => JSON.stringify(record))
        .join("\n") + "\n",
    );
    const env = { OPENCLAW_STATE_DIR: state, OPENCLAW_CONFIG_PATH: config, OPENCLAW_CONTEXT_LOG_FILE: logFile };
    write(HEALTHY);
    const healthy = await runOpsScript("doctor.ts", ["--no-cli"], env);
    expect(healthy.stdout).toContain("ok    last turn: MAIN_SESSION");
    expect(healthy.stdout).not.toMatch(/^(WARN|FAIL) /m);
    expect(healthy.code).toBe(0);

    write({ plugins: { slots: { contextEngine: "lossless-claw" }, entries: { [PLUGIN]: { hooks: { allowConversationAccess: true } } } } });
    const other = await runOpsScript("doctor.ts", ["--no-cli"], env);
    expect(other.stdout).toContain("WARN  context engine: context engine lossless-claw holds plugins.slots.contextEngine");
    expect(other.code).toBe(3);

    write({ plugins: { ...HEALTHY.plugins, entries: { [PLUGIN]: { ...HEALTHY.plugins.entries[PLUGIN], config: { ethosContext: { serchTopK: 5 } } } } } });
    const typo = await runOpsScript("doctor.ts", ["--no-cli", "--json"], env);
    expect(typo.code).toBe(1);
    const report = JSON.parse(typo.stdout) as { exitCode: number; checks: { check: string; findings: { level: string; detail?: string[] }[] }[] };
    expect(report.exitCode).toBe(1);
    expect(report.checks.find((c) => c.check === "config")!.findings[0]!.detail).toEqual(["plugins.entries.openclaw-context.config.ethosContext.serchTopK: unknown key (did you mean searchTopK?)"]);
    expect(DOCTOR_CHECKS.map((check) => check.id)).toEqual(["version", "context engine", "config", "hooks", "last turn", "dmScope", "TOOLS_COMPACT.md", "wisdom"]);
  });
});
