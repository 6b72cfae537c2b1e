// The plugin for OpenClaw 2026.9+ (`npm run build:plugin` compiles this file and everything it
// imports into dist/plugin/index.js). register(): type guards, the config read once, the one
// service built once, every registration, and a catch. Each handler calls into the core:
//   agent:bootstrap, message:received  (api.registerHook: file sets; sender, triage and capture)
//   the context engine                 (memory as OpenClaw's runtime-context carrier)
//   before_prompt_build                (prependContext where the engine cannot serve)
//   openclaw context …                 (api.registerCli: the operator commands)
//   the maintenance schedule           (api.registerService: src/lifecycle, in the gateway only)
import { getLogger, logToGatewayFile } from "../core/log.ts";
import type { OpenClawConfig } from "../host/events.ts";
import { PLUGIN_ID } from "../host/ids.ts";
import { bridgeToHostLogger } from "../host/logger.ts";
import type { PluginApi } from "../host/plugin-api.ts";
import { loadHostSdk } from "../host/sdk.ts";
import { hostVersionOf, pluginServesHost } from "../host/version.ts";
import { parseEthosContextConfig } from "../context/config.ts";
import { createConfigViews, parsePluginConfig } from "../context/plugin-config.ts";
import { createContextService } from "../context/turn-service.ts";
import { CONTEXT_COMMAND } from "../ops/commands/index.ts";
import { registerContextCommands } from "./cli.ts";
import { createPluginHooks } from "./hooks.ts";
import { maintenanceService } from "./maintenance-service.ts";
import { createPluginTurns } from "./turns.ts";
import type { PluginTurns } from "./turns.ts";

const log = () => getLogger(PLUGIN_ID);

let gatewayLogStarted = false;
/** Inside the gateway (a hook fired, not a CLI run): our records also go to our own log file, where status reads them. */
function startGatewayLog(): void {
  if (gatewayLogStarted) return;
  gatewayLogStarted = true;
  logToGatewayFile();
}

/** The turn adapter of the last "full" registration, which the "discovery" one reuses (one service per process). */
let fullTurns: PluginTurns | undefined;

function onPromptBuild(api: PluginApi, turns: PluginTurns): void {
  api.on?.("before_prompt_build", async (event, ctx) => {
    startGatewayLog();
    return turns.beforePromptBuild(event, ctx);
  });
}

export function register(api: PluginApi): void {
  try {
    api.registerCli?.(({ program }) => registerContextCommands(program), { descriptors: [CONTEXT_COMMAND] });
    // The gateway registers the plugin twice: "full", then "discovery" (2026.9.6), and runs the typed
    // hooks (before_prompt_build) of the second registration only. So "discovery" registers that one
    // hook again; everything with a process-wide effect (internal hooks, the engine) stays "full"
    // only, or triage would capture twice. In "cli-metadata" api.runtime throws: the command only.
    const mode = api.registrationMode;
    const full = mode === undefined || mode === "full";
    if (!full && mode !== "discovery") return;
    // Every record of ours goes to OpenClaw's own log (`openclaw logs`) through api.logger.
    if (full) bridgeToHostLogger(api.logger);
    const hostVersion = hostVersionOf(api);
    if (!pluginServesHost(hostVersion)) {
      if (full) log().info({ hostVersion }, `stands aside on OpenClaw ${hostVersion ?? "(unknown version)"}: install the hook pack there (npm run install-hooks)`);
      return;
    }
    // The config, read once per registration; every valid key applies. Each bad key is logged by
    // the gateway's "full" registration only: "discovery" follows it in the gateway and is the only
    // one in a CLI run (`openclaw context …`, where status and doctor report the config themselves).
    const { config } = parsePluginConfig(api.pluginConfig, { report: full });
    if (!config.enabled) {
      if (full) log().info({}, "enabled: false: OpenClaw's default bootstrap files, no memory");
      return;
    }
    // The maintenance schedule: a service, which OpenClaw starts in the gateway only. Registered in
    // both registrations (which one's services start is the host's choice); the service keeps one
    // schedule per process. Off with the plugin's `maintenance: false` or the memory options' own.
    if (config.maintenance && parseEthosContextConfig(config.ethosContext).config.maintenance) api.registerService?.(maintenanceService({ config: () => api.config, logPrefix: `[${PLUGIN_ID}]` }));
    if (!full && fullTurns) {
      onPromptBuild(api, fullTurns);
      return;
    }
    const views = createConfigViews(config);
    const cfg = (hostCfg?: OpenClawConfig) => views(hostCfg ?? api.config);
    const context = createContextService();
    const turns = createPluginTurns({ context, config, cfg });
    if (!full) {
      onPromptBuild(api, turns);
      return;
    }
    fullTurns = turns;
    const hooks = createPluginHooks({ context, cfg });
    api.registerHook?.(["agent:bootstrap"], (event) => (startGatewayLog(), hooks.onAgentBootstrap(event)), { name: `${PLUGIN_ID}.aci-bootstrap`, description: "Session-aware bootstrap file sets (openclaw-context)" });
    api.registerHook?.(
      ["message:received"],
      async (event) => {
        startGatewayLog();
        // Not awaited: the writes may wait on a lock, and the turn must not wait for them.
        void hooks.onMessageReceived(event);
      },
      { name: `${PLUGIN_ID}.triage`, description: "Sender, triage and \"remember that …\" capture of the operator's messages (openclaw-context)" },
    );
    onPromptBuild(api, turns);
    api.registerContextEngine?.(PLUGIN_ID, async (factoryCtx) => {
      try {
        const engine = turns.contextEngine(await loadHostSdk(), factoryCtx?.workspaceDir);
        if (!engine) throw new Error(`not the selected context engine (${turns.deliveryLine})`);
        return engine;
      } catch (failure) {
        // OpenClaw falls back to its legacy engine; memory goes back to prependContext.
        turns.engineUnavailable(failure instanceof Error ? failure.message : String(failure));
        throw failure;
      }
    });
    log().info({ hostVersion }, `serving OpenClaw ${hostVersion}; memory delivery: ${turns.deliveryLine}`);
  } catch (failure) {
    try {
      log().warn({ err: failure instanceof Error ? failure.message : String(failure) }, "register failed");
    } catch {
      // nothing left to report with
    }
  }
}

// `openclaw doctor` reads these through doctor-contract-api.js, next to index.js in the package.
export { legacyConfigRules, normalizeCompatibilityConfig } from "./doctor-contract.ts";

export default {
  id: PLUGIN_ID,
  name: "openclaw-context",
  description: "Session-aware bootstrap files and same-turn memory for OpenClaw 2026.9+.",
  register,
};
