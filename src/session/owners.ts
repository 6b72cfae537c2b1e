// Owner detection: which DM peers are the operator (PRIVATE_DM) rather than someone else (EXTERNAL_DM).
// Never hard-coded. One rule, used by both hooks (aci-bootstrap and ethos-context), so the two can
// never disagree about the same DM:
//   owners = the UNION of every explicit owner list
//     - hooks.internal.entries["aci-bootstrap"].ownerIds
//     - hooks.internal.entries["ethos-context"].scope.ownerIds
//     - commands.ownerAllowFrom (core's own owner list, entries like "telegram:123456789")
//   and only when all of those are empty, the channel allowlists:
//     - channels.<ch>.allowFrom and channels.<ch>.accounts.<acct>.allowFrom
// The allowlists are a fallback only: they say who may talk to the bot, which can be more people
// than the owner, so they never widen an explicit list. Core uses the same order to find the
// operator's DM for heartbeat delivery (docs/gateway/heartbeat.md).
//
// Ids are compared exactly, except ASCII letters A–Z, which are folded to a–z because the host
// lowercases peer ids when it builds session keys (a Slack "U07ABC" arrives as "u07abc"). There is
// no Unicode case folding: the Kelvin sign "\u212a777" is not "k777".
import { HOOK_KEYS } from "../host/ids.ts";
import { isObject } from "../host/events.ts";
import type { OpenClawConfig } from "../host/events.ts";
import { resolveHookConfig } from "../host/hook-config.ts";

export type OwnerSource = "owner-lists" | "channels.allowFrom" | "none";
export type ResolvedOwners = {
  ids: Set<string>;
  source: OwnerSource;
  /** Which explicit lists contributed (for the decision log; names only, never ids). */
  lists: string[];
};

/** The one comparison form of a peer or owner id: ASCII-trimmed, A–Z folded, nothing else changed. */
export function foldId(value: string): string {
  return value.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, "").replace(/[A-Z]/g, (letter) => String.fromCharCode(letter.charCodeAt(0) + 32));
}

/**
 * Comparison ids for one allowlist entry. `*` identifies nobody. A prefixed entry (`telegram:123`,
 * `tg:123`, `uuid:…`) also yields its tail, because session keys carry the bare peer id.
 */
export function ownerIdsFromEntry(entry: unknown): string[] {
  if (typeof entry === "number" && Number.isFinite(entry)) return [String(entry)];
  if (typeof entry !== "string") return [];
  const value = foldId(entry);
  if (!value || value === "*") return [];
  const ids = [value];
  const colon = value.indexOf(":");
  if (colon > 0 && colon < value.length - 1) ids.push(value.slice(colon + 1));
  return ids;
}

function collect(list: unknown, into: Set<string>): boolean {
  if (!Array.isArray(list)) return false;
  const before = into.size;
  for (const entry of list) for (const id of ownerIdsFromEntry(entry)) into.add(id);
  return into.size > before;
}

/**
 * The owner ids for a config. `extraOwnerIds` is the calling hook's own validated list; it joins
 * the union like the raw lists read from cfg (so passing it or not gives the same answer for a
 * config that carries it).
 */
export function resolveOwnerIds(cfg: OpenClawConfig | undefined, extraOwnerIds?: readonly unknown[]): ResolvedOwners {
  const explicit = new Set<string>();
  const lists: string[] = [];
  const ethosScope = resolveHookConfig(cfg, HOOK_KEYS.ethosContext).scope;
  const sources: Array<[string, unknown]> = [
    ["caller", extraOwnerIds],
    [`${HOOK_KEYS.aciBootstrap}.ownerIds`, resolveHookConfig(cfg, HOOK_KEYS.aciBootstrap).ownerIds],
    [`${HOOK_KEYS.ethosContext}.scope.ownerIds`, isObject(ethosScope) ? ethosScope.ownerIds : undefined],
    ["commands.ownerAllowFrom", isObject(cfg?.commands) ? cfg.commands.ownerAllowFrom : undefined],
  ];
  for (const [name, list] of sources) if (collect(list, explicit) && name !== "caller") lists.push(name);
  if (explicit.size > 0) return { ids: explicit, source: "owner-lists", lists };

  const fromChannels = new Set<string>();
  const channels = isObject(cfg?.channels) ? cfg.channels : {};
  for (const channel of Object.values(channels)) {
    if (!isObject(channel)) continue;
    collect(channel.allowFrom, fromChannels);
    if (isObject(channel.accounts)) {
      for (const account of Object.values(channel.accounts)) if (isObject(account)) collect(account.allowFrom, fromChannels);
    }
  }
  if (fromChannels.size > 0) return { ids: fromChannels, source: "channels.allowFrom", lists: ["channels.allowFrom"] };
  return { ids: new Set(), source: "none", lists: [] };
}

/** Custom main keys: `session.mainKey` (honoured by older hosts; 2026.9.6 fixes the suffix to "main"). */
export function resolveMainKeys(cfg: OpenClawConfig | undefined): string[] {
  const session = isObject(cfg?.session) ? cfg.session : undefined;
  const mainKey = session?.mainKey;
  return typeof mainKey === "string" && mainKey.trim() ? ["main", mainKey.trim().toLowerCase()] : ["main"];
}
