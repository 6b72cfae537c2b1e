// OpenClaw's bootstrap budgets, resolved as core resolves them (dist bootstrap-*.mjs
// resolveBootstrapCharLimit): per-agent entry, then agents.defaults, then 20,000 / 60,000 chars.
// Core spends the total budget in array order, so records appended by hooks are the first dropped.
import { isObject } from "../host/events.ts";
import type { OpenClawConfig } from "../host/events.ts";

const DEFAULT_BOOTSTRAP_MAX_CHARS = 20_000;
const DEFAULT_BOOTSTRAP_TOTAL_MAX_CHARS = 60_000;
/** Core caps USER.md (matched by name) at this many chars. */
const USER_BOOTSTRAP_MAX_CHARS = 4_000;
/** Below this many remaining chars core skips every further file. */
export const MIN_BOOTSTRAP_FILE_BUDGET_CHARS = 64;

export type BootstrapLimits = { maxChars: number; totalMaxChars: number };


/** `agents.entries.<id>` or an `agents.list[]` item with that id (core accepts both rosters). */
function agentEntry(cfg: OpenClawConfig | undefined, agentId: string | undefined): Record<string, unknown> | undefined {
  const agents = isObject(cfg?.agents) ? cfg.agents : undefined;
  if (!agents || !agentId) return undefined;
  const id = agentId.trim().toLowerCase();
  if (isObject(agents.entries)) {
    for (const [key, entry] of Object.entries(agents.entries)) if (key.toLowerCase() === id && isObject(entry)) return entry;
    return undefined;
  }
  if (Array.isArray(agents.list)) {
    return agents.list.find((entry): entry is Record<string, unknown> => isObject(entry) && String(entry.id ?? "").toLowerCase() === id);
  }
  return undefined;
}

function positive(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;
}

export function resolveBootstrapLimits(cfg: OpenClawConfig | undefined, agentId: string | undefined): BootstrapLimits {
  const entry = agentEntry(cfg, agentId);
  const defaults = isObject(cfg?.agents) && isObject(cfg.agents.defaults) ? cfg.agents.defaults : {};
  return {
    maxChars: positive(entry?.bootstrapMaxChars) ?? positive(defaults.bootstrapMaxChars) ?? DEFAULT_BOOTSTRAP_MAX_CHARS,
    totalMaxChars:
      positive(entry?.bootstrapTotalMaxChars) ?? positive(defaults.bootstrapTotalMaxChars) ?? DEFAULT_BOOTSTRAP_TOTAL_MAX_CHARS,
  };
}

export type BudgetedRecord = { name: string; path: string; content?: string; missing?: boolean };
export type InjectedEstimate = { name: string; rawChars: number; injectedChars: number; truncated: boolean };

/**
 * Estimate what core's buildBootstrapContextFiles injects: array order, per-file cap (USER.md 4,000),
 * total cap, `[MISSING]` markers spend budget, empty content is skipped. Truncation is counted at
 * the cap (core adds short markers; close enough for token estimates).
 */
export function estimateInjection(records: readonly BudgetedRecord[], limits: BootstrapLimits): InjectedEstimate[] {
  let remaining = Math.max(1, limits.totalMaxChars);
  const injected: InjectedEstimate[] = [];
  for (const record of records) {
    if (remaining <= 0) break;
    if (!record.path) continue;
    if (record.missing) {
      const marker = Math.min(`[MISSING] Expected at: ${record.path}`.length, remaining);
      remaining -= marker;
      injected.push({ name: record.name, rawChars: 0, injectedChars: marker, truncated: false });
      continue;
    }
    if (remaining < MIN_BOOTSTRAP_FILE_BUDGET_CHARS) break;
    // Only string content counts (a Buffer or other object from a foreign hook is not text core injects).
    const raw = typeof record.content === "string" ? record.content.trimEnd().length : 0;
    if (raw === 0) continue;
    const fileCap = record.name === "USER.md" ? Math.min(limits.maxChars, USER_BOOTSTRAP_MAX_CHARS) : limits.maxChars;
    const chars = Math.min(raw, fileCap, remaining);
    remaining -= chars;
    injected.push({ name: record.name, rawChars: raw, injectedChars: chars, truncated: chars < raw });
  }
  return injected;
}
