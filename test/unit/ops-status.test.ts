import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sessionTag } from "../../src/core/bounded-id.ts";
import { RotatingFile, hookLogFile } from "../../src/core/log.ts";
import { Writable } from "node:stream";
import { startInboundTriage } from "../../src/capture/inbound.ts";
import { setLogDestination } from "../../src/core/log.ts";
import type { MessageReceivedEvent } from "../../src/host/events.ts";
import { parseLogLines, recentTurns } from "../../src/ops/turn-log.ts";
import { webchatMessageEvent } from "./ethos-events.ts";
import { makeFakeOpenClaw } from "./ops-fake-openclaw.ts";
import { runOpsScript } from "./ops-run-script.ts";

function tempRoot(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "ops-status-"));
}

describe("the hooks' log file", () => {
  it("lives under the state dir by default; OPENCLAW_CONTEXT_LOG_FILE names another file or turns it off", () => {
    expect(hookLogFile({ OPENCLAW_STATE_DIR: "/srv/oc" })).toBe("/srv/oc/openclaw-context/logs/openclaw-context.log");
    expect(hookLogFile({ HOME: "/home/op" })).toBe("/home/op/.openclaw/openclaw-context/logs/openclaw-context.log");
    expect(hookLogFile({ OPENCLAW_CONTEXT_LOG_FILE: "/var/log/occ.log" })).toBe("/var/log/occ.log");
    expect(hookLogFile({ OPENCLAW_CONTEXT_LOG_FILE: "off" })).toBeUndefined();
  });

  it("rotates by size and keeps a bounded number of old files", () => {
    const file = path.join(tempRoot(), "logs", "x.log");
    const log = new RotatingFile(file, 100, 2);
    for (let i = 0; i < 20; i += 1) log.write(`${JSON.stringify({ i, pad: "x".repeat(20) })}\n`);
    const files = fs.readdirSync(path.dirname(file)).sort();
    expect(files).toEqual(["x.log", "x.log.1", "x.log.2"]);
    for (const name of files) expect(fs.statSync(path.join(path.dirname(file), name)).size).toBeLessThanOrEqual(100);
    // The newest line is in the current file.
    expect(fs.readFileSync(file, "utf8")).toContain('"i":19');
  });

  it("inside the gateway (hook entry point loaded), records go to <stateDir>/openclaw-context/logs", async () => {
    const state = tempRoot();
    const script = path.join(state, "probe.ts");
    const repo = path.resolve(__dirname, "..", "..");
    fs.writeFileSync(script, `import { getLogger, logToGatewayFile } from ${JSON.stringify(path.join(repo, "src/core/log.ts"))};\nlogToGatewayFile();\ngetLogger("aci-bootstrap").info({ event: "probe" }, "hello from the hook");\n`);
    const { execFileSync } = await import("node:child_process");
    execFileSync(process.execPath, [path.join(repo, "node_modules/tsx/dist/cli.mjs"), script], { env: { ...process.env, OPENCLAW_STATE_DIR: state, OPENCLAW_CONTEXT_LOG_FILE: "" }, stdio: "pipe" });
    const written = fs.readFileSync(path.join(state, "openclaw-context", "logs", "openclaw-context.log"), "utf8");
    expect(JSON.parse(written.trim())).toMatchObject({ name: "aci-bootstrap", event: "probe", msg: "hello from the hook" });
  });
});

