// The packaged plugin end to end on a real OpenClaw 2026.9.6 gateway (issue 18, first slice):
// `npm run build:plugin` + `npm pack` → `openclaw plugins install <tarball>` into a fresh state dir →
// a main-session turn gets the session-aware file set and the memory fact → `openclaw context
// status` → the plugin's switch off (`enabled: false`) → the next turn is OpenClaw's default →
// `openclaw plugins uninstall`. What it relies on is in HOOK_ASSUMPTIONS.md ("Plugin package").
// The hook pack and the companion plugin are not installed here: the tarball is the only artifact.
import crypto from "node:crypto";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPlugin } from "../../scripts/build-plugin.ts";
import { readAssumptionsDoc } from "./assumptions.ts";
import type { Observations } from "./assumptions.ts";
import { deepMerge, startGateway } from "./gateway.ts";
import type { Gateway, TurnResult } from "./gateway.ts";

const run = promisify(execFile);
const VERSION = "2026.9.6";
const PLUGIN_ID = "openclaw-context";
const MAIN = "agent:main:main";
const FACT = "Halcyon Drift";
const BUNDLE_MAIN = ["SOUL.md", "USER.md", "TOOLS_COMPACT.md"];

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
  const observed: Observations = {};

  /** chat.send, the model request, then the end of the run (the next step starts on a finished turn). */
  async function turn(text: string): Promise<TurnResult> {
    const result = await gw.chatSend(MAIN, `${text} ${crypto.randomBytes(3).toString("hex")}`, 600_000);
    const runId = (result.cliJson as { runId?: unknown } | undefined)?.runId;
    if (typeof runId === "string") await gw.cli(["gateway", "call", "agent.wait", "--params", JSON.stringify({ runId, timeoutMs: 600_000 }), "--json", "--timeout", "605000"], 620_000);
    return result;
  }
  const readConfig = () => JSON.parse(fs.readFileSync(gw.configPath, "utf8")) as { plugins?: { entries?: Record<string, unknown> } };

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
  }, 900_000);

  afterAll(async () => {
    await gw?.stop();
    if (buildDir) fs.rmSync(buildDir, { recursive: true, force: true });
  });

  it("the tarball holds compiled JavaScript, the manifest and package.json only: no tests, fixtures, .ts sources or dependencies", () => {
    expect(tarFiles).toEqual(["package/README.md", "package/index.js", "package/openclaw.plugin.json", "package/package.json"]);
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

  it("`openclaw plugins install <tarball> --force --accept-capabilities` installs it; the next main turn gets the session-aware set and the memory fact", { timeout: 900_000 }, async () => {
    const out = await gw.cli(["plugins", "install", tarball, "--force", "--accept-capabilities"], 300_000);
    expect(out).toContain(`Installed plugin: ${PLUGIN_ID}`);
    const installedDir = path.join(gw.stateDir, "extensions", PLUGIN_ID);
    observed.packageInstallDir = fs.existsSync(path.join(installedDir, "index.js")) ? "<state>/extensions/openclaw-context" : "elsewhere";
    observed.packageInstallNoNodeModules = fs.existsSync(path.join(installedDir, "node_modules")) ? "no" : "yes";
    // What an operator adds once (README): conversation access for before_prompt_build, our engine in the slot.
    const config = deepMerge(readConfig() as Record<string, unknown>, {
      plugins: { slots: { contextEngine: PLUGIN_ID }, entries: { [PLUGIN_ID]: { hooks: { allowConversationAccess: true }, config: { waitMs: 10_000 } } } },
    });
    fs.writeFileSync(gw.configPath, `${JSON.stringify(config, null, 2)}\n`);
    await gw.restart();
    expect(gw.logs()).toContain(`[${PLUGIN_ID}] serving OpenClaw ${VERSION}; memory delivery: runtime-context carrier through context engine ${PLUGIN_ID}`);

    const served = await turn("What is my sailboat named, and where is it moored?");
    expect(injected(served, gw.workspaceDir)).toEqual(BUNDLE_MAIN);
    expect(gw.model.userTextOf(served.request)).toContain(FACT);
    expect(served.systemPrompt).not.toContain(FACT);
    observed.registerHookBootstrap = injected(served, gw.workspaceDir).join(", ");
  });

  it("`openclaw context status` prints the plugin's switches, its memory channel and the decisions of that turn", { timeout: 300_000 }, async () => {
    const out = await gw.cli(["context", "status", "--no-cli"], 240_000);
    expect(out).toContain(`Plugin package (${PLUGIN_ID})`);
    expect(out).toContain("switches: enabled true, bootstrap true, memory true");
    expect(out).toContain(`memory delivery: runtime-context carrier through context engine ${PLUGIN_ID}`);
    expect(out).toContain("openclaw-context status");
    expect(out).toMatch(/Recent decisions per session type\n {2}MAIN_SESSION\n/);
    observed.registerCliCommand = out.includes(`Plugin package (${PLUGIN_ID})`) ? "openclaw context status" : "missing";
  });

  it("the switch off (`openclaw config set plugins.entries.openclaw-context.config.enabled false`): the next turn is OpenClaw's default, without memory", { timeout: 900_000 }, async () => {
    await gw.cli(["config", "set", `plugins.entries.${PLUGIN_ID}.config.enabled`, "false"], 120_000);
    // A restart (waited for; reload mode is off): the next turn runs on the new config.
    await gw.restart();
    const after = await turn("What is my sailboat named, and where is it moored?");
    expect(injected(after, gw.workspaceDir)).toEqual(defaultFiles);
    expect(JSON.stringify(after.request.body)).not.toContain(FACT);
  });

  it("`openclaw plugins uninstall openclaw-context --force` removes the installed folder", { timeout: 300_000 }, async () => {
    await gw.cli(["plugins", "uninstall", PLUGIN_ID, "--force"], 240_000);
    expect(fs.existsSync(path.join(gw.stateDir, "extensions", PLUGIN_ID))).toBe(false);
    observed.packageUninstallEntryLeft = JSON.stringify(readConfig().plugins?.entries?.[PLUGIN_ID] ?? null);
  });

  it("HOOK_ASSUMPTIONS.md matches what this run observed", () => {
    console.log(`observed: ${JSON.stringify(observed)}`);
    const doc = readAssumptionsDoc();
    const mismatches = Object.entries(observed).flatMap(([id, value]) => {
      const cell = doc.get(id)?.[VERSION];
      if (cell === undefined) return [`${id}: no row (observed ${JSON.stringify(value)})`];
      return cell.replaceAll("`", "") === value ? [] : [`${id}: doc says ${JSON.stringify(cell)}, observed ${JSON.stringify(value)}`];
    });
    expect(Object.keys(observed).sort()).toEqual(["packageInstallDir", "packageInstallNoNodeModules", "packageUninstallEntryLeft", "registerCliCommand", "registerHookBootstrap"]);
    expect(mismatches).toEqual([]);
  });
});
