import { isObject } from "./events.ts";
import type { OpenClawConfig } from "./events.ts";

/** Our hook's own entry: `hooks.internal.entries[<hookKey>]`, minus OpenClaw's `enabled`/`env`. */
export function resolveHookConfig(cfg: OpenClawConfig | undefined, hookKey: string): Record<string, unknown> {
  const hooks = isObject(cfg?.hooks) ? cfg.hooks : undefined;
  const internal = isObject(hooks?.internal) ? hooks.internal : undefined;
  const entries = isObject(internal?.entries) ? internal.entries : undefined;
  const entry = isObject(entries?.[hookKey]) ? { ...(entries[hookKey] as Record<string, unknown>) } : {};
  delete entry.enabled;
  delete entry.env;
  return entry;
}

/**
 * Whether a hook of ours runs for this config: `hooks.internal.enabled` is not false and the hook's
 * entry says `enabled: true` (OpenClaw loads a hook pack's hooks only then; the plugin's configView
 * writes the same switch from its own settings). The one answer for delivery, explain and status.
 */
export function hookEnabled(cfg: OpenClawConfig | undefined, hookKey: string): boolean {
  const hooks = isObject(cfg?.hooks) ? cfg.hooks : undefined;
  const internal = isObject(hooks?.internal) ? hooks.internal : undefined;
  const entries = isObject(internal?.entries) ? internal.entries : undefined;
  const entry = isObject(entries?.[hookKey]) ? entries[hookKey] : undefined;
  return internal?.enabled !== false && entry?.enabled === true;
}
