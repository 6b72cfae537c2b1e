// The operator commands through their two entry points: `npm run <name> -- …` (scripts/<name>.ts, a
// child process as an operator runs it) and `openclaw context <name> …` (the package's registrar on
// a recorded commander-shaped program, run in-process as OpenClaw runs it). Same help (up to the
// invoking form), raw argv passed through, same exit codes. The real OpenClaw 2026.9.6 CLI path is
// test/e2e/package-commands.e2e.test.ts.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CheckFailedError, UsageError } from "../../src/ops/cli.ts";
import { installRecordPath } from "../../src/ops/install.ts";
import { NPM_RUN, OPENCLAW_CONTEXT, usage } from "../../src/ops/commands/command.ts";
import type { OperatorCommand } from "../../src/ops/commands/command.ts";
import { OPERATOR_COMMANDS } from "../../src/ops/commands/index.ts";
import { rollback } from "../../src/ops/rollback.ts";
import { collectStatus, formatStatus } from "../../src/ops/status.ts";
import { registerContextCommands } from "../../src/plugin/cli.ts";
import type { CommandLike } from "../../src/host/plugin-api.ts";
import { CONTEXT_COMMAND, PLUGIN_COMMANDS } from "../../src/ops/commands/index.ts";
import { pluginManifest } from "../../src/ops/build-plugin.ts";
import { REPO_ROOT, runOpsScript } from "./ops-run-script.ts";

type Recorded = { name: string; description?: string; arguments: string[]; settings: string[]; action?: (args: string[]) => Promise<void> | void; children: Recorded[] };

/** What the registrar does to commander's program, recorded (OpenClaw passes its commander 15 program). */
function recordingProgram(): { program: CommandLike; root: Recorded } {
  const wrap = (node: Recorded): CommandLike => ({
    command(name) {
      const child: Recorded = { name, arguments: [], settings: [], children: [] };
      node.children.push(child);
      return wrap(child);
    },
    description(text) {
      node.description = text;
      return this;
    },
    argument(spec) {
      node.arguments.push(spec);
      return this;
    },
    helpOption(flags) {
      node.settings.push(`helpOption(${String(flags)})`);
      return this;
    },
    allowUnknownOption() {
      node.settings.push("allowUnknownOption");
      return this;
    },
    allowExcessArguments() {
      node.settings.push("allowExcessArguments");
      return this;
    },
    action(handler) {
      node.action = handler;
      return this;
    },
  });
  const root: Recorded = { name: "openclaw", arguments: [], settings: [], children: [] };
  return { program: wrap(root), root };
}

function contextGroup(commands?: readonly OperatorCommand[]): Recorded {
  const { program, root } = recordingProgram();
  registerContextCommands(program, commands);
  expect(root.children.map((c) => c.name)).toEqual(["context"]);
  return root.children[0]!;
}

/** `openclaw context <name> <args>` as OpenClaw dispatches it: the action with commander's variadic args; stdout, stderr and exit code captured. */
async function viaOpenClaw(name: string, args: string[], commands?: readonly OperatorCommand[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const sub = contextGroup(commands).children.find((c) => c.name === name);
  if (!sub?.action) throw new Error(`no openclaw context ${name}`);
  const out: string[] = [];
  const err: string[] = [];
  const stdout = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => (out.push(String(chunk)), true));
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (err.push(String(chunk)), true));
  const log = vi.spyOn(console, "log").mockImplementation((...parts) => void out.push(`${parts.join(" ")}\n`));
  process.exitCode = undefined;
  try {
    await sub.action(args);
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
    log.mockRestore();
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { code, stdout: out.join(""), stderr: err.join("") };
}

/** package.json: npm script name → scripts/<file>.ts. */
const npmScripts = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
function scriptFileOf(name: string): string {
  const match = /^tsx scripts\/([\w-]+\.ts)$/.exec(npmScripts[name] ?? "");
  if (!match) throw new Error(`package.json has no "tsx scripts/….ts" script named ${name}`);
  return match[1]!;
}

afterEach(() => {
  process.exitCode = undefined;
});

