// The packaged plugin's entry (src/plugin-package/index.ts) against a recorded-shape plugin API:
// what it registers per mode, version and switch, and what its agent:bootstrap hook does. The real
// gateway path (install from the tarball, turns, `openclaw context status`) is test/e2e/package.e2e.test.ts.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { CONTEXT_COMMAND, register } from "../../src/plugin-package/index.ts";
import type { PackageApi } from "../../src/plugin-package/index.ts";
import { configView, parsePackageConfig } from "../../src/plugin-package/config.ts";
import { packageSection } from "../../src/ops/package-status.ts";

const repo = path.resolve(__dirname, "../..");
const workspace = path.join(repo, "fixtures/workspace");
const noConfigDir = fs.mkdtempSync(path.join(os.tmpdir(), "plugin-package-"));
const HOST_FILES = ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md"];

beforeAll(() => {
  vi.stubEnv("OPENCLAW_CONFIG_PATH", path.join(noConfigDir, "absent.json"));
  setLogDestination(new Writable({ write: (_chunk, _enc, done) => done() }));
});
afterAll(() => {
  setLogDestination(undefined);
  vi.unstubAllEnvs();
  fs.rmSync(noConfigDir, { recursive: true, force: true });
});

type Registered = { hooks: { events: string[]; name: string; handler: (event: unknown) => Promise<void> }[]; cli: unknown[]; on: string[]; engines: string[] };

function fakeApi(input: { pluginConfig?: unknown; version?: string; mode?: string }): { api: PackageApi; got: Registered } {
  const got: Registered = { hooks: [], cli: [], on: [], engines: [] };
  const api: PackageApi = {
    id: "openclaw-context",
    config: {},
    pluginConfig: input.pluginConfig,
    registrationMode: input.mode ?? "full",
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    get runtime() {
      if (input.mode === "cli-metadata") throw new Error("runtime is intentionally unavailable during cli-metadata registration");
      return { version: input.version ?? "2026.9.6" };
    },
    registerHook: (events, handler, opts) => got.hooks.push({ events, handler, name: opts.name }),
    registerCli: (_registrar, opts) => got.cli.push(opts),
    registerContextEngine: (id) => got.engines.push(id),
    on: (hook) => got.on.push(hook),
  };
  return { api, got };
}

function bootstrapEvent() {
  const files = HOST_FILES.map((name) => ({ name, path: path.join(workspace, name), content: fs.readFileSync(path.join(workspace, name), "utf8"), missing: false }));
  return { type: "agent", action: "bootstrap", sessionKey: "agent:main:main", context: { workspaceDir: workspace, bootstrapFiles: files, cfg: {}, sessionKey: "agent:main:main", agentId: "main" } };
}
const names = (event: ReturnType<typeof bootstrapEvent>) => (event.context.bootstrapFiles as { name: string; missing?: boolean }[]).filter((f) => !f.missing).map((f) => f.name);

describe("packaged plugin entry", () => {
  it("registers the bootstrap hook, the memory delivery and `openclaw context` on 2026.9.6", () => {
    const { api, got } = fakeApi({});
    register(api);
    expect(got.hooks.map((h) => [h.events, h.name])).toEqual([[["agent:bootstrap"], "openclaw-context.aci-bootstrap"]]);
    expect(got.on).toEqual(["before_prompt_build"]);
    expect(got.engines).toEqual(["openclaw-context"]);
    expect(got.cli).toEqual([{ descriptors: [CONTEXT_COMMAND] }]);
  });

  it("while OpenClaw only collects commands (cli-metadata) it registers the command and never touches api.runtime", () => {
    const { api, got } = fakeApi({ mode: "cli-metadata" });
    register(api);
    expect(got.cli).toHaveLength(1);
    expect([got.hooks, got.on, got.engines]).toEqual([[], [], []]);
  });

  it("enabled: false (the rollback switch) and 2026.3.13 register nothing that changes a turn", () => {
    for (const input of [{ pluginConfig: { enabled: false } }, { version: "2026.3.13" }]) {
      const { api, got } = fakeApi(input);
      register(api);
      expect([got.hooks, got.on, got.engines]).toEqual([[], [], []]);
      expect(got.cli).toHaveLength(1);
    }
  });

  it("the agent:bootstrap hook gives a main session the session-aware set; bootstrap: false leaves the host's list", async () => {
    const on = fakeApi({});
    register(on.api);
    const served = bootstrapEvent();
    await on.got.hooks[0]!.handler(served);
    expect(names(served)).toContain("TOOLS_COMPACT.md");
    expect(names(served)).not.toContain("AGENTS.md");

    const off = fakeApi({ pluginConfig: { bootstrap: false } });
    register(off.api);
    const untouched = bootstrapEvent();
    await off.got.hooks[0]!.handler(untouched);
    expect(names(untouched)).toEqual(HOST_FILES);
  });

  it("the plugin's option objects reach the services through a view of openclaw.json, which is not mutated", () => {
    const cfg = { hooks: { internal: { entries: { "aci-bootstrap": { enabled: true, mode: "operator" } } } } };
    const before = JSON.stringify(cfg);
    const { config } = parsePackageConfig({ memory: false, aciBootstrap: { toolsCompact: false } });
    const view = configView(cfg, config) as { hooks: { internal: { entries: Record<string, unknown> } } };
    expect(view.hooks.internal.entries["aci-bootstrap"]).toEqual({ toolsCompact: false, enabled: true });
    expect(view.hooks.internal.entries["ethos-context"]).toEqual({ enabled: false });
    expect(JSON.stringify(cfg)).toBe(before);
  });

  it("an unknown key is named and dropped; the valid keys apply", () => {
    const { config, error } = parsePackageConfig({ enabeld: false, memory: false });
    expect(error).toMatch(/enabeld/);
    expect(config.enabled).toBe(true);
    expect(config.memory).toBe(false);
  });

  it("status names the package's switches and memory channel", () => {
    const cfg = { plugins: { slots: { contextEngine: "openclaw-context" }, entries: { "openclaw-context": { enabled: true, config: { bootstrap: false } } } } };
    expect(packageSection(cfg).split("\n")).toEqual([
      "Plugin package (openclaw-context)",
      "  entry: enabled in plugins.entries",
      "  switches: enabled true, bootstrap false, memory true",
      "  memory delivery: runtime-context carrier through context engine openclaw-context",
    ]);
    expect(packageSection({})).toContain("not in plugins.entries");
  });
});
