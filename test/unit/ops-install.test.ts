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

  it("pack mode with the CLI: plugins install of a clean copy, then hooks list must show both eligible", async () => {
    const { ws, config } = setup(CONFIG);
    const fake = makeFakeOpenClaw();
    const result = await runOpsScript("install.ts", ["--workspace", ws, "--config", config], { OPENCLAW_CLI: fake.bin });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("aci-bootstrap: eligible (openclaw-managed)");
    const install = fake.calls().find((call) => call[0] === "plugins")!;
    expect(install.slice(0, 2)).toEqual(["plugins", "install"]);
    expect(install).toContain("--force");
    expect(fake.calls().some((call) => call[0] === "hooks" && call[1] === "list")).toBe(true);
    expect(fs.existsSync(path.join(ws, "hooks"))).toBe(false);
  });

  // install asks `hooks list` 5 times, 3 s apart, before it gives up: 12 s of fixed sleeps plus six
  // CLI runs. The bound leaves a margin no machine misses (the test ends as soon as install does).
  it("fails verification (exit 1) when the CLI reports a hook not eligible", { timeout: 180_000 }, async () => {
    const { ws, config } = setup(CONFIG);
    const fake = makeFakeOpenClaw();
    const result = await runOpsScript("install.ts", ["--workspace", ws, "--config", config], { OPENCLAW_CLI: fake.bin, FAKE_OPENCLAW_BLOCKED: "ethos-context" }, 170_000);
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
    expect((await runOpsScript("install.ts", [])).code).toBe(2);
    const { ws } = setup();
    const bad = await runOpsScript("install.ts", ["--workspace", ws, "--mode", "zip"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--mode must be/);
  });
});