describe("one command table, two entry points", () => {
  it("`openclaw context` has one subcommand per npm script named the same, each a thin wrapper of its row", () => {
    const group = contextGroup();
    expect(group.description).toBe(CONTEXT_COMMAND.description);
    // The clone's commands, then the plugin's own uninstall (no npm script: a clone has install-hooks --uninstall).
    expect(group.children.map((c) => c.name)).toEqual(["status", "doctor", "explain", "memory", "baseline", "backup", "rollback", "draft-tools", "check-tools", "compress-wisdom", "soul-instructions", "maintain", "uninstall"]);
    for (const command of OPERATOR_COMMANDS) {
      const wrapper = fs.readFileSync(path.join(REPO_ROOT, "scripts", scriptFileOf(command.name)), "utf8");
      expect(wrapper).toMatch(new RegExp(`await runAsScript\\(\\w+\\);\\s*$`));
      expect(wrapper).toContain(`from "../src/ops/commands/${command.name}.ts"`);
    }
  });

  it("commander only routes: no help option of its own, unknown options and extra arguments pass through", () => {
    for (const sub of contextGroup().children) {
      expect(sub.settings.sort()).toEqual(["allowExcessArguments", "allowUnknownOption", "helpOption(false)"]);
      expect(sub.arguments).toEqual(["[args...]"]);
      expect(sub.description).toBe(PLUGIN_COMMANDS.find((c) => c.name === sub.name)!.summary);
    }
  });

  it("the manifest's cliCommands and the registered descriptor name the same `context` command", () => {
    expect(pluginManifest().cliCommands).toEqual([CONTEXT_COMMAND]);
    for (const command of PLUGIN_COMMANDS) expect(CONTEXT_COMMAND.description).toContain(command.name);
  });

  it("argv reaches the command unchanged (help flags, unknown options, positionals), and its result becomes the exit code", async () => {
    const seen: string[][] = [];
    const outcomes: Record<string, () => number | void> = {
      zero: () => 0,
      nothing: () => undefined,
      two: () => 2,
      usage: () => {
        throw new UsageError("bad flag");
      },
      check: () => {
        throw new CheckFailedError("gate not met");
      },
      crash: () => {
        throw new Error("disk on fire");
      },
    };
    const commands = Object.entries(outcomes).map(([name, outcome]): OperatorCommand => ({
      name,
      messageName: `probe-${name}`,
      summary: name,
      help: (invocation) => usage(invocation, name, "[anything]"),
      main: async (argv, invocation) => {
        seen.push([...argv, invocation === OPENCLAW_CONTEXT ? "(openclaw)" : "(other)"]);
        return outcome();
      },
    }));
    const args = ["-h", "--help", "--json", "--workspace", "/x", "positional", "-k", "agent:main:main"];
    expect(await viaOpenClaw("zero", args, commands)).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(seen).toEqual([[...args, "(openclaw)"]]);
    expect((await viaOpenClaw("nothing", [], commands)).code).toBe(0);
    expect((await viaOpenClaw("two", [], commands)).code).toBe(2);
    expect(await viaOpenClaw("usage", [], commands)).toEqual({ code: 2, stdout: "", stderr: "probe-usage: bad flag\nRun with --help for usage.\n" });
    expect(await viaOpenClaw("check", [], commands)).toEqual({ code: 1, stdout: "", stderr: "probe-check: FAILED: gate not met\n" });
    expect(await viaOpenClaw("crash", [], commands)).toEqual({ code: 1, stdout: "", stderr: "probe-crash: error: disk on fire\n" });
  });

  it("usage lines are written in the invoking form, further lines aligned under the first option", () => {
    expect(usage(NPM_RUN, "baseline", "[--a]", "[--b]")).toBe("Usage: npm run baseline -- [--a]\n                           [--b]");
    expect(usage(OPENCLAW_CONTEXT, "baseline", "[--a]", "[--b]")).toBe("Usage: openclaw context baseline [--a]\n                                 [--b]");
    expect(NPM_RUN.line("compress-wisdom", "promote --approve")).toBe("npm run compress-wisdom -- promote --approve");
    expect(OPENCLAW_CONTEXT.line("draft-tools")).toBe("openclaw context draft-tools");
  });
});

