// The installable plugin package for OpenClaw 2026.9+ (`npm run build:plugin` compiles this file and
// everything it imports into dist/plugin/index.js). One artifact registers what the hook pack and
// the companion plugin do together today: the bootstrap file sets (api.registerHook on
// agent:bootstrap), the memory delivery (context-engine carrier + before_prompt_build fallback,
// the companion's adapter, with SOUL.md for subagents and HEARTBEAT.md for cron runs), triage and
// "remember that …" capture (api.registerHook on message:received) and `openclaw context …`
// (api.registerCli). No run-time search for
// another artifact and no globalThis handshake: the code is compiled in.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createPluginAdapter } from "../../plugin/adapter.ts";
import type { HostLogger, HostSdk } from "../../plugin/adapter.ts";
import { hostPackageOf, hostVersionOf, servesHost } from "../../plugin/index.js";
import { logToGatewayFile } from "../core/log.ts";
import type { OpenClawConfig } from "../host/events.ts";
import { runBootstrapHook } from "./bootstrap-hook.ts";
import { registerContextCommands } from "./cli.ts";
import { companionConfigOf, configView, PACKAGE_PLUGIN_ID, parsePackageConfig } from "./config.ts";
import { createTriageHook } from "./triage-hook.ts";
import { maintenanceService } from "./maintenance-service.ts";

type ContextEngineFactory = (ctx: { workspaceDir?: string } | undefined) => Promise<unknown>;

export type PackageApi = {
  id?: string;
  config?: OpenClawConfig;
  pluginConfig?: unknown;
  logger?: HostLogger;
  runtime?: { version?: string };
  /** "full" in the gateway and for a CLI command's run; "cli-metadata" etc. while OpenClaw only collects commands. */
  registrationMode?: string;
  registerHook?(events: string[], handler: (event: unknown) => Promise<void>, opts: { name: string; description?: string }): void;
  registerCli?(registrar: (ctx: { program: unknown }) => void, opts: { descriptors: { name: string; description: string; hasSubcommands: boolean }[] }): void;
  registerContextEngine?(id: string, factory: ContextEngineFactory): void;
  on?(hook: string, handler: (event: unknown, ctx: unknown) => Promise<unknown>): void;
  registerService?(service: { id: string; start(ctx: unknown): void | Promise<void>; stop?(ctx: unknown): void | Promise<void> }): void;
};

/** What the delivery line tells the operator when the engine is not selected: this package's own command. */
export function selectRemedyFor(pluginId: string): string {
  return `select it with: openclaw config set plugins.slots.contextEngine ${pluginId}`;
}

/** Also in openclaw.plugin.json (cliCommands): OpenClaw lists the command from the manifest before it loads the plugin. */
export const CONTEXT_COMMAND = { name: "context", description: "openclaw-context: status, explain, baseline, backup, rollback, draft-tools, check-tools, compress-wisdom, maintain, uninstall", hasSubcommands: true };

function log(api: PackageApi, level: "info" | "warn" | "error", message: string): void {
  const target = api.logger?.[level];
  if (typeof target === "function") target.call(api.logger, `[${PACKAGE_PLUGIN_ID}] ${message}`);
  else console.error(`[${PACKAGE_PLUGIN_ID}] ${message}`);
}

/** The running host's plugin SDK, from its own files (the engine must share the host's module state). */
async function loadHostSdk(): Promise<HostSdk> {
  const host = hostPackageOf();
  if (!host) throw new Error("the running openclaw package was not found (process.argv[1])");
  const sdk = (await import(pathToFileURL(path.join(host.dir, "dist", "plugin-sdk", "core.js")).href)) as Partial<HostSdk>;
  if (typeof sdk.delegateCompactionToRuntime !== "function") throw new Error("openclaw/plugin-sdk/core has no delegateCompactionToRuntime");
  return sdk as HostSdk;
}

let gatewayLogStarted = false;
/** Our records go to the log file `openclaw context status` reads; only once a hook fires (the gateway, not the CLI). */
function startGatewayLog(): void {
  if (gatewayLogStarted) return;
  gatewayLogStarted = true;
  logToGatewayFile();
}

type Adapter = ReturnType<typeof createPluginAdapter>;
/** The adapter of the last "full" registration, which the "discovery" one reuses (one memory service per process). */
let fullAdapter: { pluginId: string; adapter: Adapter } | undefined;

function onPromptBuild(api: PackageApi, adapter: Adapter): void {
  api.on?.("before_prompt_build", async (event, ctx) => {
    startGatewayLog();
    return adapter.beforePromptBuild(event, ctx);
  });
}

