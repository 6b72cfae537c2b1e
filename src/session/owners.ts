// Who the operator is. Never hard-coded. One rule, used for DM keys (PRIVATE_DM vs EXTERNAL_DM) and
// for senders (may this message write or read personal memory?), by every adapter:
//   owners = the UNION of every explicit owner list
//     - hooks.internal.entries["aci-bootstrap"].ownerIds
//     - hooks.internal.entries["ethos-context"].scope.ownerIds
//     - commands.ownerAllowFrom (OpenClaw's own owner list, entries like "telegram:123456789")
//   and only when all of those are empty, the channel allowlists:
//     - channels.<ch>.allowFrom and channels.<ch>.accounts.<acct>.allowFrom (each entry on <ch> only)
// The allowlists are a fallback only: they say who may talk to the bot, which can be more people
// than the owner, so they never widen an explicit list.
//
// An owner is an id, qualified by a channel or not. "telegram:4242" (a known channel or alias
// before the first colon, as OpenClaw reads commands.ownerAllowFrom) is 4242 on Telegram only: an
// IRC or Discord user 4242 is someone else. A bare "4242" is 4242 on any channel. Ids are compared
// after Unicode NFC normalisation and nothing else: no trimming (" 4242" is not "4242"), no Unicode
// case folding. ASCII letters are folded for a DM key's peer, because the host lowercases peer ids
// when it builds session keys (a Slack "U07ABC" arrives as "u07abc"), and for a sender on a channel
// whose ids are not case-sensitive; a Matrix or Nostr sender is compared exactly.
import { HOOK_KEYS } from "../host/ids.ts";
import { isObject } from "../host/events.ts";
import type { OpenClawConfig } from "../host/events.ts";
import { resolveHookConfig } from "../host/hook-config.ts";

type OwnerSource = "owner-lists" | "channels.allowFrom" | "none";

/** One owner: an id, on one channel or (channel undefined) on any. */
export type OwnerId = { channel?: string; id: string };

export type ResolvedOwners = {
  owners: OwnerId[];
  source: OwnerSource;
  /** Which explicit lists contributed (for the decision log; names only, never ids). */
  lists: string[];
};

/** Who sent a turn's message, as the host says it (channel lowercased, id as given). */
export type Sender = { channel?: string; id: string };

// OpenClaw 2026.9.6's channel ids and aliases (bundled channel metadata), plus webchat and "tg".
const CHANNEL_IDS = [
  "a2a", "bluebubbles", "buzz", "clickclack", "discord", "feishu", "googlechat", "imessage", "irc", "line", "matrix",
  "mattermost", "msteams", "nextcloud-talk", "nostr", "qa-channel", "raft", "reef", "signal", "slack", "sms",
  "synology-chat", "telegram", "tlon", "twitch", "webchat", "whatsapp", "zalo", "zalouser",
];
const CHANNEL_ALIASES: Record<string, string> = {
  lark: "feishu", gchat: "googlechat", "google-chat": "googlechat", imsg: "imessage", "internet-relay-chat": "irc",
  teams: "msteams", nc: "nextcloud-talk", "nc-talk": "nextcloud-talk", "twitch-chat": "twitch", zl: "zalo", zlu: "zalouser", tg: "telegram",
};
/** Channels whose user ids are case-sensitive: a sender there is compared letter for letter. */
const CASE_SENSITIVE_CHANNELS: ReadonlySet<string | undefined> = new Set(["matrix", "nostr"]);

/** A known channel id or alias, as OpenClaw's id; undefined for anything else. */
export function canonicalChannel(name: string | undefined): string | undefined {
  if (!name) return undefined;
  const key = name.toLowerCase();
  return CHANNEL_IDS.includes(key) ? key : CHANNEL_ALIASES[key];
}

function foldAscii(value: string): string {
  return value.replace(/[A-Z]/g, (letter) => String.fromCharCode(letter.charCodeAt(0) + 32));
}

/** The one comparison form of an id: NFC, nothing trimmed; `foldCase` folds ASCII A–Z only. */
export function comparableId(value: string, foldCase = true): string {
  const normalized = value.normalize("NFC");
  return foldCase ? foldAscii(normalized) : normalized;
}

/**
 * One allowlist entry as an owner. `*` and empty entries identify nobody. `channel` is the list's
 * own channel (channels.<ch>.allowFrom); otherwise a known channel before the first colon qualifies
 * the id ("telegram:123", OpenClaw's "telegram:user:123" too).
 */