describe("same help and exit codes through `npm run` and `openclaw context`", () => {
  /** The npm form of the openclaw text: only the invoking form differs. */
  const asNpm = (text: string, name: string) =>
    text.replaceAll(`openclaw context ${name} `, `npm run ${name} -- `).replace(/^( +)(?=\[)/gm, (pad) => pad.slice(0, pad.length - (`openclaw context ${name} `.length - `npm run ${name} -- `.length)));

  for (const command of OPERATOR_COMMANDS) {
    it(`${command.name} --help`, { timeout: 120_000 }, async () => {
      const npm = await runOpsScript(scriptFileOf(command.name), ["--help"]);
      const openclaw = await viaOpenClaw(command.name, ["--help"]);
      expect(npm.code).toBe(0);
      expect(openclaw.code).toBe(0);
      expect(npm.stdout).toMatch(new RegExp(`^Usage: npm run ${command.name} -- `));
      expect(openclaw.stdout).toMatch(new RegExp(`^Usage: openclaw context ${command.name} `));
      expect(openclaw.stdout).not.toContain("npm run");
      expect(asNpm(openclaw.stdout, command.name)).toBe(npm.stdout);
      expect(openclaw.stderr).toBe("");
    });
  }

  it("bad usage exits 2 and a failed gate exits 1 through both", { timeout: 120_000 }, async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "operator-commands-"));
    const cases: [string, string[], number][] = [
      ["explain", ["--bogus"], 2],
      ["rollback", ["--phase", "9"], 2],
      ["status", ["--last", "0", "--no-cli", "--workspace", empty], 2],
      ["backup", ["--workspace", empty], 1],
    ];
    for (const [name, args, code] of cases) {
      const npm = await runOpsScript(scriptFileOf(name), args);
      const openclaw = await viaOpenClaw(name, args);
      expect([name, npm.code, openclaw.code]).toEqual([name, code, code]);
      expect(asNpm(openclaw.stderr, name)).toBe(npm.stderr);
    }
    fs.rmSync(empty, { recursive: true, force: true });
  });
});

describe("status with the plugin installed", () => {
  function machine(options: { packageEntry?: boolean; extensionsDir?: boolean; hookPack?: boolean }) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "operator-status-"));
    const state = path.join(root, "state");
    const ws = path.join(root, "ws");
    fs.mkdirSync(ws, { recursive: true });
    fs.mkdirSync(state, { recursive: true });
    if (options.extensionsDir) {
      fs.mkdirSync(path.join(state, "extensions", "openclaw-context"), { recursive: true });
      fs.writeFileSync(path.join(state, "extensions", "openclaw-context", "openclaw.plugin.json"), "{}");
    }
    if (options.hookPack) fs.mkdirSync(path.join(state, "hooks", "openclaw-context"), { recursive: true });
    const configPath = path.join(state, "openclaw.json");
    fs.writeFileSync(configPath, JSON.stringify({ agents: { defaults: { workspace: ws } }, plugins: options.packageEntry ? { entries: { "openclaw-context": { enabled: true } } } : {} }));
    const env = { OPENCLAW_STATE_DIR: state, OPENCLAW_CONFIG_PATH: configPath, OPENCLAW_CONTEXT_LOG_FILE: "off", HOME: root };
    return { root, state, ws, configPath, env };
  }

  it("says in plain words that the plugin is installed and the hook pack is not needed", async () => {
    const m = machine({ packageEntry: true, extensionsDir: true });
    const text = formatStatus(await collectStatus({ configPath: m.configPath, workspace: m.ws, env: m.env }));
    expect(text).toContain("Plugin (openclaw-context)\n  entry: enabled in plugins.entries");
    expect(text).toContain(`plugin openclaw-context: installed at ${path.join(m.state, "extensions", "openclaw-context")} (openclaw plugins install)`);
    expect(text).toContain("hook-pack: not installed, and not needed: the plugin does its work");
    expect(text).not.toMatch(/hook-pack: not installed \(looked in/);
    expect(text).not.toMatch(/aci-bootstrap: (enabled|disabled)/);
    expect(text).not.toContain("WARNING");
    fs.rmSync(m.root, { recursive: true, force: true });
  });

  it("installed by npm run install-hooks: the record's plugin unit is the plugin line, never \"plugin: not installed\"", async () => {
    const m = machine({ packageEntry: true, extensionsDir: true });
    fs.writeFileSync(installRecordPath(m.configPath), JSON.stringify({ mode: "pack", units: { plugin: { path: path.join(m.state, "extensions", "openclaw-context-gone") }, "plugin-package": { path: "/gone" } } }));
    const text = formatStatus(await collectStatus({ configPath: m.configPath, workspace: m.ws, env: m.env }));
    expect(text).toContain(`plugin openclaw-context: installed at ${path.join(m.state, "extensions", "openclaw-context")}`);
    expect(text).not.toMatch(/^ {2}plugin(-package)?:/m);
    expect(text).toContain("hook-pack: not installed, and not needed: the plugin does its work");
    expect(text).not.toContain("WARNING");
    fs.rmSync(m.root, { recursive: true, force: true });
  });

  it("the folder alone counts; the hook pack as well gets a warning; neither is today's report", async () => {
    const folderOnly = machine({ extensionsDir: true });
    const onlyFolder = await collectStatus({ configPath: folderOnly.configPath, workspace: folderOnly.ws, env: folderOnly.env });
    expect(onlyFolder.pluginPackage).toMatchObject({ id: "openclaw-context", entry: "absent", installDir: path.join(folderOnly.state, "extensions", "openclaw-context") });

    const both = machine({ packageEntry: true, extensionsDir: true, hookPack: true });
    const bothText = formatStatus(await collectStatus({ configPath: both.configPath, workspace: both.ws, env: both.env }));
    expect(bothText).toContain("WARNING: the hook pack is installed too: install one or the other");
    expect(bothText).toMatch(/hook-pack: found at /);

    const neither = machine({});
    const neitherReport = await collectStatus({ configPath: neither.configPath, workspace: neither.ws, env: neither.env });
    expect(neitherReport.pluginPackage).toBeUndefined();
    const neitherText = formatStatus(neitherReport);
    expect(neitherText).not.toContain("Plugin package");
    expect(neitherText).toMatch(/hook-pack: not installed \(looked in /);
    expect(neitherText).toMatch(/aci-bootstrap: (enabled|disabled)/);
    for (const m of [folderOnly, both, neither]) fs.rmSync(m.root, { recursive: true, force: true });
  });
});