export function register(api: PackageApi): void {
  try {
    const pluginId = api.id ?? PACKAGE_PLUGIN_ID;
    api.registerCli?.(({ program }) => registerContextCommands(program), { descriptors: [CONTEXT_COMMAND] });
    // The gateway registers the plugin twice: "full", then "discovery" (2026.9.6), and runs the typed
    // hooks (before_prompt_build) of the second registration only. So "discovery" registers that one
    // hook again; everything with a process-wide effect (internal hooks, the engine) stays "full"
    // only, or triage would capture twice. In "cli-metadata" api.runtime throws: the command only.
    const mode = api.registrationMode;
    const full = mode === undefined || mode === "full";
    if (!full && mode !== "discovery") return;
    const { config, error } = parsePackageConfig(api.pluginConfig);
    if (error && full) log(api, "error", `invalid config, the bad keys are ignored: ${error}`);

    const hostVersion = hostVersionOf(api);
    if (!servesHost(hostVersion)) {
      if (full) log(api, "info", `stands aside on OpenClaw ${hostVersion ?? "(unknown version)"}: install the hook pack there (npm run install-hooks)`);
      return;
    }
    if (!config.enabled) {
      if (full) log(api, "info", "enabled: false: OpenClaw's default bootstrap files, no memory");
      return;
    }

    // The companion adapter reads openclaw.json through the view: the plugin's switches and option objects apply.
    const adapterApi = {
      id: pluginId,
      logger: api.logger,
      pluginConfig: companionConfigOf(config),
      get config() {
        return configView(api.config, config);
      },
    };
    // ── maintenance schedule (src/lifecycle, issue 26): a plugin service, which OpenClaw starts in the
    // gateway only. Registered in both modes (which registration's services start is the host's
    // choice); maintenance-service.ts keeps one schedule per process. ──
    if (config.maintenance) api.registerService?.(maintenanceService({ config: () => api.config, logPrefix: `[${pluginId}]` }));
    // ── end of the maintenance schedule ──
    const reused = !full && fullAdapter?.pluginId === pluginId ? fullAdapter.adapter : undefined;
    const adapter = reused ?? createPluginAdapter({ api: adapterApi, hostVersion, logPrefix: `[${pluginId}]`, selectRemedy: selectRemedyFor(pluginId), staticContextInEngine: true });
    if (!full) {
      onPromptBuild(api, adapter);
      return;
    }
    fullAdapter = { pluginId, adapter };
    // Triage and "remember that …" capture belong to the memory half (the hook pack's ethos-context).
    const triage = config.memory ? createTriageHook({ cfg: () => adapterApi.config, configFrom: (cfg) => adapter.service.configFrom(cfg) }) : undefined;

    api.registerHook?.(
      ["agent:bootstrap"],
      async (event) => {
        startGatewayLog();
        triage?.onAgentBootstrap(event);
        await runBootstrapHook(event, (cfg) => configView(cfg, config));
      },
      { name: `${pluginId}.aci-bootstrap`, description: "Session-aware bootstrap file sets (openclaw-context)" },
    );
    if (triage) {
      api.registerHook?.(
        ["message:received"],
        async (event) => {
          startGatewayLog();
          // Not awaited: the writes may wait on a lock, and the turn must not wait for them.
          void triage.onMessageReceived(event);
        },
        { name: `${pluginId}.triage`, description: "Triage and \"remember that …\" capture of the operator's messages (openclaw-context)" },
      );
    }

    onPromptBuild(api, adapter);
    api.registerContextEngine?.(pluginId, async (factoryCtx) => {
      try {
        const engine = adapter.contextEngine(await loadHostSdk(), factoryCtx?.workspaceDir);
        if (!engine) throw new Error(`not the selected context engine (${adapter.deliveryLine})`);
        return engine;
      } catch (failure) {
        // OpenClaw falls back to its legacy engine; memory goes back to prependContext.
        adapter.engineUnavailable(failure instanceof Error ? failure.message : String(failure));
        throw failure;
      }
    });
    log(api, "info", `serving OpenClaw ${hostVersion}; memory delivery: ${adapter.deliveryLine}`);
  } catch (failure) {
    log(api, "warn", `register failed: ${failure instanceof Error ? failure.message : String(failure)}`);
  }
}

export default {
  id: PACKAGE_PLUGIN_ID,
  name: "openclaw-context",
  description: "Session-aware bootstrap files and same-turn memory for OpenClaw 2026.9+.",
  register,
};
