// The plugin's install / uninstall with the exact restore of openclaw.json (issue 18 item 4),
// against a stand-in `openclaw` that edits openclaw.json the way 2026.9.6 was seen to
// (HOOK_ASSUMPTIONS.md "Plugin package"): install strips comments and adds `meta` and our entry,
// `config set` writes a key, uninstall removes the folder and the slot and leaves
// `plugins.entries.openclaw-context: { enabled: false }`. The real CLI: test/e2e/package.e2e.test.ts.
import crypto from "node:crypto";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import JSON5 from "json5";
import { describe, expect, it, vi } from "vitest";
import { differsOnlyInOwnedKeys, withoutOwnedKeys } from "../../src/ops/config-ownership.ts";
import { makeFakeOpenClaw } from "./ops-fake-openclaw.ts";
import { REPO_ROOT, runOpsScript } from "./ops-run-script.ts";

const CONFIG = `// my gateway, edited by hand
{
  /* model */
  "agents": { "defaults": { "model": { "primary": "mock/mock" } } }, // trailing
  "plugins": { "slots": { "memory": "none" } },
}
`;

const FAKE = String.raw`
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
const require = createRequire(process.env.FAKE_OPENCLAW_REPO + "/package.json");
const JSON5 = require("json5");
const args = process.argv.slice(2);
fs.appendFileSync(process.env.FAKE_OPENCLAW_LOG, JSON.stringify(args) + "\n");
const configPath = process.env.OPENCLAW_CONFIG_PATH;
const dir = path.join(process.env.OPENCLAW_STATE_DIR, "extensions", "openclaw-context");
const read = () => (fs.existsSync(configPath) ? JSON5.parse(fs.readFileSync(configPath, "utf8")) : {});
const write = (cfg) => { cfg.meta = { lastTouchedVersion: "2026.9.6", lastTouchedAt: String(process.hrtime.bigint()) }; fs.writeFileSync(configPath, JSON.stringify(cfg, null, 2) + "\n"); };
if (args[0] === "--version") {
  console.log("OpenClaw " + (process.env.FAKE_OPENCLAW_VERSION || "2026.9.6"));
} else if (args[0] === "plugins" && args[1] === "install") {
  if (!args.includes("--force") || !args.includes("--accept-capabilities")) { console.error("Install cancelled"); process.exit(1); }
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "index.js"), "export default {};\n");
  const cfg = read(); cfg.plugins ??= {}; cfg.plugins.entries ??= {}; cfg.plugins.entries["openclaw-context"] = { enabled: true };
  write(cfg);
  console.log("Installed plugin: openclaw-context");
} else if (args[0] === "plugins" && args[1] === "uninstall") {
  if (process.env.FAKE_OPENCLAW_FAIL === "uninstall") { console.error("database is locked"); process.exit(1); }
  if (!fs.existsSync(dir)) { console.error("Plugin not found: openclaw-context"); process.exit(1); }
  fs.rmSync(dir, { recursive: true });
  const cfg = read();
  if (cfg.plugins?.slots?.contextEngine === "openclaw-context") delete cfg.plugins.slots.contextEngine;
  cfg.plugins.entries["openclaw-context"] = { enabled: false };
  write(cfg);
  console.log('Uninstalled plugin "openclaw-context".');
} else if (args[0] === "config" && args[1] === "set") {
  const cfg = read(); const keys = args[2].split("."); let node = cfg;
  for (const key of keys.slice(0, -1)) node = node[key] ??= {};
  node[keys.at(-1)] = JSON.parse(args[3]);
  write(cfg);
} else console.log("ok");
`;

