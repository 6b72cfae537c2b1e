// The plugin's entry (src/plugin/index.ts) against a recorded-shape plugin API: what it registers
// per mode, version and switch, and what its internal hooks do. The real gateway path (install
// from the tarball, turns, `openclaw context status`) is the package e2e suites.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { register } from "../../src/plugin/index.ts";
import { CONTEXT_COMMAND } from "../../src/ops/commands/index.ts";
import { createPluginHooks } from "../../src/plugin/hooks.ts";
import type { PluginApi } from "../../src/host/plugin-api.ts";
import { configView, createConfigViews, parsePluginConfig } from "../../src/context/plugin-config.ts";
import { createContextService } from "../../src/context/turn-service.ts";
import { packageSection } from "../../src/ops/plugin-status.ts";
import { dayFileFor } from "../../src/capture/capture.ts";
import { buildPlugin, packageReadme, pluginManifest } from "../../src/ops/build-plugin.ts";
import { legacyConfigRules, normalizeCompatibilityConfig } from "../../src/plugin/doctor-contract.ts";
import { waitForFileContaining } from "../e2e/wait-file.ts";
import { webchatMessageEvent } from "./ethos-events.ts";
import { isolateFromOperatorConfig } from "./plugin-fixtures.ts";

const repo = path.resolve(__dirname, "../..");
const workspace = path.join(repo, "fixtures/workspace");
const HOST_FILES = ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md"];

isolateFromOperatorConfig("plugin-package-");

type Registered = {
  hooks: { events: string[]; name: string; handler: (event: unknown) => Promise<void> }[];
  cli: unknown[];
  on: { hook: string; handler: (event: unknown, ctx: unknown) => Promise<unknown> }[];
  engines: string[];
  lines: string[];
};

function fakeApi(input: { pluginConfig?: unknown; version?: string; mode?: string; config?: Record<string, unknown> }): { api: PluginApi; got: Registered } {
  const got: Registered = { hooks: [], cli: [], on: [], engines: [], lines: [] };
  const line = (text: string) => void got.lines.push(text);
  const api: PluginApi = {
    id: "openclaw-context",
    config: input.config ?? {},
    pluginConfig: input.pluginConfig,
    registrationMode: input.mode ?? "full",
    logger: { debug: line, info: line, warn: line, error: line },
    get runtime() {
      if (input.mode === "cli-metadata") throw new Error("runtime is intentionally unavailable during cli-metadata registration");
      return { version: input.version ?? "2026.9.6" };
    },
    registerHook: (events, handler, opts) => got.hooks.push({ events, handler, name: opts.name }),
    registerCli: (_registrar, opts) => got.cli.push(opts),
    registerContextEngine: (id) => got.engines.push(id),
    on: (hook, handler) => got.on.push({ hook, handler }),
  };
  return { api, got };
}

function bootstrapEvent() {
  const files = HOST_FILES.map((name) => ({ name, path: path.join(workspace, name), content: fs.readFileSync(path.join(workspace, name), "utf8"), missing: false }));
  return { type: "agent", action: "bootstrap", sessionKey: "agent:main:main", context: { workspaceDir: workspace, bootstrapFiles: files, cfg: {}, sessionKey: "agent:main:main", agentId: "main" } };
}
const names = (event: ReturnType<typeof bootstrapEvent>) => (event.context.bootstrapFiles as { name: string; missing?: boolean }[]).filter((f) => !f.missing).map((f) => f.name);

