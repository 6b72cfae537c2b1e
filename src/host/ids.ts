// The names OpenClaw knows us by, in one place.

/** The plugin (OpenClaw 2026.9+): its id in plugins.entries, its context engine, its install folder. */
export const PLUGIN_ID = "openclaw-context";

/** The hook pack (OpenClaw 2026.3): its package name, its folder under <state dir>/hooks/. */
export const HOOK_PACK_ID = "openclaw-context";

/** The retired companion plugin (hook pack + companion on 2026.9): only its migration still names it. */
export const COMPANION_PLUGIN_ID = "openclaw-context-companion";

/** The hook pack's two hooks; their keys in hooks.internal.entries also hold the plugin's options (configView). */
export const HOOK_KEYS = {
  aciBootstrap: "aci-bootstrap",
  ethosContext: "ethos-context",
} as const;

// The record both hooks agree on, whatever order the gateway registers them in:
// ethos-context adds it, aci-bootstrap always keeps it (privacy scope is decided by ethos-context).
export const RETRIEVED_MEMORY_RECORD_NAME = "ETHOS_CONTEXT.md";