function setup(configText: string | undefined = CONFIG) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "pkg-inst-"));
  const config = path.join(root, "openclaw.json");
  const state = path.join(root, "state");
  if (configText !== undefined) fs.writeFileSync(config, configText);
  const script = path.join(root, "fake-openclaw.mjs");
  fs.writeFileSync(script, FAKE);
  const log = path.join(root, "calls.log");
  fs.writeFileSync(log, "");
  const bin = path.join(root, "openclaw");
  fs.writeFileSync(bin, `#!/bin/sh\nFAKE_OPENCLAW_LOG="${log}" FAKE_OPENCLAW_REPO="${REPO_ROOT}" exec "${process.execPath}" "${script}" "$@"\n`, { mode: 0o755 });
  const tarball = path.join(root, "openclaw-context-0.1.0.tgz");
  fs.writeFileSync(tarball, "");
  const env = { OPENCLAW_CLI: bin, OPENCLAW_STATE_DIR: state, OPENCLAW_CONFIG_PATH: config };
  const calls = () => fs.readFileSync(log, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as string[]);
  /** The stand-in CLI run directly (an operator's `openclaw config set …`). */
  const openclaw = (...args: string[]) => execFileSync(bin, args, { env: { ...process.env, ...env }, encoding: "utf8" });
  return { root, config, state, tarball, env, calls, openclaw, record: path.join(root, "openclaw-context.install-state.json") };
}

describe("which changes leave the exact restore possible (config-ownership.ts)", () => {
  const installed = JSON.stringify({ agents: { x: 1 }, plugins: { entries: { "openclaw-context": { enabled: true } }, slots: { contextEngine: "openclaw-context" } }, meta: { lastTouchedVersion: "2026.9.6" } });

  it("our switch, OpenClaw's uninstall leftovers and its meta are ours; comments, order and formatting do not count", () => {
    const rolledBack = `// note\n{ "meta": { "lastTouchedAt": "later" }, "plugins": { "entries": { "openclaw-context": { "enabled": false } } }, "agents": { "x": 1, }, }`;
    expect(differsOnlyInOwnedKeys(rolledBack, installed)).toBe(true);
    expect(withoutOwnedKeys(rolledBack)).toEqual({ agents: { x: 1 } });
  });

  it("an operator's edit anywhere else, or another engine in the slot, is not ours", () => {
    expect(differsOnlyInOwnedKeys(JSON.stringify({ agents: { x: 2 }, plugins: { entries: { "openclaw-context": { enabled: true } } } }), installed)).toBe(false);
    expect(differsOnlyInOwnedKeys(JSON.stringify({ agents: { x: 1 }, plugins: { slots: { contextEngine: "lossless" } } }), installed)).toBe(false);
    expect(differsOnlyInOwnedKeys(JSON.stringify({ agents: { x: 1 }, plugins: { entries: { other: { enabled: true } } } }), installed)).toBe(false);
  });

  it("the hook pack's switches (hooks disable) are ours, its hooks' other settings are not", () => {
    const pack = (enabled: boolean, topK = 5) => JSON.stringify({ hooks: { internal: { enabled: true, entries: { "aci-bootstrap": { enabled }, "ethos-context": { enabled: true, searchTopK: topK } } } } });
    expect(differsOnlyInOwnedKeys(pack(false), pack(true))).toBe(true);
    expect(differsOnlyInOwnedKeys(pack(true, 9), pack(true))).toBe(false);
  });

  it("an unparsable file never counts as unchanged", () => {
    expect(differsOnlyInOwnedKeys("{ nope", installed)).toBe(false);
  });
});