describe("plugin entry", () => {
  it("registers the bootstrap hook, triage on message:received, the memory delivery and `openclaw context` on 2026.9.6", () => {
    const { api, got } = fakeApi({});
    register(api);
    expect(got.hooks.map((h) => [h.events, h.name])).toEqual([
      [["agent:bootstrap"], "openclaw-context.aci-bootstrap"],
      [["message:received"], "openclaw-context.triage"],
    ]);
    expect(got.on.map((o) => o.hook)).toEqual(["before_prompt_build"]);
    expect(got.engines).toEqual(["openclaw-context"]);
    expect(got.cli).toEqual([{ descriptors: [CONTEXT_COMMAND] }]);
  });

  it("while OpenClaw only collects commands (cli-metadata) it registers the command and never touches api.runtime", () => {
    const { api, got } = fakeApi({ mode: "cli-metadata" });
    register(api);
    expect(got.cli).toHaveLength(1);
    expect([got.hooks, got.on, got.engines]).toEqual([[], [], []]);
  });

  it("in discovery mode it registers before_prompt_build only (the gateway runs that registration's typed hooks), no internal hook, no engine, no log line", async () => {
    const { api, got } = fakeApi({ mode: "discovery" });
    register(api);
    expect(got.on.map((o) => o.hook)).toEqual(["before_prompt_build"]);
    expect([got.hooks, got.engines, got.lines]).toEqual([[], [], []]);
    expect(got.cli).toHaveLength(1);
    // The handler is live: a malformed call gives undefined, never a throw.
    await expect(got.on[0]!.handler(null, null)).resolves.toBeUndefined();
    for (const off of [{ mode: "discovery", pluginConfig: { enabled: false } }, { mode: "discovery", version: "2026.3.13" }, { mode: "setup-only" }]) {
      const other = fakeApi(off);
      register(other.api);
      expect([other.got.hooks, other.got.on, other.got.engines, other.got.lines]).toEqual([[], [], [], []]);
    }
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
    const { config } = parsePluginConfig({ memory: false, aciBootstrap: { ownerIds: ["42"] } });
    const view = configView(cfg, config) as { hooks: { internal: { entries: Record<string, unknown> } } };
    expect(view.hooks.internal.entries["aci-bootstrap"]).toEqual({ ownerIds: ["42"], enabled: true });
    expect(view.hooks.internal.entries["ethos-context"]).toEqual({ enabled: false });
    expect(JSON.stringify(cfg)).toBe(before);
  });

  it("an unknown key is named and dropped; the valid keys apply", () => {
    const { config, error } = parsePluginConfig({ enabeld: false, memory: false });
    expect(error).toMatch(/enabeld/);
    expect(config.enabled).toBe(true);
    expect(config.memory).toBe(false);
  });

  it("status names the plugin's switches and memory channel", () => {
    const cfg = { plugins: { slots: { contextEngine: "openclaw-context" }, entries: { "openclaw-context": { enabled: true, config: { bootstrap: false } } } } };
    expect(packageSection(cfg).split("\n")).toEqual([
      "Plugin (openclaw-context)",
      "  entry: enabled in plugins.entries",
      "  switches: enabled true, bootstrap false, memory true",
      "  memory delivery: runtime-context carrier through context engine openclaw-context (prependContext for Claude Opus 5.5 / Fable 5.1)",
    ]);
    expect(packageSection({})).toContain("not in plugins.entries");
  });
});

