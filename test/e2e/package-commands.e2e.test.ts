// The operator commands of the packed plugin on a real OpenClaw 2026.9.6 (issue 18): `npm run
// build:plugin` + `npm pack` → `openclaw plugins install <tarball>` → one restart → `openclaw
// context --help` lists every command; each `openclaw context <name> --help` is the clone's `npm
// run <name> -- --help` in the invoking form; explain, backup and rollback run from the compiled
// bundle and do what the npm scripts do; exit codes 1 and 2 come through the openclaw CLI; status
// recognises the package. What it relies on is in HOOK_ASSUMPTIONS.md ("Plugin package").
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPlugin } from "../../src/ops/build-plugin.ts";
import { OPERATOR_COMMANDS } from "../../src/ops/commands/index.ts";
import { PLUGIN_COMMANDS } from "../../src/ops/commands/index.ts";
import { runOpsScript } from "../unit/ops-run-script.ts";
import { assumptionMismatches } from "./assumptions.ts";
import type { Observations } from "./assumptions.ts";
import { startGateway } from "./gateway.ts";
import type { Gateway } from "./gateway.ts";
import { openclaw as openclawOn } from "./operator-checks.ts";

const run = promisify(execFile);
const VERSION = "2026.9.6";
const PLUGIN_ID = "openclaw-context";
const CLI_TIMEOUT_MS = 240_000;

/** package.json: npm script name → scripts/<file>.ts (the script the clone runs). */
const npmScripts = JSON.parse(fs.readFileSync(path.resolve(__dirname, "../../package.json"), "utf8")).scripts as Record<string, string>;
const scriptFileOf = (name: string) => /^tsx scripts\/([\w-]+\.ts)$/.exec(npmScripts[name] ?? "")![1]!;

