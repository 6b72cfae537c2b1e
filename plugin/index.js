// openclaw-context companion plugin: the JavaScript entry OpenClaw 2026.9 needs ("requires compiled
// runtime output for TypeScript entry"). It only decides whether to serve, finds the hook pack's
// TypeScript core, and registers one before_prompt_build handler; the work is in adapter.ts, which
// runs under Node's type stripping from the installed hook pack (never from node_modules: Node
// refuses to strip types there).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const PLUGIN_ID = "openclaw-context-companion";
const PACK_ID = "openclaw-context";
/** Same key as src/context/delivery.ts: the ethos-context hook adds no record while this is set. */
const DELIVERY_CLAIM = Symbol.for("openclaw-context.memory-delivery");
/** First host line where prependContext stays out of the transcript and the system prompt has a cache boundary. */
const FIRST_SERVED_VERSION = [2026, 9, 0];

const here = path.dirname(fileURLToPath(import.meta.url));

function versionParts(version) {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(String(version ?? ""));
  return match ? match.slice(1, 4).map(Number) : undefined;
}

/** True on hosts this plugin serves; false (stand aside) on older or unknown ones. */
export function servesHost(version) {
  const parts = versionParts(version);
  if (!parts) return false;
  for (let i = 0; i < 3; i += 1) if (parts[i] !== FIRST_SERVED_VERSION[i]) return parts[i] > FIRST_SERVED_VERSION[i];
  return true;
}

/**
 * The host's version: `api.runtime.version` (2026.9), else the `openclaw` package the gateway runs
 * from (2026.3.13 answers "unknown" there), else the version that last wrote openclaw.json.
 */
export function hostVersionOf(api, entryScript = process.argv[1]) {
  const fromRuntime = api?.runtime?.version;
  if (versionParts(fromRuntime)) return fromRuntime;
  const host = hostPackageOf(entryScript);
  if (host) return host.version;
  const touched = api?.config?.meta?.lastTouchedVersion;
  return versionParts(touched) ? touched : undefined;
}

/** The `openclaw` package the gateway runs from: its folder and version, found from the entry script. */
export function hostPackageOf(entryScript = process.argv[1]) {
  try {
    let dir = path.dirname(fs.realpathSync(entryScript));
    for (let depth = 0; depth < 4; depth += 1) {
      const manifest = path.join(dir, "package.json");
      if (fs.existsSync(manifest)) {
        const parsed = JSON.parse(fs.readFileSync(manifest, "utf8"));
        if (parsed?.name === "openclaw" && versionParts(parsed.version)) return { dir, version: parsed.version };
      }
      dir = path.dirname(dir);
    }
  } catch {
    /* not found */
  }
  return undefined;
}

/**
 * The running host's plugin SDK (`openclaw/plugin-sdk/core`: delegateCompactionToRuntime,
 * buildMemorySystemPromptAddition), imported from the host's own files so the engine shares the
 * host's module state. The plugin folder has no `openclaw` dependency of its own.
 */
async function loadHostSdk() {
  const host = hostPackageOf();
  if (!host) throw new Error("the running openclaw package was not found (process.argv[1])");
  const sdk = await import(pathToFileURL(path.join(host.dir, "dist", "plugin-sdk", "core.js")).href);
  if (typeof sdk.delegateCompactionToRuntime !== "function") throw new Error("openclaw/plugin-sdk/core has no delegateCompactionToRuntime");
  return sdk;
}

function isBundleRoot(dir) {
  return fs.existsSync(path.join(dir, "plugin", "adapter.ts")) && fs.existsSync(path.join(dir, "src", "context", "service.ts"));
}

/** The installed hook pack whose src/ this plugin runs: configured, the folder around it, or under the state dir. */
export function resolveBundleRoot(pluginConfig, env = process.env) {
  const stateDir = env.OPENCLAW_STATE_DIR ? path.resolve(env.OPENCLAW_STATE_DIR) : path.join(os.homedir(), ".openclaw");
  const candidates = [
    typeof pluginConfig?.bundleDir === "string" ? path.resolve(pluginConfig.bundleDir) : undefined,
    path.resolve(here, ".."),
    path.join(stateDir, "hooks", PACK_ID),
    path.join(stateDir, "extensions", PACK_ID),
  ].filter(Boolean);
  return candidates.find((dir) => isBundleRoot(dir) && !dir.split(path.sep).includes("node_modules"));
}