describe("plugin: sender, triage and capture on message:received", () => {
  const REMEMBER = "Remember that my locker code is 4312";
  const FACT_LINE = "- my locker code is 4312 #knowledge <!-- confidence: 0.95 source: operator";
  let ws: string;
  beforeEach(() => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), "plugin-package-triage-"));
  });
  afterEach(() => fs.rmSync(ws, { recursive: true, force: true }));
  const dayFile = () => dayFileFor(ws, new Date());
  const written = () => (fs.existsSync(dayFile()) ? fs.readFileSync(dayFile(), "utf8") : "");
  const message = (sessionKey: string, text = REMEMBER) => webchatMessageEvent(sessionKey, text, `m-${sessionKey}`);
  const hookFor = (cfg: Record<string, unknown>, ethosContext: Record<string, unknown> = {}) => {
    const { config } = parsePluginConfig({ ethosContext });
    const views = createConfigViews(config);
    const context = createContextService();
    const hooks = createPluginHooks({ context, cfg: (hostCfg) => views(hostCfg ?? cfg) });
    // The triage runs in the background (the gateway does not wait); the handler hands it back, the test waits for it.
    return { ...hooks, context };
  };

  it("the registered hook writes the main session's \"remember that …\" into memory/<today>.md, without holding the event up", async () => {
    const { api, got } = fakeApi({ config: { agents: { defaults: { workspace: ws } } } });
    register(api);
    const triage = got.hooks.find((h) => h.events.includes("message:received"))!;
    fs.mkdirSync(path.join(ws, "memory"));
    // The handler resolves before the write (the gateway does not wait for it); the file shows it.
    await triage.handler(message("agent:main:main"));
    expect(await waitForFileContaining(dayFile(), "4312")).toContain(FACT_LINE);
  });

  it.each([
    ["a group", "agent:main:telegram:group:-100777"],
    ["a stranger's DM", "agent:main:telegram:direct:9999"],
    ["a subagent", "agent:main:subagent:6f1a1c2e-0d8e-4a43-9a43-1c2d3e4f5a6b"],
    ["a cron run", "agent:main:cron:nightly:run:abc"],
  ])("%s writes nothing (owner sessions only)", async (_what, sessionKey) => {
    const cfg = { agents: { defaults: { workspace: ws } }, hooks: { internal: { entries: { "ethos-context": { scope: { ownerIds: ["4242"] } } } } } };
    await hookFor(cfg, { scope: { ownerIds: ["4242"] } }).onMessageReceived(message(sessionKey));
    expect(written()).toBe("");
    expect(fs.existsSync(path.join(ws, "memory", ".triage"))).toBe(false);
  });

  it("the owner's DM writes; ethosContext.triage: false writes nothing", async () => {
    const cfg = { agents: { defaults: { workspace: ws } } };
    await hookFor(cfg, { triage: false }).onMessageReceived(message("agent:main:main"));
    expect(written()).toBe("");
    await hookFor(cfg, { scope: { ownerIds: ["4242"] } }).onMessageReceived(message("agent:main:telegram:direct:4242"));
    expect(written()).toContain(FACT_LINE);
  });

  it("an agent whose workspace config does not state is triaged in the workspace of its last operator bootstrap, never a group's", async () => {
    const cfg = { agents: { list: [{ id: "main" }, { id: "work" }] } };
    const hook = hookFor(cfg);
    await hook.onMessageReceived(message("agent:main:main"));
    expect(written()).toBe("");
    const sandbox = fs.mkdtempSync(path.join(os.tmpdir(), "plugin-sandbox-"));
    await hook.onAgentBootstrap({ type: "agent", action: "bootstrap", sessionKey: "agent:main:telegram:group:-100777", context: { workspaceDir: sandbox, bootstrapFiles: [], agentId: "main" } });
    await hook.onMessageReceived(message("agent:main:main"));
    expect(written()).toBe("");
    await hook.onAgentBootstrap({ type: "agent", action: "bootstrap", sessionKey: "agent:main:main", context: { workspaceDir: ws, bootstrapFiles: [], agentId: "main" } });
    await hook.onMessageReceived(message("agent:main:main"));
    expect(await waitForFileContaining(dayFile(), "4312")).toContain(FACT_LINE);
    expect(fs.readdirSync(sandbox)).toEqual([]);
    fs.rmSync(sandbox, { recursive: true, force: true });
  });

  it("never throws: not an event, an event whose fields throw; memory: false still notes senders but captures nothing", async () => {
    const hook = hookFor({ agents: { defaults: { workspace: ws } } });
    const hostile = { type: "message", action: "received", get context(): never { throw new Error("boom"); } };
    await expect(hook.onMessageReceived(hostile)).resolves.toBeUndefined();
    await expect(hook.onMessageReceived(null)).resolves.toBeUndefined();
    await expect(hook.onAgentBootstrap(hostile)).resolves.toBeUndefined();
    const off = hookFor({ agents: { defaults: { workspace: ws } } });
    const { config } = parsePluginConfig({ memory: false });
    const noMemory = createPluginHooks({ context: off.context, cfg: () => configView({ agents: { defaults: { workspace: ws } } }, config) });
    await noMemory.onMessageReceived(message("agent:main:main"));
    expect(written()).toBe("");
  });
});

describe("plugin: its lines reach OpenClaw's log through api.logger", () => {
  it("every line carries [openclaw-context]; the delivery line names `openclaw config set plugins.slots.contextEngine openclaw-context`", async () => {
    const { api, got } = fakeApi({ config: { plugins: { slots: { contextEngine: "legacy" } } } });
    setLogDestination(undefined);
    register(api);
    await got.on[0]!.handler({ prompt: "hi" }, {});
    expect(got.lines.length).toBeGreaterThanOrEqual(1);
    for (const line of got.lines) expect(line).toMatch(/^\[openclaw-context\] /);
    expect(got.lines.join("\n")).toContain(
      "memory delivery: prependContext (plugins.slots.contextEngine is not openclaw-context; select it with: openclaw config set plugins.slots.contextEngine openclaw-context)",
    );
    expect(got.lines.join("\n")).not.toContain("companion");
    setLogDestination(new Writable({ write: (_chunk, _enc, done) => done() }));
  });
});