describe("npm run status", () => {
  it("tells installed/enabled per hook, config problems now and as logged, the last turns (files, memory, captures), the index", async () => {
    const root = tempRoot();
    const state = path.join(root, "state");
    const ws = path.join(root, "ws");
    fs.mkdirSync(path.join(state, "hooks", "openclaw-context"), { recursive: true });
    fs.mkdirSync(path.join(ws, "memory"), { recursive: true });
    const config = path.join(state, "openclaw.json");
    fs.writeFileSync(
      config,
      JSON.stringify({
        agents: { defaults: { workspace: ws } },
        hooks: { internal: { enabled: true, entries: { "aci-bootstrap": { enabled: true, fileSet: {} }, "ethos-context": { enabled: false, serchTopK: 5 } } } },
      }),
    );
    const logDir = path.join(state, "openclaw-context", "logs");
    fs.mkdirSync(logDir, { recursive: true });
    const t = Date.now() - 60_000;
    const main = sessionTag("agent:main:main");
    const sub = sessionTag("agent:main:subagent:1");
    const records = [
      { time: t, name: "ethos-context", level: 50, event: "config.invalid-key", configKey: "hooks.internal.entries.ethos-context", key: "hooks.internal.entries.ethos-context.serchTopK", reason: "unknown key (did you mean searchTopK?)" },
      { time: t + 1, name: "aci-bootstrap", level: 30, event: "aci-bootstrap.decision", session: sub, sessionType: "SUBAGENT", rule: "subagent", kept: ["AGENTS.md"], added: [], dropped: ["SOUL.md"], tokensBefore: 900, tokensAfter: 120, msg: "aci-bootstrap: SUBAGENT (subagent) kept=1 dropped=1 added=0 tokens 900→120" },
      { time: t + 2, name: "ethos-context", level: 30, event: "memory.turn", session: sub, sessionType: "SUBAGENT", status: "out-of-scope", reason: "subagent", injected: 0, chars: 0, msg: "memory context for this turn" },
      // A capture is logged when the message is triaged, before its turn's bootstrap.
      { time: t + 3, name: "ethos-context", level: 30, event: "capture.triaged", session: main, classes: ["remember"], capture: "added", msg: "message triaged" },
      { time: t + 4, name: "aci-bootstrap", level: 30, event: "aci-bootstrap.decision", session: main, sessionType: "MAIN_SESSION", rule: "main", kept: ["SOUL.md", "USER.md"], added: ["TOOLS_COMPACT.md"], dropped: ["AGENTS.md", "MEMORY.md"], tokensBefore: 1800, tokensAfter: 700, msg: "aci-bootstrap: MAIN_SESSION (main) kept=2 dropped=2 added=1 tokens 1800→700" },
      { time: t + 5, name: "ethos-context", level: 30, event: "memory.turn", session: main, sessionType: "MAIN_SESSION", status: "ok", reason: "sure", injected: 2, chars: 512, delivery: "bootstrap-record", msg: "memory context for this turn" },
    ];
    fs.writeFileSync(path.join(logDir, "openclaw-context.log"), records.map((r) => JSON.stringify(r)).join("\n") + "\n{cut line\n");
    const indexDir = path.join(state, "openclaw-context", "memory-index");
    fs.mkdirSync(indexDir, { recursive: true });
    fs.writeFileSync(path.join(ws, "memory", "a.md"), "# a\n");
    fs.writeFileSync(path.join(indexDir, "k.json"), JSON.stringify({ version: 1, key: "k", rootDir: ws, files: { "memory/a.md": {}, "memory/gone.md": {} } }));
    fs.utimesSync(path.join(ws, "memory", "a.md"), new Date(t / 1000 - 1), new Date(t / 1000 - 1));
    // The binary cache of the index (src/memory/index-cache.ts): "OCIX", header length, JSON header.
    const header = Buffer.from(JSON.stringify({ key: "b", rootDir: ws, files: [{ rel: "memory/a.md" }] }));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(header.length);
    fs.writeFileSync(path.join(indexDir, "b.idx"), Buffer.concat([Buffer.from("OCIX"), length, header, Buffer.alloc(64)]));

    // Two facts captured today (one superseded by the other) among an agent's own note.
    const now = new Date();
    const day = now.toISOString().slice(0, 10);
    fs.writeFileSync(
      path.join(ws, "memory", `${day}.md`),
      [
        `- my locker code is 4312 #knowledge <!-- confidence: 0.95 source: operator mentions: 2 last: ${day} status: superseded captured: ${day}T08:05:00.000Z -->`,
        "- agent wrote this itself",
        `- my locker code is 5580 #knowledge <!-- confidence: 1 source: correction mentions: 1 last: ${day} captured: ${day}T09:30:00.000Z -->`,
      ].join("\n") + "\n",
    );
    // A journal of in-place edits a stopped gateway left (pid past the kernel's pid_max: no such process).
    const edit = { edit: "supersede", day, at: `${day}T09:30:00.000Z`, id: "f-0123456789" };
    fs.writeFileSync(path.join(ws, "memory", ".capture-pending-4194321.jsonl"), `${JSON.stringify(edit)}\n${JSON.stringify(edit)}\n`);

    const result = await runOpsScript("status.ts", ["--no-cli"], { OPENCLAW_STATE_DIR: state, OPENCLAW_CONFIG_PATH: config, OPENCLAW_CONTEXT_LOG_FILE: "" });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain(`hook-pack: found at ${path.join(state, "hooks", "openclaw-context")}`);
    expect(out).toContain("aci-bootstrap: enabled (hooks.internal.entries.aci-bootstrap.enabled is true)");
    expect(out).toContain("ethos-context: disabled (hooks.internal.entries.ethos-context.enabled is false)");
    expect(out).toContain("- hooks.internal.entries.aci-bootstrap.fileSet: unknown key (did you mean fileSets?)");
    expect(out).toMatch(/Config errors the gateway logged[^\n]*\n {2}- \S+ hooks\.internal\.entries\.ethos-context\.serchTopK: unknown key \(did you mean searchTopK\?\)/);
    expect(out).toContain(
      [
        `MAIN_SESSION (main) session ${main}`,
        "      files: SOUL.md, USER.md, TOOLS_COMPACT.md; dropped AGENTS.md, MEMORY.md; tokens 1800 → 700",
        "      memory: 2 memories delivered as the ETHOS_CONTEXT.md record (512 chars; gate: sure)",
        "      capture: added (remember)",
      ].join("\n"),
    );
    expect(out).toContain([`SUBAGENT (subagent) session ${sub}`, "      files: AGENTS.md; dropped SOUL.md; tokens 900 → 120", "      memory: none: out of scope (subagent)"].join("\n"));
    // Newest first.
    expect(out.indexOf("MAIN_SESSION (main)")).toBeLessThan(out.indexOf("SUBAGENT (subagent)"));
    // memory/gone.md no longer exists: counted as changed since the index was saved.
    expect(out).toMatch(new RegExp(`2 files of ${ws.replace(/[/\\]/g, "\\$&")}: \\d+ B, saved \\d+ s ago; 1 file\\(s\\) changed since`));
    expect(out).toMatch(new RegExp(`1 files of ${ws.replace(/[/\\]/g, "\\$&")}: \\d+ B, saved \\d+ s ago; up to date with the files on disk`));
    expect(out).toContain(`Captured today (${path.join(ws, "memory", `${day}.md`)}; delete a line to undo it)\n  08:05 UTC  my locker code is 4312 #knowledge (superseded by a newer value, said 2 times)\n  09:30 UTC  my locker code is 5580 #knowledge (correction)`);
    expect(out).toContain(
      `  2 in-place edit(s) recorded, not applied yet (${path.join(ws, "memory", ".capture-pending-4194321.jsonl")}): its writer stopped; applied before the workspace's next capture`,
    );
    expect(out).not.toContain("agent wrote this itself");
  });

  it("on a config OpenClaw rejects (the gateway would not start), from a clone: OpenClaw's issues and ours, each by its path", async () => {
    const root = tempRoot();
    const ws = path.join(root, "ws");
    fs.mkdirSync(ws, { recursive: true });
    const config = path.join(root, "openclaw.json");
    fs.writeFileSync(config, JSON.stringify({ gateway: { prot: 1 }, agents: { defaults: { workspace: ws } }, plugins: { entries: { "openclaw-context": { config: { ethosContext: { serchTopK: 5 } } } } } }));
    const cli = makeFakeOpenClaw();
    const result = await runOpsScript("status.ts", [], { OPENCLAW_CLI: cli.bin, OPENCLAW_STATE_DIR: path.join(root, "state"), OPENCLAW_CONFIG_PATH: config, OPENCLAW_CONTEXT_LOG_FILE: "", FAKE_OPENCLAW_INVALID: 'gateway: Unrecognized key: "prot"' });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('OpenClaw rejects openclaw.json (openclaw config validate): the gateway will not start until this is fixed:\n    - gateway: Unrecognized key: "prot"');
    expect(result.stdout).toContain("  plugins.entries.openclaw-context.config: 1 key(s) ignored, the other settings apply:\n    - plugins.entries.openclaw-context.config.ethosContext.serchTopK: unknown key (did you mean searchTopK?)");
    expect(cli.calls()).toContainEqual(["config", "validate", "--json"]);
  });

  it("a 2026.3.13 install record of an older install-hooks (a companion unit never installed) reads as such, never as a path that is not there", async () => {
    const root = tempRoot();
    const ws = path.join(root, "ws");
    const pack = path.join(root, "state", "hooks", "openclaw-context");
    fs.mkdirSync(ws, { recursive: true });
    fs.mkdirSync(pack, { recursive: true });
    const config = path.join(root, "openclaw.json");
    fs.writeFileSync(config, JSON.stringify({ agents: { defaults: { workspace: ws } } }));
    const units = { "hook-pack": { mode: "pack", path: pack }, "companion-plugin": { installed: false, reason: "host-version", hostVersion: "2026.3.13" } };
    fs.writeFileSync(path.join(root, "openclaw-context.install-state.json"), JSON.stringify({ pack: "openclaw-context", version: 2, mode: "pack", configBefore: { existed: true, text: "{}" }, hookStateBefore: { entries: {} }, units }));
    const result = await runOpsScript("status.ts", ["--no-cli"], { OPENCLAW_STATE_DIR: path.join(root, "state"), OPENCLAW_CONFIG_PATH: config, OPENCLAW_CONTEXT_LOG_FILE: "" });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`hook-pack: installed (pack mode) at ${pack}`);
    expect(result.stdout).toContain("companion-plugin: not installed (host-version)");
    expect(result.stdout).not.toContain("recorded as installed at ,");
  });

  it("on an empty machine says what is missing instead of failing", async () => {
    const root = tempRoot();
    const ws = path.join(root, ".openclaw", "workspace");
    fs.mkdirSync(ws, { recursive: true });
    const result = await runOpsScript("status.ts", ["--no-cli"], { HOME: root, OPENCLAW_STATE_DIR: "", OPENCLAW_CONFIG_PATH: "", OPENCLAW_CONTEXT_LOG_FILE: "" });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("hook-pack: not installed");
    expect(result.stdout).toContain("aci-bootstrap: disabled (no hooks.internal.entries.aci-bootstrap.enabled in openclaw.json");
    expect(result.stdout).toContain("none logged yet");
    expect(result.stdout).toContain("no saved index yet");
    expect(result.stdout).toContain("nothing captured today");
    expect(result.stdout).toContain("owners: none configured (set commands.ownerAllowFrom)");
  });

  it("warns when dmScope \"main\" (the default) and a DM policy let someone who is not an owner into the main session", async () => {
    const root = tempRoot();
    fs.mkdirSync(path.join(root, ".openclaw", "workspace"), { recursive: true });
    const config = path.join(root, "openclaw.json");
    fs.writeFileSync(config, JSON.stringify({ commands: { ownerAllowFrom: ["telegram:4242"] }, channels: { telegram: { allowFrom: ["4242"] } } }));
    const shared = await runOpsScript("status.ts", ["--no-cli"], { HOME: root, OPENCLAW_CONFIG_PATH: config, OPENCLAW_CONTEXT_LOG_FILE: "" });
    expect(shared.stdout).toContain("owners: 1 id(s) from commands.ownerAllowFrom");
    expect(shared.stdout).toMatch(/WARNING telegram: dmPolicy "pairing" \(the default\): anyone you approve with openclaw pairing approve runs in the main session/);
    fs.writeFileSync(config, JSON.stringify({ session: { dmScope: "per-channel-peer" }, commands: { ownerAllowFrom: ["telegram:4242"] }, channels: { telegram: { allowFrom: ["4242"] } } }));
    const apart = await runOpsScript("status.ts", ["--no-cli"], { HOME: root, OPENCLAW_CONFIG_PATH: config, OPENCLAW_CONTEXT_LOG_FILE: "" });
    expect(apart.stdout).not.toContain("WARNING telegram");
    expect(apart.stdout).toContain("the main session is the owners' only");
  });
});

