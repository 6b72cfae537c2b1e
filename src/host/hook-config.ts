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