describe("the compiled plugin depends on no second artifact", () => {
  it("dist/plugin/index.js has no delivery-claim symbol and no run-time search for the hook pack's adapter.ts or src/", { timeout: 120_000 }, async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "plugin-package-build-"));
    try {
      const code = fs.readFileSync(path.join(await buildPlugin(out), "index.js"), "utf8");
      // The companion's handshake key (src/context/delivery.ts, plugin/index.js).
      expect(code).not.toContain("openclaw-context.memory-delivery");
      // plugin/index.js's resolveBundleRoot: imports <pack>/src/plugin/turns.ts, checks <pack>/src/context/service.ts.
      expect(code).not.toContain("adapter.ts");
      expect(code).not.toContain("service.ts");
      // The triage path is compiled in.
      expect(code).toContain("message triaged");
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});

describe("plugin config: a typo never stops anything and is named once, by the path the operator wrote", () => {
  const typo = { memroy: true, waitMs: "slow", ethosContext: { serchTopK: 5, scope: { ownerIds: ["42"] } }, aciBootstrap: { ownerIdz: ["7"], ownerIds: ["7"] } };
  const invalidLines = (lines: string[]) => lines.filter((line) => line.includes("invalid config"));

  it("the gateway's registrations (full, then discovery) and the services that read the settings log each bad key once", async () => {
    setLogDestination(undefined);
    // A copy of the sample workspace: a memory turn writes ETHOS_CONTEXT.md into it.
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), "plugin-typo-ws-"));
    fs.cpSync(workspace, copy, { recursive: true });
    try {
      const full = fakeApi({ pluginConfig: typo });
      register(full.api);
      const discovery = fakeApi({ pluginConfig: typo, mode: "discovery" });
      register(discovery.api);
      // A turn: the bootstrap hook and before_prompt_build read the option objects through the view.
      await full.got.hooks.find((hook) => hook.events.includes("agent:bootstrap"))!.handler(bootstrapEvent());
      await discovery.got.on[0]!.handler({ prompt: "What is my sailboat named?" }, { sessionKey: "agent:main:main", workspaceDir: copy, trigger: "user" });
      const logged = invalidLines([...full.got.lines, ...discovery.got.lines]);
      expect(logged.map((line) => /invalid config (\S+): ([^;]+);/.exec(line)?.slice(1, 3).join(": ")).sort()).toEqual([
        "plugins.entries.openclaw-context.config.aciBootstrap.ownerIdz: unknown key (did you mean ownerIds?)",
        "plugins.entries.openclaw-context.config.ethosContext.serchTopK: unknown key (did you mean searchTopK?)",
        "plugins.entries.openclaw-context.config.memroy: unknown key (did you mean memory?)",
        "plugins.entries.openclaw-context.config.waitMs: Invalid input: expected number, received string",
      ]);
      expect(logged.join("\n")).not.toContain("hooks.internal.entries");
      // Every valid key applies: the owner id and the group scope reached the services.
      const { config } = parsePluginConfig(typo, { report: false });
      expect(config.aciBootstrap).toEqual({ ownerIds: ["7"] });
      expect(config.ethosContext).toEqual({ scope: { ownerIds: ["42"] } });
      expect(config.waitMs).toBe(1000);
    } finally {
      setLogDestination(new Writable({ write: (_chunk, _enc, done) => done() }));
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });

  it("a changed config logs its own issues again; the same one parsed again logs nothing", () => {
    const lines: string[] = [];
    setLogDestination(new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }));
    try {
      parsePluginConfig({ memroy: true });
      parsePluginConfig({ memroy: true });
      expect(invalidLines(lines)).toHaveLength(1);
      parsePluginConfig({ memroy: true, bootstrp: false });
      expect(invalidLines(lines)).toHaveLength(3);
      parsePluginConfig({ memroy: true }, { report: false });
      expect(invalidLines(lines)).toHaveLength(3);
    } finally {
      setLogDestination(new Writable({ write: (_chunk, _enc, done) => done() }));
    }
  });

  it("an `openclaw context …` run (cli-metadata, then discovery) logs nothing about the config: status and doctor report it", () => {
    setLogDestination(undefined);
    try {
      const meta = fakeApi({ pluginConfig: typo, mode: "cli-metadata" });
      register(meta.api);
      const discovery = fakeApi({ pluginConfig: typo, mode: "discovery" });
      register(discovery.api);
      expect(invalidLines([...meta.got.lines, ...discovery.got.lines])).toEqual([]);
    } finally {
      setLogDestination(new Writable({ write: (_chunk, _enc, done) => done() }));
    }
  });
});