export function ownerFromEntry(entry: unknown, channel?: string): OwnerId | undefined {
  // Number.isFinite is false for anything but a finite number (no coercion).
  if (Number.isFinite(entry)) return { channel, id: String(entry) };
  if (typeof entry !== "string" || entry.trim().length === 0 || entry === "*") return undefined;
  const colon = entry.indexOf(":");
  const qualifier = colon === -1 ? undefined : canonicalChannel(entry.slice(0, colon));
  // In a channel's own list an entry names that channel's user ("tg:222" in channels.telegram too).
  if (channel !== undefined && qualifier !== channel) return { channel, id: entry };
  if (!qualifier) return { id: entry };
  const rest = entry.slice(colon + 1);
  const id = /^user:./i.test(rest) ? rest.slice(5) : rest;
  return id.trim().length > 0 && id !== "*" ? { channel: qualifier, id } : undefined;
}

function collect(list: unknown, into: OwnerId[], channel?: string): boolean {
  if (!Array.isArray(list)) return false;
  const before = into.length;
  for (const entry of list) {
    const owner = ownerFromEntry(entry, channel);
    if (owner) into.push(owner);
  }
  return into.length > before;
}

/** Owners given as plain entries (tests, explain): each parsed like an owner-list entry. */
export function ownersFrom(entries: Iterable<string | OwnerId>): OwnerId[] {
  const owners: OwnerId[] = [];
  for (const entry of entries) {
    const owner = isObject(entry) && typeof entry.id === "string" ? (entry as OwnerId) : ownerFromEntry(entry);
    if (owner) owners.push(owner);
  }
  return owners;
}

/**
 * The owners for a config. `extraOwnerIds` is the calling hook's own validated list; it joins
 * the union like the raw lists read from cfg (so passing it or not gives the same answer for a
 * config that carries it).
 */
export function resolveOwners(cfg: OpenClawConfig | undefined, extraOwnerIds?: readonly unknown[]): ResolvedOwners {
  const explicit: OwnerId[] = [];
  const lists: string[] = [];
  const ethosScope = resolveHookConfig(cfg, HOOK_KEYS.ethosContext).scope;
  const sources: Array<[string, unknown]> = [
    ["caller", extraOwnerIds],
    [`${HOOK_KEYS.aciBootstrap}.ownerIds`, resolveHookConfig(cfg, HOOK_KEYS.aciBootstrap).ownerIds],
    [`${HOOK_KEYS.ethosContext}.scope.ownerIds`, isObject(ethosScope) ? ethosScope.ownerIds : undefined],
    ["commands.ownerAllowFrom", isObject(cfg?.commands) ? cfg.commands.ownerAllowFrom : undefined],
  ];
  for (const [name, list] of sources) if (collect(list, explicit) && name !== "caller") lists.push(name);
  if (explicit.length > 0) return { owners: explicit, source: "owner-lists", lists };

  const fromChannels: OwnerId[] = [];
  const channels = isObject(cfg?.channels) ? cfg.channels : {};
  for (const [name, channel] of Object.entries(channels)) {
    if (!isObject(channel)) continue;
    const id = canonicalChannel(name) ?? name.toLowerCase();
    collect(channel.allowFrom, fromChannels, id);
    if (isObject(channel.accounts)) {
      for (const account of Object.values(channel.accounts)) if (isObject(account)) collect(account.allowFrom, fromChannels, id);
    }
  }
  if (fromChannels.length > 0) return { owners: fromChannels, source: "channels.allowFrom", lists: ["channels.allowFrom"] };
  return { owners: [], source: "none", lists: [] };
}

function onChannel(owner: OwnerId, channel: string | undefined): boolean {
  return owner.channel === undefined || owner.channel === canonicalChannel(channel) || owner.channel === channel?.toLowerCase();
}

/** Is a DM key's peer (lowercased by the host) one of the owners, on the key's channel? */
export function isOwnerPeer(owners: readonly OwnerId[], channel: string | undefined, peerId: string): boolean {
  if (!peerId.trim()) return false;
  const peer = comparableId(peerId);
  return owners.some((owner) => onChannel(owner, channel) && comparableId(owner.id) === peer);
}

/** Is this sender one of the owners, on the sender's channel? */
export function isOwnerSender(owners: readonly OwnerId[], sender: Sender): boolean {
  if (!sender.id.trim()) return false;
  const fold = !CASE_SENSITIVE_CHANNELS.has(canonicalChannel(sender.channel));
  const id = comparableId(sender.id, fold);
  return owners.some((owner) => onChannel(owner, sender.channel) && comparableId(owner.id, fold) === id);
}

/** Custom main keys: `session.mainKey` (honoured by older hosts; 2026.9.6 fixes the suffix to "main"). */
export function resolveMainKeys(cfg: OpenClawConfig | undefined): string[] {
  const session = isObject(cfg?.session) ? cfg.session : undefined;
  const mainKey = session?.mainKey;
  return typeof mainKey === "string" && mainKey.trim() ? ["main", mainKey.trim().toLowerCase()] : ["main"];
}
