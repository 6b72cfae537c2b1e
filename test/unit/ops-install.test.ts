import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import JSON5 from "json5";
import { describe, expect, it } from "vitest";
import { makeFakeOpenClaw } from "./ops-fake-openclaw.ts";
import { REPO_ROOT, runOpsScript } from "./ops-run-script.ts";

function setup(configText?: string): { ws: string; config: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "ops-inst-"));
  const ws = path.join(root, "workspace");
  fs.mkdirSync(ws);
  const config = path.join(root, "openclaw.json");
  if (configText !== undefined) fs.writeFileSync(config, configText);
  return { ws, config };
}

const CONFIG = `{
  // operator comment
  "agents": { "defaults": { "model": { "primary": "mock/mock" } } },
  "hooks": { "internal": { "entries": { "session-memory": { "enabled": true } } } },
}
`;

describe("install / uninstall", () => {
  it("link mode without the CLI: links the pack into <workspace>/hooks, enables both hooks, is idempotent", async () => {
    const { ws, config } = setup(CONFIG);
    const first = await runOpsScript("install.ts", ["--workspace", ws, "--config", config]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("link mode, no openclaw CLI");
    const link = path.join(ws, "hooks", "openclaw-context");
    expect(fs.realpathSync(link)).toBe(fs.realpathSync(REPO_ROOT));
    const parsed = JSON5.parse(fs.readFileSync(config, "utf8"));
    expect(parsed.hooks.internal).toMatchObject({ enabled: true, entries: { "aci-bootstrap": { enabled: true }, "ethos-context": { enabled: true }, "session-memory": { enabled: true } } });
    expect(fs.readFileSync(config, "utf8")).toContain("// operator comment");
    const configAfterFirst = fs.readFileSync(config, "utf8");
    const second = await runOpsScript("install.ts", ["--workspace", ws, "--config", config]);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("link already in place");
    expect(fs.readFileSync(config, "utf8")).toBe(configAfterFirst);
  });

  it("--uninstall restores openclaw.json exactly as it was (comments included) and removes the link", async () => {
    const { ws, config } = setup(CONFIG);
    expect((await runOpsScript("install.ts", ["--workspace", ws, "--config", config])).code).toBe(0);
    const result = await runOpsScript("install.ts", ["--workspace", ws, "--config", config, "--uninstall"]);
    expect(result.code).toBe(0);
    expect(fs.existsSync(path.join(ws, "hooks", "openclaw-context"))).toBe(false);
    const after = fs.readFileSync(config, "utf8");
    expect(JSON5.parse(after)).toEqual(JSON5.parse(CONFIG));
    expect(after).toContain("// operator comment");
  });

  it("moves an existing directory in the way aside instead of deleting it", async () => {
    const { ws, config } = setup();
    fs.mkdirSync(path.join(ws, "hooks", "openclaw-context"), { recursive: true });
    fs.writeFileSync(path.join(ws, "hooks", "openclaw-context", "mine.txt"), "keep");
    expect((await runOpsScript("install.ts", ["--workspace", ws, "--config", config])).code).toBe(0);
    const aside = fs.readdirSync(path.join(ws, "hooks")).find((name) => name.startsWith("openclaw-context.replaced-"))!;
    expect(fs.readFileSync(path.join(ws, "hooks", aside, "mine.txt"), "utf8")).toBe("keep");
    // No config existed: install created it with only our entries.
    expect(JSON5.parse(fs.readFileSync(config, "utf8"))).toEqual({ hooks: { internal: { enabled: true, entries: { "aci-bootstrap": { enabled: true }, "ethos-context": { enabled: true } } } } });
  });

  for (const version of ["2026.9.6", "2026.3.13"]) {
    it(`pack mode on ${version}: the version's install command, then uninstall removes the pack and restores openclaw.json byte for byte`, async () => {
      const { ws, config } = setup(CONFIG);
      const state = path.join(path.dirname(config), "state");
      const fake = makeFakeOpenClaw();
      const env = { OPENCLAW_CLI: fake.bin, OPENCLAW_STATE_DIR: state, FAKE_OPENCLAW_VERSION: version };
      const result = await runOpsScript("install.ts", ["--workspace", ws, "--config", config], env);
      expect(result.stderr).not.toMatch(/error|FAILED/);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("aci-bootstrap: eligible (openclaw-managed)");
      // 2026.3.x loads new hooks only at start (and keeps loaded ones until a restart): say so both ways.
      expect(result.stdout.includes("RESTART NEEDED")).toBe(version === "2026.3.13");
      const install = fake.calls().find((call) => call[1] === "install")!;
      expect(install).toEqual(version === "2026.9.6" ? ["plugins", "install", expect.any(String), "--force"] : ["hooks", "install", expect.any(String)]);
      // A clean copy: no tests, no .git, no node_modules.
      const installed = path.join(state, "hooks", "openclaw-context");
      expect(fs.existsSync(path.join(installed, "hooks", "aci-bootstrap", "HOOK.md"))).toBe(true);
      expect(fs.existsSync(path.join(installed, "test"))).toBe(false);
      expect(fs.existsSync(path.join(installed, "node_modules"))).toBe(false);
      // The CLI stripped the comment; the snapshot was taken before it ran.
      expect(fs.readFileSync(config, "utf8")).not.toContain("// operator comment");

      const removed = await runOpsScript("install.ts", ["--workspace", ws, "--config", config, "--uninstall"], env);
      expect(removed.stderr).not.toMatch(/error|FAILED/);
      expect(removed.code).toBe(0);
      expect(removed.stdout).toContain("restored exactly as it was before install");
      expect(removed.stdout).toContain("RESTART NEEDED");
      expect(fs.readFileSync(config, "utf8")).toBe(CONFIG);
      expect(fs.existsSync(installed)).toBe(false);
      expect(fs.existsSync(path.join(path.dirname(config), "openclaw-context.install-state.json"))).toBe(false);
      expect(fake.calls().some((call) => call[0] === "plugins" && call[1] === "uninstall")).toBe(false);
    });
  }

  it("uninstall after the operator edited openclaw.json: undoes only our entries, keeps the edit, saves the pre-install file", async () => {
    const { ws, config } = setup(CONFIG);
    const fake = makeFakeOpenClaw();
    const env = { OPENCLAW_CLI: fake.bin, OPENCLAW_STATE_DIR: path.join(path.dirname(config), "state"), FAKE_OPENCLAW_VERSION: "2026.3.13" };
    expect((await runOpsScript("install.ts", ["--workspace", ws, "--config", config], env)).code).toBe(0);
    const edited = JSON5.parse(fs.readFileSync(config, "utf8"));
    edited.agents.defaults.model.primary = "mock/other";
    fs.writeFileSync(config, JSON.stringify(edited, null, 2));
    const removed = await runOpsScript("install.ts", ["--workspace", ws, "--config", config, "--uninstall"], env);
    expect(removed.code).toBe(0);
    const after = JSON5.parse(fs.readFileSync(config, "utf8"));
    expect(after.agents.defaults.model.primary).toBe("mock/other");
    expect(after.hooks.internal.entries).toEqual({ "session-memory": { enabled: true } });
    expect(after.hooks.internal.installs).toBeUndefined();
    expect(fs.readFileSync(`${config}.before-openclaw-context`, "utf8")).toBe(CONFIG);
  });

  it("uninstall that cannot remove something exits 1 and names what to remove by hand", async () => {
    const { ws, config } = setup(CONFIG);
    const fake = makeFakeOpenClaw();
    const state = path.join(path.dirname(config), "state");
    const env = { OPENCLAW_CLI: fake.bin, OPENCLAW_STATE_DIR: state, FAKE_OPENCLAW_VERSION: "2026.9.6" };
    expect((await runOpsScript("install.ts", ["--workspace", ws, "--config", config], env)).code).toBe(0);
    // Something else now sits where the pack was: uninstall must not delete it.
    const installed = path.join(state, "hooks", "openclaw-context");
    fs.rmSync(installed, { recursive: true });
    fs.mkdirSync(installed);
    fs.writeFileSync(path.join(installed, "package.json"), JSON.stringify({ name: "someone-else" }));
    const removed = await runOpsScript("install.ts", ["--workspace", ws, "--config", config, "--uninstall"], env);
    expect(removed.code).toBe(1);
    expect(removed.stdout).not.toContain("Uninstalled.");
    expect(removed.stderr).toMatch(/remove these by hand:\n {2}- .*openclaw-context \(not recognised/);
    expect(fs.existsSync(path.join(installed, "package.json"))).toBe(true);
    // openclaw.json is back anyway, and the record stays for a second run.
    expect(fs.readFileSync(config, "utf8")).toBe(CONFIG);
    expect(fs.existsSync(path.join(path.dirname(config), "openclaw-context.install-state.json"))).toBe(true);
  });

  it("link mode: uninstall puts back a folder that install moved aside", async () => {
    const { ws, config } = setup(CONFIG);
    const mine = path.join(ws, "hooks", "openclaw-context");
    fs.mkdirSync(mine, { recursive: true });
    fs.writeFileSync(path.join(mine, "mine.txt"), "keep");
    expect((await runOpsScript("install.ts", ["--workspace", ws, "--config", config])).code).toBe(0);
    expect(fs.lstatSync(mine).isSymbolicLink()).toBe(true);
    const removed = await runOpsScript("install.ts", ["--workspace", ws, "--config", config, "--uninstall"]);
    expect(removed.code).toBe(0);
    expect(fs.lstatSync(mine).isDirectory()).toBe(true);
    expect(fs.readFileSync(path.join(mine, "mine.txt"), "utf8")).toBe("keep");
    expect(fs.readFileSync(config, "utf8")).toBe(CONFIG);
  });

  it("without --workspace, the workspace comes from agents.defaults.workspace in openclaw.json", async () => {
    const { ws, config } = setup();
    fs.writeFileSync(config, JSON.stringify({ agents: { defaults: { workspace: ws } } }));
    const result = await runOpsScript("install.ts", ["--config", config]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`for workspace ${ws}`);
    const missing = await runOpsScript("install.ts", ["--config", path.join(path.dirname(config), "none.json")], { HOME: path.dirname(config) });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`workspace not found: ${path.join(path.dirname(config), ".openclaw", "workspace")}`);
  });

  // install asks `hooks list` 5 times, 3 s apart, before it gives up: 12 s of fixed sleeps plus six
  // CLI runs. The bound leaves a margin no machine misses (the test ends as soon as install does).
  it("fails verification (exit 1) when the CLI reports a hook not eligible", { timeout: 180_000 }, async () => {
    const { ws, config } = setup(CONFIG);
    const fake = makeFakeOpenClaw();
    const result = await runOpsScript("install.ts", ["--workspace", ws, "--config", config], { OPENCLAW_CLI: fake.bin, OPENCLAW_STATE_DIR: path.join(path.dirname(config), "state"), FAKE_OPENCLAW_BLOCKED: "ethos-context" }, 170_000);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ethos-context is not eligible \(disabled in config/);
  });

  it("rollback prefers `openclaw hooks disable` and falls back to editing the file when it fails", async () => {
    const { ws, config } = setup(CONFIG.replace('"session-memory"', '"aci-bootstrap": { "enabled": true }, "session-memory"'));
    const fake = makeFakeOpenClaw();
    const viaCli = await runOpsScript("rollback.ts", ["--phase", "2", "--workspace", ws, "--config", config], { OPENCLAW_CLI: fake.bin });
    expect(viaCli.code).toBe(0);
    expect(viaCli.stdout).toContain("via openclaw-cli");
    expect(fake.calls()).toContainEqual(["hooks", "disable", "aci-bootstrap"]);

    fs.writeFileSync(config, CONFIG.replace('"session-memory"', '"aci-bootstrap": { "enabled": true }, "session-memory"'));
    const fallback = await runOpsScript("rollback.ts", ["--phase", "2", "--workspace", ws, "--config", config], { OPENCLAW_CLI: fake.bin, FAKE_OPENCLAW_FAIL: "hooks" });
    expect(fallback.code).toBe(0);
    expect(fallback.stdout).toMatch(/failed \(exit 1\).*falling back to editing/);
    expect(JSON5.parse(fs.readFileSync(config, "utf8")).hooks.internal.entries["aci-bootstrap"].enabled).toBe(false);
    expect(fs.readFileSync(config, "utf8")).toContain("// operator comment");
  });

  it("bad usage exits 2", async () => {
    const { ws } = setup();
    const bad = await runOpsScript("install.ts", ["--workspace", ws, "--mode", "zip"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--mode must be/);
  });
});
