// The packaged plugin end to end on a real OpenClaw 2026.9.6 gateway (issues 18, 27):
// `npm run build:plugin` + `npm pack` → `npm run install-hooks -- --plugin <tarball> --config <file>`
// (saves openclaw.json, which has an operator's comments, then `openclaw plugins install <tarball>
// --force --accept-capabilities`, conversation access and the slot) → a main-session turn gets the
// session-aware file set and the memory fact → `openclaw context status` → `openclaw logs` has the
// turn → `openclaw context doctor` (healthy: 0; another engine in the slot: 3) → a typo'd key (the
// gateway starts, status, doctor and `openclaw logs` name it) → the rollback (`config.enabled
// false`): the next turn is OpenClaw's default → `openclaw context uninstall --purge`: openclaw.json
// is byte for byte what it was before the install, no bundle state is left, the memory files are
// untouched → the next turn is OpenClaw's default. What it relies on is in HOOK_ASSUMPTIONS.md
// ("Plugin package", "Plugin config and logs"). The tarball is the only artifact.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import JSON5 from "json5";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPlugin } from "../../src/ops/build-plugin.ts";
import { runOpsScript } from "../unit/ops-run-script.ts";
import { assumptionMismatches } from "./assumptions.ts";
import type { Observations } from "./assumptions.ts";
import { operatorEnv, startGateway } from "./gateway.ts";
import { configTypo, doctorHealthyThenOtherEngine, logsShowTurn, mainTurn, uninstallPurge } from "./operator-checks.ts";
import type { Gateway, TurnResult } from "./gateway.ts";

const run = promisify(execFile);
const VERSION = "2026.9.6";
const PLUGIN_ID = "openclaw-context";
const FACT = "Halcyon Drift";
const BUNDLE_MAIN = ["SOUL.md", "USER.md", "TOOLS_COMPACT.md"];
/** An operator's comments: OpenClaw's install strips them, `openclaw context uninstall` must bring them back. */
const OPERATOR_COMMENT = "// my gateway, edited by hand\n";

/** Key paths (up to three levels) in `after` that `before` does not have: what a config write added. */
function addedKeys(before: unknown, after: unknown, prefix: string[] = []): string[] {
  if (typeof after !== "object" || after === null || Array.isArray(after)) return [];
  const old = typeof before === "object" && before !== null ? (before as Record<string, unknown>) : {};
  return Object.entries(after as Record<string, unknown>).flatMap(([key, value]) => {
    const at = [...prefix, key];
    if (at.length === 3 || typeof value !== "object" || value === null) return key in old ? [] : [at.join(".")];
    return addedKeys(old[key], value, at);
  });
}

/** Which workspace files the system prompt holds (Project Context headings are `## <abs path>`). */
function injected(turn: TurnResult, workspace: string): string[] {
  return ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md", "TOOLS_COMPACT.md"].filter((name) => turn.systemPrompt.includes(`## ${path.join(workspace, name)}`));
}