describe("rollback's \"disable the hook\" with the plugin package installed", () => {
  function setup(config: string) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "operator-rollback-"));
    const state = path.join(root, "state");
    fs.mkdirSync(path.join(state, "extensions", "openclaw-context"), { recursive: true });
    fs.writeFileSync(path.join(state, "extensions", "openclaw-context", "openclaw.plugin.json"), "{}");
    const configPath = path.join(state, "openclaw.json");
    fs.writeFileSync(configPath, config);
    return { root, configPath, workspace: path.join(root, "ws"), env: { OPENCLAW_STATE_DIR: state } };
  }

  it("package only: sets its own switch (config.bootstrap false, comments kept) and adds no hook entry", async () => {
    const m = setup('{\n  // the operator\'s note\n  "plugins": { "entries": { "openclaw-context": { "enabled": true, "config": { "memory": true } } } }\n}\n');
    const steps = await rollback({ workspace: m.workspace, phase: "2", configPath: m.configPath, env: m.env });
    expect(steps.map((s) => [s.action, s.ok])).toEqual([["disable the plugin package's file sets (plugins.entries.openclaw-context.config.bootstrap false)", true]]);
    const text = fs.readFileSync(m.configPath, "utf8");
    expect(text).toContain("// the operator's note");
    const written = JSON.parse(text.replace(/^\s*\/\/.*$/m, "")) as { plugins: { entries: Record<string, { config: Record<string, unknown> }> }; hooks?: unknown };
    expect(written.plugins.entries["openclaw-context"]!.config).toEqual({ memory: true, bootstrap: false });
    expect(written.hooks).toBeUndefined();
    fs.rmSync(m.root, { recursive: true, force: true });
  });

  it("package and a hook pack entry: both are switched off", async () => {
    const m = setup(JSON.stringify({ plugins: { entries: { "openclaw-context": {} } }, hooks: { internal: { enabled: true, entries: { "aci-bootstrap": { enabled: true } } } } }));
    const steps = await rollback({ workspace: m.workspace, phase: "full", configPath: m.configPath, env: m.env });
    const written = JSON.parse(fs.readFileSync(m.configPath, "utf8"));
    expect(written.plugins.entries["openclaw-context"].config.bootstrap).toBe(false);
    expect(written.hooks.internal.entries["aci-bootstrap"].enabled).toBe(false);
    expect(steps.filter((s) => s.action.startsWith("disable")).map((s) => s.ok)).toEqual([true, true]);
    fs.rmSync(m.root, { recursive: true, force: true });
  });
});