describe("npm run install-hooks on 2026.9 (the plugin) / openclaw context uninstall", () => {
  it("install → switch off → uninstall: OpenClaw's uninstall runs, then openclaw.json is back byte for byte and the extensions folder install created is gone", async () => {
    const t = setup();
    const installed = await runOpsScript("install.ts", ["--plugin", t.tarball, "--config", t.config], t.env);
    expect(installed.stderr).not.toMatch(/error|FAILED/);
    expect(installed.code).toBe(0);
    expect(t.calls().slice(0, 2)).toEqual([["--version"], ["plugins", "install", t.tarball, "--force", "--accept-capabilities"]]);
    const cfg = JSON5.parse(fs.readFileSync(t.config, "utf8"));
    expect(cfg.plugins).toMatchObject({ slots: { memory: "none", contextEngine: "openclaw-context" }, entries: { "openclaw-context": { enabled: true, hooks: { allowConversationAccess: true } } } });
    expect(fs.readFileSync(t.config, "utf8")).not.toContain("// my gateway");
    expect(installed.stdout).toContain("RESTART NEEDED");

    t.openclaw("config", "set", "plugins.entries.openclaw-context.config.enabled", "false");
    expect(JSON5.parse(fs.readFileSync(t.config, "utf8")).plugins.entries["openclaw-context"].config).toEqual({ enabled: false });

    const removed = await runOpsScript("install.ts", ["--uninstall", "--config", t.config], t.env);
    expect(removed.stderr).not.toMatch(/error|FAILED/);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain('it left plugins.entries.openclaw-context = {"enabled":false}');
    expect(removed.stdout).toContain("restored exactly as it was before install (comments included)");
    expect(fs.readFileSync(t.config, "utf8")).toBe(CONFIG);
    expect(fs.existsSync(path.join(t.state, "extensions"))).toBe(false);
    expect(fs.existsSync(t.record)).toBe(false);
    expect(t.calls().at(-1)).toEqual(["plugins", "uninstall", "openclaw-context", "--force"]);
  });

  it("the workspace's .gitignore gets ETHOS_CONTEXT.md at install and is back byte for byte after uninstall", async () => {
    const t = setup();
    const ws = path.join(t.root, "workspace");
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(ws, ".gitignore"), "node_modules\n");
    const env = { ...t.env, OPENCLAW_WORKSPACE_DIR: ws };
    const installed = await runOpsScript("install.ts", ["--plugin", t.tarball, "--config", t.config], env);
    expect(installed.code, installed.stderr).toBe(0);
    expect(fs.readFileSync(path.join(ws, ".gitignore"), "utf8")).toBe("node_modules\n/ETHOS_CONTEXT.md\n/.ETHOS_CONTEXT.md.*.tmp\n");
    const removed = await runOpsScript("install.ts", ["--uninstall", "--config", t.config], env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(".gitignore restored exactly as it was before install");
    expect(fs.readFileSync(path.join(ws, ".gitignore"), "utf8")).toBe("node_modules\n");
    expect(fs.readFileSync(t.config, "utf8")).toBe(CONFIG);
  });

  it("another engine already in the slot stays, and is still there after uninstall", async () => {
    const t = setup(`{ "plugins": { "slots": { "contextEngine": "lossless" } } }\n`);
    const installed = await runOpsScript("install.ts", ["--plugin", t.tarball, "--config", t.config], t.env);
    expect(installed.stdout).toContain("plugins.slots.contextEngine is lossless: left as it is");
    // The gateway ran a while: our state folder exists.
    fs.mkdirSync(path.join(t.state, "openclaw-context", "logs"), { recursive: true });
    const removed = await runOpsScript("install.ts", ["--uninstall", "--config", t.config], t.env);
    expect(removed.code).toBe(0);
    expect(fs.readFileSync(t.config, "utf8")).toBe(`{ "plugins": { "slots": { "contextEngine": "lossless" } } }\n`);
    // Without --purge it says what stays and how to remove it; the last line is the one restart instruction.
    expect(removed.stdout).toContain(`Left in place (openclaw-context's own state; --purge removes it):\n  - ${path.join(t.state, "openclaw-context")}: openclaw-context's state: its log and the memory index cache`);
    expect(removed.stdout.trimEnd().split("\n").at(-1)).toBe("Uninstalled. RESTART NEEDED: a running gateway keeps what it has loaded until it restarts (openclaw gateway restart).");
    expect(removed.stdout.match(/RESTART NEEDED/g)).toHaveLength(1);
    expect(fs.existsSync(path.join(t.state, "openclaw-context"))).toBe(true);
  });

  it("--purge removes the bundle's own state (state folder, our openclaw.json backups, ETHOS_CONTEXT.md); your memory stays byte for byte", async () => {
    const t = setup();
    expect((await runOpsScript("install.ts", ["--plugin", t.tarball, "--config", t.config], t.env)).code).toBe(0);
    const ws = path.join(t.root, "ws");
    const memory: Record<string, string> = {
      "MEMORY.md": "- my sailboat is Halcyon Drift\n",
      "memory/2026-11-26.md": "- my locker code is 4312 #knowledge <!-- confidence: 0.95 source: operator -->\n",
      "memory/.triage/2026-11-26.jsonl": '{"priority":true}\n',
      "memory/.capture-pending-4194321.jsonl": '{"edit":"supersede","day":"2026-11-26","at":"2026-11-26T08:00:00.000Z","id":"f-0123456789"}\n',
      "CORRECTIONS.md": "# Corrections\n",
      "initiatives/adaptive-context-injection/backups/SOUL.md.bak": "soul\n",
    };
    for (const [rel, text] of Object.entries({ ...memory, "ETHOS_CONTEXT.md": "# Ethos context\n" })) {
      fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
      fs.writeFileSync(path.join(ws, rel), text);
    }
    fs.mkdirSync(path.join(t.state, "openclaw-context", "memory-index"), { recursive: true });
    fs.writeFileSync(path.join(t.state, "openclaw-context", "memory-index", "k.idx"), "OCIX");
    const ourBackups = () => fs.readdirSync(t.root).filter((name) => /^openclaw\.json\.\d{8}T\d{6}Z(-\d+)?\.bak$/.test(name));
    expect(ourBackups().length).toBeGreaterThan(0); // install's own edits of openclaw.json

    const removed = await runOpsScript("install.ts", ["--uninstall", "--purge", "--config", t.config, "--workspace", ws], t.env);
    expect(removed.stderr).not.toMatch(/error|FAILED/);
    expect(removed.code).toBe(0);
    expect(fs.readFileSync(t.config, "utf8")).toBe(CONFIG);
    expect(fs.existsSync(path.join(t.state, "openclaw-context"))).toBe(false);
    expect(ourBackups()).toEqual([]);
    expect(fs.existsSync(path.join(ws, "ETHOS_CONTEXT.md"))).toBe(false);
    for (const [rel, text] of Object.entries(memory)) expect([rel, fs.readFileSync(path.join(ws, rel), "utf8")]).toEqual([rel, text]);
    expect(removed.stdout).toContain(`Removed (--purge):\n  - ${path.join(t.state, "openclaw-context")} (openclaw-context's state: its log and the memory index cache)`);
    expect(removed.stdout).toContain(`Left in place (yours; never removed by uninstall):\n  - ${path.join(ws, "memory", ".triage")}`);
    expect(removed.stdout).toContain(`  - ${path.join(ws, "CORRECTIONS.md")}: corrections captured from your messages; yours: kept`);
    expect(removed.stdout).toContain(
      `  - ${path.join(ws, "memory", ".capture-pending-4194321.jsonl")}: in-place edits of your memory a stopped gateway recorded and did not apply (mention counts, superseded marks); applied by the next capture if the bundle comes back; yours: kept`,
    );
    expect(removed.stdout).toContain("Your memory files (MEMORY.md, memory/*.md, including the facts captured there) are untouched.");
    expect((await runOpsScript("install.ts", ["--purge", "--config", t.config], t.env)).code).toBe(2);
  });

  it("--purge keeps what undoes a forget: the forget log and the state dir's seal key stay, the rest of the state goes", async () => {
    const t = setup();
    expect((await runOpsScript("install.ts", ["--plugin", t.tarball, "--config", t.config], t.env)).code).toBe(0);
    const ws = path.join(t.root, "ws");
    fs.mkdirSync(path.join(ws, "memory"), { recursive: true });
    fs.writeFileSync(path.join(ws, "memory", ".forgotten.jsonl"), '{"id":"fg-20261126-000001","undo":"sealed"}\n');
    const stateDir = path.join(t.state, "openclaw-context");
    fs.mkdirSync(path.join(stateDir, "logs"), { recursive: true });
    fs.writeFileSync(path.join(stateDir, "logs", "openclaw-context.log"), "{}\n");
    fs.writeFileSync(path.join(stateDir, "seal.key"), crypto.randomBytes(32));
    const key = fs.readFileSync(path.join(stateDir, "seal.key"));

    const removed = await runOpsScript("install.ts", ["--uninstall", "--purge", "--config", t.config, "--workspace", ws], t.env);
    expect(removed.code).toBe(0);
    expect(fs.existsSync(path.join(stateDir, "logs"))).toBe(false);
    expect(fs.readFileSync(path.join(stateDir, "seal.key"))).toEqual(key);
    expect(fs.existsSync(path.join(ws, "memory", ".forgotten.jsonl"))).toBe(true);
    expect(removed.stdout).toContain(`Removed (--purge):\n  - ${path.join(stateDir, "logs")} (openclaw-context's state (its log, the memory index cache))`);
    expect(removed.stdout).toContain(`  - ${path.join(stateDir, "seal.key")}: the key that unseals the undo data of forgets (memory/.forgotten.jsonl); yours: kept`);
    expect(removed.stdout).toContain(`  - ${path.join(ws, "memory", ".forgotten.jsonl")}: what was forgotten`);
  });

  it("an operator's edit since install: only our keys go, the edit stays, the pre-install file is saved next to it", async () => {
    const t = setup();
    expect((await runOpsScript("install.ts", ["--plugin", t.tarball, "--config", t.config], t.env)).code).toBe(0);
    const edited = JSON5.parse(fs.readFileSync(t.config, "utf8"));
    edited.agents.defaults.model.primary = "mock/other";
    fs.writeFileSync(t.config, JSON.stringify(edited, null, 2));
    const removed = await runOpsScript("install.ts", ["--uninstall", "--config", t.config], t.env);
    expect(removed.code).toBe(0);
    const after = JSON5.parse(fs.readFileSync(t.config, "utf8"));
    expect(after.agents.defaults.model.primary).toBe("mock/other");
    expect(after.plugins).toEqual({ slots: { memory: "none" }, entries: {} });
    expect(fs.readFileSync(`${t.config}.before-openclaw-context`, "utf8")).toBe(CONFIG);
  });

  it("when OpenClaw's uninstall fails, openclaw.json is not touched and the record stays for a second run", async () => {
    const t = setup();
    expect((await runOpsScript("install.ts", ["--plugin", t.tarball, "--config", t.config], t.env)).code).toBe(0);
    const installedText = fs.readFileSync(t.config, "utf8");
    const failed = await runOpsScript("install.ts", ["--uninstall", "--config", t.config], { ...t.env, FAKE_OPENCLAW_FAIL: "uninstall" });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("openclaw plugins uninstall openclaw-context --force failed (exit 1): database is locked");
    expect(fs.readFileSync(t.config, "utf8")).toBe(installedText);
    expect(fs.existsSync(t.record)).toBe(true);
    expect((await runOpsScript("install.ts", ["--uninstall", "--config", t.config], t.env)).code).toBe(0);
    expect(fs.readFileSync(t.config, "utf8")).toBe(CONFIG);
  });

  it("installed with plain `openclaw plugins install` (no saved copy): our keys go and it says the comments cannot come back", async () => {
    const t = setup();
    t.openclaw("plugins", "install", t.tarball, "--force", "--accept-capabilities");
    const removed = await runOpsScript("install.ts", ["--uninstall", "--config", t.config], t.env);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain("the comments and formatting OpenClaw's install dropped cannot come back");
    const after = JSON5.parse(fs.readFileSync(t.config, "utf8"));
    expect(after.plugins).toEqual({ slots: { memory: "none" }, entries: {} });
    expect(after.agents.defaults.model.primary).toBe("mock/mock");
  });

  it("`openclaw context uninstall` refuses when the record is a hook-pack install (npm run install-hooks -- --uninstall removes that)", async () => {
    const t = setup();
    fs.writeFileSync(t.record, JSON.stringify({ pack: "openclaw-context", version: 2, mode: "pack", configBefore: { existed: true, text: CONFIG }, hookStateBefore: { entries: {} }, units: { "hook-pack": { mode: "pack", path: "/x" } } }));
    const { uninstallCommand } = await import("../../src/ops/commands/uninstall.ts");
    const { OPENCLAW_CONTEXT, runCommand } = await import("../../src/ops/commands/command.ts");
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    vi.stubEnv("OPENCLAW_CLI", t.env.OPENCLAW_CLI);
    try {
      expect(await runCommand(uninstallCommand, ["--config", t.config], OPENCLAW_CONTEXT)).toBe(1);
      expect(stderr.mock.calls.map((call) => String(call[0])).join("")).toContain("records a hook-pack install (hook-pack): remove it with npm run install-hooks -- --uninstall");
    } finally {
      stderr.mockRestore();
      vi.unstubAllEnvs();
    }
    expect(t.calls()).toEqual([]);
  });

  it("--plugin on a 2026.3 host, or without the openclaw CLI, is bad usage (exit 2)", async () => {
    const t = setup();
    expect((await runOpsScript("install.ts", ["--plugin", t.tarball, "--config", t.config], { ...t.env, FAKE_OPENCLAW_VERSION: "2026.3.13" })).code).toBe(2);
    expect((await runOpsScript("install.ts", ["--plugin", t.tarball, "--config", t.config, "--no-cli"], t.env)).code).toBe(2);
  });
});