describe.sequential(`the packed plugin on a real OpenClaw ${VERSION} gateway`, () => {
  let gw: Gateway;
  let buildDir: string;
  let tarball: string;
  let tarFiles: string[];
  let defaultFiles: string[];
  let configBefore: string;
  let shellEnv: NodeJS.ProcessEnv;
  const observed: Observations = {};

  /** chat.send, the model request, then the end of the run (the next step starts on a finished turn). */
  const turn = (text: string): Promise<TurnResult> => mainTurn(gw, text);
  /** The main turn the plugin serves: the session-aware set, the memory fact on the user side only. */
  const expectServed = (served: TurnResult) => {
    expect(injected(served, gw.workspaceDir)).toEqual(BUNDLE_MAIN);
    expect(gw.model.userTextOf(served.request)).toContain(FACT);
    expect(served.systemPrompt).not.toContain(FACT);
  };

  beforeAll(async () => {
    buildDir = fs.mkdtempSync(path.join(os.tmpdir(), "openclaw-context-package-"));
    const out = await buildPlugin(path.join(buildDir, "plugin"));
    const packed = await run("npm", ["pack", "--json", "--pack-destination", buildDir], { cwd: out, env: { ...process.env, npm_config_loglevel: "error" } });
    const [info] = JSON.parse(packed.stdout) as { filename: string; size: number }[];
    tarball = path.join(buildDir, info!.filename);
    tarFiles = (await run("tar", ["-tzf", tarball])).stdout.split("\n").filter(Boolean).sort();
    // No hook pack, no companion, no probe: the tarball is the only thing installed.
    // Reload mode off: config edits take effect at the restarts the test waits for, never in a hot
    // reload racing one (a `config set` followed by a restart left the next gateway not listening).
    gw = await startGateway({ version: VERSION, installPack: false, installProbe: false, config: { gateway: { reload: { mode: "off" } } } });
    // The clone's script calls `openclaw` as an operator's shell would: a wrapper around the pinned CLI.
    shellEnv = operatorEnv(gw);
    // The operator's comments, in the file the gateway started on (it reads openclaw.json only at start here).
    fs.writeFileSync(gw.configPath, OPERATOR_COMMENT + fs.readFileSync(gw.configPath, "utf8").replace('"mode": "off"', '"mode": "off" /* restarts only */'));
  }, 900_000);

  afterAll(async () => {
    await gw?.stop();
    if (buildDir) fs.rmSync(buildDir, { recursive: true, force: true });
  });

  it("the tarball holds compiled JavaScript, the manifest and package.json only: no tests, fixtures, .ts sources or dependencies", () => {
    // doctor-contract-api.js: the one-line entry `openclaw doctor` looks for next to index.js (src/plugin/doctor-contract.ts).
    expect(tarFiles).toEqual(["package/README.md", "package/doctor-contract-api.js", "package/index.js", "package/openclaw.plugin.json", "package/package.json"]);
    const manifest = JSON.parse(fs.readFileSync(path.join(buildDir, "plugin", "package.json"), "utf8")) as Record<string, unknown>;
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.devDependencies).toBeUndefined();
    console.log(`tarball ${path.basename(tarball)}: ${fs.statSync(tarball).size} bytes`);
  });

  it("before the install a main-session turn is OpenClaw's default (the baseline for the rollback)", { timeout: 900_000 }, async () => {
    const before = await turn("What is my sailboat named, and where is it moored?");
    defaultFiles = injected(before, gw.workspaceDir);
    expect(defaultFiles).toEqual(expect.arrayContaining(["AGENTS.md", "IDENTITY.md"]));
    expect(JSON.stringify(before.request.body)).not.toContain(FACT);
  });

  it("`npm run install-hooks -- --plugin <tarball> --config <file>` saves openclaw.json and runs `openclaw plugins install <tarball> --force --accept-capabilities`; the next main turn gets the session-aware set and the memory fact", { timeout: 900_000 }, async () => {
    configBefore = fs.readFileSync(gw.configPath, "utf8");
    expect(configBefore).toContain(OPERATOR_COMMENT);
    const result = await runOpsScript("install.ts", ["--plugin", tarball, "--config", gw.configPath], shellEnv, 600_000);
    expect(result.stderr).not.toMatch(/FAILED|error/);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`openclaw plugins install ${tarball} --force --accept-capabilities`);
    expect(result.stdout).toContain(`plugins.slots.contextEngine: ${PLUGIN_ID} written`);
    const installedDir = path.join(gw.stateDir, "extensions", PLUGIN_ID);
    observed.packageInstallDir = fs.existsSync(path.join(installedDir, "index.js")) ? "<state>/extensions/openclaw-context" : "elsewhere";
    observed.packageInstallNoNodeModules = fs.existsSync(path.join(installedDir, "node_modules")) ? "no" : "yes";
    // What OpenClaw's install wrote (the script's own two keys, hooks.allowConversationAccess and the slot, sit under these).
    const afterInstall = fs.readFileSync(gw.configPath, "utf8");
    const added = addedKeys(JSON5.parse(configBefore), JSON5.parse(afterInstall)).filter((key) => key !== "plugins.slots.contextEngine");
    observed.packageInstallConfigRewrite = `comments ${afterInstall.includes(OPERATOR_COMMENT.trim()) ? "kept" : "stripped"}; added ${added.sort().join(", ")}`;
    const inspect = await gw.cli(["plugins", "inspect", PLUGIN_ID], 120_000);
    observed.packageInstallRecord = `${/^\s*Source: archive$/m.test(inspect) ? "plugins inspect: Source: archive" : "not in plugins inspect"}; ${"installs" in ((JSON5.parse(afterInstall) as { plugins?: object }).plugins ?? {}) ? "plugins.installs in openclaw.json" : "not in openclaw.json"}`;
    await gw.restart();
    expect(gw.logs()).toContain(`[${PLUGIN_ID}] serving OpenClaw ${VERSION}; memory delivery: runtime-context carrier through context engine ${PLUGIN_ID}`);

    const served = await turn("What is my sailboat named, and where is it moored?");
    expectServed(served);
    observed.registerHookBootstrap = injected(served, gw.workspaceDir).join(", ");
  });

  it("`openclaw context status --last 1` prints the plugin's switches, its memory channel and that turn: its files and its memory", { timeout: 300_000 }, async () => {
    const out = await gw.cli(["context", "status", "--no-cli", "--last", "1"], 240_000);
    expect(out).toContain(`Plugin (${PLUGIN_ID})`);
    expect(out).toContain("switches: enabled true, bootstrap true, memory true");
    expect(out).toContain(`memory delivery: runtime-context carrier through context engine ${PLUGIN_ID}`);
    expect(out).toContain("openclaw-context status");
    expect(out).toMatch(/Last turns, newest first \(--last <n>\)\n {2}.* MAIN_SESSION \(main\) session [0-9a-f]{10}\n {6}files: SOUL\.md, USER\.md, (?:BOOTSTRAP\.md, )?TOOLS_COMPACT\.md;.*\n {6}memory: \d+ memor(y|ies) delivered as the runtime-context carrier/);
    observed.registerCliCommand = out.includes(`Plugin (${PLUGIN_ID})`) ? "openclaw context status" : "missing";
  });

  it("capture-baseline --live records the gateway's own /context json report (the plugin serving)", { timeout: 300_000 }, async () => {
    const result = await runOpsScript("capture-baseline.ts", ["--live", "--stdout", "--timeout-ms", "60000"], shellEnv, 150_000);
    expect(result.stderr).not.toMatch(/live capture failed/);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("## OpenClaw's own report (/context json, agent:main:main)");
    expect(result.stdout).toMatch(/^SOUL\.md\s+false\s+\d+\s+\d+/m);
  });

  it("one place to look: `openclaw logs` has that turn's bootstrap decision and memory delivery, and a capture", { timeout: 900_000 }, () => logsShowTurn(gw, observed));

  it("`openclaw context doctor` exits 0 on the healthy install, 3 with another engine in the slot (and explains the trade-off)", { timeout: 900_000 }, () => doctorHealthyThenOtherEngine(gw));

  it("a typo'd key never stops the gateway: the turn is served, status and doctor name the key with did-you-mean, `openclaw logs` has it once", { timeout: 1_200_000 }, () =>
    configTypo(gw, observed, expectServed));

  it("the rollback (`openclaw config set plugins.entries.openclaw-context.config.enabled false`): the next turn is OpenClaw's default, without memory", { timeout: 900_000 }, async () => {
    await gw.cli(["config", "set", `plugins.entries.${PLUGIN_ID}.config.enabled`, "false"], 120_000);
    // A restart (waited for; reload mode is off): the next turn runs on the new config.
    await gw.restart();
    expect(gw.logs()).toContain(`[${PLUGIN_ID}] enabled: false: OpenClaw's default bootstrap files, no memory`);
    const after = await turn("What is my sailboat named, and where is it moored?");
    expect(injected(after, gw.workspaceDir)).toEqual(defaultFiles);
    expect(JSON.stringify(after.request.body)).not.toContain(FACT);
  });

  it("`openclaw context uninstall --purge`: OpenClaw's uninstall, openclaw.json byte for byte as before the install (comments included), no bundle state left, memory untouched; the next turn is OpenClaw's default", { timeout: 900_000 }, async () => {
    const out = (await uninstallPurge(gw)).stdout;
    observed.packageUninstallEntryLeft = /it left plugins\.entries\.openclaw-context = (.+)$/m.exec(out)?.[1] ?? "not reported";
    expect(fs.readFileSync(gw.configPath, "utf8")).toBe(configBefore);
    observed.packageUninstallExactRestore = "yes";
    expect(fs.existsSync(path.join(gw.stateDir, "extensions"))).toBe(false);
    expect(fs.existsSync(path.join(gw.stateDir, "openclaw-context.install-state.json"))).toBe(false);
    // OpenClaw's own install record (state database) went with its uninstall.
    await expect(gw.cli(["plugins", "inspect", PLUGIN_ID], 120_000)).rejects.toThrow();
    const logsBefore = gw.logs().length;
    await gw.restart();
    const after = await turn("What is my sailboat named, and where is it moored?");
    expect(injected(after, gw.workspaceDir)).toEqual(defaultFiles);
    expect(JSON.stringify(after.request.body)).not.toContain(FACT);
    expect(gw.logs().slice(logsBefore)).not.toContain(`[${PLUGIN_ID}] serving`);
  });

  it("HOOK_ASSUMPTIONS.md matches what this run observed", () => {
    console.log(`observed: ${JSON.stringify(observed)}`);
    const mismatches = assumptionMismatches(observed, VERSION);
    expect(Object.keys(observed).sort()).toEqual([
      "packageInstallConfigRewrite",
      "packageInstallDir",
      "packageInstallNoNodeModules",
      "packageInstallRecord",
      "packageUninstallEntryLeft",
      "packageUninstallExactRestore",
      "pluginConfigSetTypo",
      "pluginConfigTypoGateway",
      "pluginConfigTypoLoggedOnce",
      "pluginLoggerInOpenclawLogs",
      "registerCliCommand",
      "registerHookBootstrap",
    ]);
    expect(mismatches).toEqual([]);
  });
});
