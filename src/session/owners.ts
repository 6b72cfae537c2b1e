// Owner detection: which DM peers are the operator (PRIVATE_DM) rather than someone else (EXTERNAL_DM).
// Never hard-coded. Sources, first non-empty wins:
//   1. the hook's own entry: hooks.internal.entries["aci-bootstrap"].ownerIds
//   2. commands.ownerAllowFrom (core's explicit owner list, entries like "telegram:123456789")
//   3. channel allowlists: channels.<ch>.allowFrom and channels.<ch>.accounts.<acct>.allowFrom
// Core uses the same order to find the operator's DM for heartbeat delivery (docs/gateway/heartbeat.md).
import { isObject } from "../openclaw/events.ts";
import type { OpenClawConfig } from "../openclaw/events.ts";

export type OwnerSource = "hook-config" | "commands.ownerAllowFrom" | "channels.allowFrom" | "none";
export type ResolvedOwners = { ids: Set<string>; source: OwnerSource };

/**
 * Lowercased ids for one allowlist entry. `*` identifies nobody. A prefixed entry (`telegram:123`,
 * `tg:123`, `uuid:…`) also yields its tail, because session keys carry the bare peer id.
 */
export function ownerIdsFromEntry(entry: unknown): string[] {
  if (typeof entry === "number" && Number.isFinite(entry)) return [String(entry)];
  if (typeof entry !== "string") return [];
  const value = entry.trim().toLowerCase();
  if (!value || value === "*") return [];
  const ids = [value];
  const colon = value.indexOf(":");
  if (colon > 0 && colon < value.length - 1) ids.push(value.slice(colon + 1));
  return ids;
}

function collect(list: unknown, into: Set<string>): void {
  if (!Array.isArray(list)) return;
  for (const entry of list) for (const id of ownerIdsFromEntry(entry)) into.add(id);
}

export function resolveOwnerIds(cfg: OpenClawConfig | undefined, hookOwnerIds?: readonly string[]): ResolvedOwners {
  const fromHook = new Set<string>();
  collect(hookOwnerIds, fromHook);
  if (fromHook.size > 0) return { ids: fromHook, source: "hook-config" };

  const fromCommands = new Set<string>();
  collect(isObject(cfg?.commands) ? cfg.commands.ownerAllowFrom : undefined, fromCommands);
  if (fromCommands.size > 0) return { ids: fromCommands, source: "commands.ownerAllowFrom" };

  const fromChannels = new Set<string>();
  const channels = isObject(cfg?.channels) ? cfg.channels : {};
  for (const channel of Object.values(channels)) {
    if (!isObject(channel)) continue;
    collect(channel.allowFrom, fromChannels);
    if (isObject(channel.accounts)) {
      for (const account of Object.values(channel.accounts)) if (isObject(account)) collect(account.allowFrom, fromChannels);
    }
  }
  if (fromChannels.size > 0) return { ids: fromChannels, source: "channels.allowFrom" };
  return { ids: new Set(), source: "none" };
}

/** Custom main keys: `session.mainKey` (honoured by older hosts; 2026.9.6 fixes the suffix to "main"). */
export function resolveMainKeys(cfg: OpenClawConfig | undefined): string[] {
  const session = isObject(cfg?.session) ? cfg.session : undefined;
  const mainKey = session?.mainKey;
  return typeof mainKey === "string" && mainKey.trim() ? ["main", mainKey.trim().toLowerCase()] : ["main"];
}
