// The plugin's doctor contract (OpenClaw 2026.9+): `openclaw doctor` loads `doctor-contract-api.js`
// from the installed package (it re-exports these two from index.js) and
//   - lists every key of plugins.entries.openclaw-context.config that the plugin ignores (an unknown
//     key with its "did you mean", a value of the wrong type) under "Legacy config keys detected";
//   - on `openclaw doctor --fix`, removes exactly those keys, and nothing else of the entry.
// Without it, a config OpenClaw rejected was "repaired" by quarantining the whole entry (config
// deleted, plugin disabled). The manifest's schema is open, so OpenClaw no longer rejects our keys;
// this is how its doctor still names them. HOOK_ASSUMPTIONS.md "Plugin config" has the evidence.
import { isObject } from "../host/events.ts";
import { PLUGIN_ID } from "../host/ids.ts";
import { PLUGIN_CONFIG_PATH, parsePluginConfig } from "../context/plugin-config.ts";
import type { OpenClawConfig } from "../host/events.ts";

const CONFIG_PATH = ["plugins", "entries", PLUGIN_ID, "config"];

/** The issues of a value at plugins.entries.<id>.config, never logged (doctor reports them itself). */
function issuesOf(value: unknown) {
  return parsePluginConfig(value, { report: false }).issues;
}

let lastMatched: string[] = [];

/** One rule on our entry; its message is the list of what the last match found. */
export const legacyConfigRules = [
  {
    path: CONFIG_PATH,
    get message(): string {
      return `${PLUGIN_ID} ignores ${lastMatched.join("; ")}. Every other setting applies; openclaw doctor --fix removes only these keys.`;
    },
    match(value: unknown): boolean {
      try {
        // The rule's path is printed before the message: the keys below it are enough.
        lastMatched = issuesOf(value).map((issue) => `${issue.key.slice(PLUGIN_CONFIG_PATH.length + 1)}: ${issue.reason}`);
      } catch {
        lastMatched = [];
      }
      return lastMatched.length > 0;
    },
  },
];

/** `openclaw doctor --fix`: the entry's config without the keys the plugin ignores. */
export function normalizeCompatibilityConfig(input: { cfg?: OpenClawConfig }): { config: OpenClawConfig | undefined; changes: string[] } {
  const cfg = input?.cfg;
  try {
    const plugins = isObject(cfg?.plugins) ? cfg.plugins : undefined;
    const entries = isObject(plugins?.entries) ? plugins.entries : undefined;
    const entry = isObject(entries?.[PLUGIN_ID]) ? (entries[PLUGIN_ID] as Record<string, unknown>) : undefined;
    if (!entry || !isObject(entry.config)) return { config: cfg, changes: [] };
    const parsed = parsePluginConfig(entry.config, { report: false });
    if (parsed.issues.length === 0) return { config: cfg, changes: [] };
    const next = structuredClone(cfg) as OpenClawConfig;
    ((next.plugins as Record<string, Record<string, Record<string, unknown>>>).entries[PLUGIN_ID]).config = parsed.input;
    return { config: next, changes: parsed.issues.map((issue) => `removed ${issue.key}: ${issue.reason}`) };
  } catch {
    return { config: cfg, changes: [] };
  }
}