describe("one workspace rule for every script", () => {
  it("explain and check-tools take the workspace from agents.defaults.workspace when --workspace is absent", async () => {
    const root = tempRoot();
    const ws = path.join(root, "my-ws");
    fs.cpSync(path.resolve(__dirname, "..", "..", "fixtures", "workspace"), ws, { recursive: true });
    const config = path.join(root, "openclaw.json");
    fs.writeFileSync(config, `{ // JSON5, like the gateway's\n agents: { defaults: { workspace: ${JSON.stringify(ws)} } } }\n`);
    const explain = await runOpsScript("explain.ts", ["--json"], { OPENCLAW_CONFIG_PATH: config });
    expect(explain.code).toBe(0);
    expect(JSON.parse(explain.stdout).workspaceDir).toBe(ws);
    const check = await runOpsScript("check-tools-compact.ts", ["--no-source"], { OPENCLAW_CONFIG_PATH: config });
    expect(check.stdout).toContain(path.join(ws, "TOOLS_COMPACT.md"));
    const none = await runOpsScript("explain.ts", [], { OPENCLAW_CONFIG_PATH: path.join(root, "missing.json"), HOME: root, OPENCLAW_STATE_DIR: "" });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`workspace not found: ${path.join(root, ".openclaw", "workspace")}`);
  });
});