describe("the manifest's configSchema: every option described, nothing OpenClaw could reject", () => {
  const manifest = pluginManifest();
  /** Every key any schema node carries (the schema's own vocabulary). */
  const keywords = (node: Record<string, unknown>): string[] => [
    ...Object.keys(node),
    ...Object.values((node.properties as Record<string, Record<string, unknown>> | undefined) ?? {}).flatMap(keywords),
  ];

  it("open at every level: no type (the root aside), range, enum or pattern, and additionalProperties true", () => {
    const schema = manifest.configSchema as Record<string, unknown>;
    expect(schema.type).toBe("object");
    expect(schema.additionalProperties).toBe(true);
    const { type: _rootType, ...root } = schema;
    expect([...new Set(keywords(root))].sort()).toEqual(["additionalProperties", "description", "properties"]);
    const nested = (schema.properties as Record<string, Record<string, unknown>>).ethosContext!;
    expect(nested.additionalProperties).toBe(true);
    expect(Object.keys(nested.properties as object)).toContain("searchTopK");
    expect((schema.properties as Record<string, Record<string, unknown>>).waitMs!.description).toContain("Default: 1000.");
  });

  it("describes each option in the package's README (no link into a repository the install does not have)", () => {
    const readme = packageReadme();
    for (const key of Object.keys((manifest.configSchema as { properties: object }).properties)) expect(readme).toContain(`| \`${key}\` |`);
    expect(readme).toContain("searchTopK");
    expect(JSON.stringify(manifest)).not.toMatch(/docs\/[\w-]+\.md/);
  });
});

describe("the plugin's doctor contract (openclaw doctor / doctor --fix)", () => {
  const cfg = () => ({ gateway: { port: 1 }, plugins: { entries: { "openclaw-context": { enabled: true, config: { memroy: true, memory: false, ethosContext: { serchTopK: 5, searchTopK: 3 } } } } } });

  it("its one rule matches a config with keys the plugin ignores, and its message names them with did-you-mean", () => {
    const [rule] = legacyConfigRules;
    expect(rule!.path).toEqual(["plugins", "entries", "openclaw-context", "config"]);
    expect(rule!.match(cfg().plugins.entries["openclaw-context"].config)).toBe(true);
    expect(rule!.message).toBe(
      "openclaw-context ignores memroy: unknown key (did you mean memory?); ethosContext.serchTopK: unknown key (did you mean searchTopK?). Every other setting applies; openclaw doctor --fix removes only these keys.",
    );
    expect(rule!.match({ memory: false })).toBe(false);
  });

  it("--fix removes exactly those keys: the entry, the valid settings and the rest of openclaw.json stay", () => {
    const before = cfg();
    const { config, changes } = normalizeCompatibilityConfig({ cfg: before });
    expect(changes).toEqual([
      "removed plugins.entries.openclaw-context.config.memroy: unknown key (did you mean memory?)",
      "removed plugins.entries.openclaw-context.config.ethosContext.serchTopK: unknown key (did you mean searchTopK?)",
    ]);
    expect(config).toEqual({ gateway: { port: 1 }, plugins: { entries: { "openclaw-context": { enabled: true, config: { memory: false, ethosContext: { searchTopK: 3 } } } } } });
    expect(before).toEqual(cfg()); // the input is not mutated
    expect(normalizeCompatibilityConfig({ cfg: config })).toEqual({ config, changes: [] });
    expect(normalizeCompatibilityConfig({ cfg: { gateway: {} } })).toEqual({ config: { gateway: {} }, changes: [] });
  });

  it("ships as doctor-contract-api.js next to index.js, in the package's files", { timeout: 120_000 }, async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "plugin-contract-build-"));
    try {
      await buildPlugin(out);
      expect(fs.readFileSync(path.join(out, "doctor-contract-api.js"), "utf8")).toBe('export { legacyConfigRules, normalizeCompatibilityConfig } from "./index.js";\n');
      expect(JSON.parse(fs.readFileSync(path.join(out, "package.json"), "utf8")).files).toContain("doctor-contract-api.js");
      const contract = (await import(pathToFileURL(path.join(out, "doctor-contract-api.js")).href)) as { legacyConfigRules: { match(value: unknown): boolean }[] };
      expect(contract.legacyConfigRules[0]!.match({ memroy: true })).toBe(true);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});