describe("the hook pack (2026.3.x path): a rollback between install and uninstall keeps the exact restore", () => {
  it("install-hooks → rollback --phase 2 (openclaw hooks disable) → install-hooks --uninstall: openclaw.json back byte for byte", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "pack-rollback-"));
    const ws = path.join(root, "workspace");
    fs.mkdirSync(ws);
    const config = path.join(root, "openclaw.json");
    fs.writeFileSync(config, CONFIG);
    const fake = makeFakeOpenClaw();
    const env = { OPENCLAW_CLI: fake.bin, OPENCLAW_STATE_DIR: path.join(root, "state"), FAKE_OPENCLAW_VERSION: "2026.3.13" };
    expect((await runOpsScript("install.ts", ["--workspace", ws, "--config", config], env)).code).toBe(0);
    const rollback = await runOpsScript("rollback.ts", ["--phase", "2", "--workspace", ws, "--config", config], env);
    expect(rollback.stdout).toContain("via openclaw-cli");
    expect(JSON5.parse(fs.readFileSync(config, "utf8")).hooks.internal.entries["aci-bootstrap"].enabled).toBe(false);
    const removed = await runOpsScript("install.ts", ["--workspace", ws, "--config", config, "--uninstall"], env);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain("restored exactly as it was before install");
    expect(fs.readFileSync(config, "utf8")).toBe(CONFIG);
  });
});

describe("`openclaw context uninstall`: one more row of the package's command table", () => {
  it("is registered after the clone's commands, takes --config, and a bad option is exit 2 before anything runs", async () => {
    const { PLUGIN_COMMANDS } = await import("../../src/ops/commands/index.ts");
    const { uninstallCommand } = await import("../../src/ops/commands/uninstall.ts");
    const { OPENCLAW_CONTEXT, runCommand } = await import("../../src/ops/commands/command.ts");
    expect(PLUGIN_COMMANDS.at(-1)).toBe(uninstallCommand);
    expect(uninstallCommand.help(OPENCLAW_CONTEXT)).toMatch(/^Usage: openclaw context uninstall \[--config <openclaw\.json>\] \[--workspace <dir>\] \[--purge\]/);
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(await runCommand(uninstallCommand, ["--purge-all", "x"], OPENCLAW_CONTEXT)).toBe(2);
      expect(stderr.mock.calls.map((call) => String(call[0])).join("")).toMatch(/^uninstall: .*--purge-all/);
    } finally {
      stderr.mockRestore();
    }
  });
});