function log(api, level, message) {
  const logger = api?.logger;
  const write = logger && typeof logger[level] === "function" ? logger[level].bind(logger) : level === "debug" ? undefined : console.error;
  write?.(`[${PLUGIN_ID}] ${message}`);
}

export default {
  id: PLUGIN_ID,
  name: "openclaw-context companion",
  description: "Memory as prependContext, SOUL.md for subagents, HEARTBEAT.md for cron runs.",
  register(api) {
    try {
      const hostVersion = hostVersionOf(api);
      if (!servesHost(hostVersion)) {
        // 2026.3.13 writes prependContext into the transcript and shows it to the user: the hook pack's
        // record in Project Context stays the delivery there (docs/plugin.md).
        log(api, "info", `stands aside on OpenClaw ${hostVersion ?? "(unknown version)"}: the ethos-context hook keeps delivering memory`);
        return;
      }
      const entry = api?.config?.plugins?.entries?.[api?.id ?? PLUGIN_ID];
      if (entry?.hooks?.allowConversationAccess !== true) {
        log(api, "warn", `plugins.entries.${PLUGIN_ID}.hooks.allowConversationAccess is not true: before_prompt_build is blocked, the ethos-context hook keeps delivering memory (run npm run install-hooks)`);
        return;
      }
      const root = resolveBundleRoot(api.pluginConfig);
      if (!root) {
        log(api, "error", `the ${PACK_ID} hook pack was not found (set plugins.entries.${PLUGIN_ID}.config.bundleDir); serving nothing`);
        return;
      }
      const memory = api.pluginConfig?.memory !== false;
      if (memory) globalThis[DELIVERY_CLAIM] = { owner: "plugin", pluginId: PLUGIN_ID, hostVersion, since: Date.now() };
      const adapter = import(pathToFileURL(path.join(root, "plugin", "adapter.ts")).href)
        .then((module) => {
          module.startInGateway?.();
          return module.createPluginAdapter({ api, hostVersion, bundleRoot: root });
        })
        .catch((error) => {
          // The hook path takes over again: better the old delivery than none.
          if (memory) delete globalThis[DELIVERY_CLAIM];
          log(api, "error", `could not load ${path.join(root, "plugin", "adapter.ts")}: ${error?.message ?? error}`);
          return undefined;
        });
      api.on("before_prompt_build", async (event, ctx) => {
        try {
          const ready = await adapter;
          return ready ? await ready.beforePromptBuild(event, ctx) : undefined;
        } catch (error) {
          log(api, "warn", `before_prompt_build failed; turn continues without it: ${error?.message ?? error}`);
          return undefined;
        }
      });
      if (typeof api.registerContextEngine === "function") {
        // Registered always; OpenClaw resolves it only when plugins.slots.contextEngine names it.
        api.registerContextEngine(api?.id ?? PLUGIN_ID, async (factoryCtx) => {
          const ready = await adapter;
          if (!ready) throw new Error("adapter not loaded");
          try {
            const engine = ready.contextEngine(await loadHostSdk(), factoryCtx?.workspaceDir);
            if (!engine) throw new Error(`not the selected context engine (${ready.deliveryLine})`);
            return engine;
          } catch (error) {
            // OpenClaw falls back to its legacy engine; memory goes back to prependContext.
            ready.engineUnavailable(error?.message ?? String(error));
            throw error;
          }
        });
      }
      adapter.then((ready) => ready && log(api, "info", `memory delivery: ${ready.deliveryLine}`));
      log(api, "info", `serving OpenClaw ${hostVersion} from ${root}`);
    } catch (error) {
      log(api, "warn", `register failed: ${error?.message ?? error}`);
    }
  },
};