/** The openclaw text in the clone's form: only the invoking form (and the alignment under it) differs. */
function asNpm(text: string, name: string): string {
  const longer = `openclaw context ${name} `.length - `npm run ${name} -- `.length;
  return text.replaceAll(`openclaw context ${name} `, `npm run ${name} -- `).replace(/^( +)(?=\[)/gm, (pad) => pad.slice(0, pad.length - longer));
}

describe.sequential(`openclaw context <command> from the packed plugin on a real OpenClaw ${VERSION}`, () => {
  let gw: Gateway;
  let buildDir: string;
  const observed: Observations = {};

  /** `openclaw …` with this gateway's state: stdout, stderr and the exit code, failing or not. */
  const openclaw = (args: string[]) => openclawOn(gw, args, CLI_TIMEOUT_MS);

  beforeAll(async () => {
    buildDir = fs.mkdtempSync(path.join(os.tmpdir(), "openclaw-context-commands-"));
    const out = await buildPlugin(path.join(buildDir, "plugin"));
    const packed = await run("npm", ["pack", "--json", "--pack-destination", buildDir], { cwd: out, env: { ...process.env, npm_config_loglevel: "error" } });
    const [info] = JSON.parse(packed.stdout) as { filename: string }[];
    // The tarball is the only thing installed; reload mode off: the one restart below is the one that counts.
    gw = await startGateway({ version: VERSION, installPack: false, installProbe: false, config: { gateway: { reload: { mode: "off" } } } });
    await gw.cli(["plugins", "install", path.join(buildDir, info!.filename), "--force", "--accept-capabilities"], 300_000);
    await gw.restart();
  }, 900_000);

  afterAll(async () => {
    await gw?.stop();
    if (buildDir) fs.rmSync(buildDir, { recursive: true, force: true });
  });

  it("the gateway loaded the installed package", () => {
    expect(gw.logs()).toContain(`[${PLUGIN_ID}] serving OpenClaw ${VERSION}`);
  });

  it("`openclaw context --help` lists every operator command", { timeout: 300_000 }, async () => {
    const help = await openclaw(["context", "--help"]);
    expect(help.code).toBe(0);
    const listed = [...help.stdout.slice(help.stdout.indexOf("Commands:")).matchAll(/^ {2}([a-z-]+) /gm)].map((m) => m[1]).filter((name) => name !== "help");
    expect(listed.sort()).toEqual(PLUGIN_COMMANDS.map((c) => c.name).sort());
  });

  it("each `openclaw context <name> --help` is the script's help (the invoking form aside), exit 0", { timeout: 900_000 }, async () => {
    for (const command of OPERATOR_COMMANDS) {
      const [viaOpenClaw, viaNpm] = await Promise.all([openclaw(["context", command.name, "--help"]), runOpsScript(scriptFileOf(command.name), ["--help"], {}, CLI_TIMEOUT_MS)]);
      expect([command.name, viaOpenClaw.code, viaNpm.code]).toEqual([command.name, 0, 0]);
      expect(viaOpenClaw.stdout).toMatch(new RegExp(`^Usage: openclaw context ${command.name} `));
      expect(asNpm(viaOpenClaw.stdout, command.name)).toBe(viaNpm.stdout);
    }
    observed.registerCliPassthrough = "raw args, --help included";
  });

  it("`openclaw context explain` for one session key gives the npm script's JSON", { timeout: 300_000 }, async () => {
    const args = ["--workspace", gw.workspaceDir, "--session-key", "agent:main:main", "--json"];
    const [viaOpenClaw, viaNpm] = await Promise.all([openclaw(["context", "explain", ...args]), runOpsScript("explain.ts", args, {}, CLI_TIMEOUT_MS)]);
    expect([viaOpenClaw.code, viaNpm.code]).toEqual([0, 0]);
    const explained = JSON.parse(viaOpenClaw.stdout) as { sessions: { sessionType: string; injected?: unknown }[] };
    expect(explained.sessions.map((s) => s.sessionType)).toEqual(["MAIN_SESSION"]);
    expect(explained).toEqual(JSON.parse(viaNpm.stdout));
  });

  it("`openclaw context backup`, then `rollback --phase 0` restores a changed SOUL.md byte for byte", { timeout: 600_000 }, async () => {
    const soul = path.join(gw.workspaceDir, "SOUL.md");
    const original = fs.readFileSync(soul, "utf8");
    const backup = await openclaw(["context", "backup", "--workspace", gw.workspaceDir]);
    expect(backup.code).toBe(0);
    expect(backup.stdout).toContain("Backup gate (before any change): PASS");
    fs.writeFileSync(soul, `${original}\nA line the rollback must remove.\n`);
    const rollback = await openclaw(["context", "rollback", "--phase", "0", "--no-cli", "--workspace", gw.workspaceDir]);
    expect(rollback.code).toBe(0);
    expect(rollback.stdout).toMatch(/^ok {3}restore SOUL\.md: restored from /m);
    expect(rollback.stdout).toContain("Rollback of phase 0: done and verified.");
    expect(fs.readFileSync(soul, "utf8")).toBe(original);
  });

  it("exit codes come through the openclaw CLI: 2 for bad usage, 1 for a failed gate, as with npm run", { timeout: 600_000 }, async () => {
    const empty = fs.mkdtempSync(path.join(gw.root, "empty-workspace-"));
    const cases: [string, string[], number][] = [
      ["rollback", ["--phase", "9"], 2],
      ["backup", ["--workspace", empty], 1],
    ];
    for (const [name, args, code] of cases) {
      // One after the other: both write into the same empty workspace.
      const viaOpenClaw = await openclaw(["context", name, ...args]);
      const viaNpm = await runOpsScript(scriptFileOf(name), args, {}, CLI_TIMEOUT_MS);
      expect([name, viaOpenClaw.code, viaNpm.code]).toEqual([name, code, code]);
      expect(viaOpenClaw.stderr).toContain(`${name}: `);
    }
    observed.registerCliExitCode = "process.exitCode kept (0, 1, 2)";
  });

  it("`openclaw context status` says the plugin is installed and the hook pack is not needed", { timeout: 300_000 }, async () => {
    const status = await openclaw(["context", "status", "--no-cli"]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`plugin ${PLUGIN_ID}: installed at ${path.join(gw.stateDir, "extensions", PLUGIN_ID)} (openclaw plugins install)`);
    expect(status.stdout).toContain("hook-pack: not installed, and not needed: the plugin does its work");
    expect(status.stdout).not.toMatch(/hook-pack: not installed \(looked in/);
  });

  it("`openclaw context doctor` on a plain `openclaw plugins install` (no conversation access, legacy slot) names both problems with their fixes, exit 1", { timeout: 300_000 }, async () => {
    const doctor = await openclaw(["context", "doctor"]);
    expect(doctor.stdout).toContain("ok    version: OpenClaw 2026.9.6: served by the plugin");
    expect(doctor.stdout).toContain("WARN  context engine: plugins.slots.contextEngine is legacy");
    expect(doctor.stdout).toContain(`FAIL  context engine: plugins.entries.${PLUGIN_ID}.hooks.allowConversationAccess is not true`);
    expect(doctor.stdout).toContain(`fix: openclaw config set plugins.entries.${PLUGIN_ID}.hooks.allowConversationAccess true, then openclaw gateway restart`);
    expect(doctor.code).toBe(1);
  });

  it("HOOK_ASSUMPTIONS.md matches what this run observed", () => {
    expect(Object.keys(observed).sort()).toEqual(["registerCliExitCode", "registerCliPassthrough"]);
    expect(assumptionMismatches(observed, VERSION)).toEqual([]);
  });
});