describe("status --last: the turns put together from the log", () => {
  it("a message with several statements shows each fact's capture on its turn; one with one fact shows it once", () => {
    const main = sessionTag("agent:main:main");
    const t = 1_800_000_000_000;
    const records = [
      { time: t, event: "capture.triaged", session: main, classes: ["remember"], capture: "added", captures: ["added", "mentioned"] },
      { time: t + 1, event: "aci-bootstrap.decision", session: main, sessionType: "MAIN_SESSION", kept: ["SOUL.md"] },
      { time: t + 60_000, event: "capture.triaged", session: main, classes: ["remember"], capture: "superseded" },
      { time: t + 60_001, event: "aci-bootstrap.decision", session: main, sessionType: "MAIN_SESSION", kept: ["SOUL.md"] },
    ];
    const [newest, older] = recentTurns(records, 2);
    expect(newest!.captures).toEqual([{ action: "superseded", classes: ["remember"] }]);
    expect(older!.captures).toEqual([
      { action: "added", classes: ["remember"] },
      { action: "mentioned", classes: ["remember"] },
    ]);
  });
});

describe("status --last: what a triaged message logs", () => {
  it("a message with two statements logs both captures, and the turn shows both", async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), "status-triage-"));
    const lines: string[] = [];
    setLogDestination(new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }));
    try {
      fs.mkdirSync(path.join(ws, "memory"));
      const event = webchatMessageEvent("agent:main:main", "Remember that my locker code is 4312. Also remember that the gym closes at 10pm.", "m1");
      await startInboundTriage(event as unknown as MessageReceivedEvent, ws);
      const records = parseLogLines(lines.join(""));
      const triaged = records.filter((record) => record.event === "capture.triaged");
      expect(triaged).toHaveLength(1);
      expect(triaged[0]).toMatchObject({ session: sessionTag("agent:main:main"), capture: "added", captures: ["added", "added"] });
      expect(recentTurns(records, 1)[0]!.captures.map((capture) => capture.action)).toEqual(["added", "added"]);
    } finally {
      setLogDestination(undefined);
      fs.rmSync(ws, { recursive: true, force: true });
    }
  });
});
