// Who else may be talking in the owner's main session. OpenClaw's default `session.dmScope` is
// "main": every direct message the DM policy admits runs in `agent:<id>:main`. Where the host names
// the sender the bundle decides by it (identity.ts); where it does not (an `agent` RPC turn, a
// heartbeat), the session key is all there is, so `status` warns when the config lets people other
// than the owners into that session. The rule mirrors OpenClaw's own DM admission (dmPolicy default
// "pairing"; "open" with "*" admits anyone; "allowlist" exactly allowFrom; "pairing" allowFrom plus
// senders approved later, which openclaw.json cannot list). Read from openclaw.json alone.
import { isObject } from "../host/events.ts";
import type { OpenClawConfig } from "../host/events.ts";
import { canonicalChannel, isOwnerSender, ownerFromEntry } from "./owners.ts";
import type { OwnerId } from "./owners.ts";

export type SharedMainWarning = { channel: string; reason: string };

/** Whether DMs share the main session: `session.dmScope` (default "main") or any binding that sets "main". */
export function dmScopeIsMain(cfg: OpenClawConfig | undefined): boolean {
  const session = isObject(cfg?.session) ? cfg.session : undefined;
  const scope = typeof session?.dmScope === "string" ? session.dmScope : "main";
  if (scope === "main") return true;
  const bindings = Array.isArray(cfg?.bindings) ? cfg.bindings : [];
  return bindings.some((binding) => isObject(binding) && isObject(binding.session) && binding.session.dmScope === "main");
}

/** One warning per channel (or account) whose DM policy may admit someone who is not an owner into the main session. */
export function sharedMainWarnings(cfg: OpenClawConfig | undefined, owners: readonly OwnerId[]): SharedMainWarning[] {
  if (!dmScopeIsMain(cfg)) return [];
  const warnings: SharedMainWarning[] = [];
  const channels = isObject(cfg?.channels) ? cfg.channels : {};
  for (const [name, channelConfig] of Object.entries(channels)) {
    if (!isObject(channelConfig) || channelConfig.enabled === false) continue;
    const channel = canonicalChannel(name) ?? name.toLowerCase();
    const accounts = isObject(channelConfig.accounts) ? Object.entries(channelConfig.accounts).filter(([, account]) => isObject(account)) : [];
    const scopes: Array<[string, Record<string, unknown>]> = accounts.length > 0 ? accounts.map(([id, account]) => [`${name}.accounts.${id}`, { ...channelConfig, ...(account as Record<string, unknown>) }]) : [[name, channelConfig]];
    for (const [where, settings] of scopes) {
      const dm = isObject(settings.dm) ? settings.dm : {};
      const policy = typeof settings.dmPolicy === "string" ? settings.dmPolicy : typeof dm.policy === "string" ? dm.policy : "pairing";
      const allowFrom: unknown[] = Array.isArray(settings.allowFrom) ? settings.allowFrom : Array.isArray(dm.allowFrom) ? dm.allowFrom : [];
      if (policy === "disabled") continue;
      if (policy === "open" && allowFrom.includes("*")) {
        warnings.push({ channel: where, reason: `dmPolicy "open" with "*": anyone who DMs the bot runs in the main session` });
        continue;
      }
      // Each entry read as owners.ts reads an allowlist entry of this channel ("telegram:4242", "4242", 4242).
      const others = allowFrom.flatMap((entry) => ownerFromEntry(entry, channel) ?? []).filter((admitted) => !isOwnerSender(owners, { channel, id: admitted.id }));
      if (others.length > 0) warnings.push({ channel: where, reason: `allowFrom admits ${others.length} id(s) that are not owners into the main session` });
      if (policy === "pairing") warnings.push({ channel: where, reason: `dmPolicy "pairing" (the default): anyone you approve with openclaw pairing approve runs in the main session` });
    }
  }
  return warnings;
}
