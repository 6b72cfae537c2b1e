// The dmScope warning. With `session.dmScope: "main"` (OpenClaw's default) every DM runs in the
// operator's main session. When a channel's DM policy admits anyone besides the owners, their turns
// share the owner's session history. The bundle still tells senders apart (a non-owner's turn gets
// no USER.md and no personal memory), but the history is OpenClaw's and shared. The rule follows
// OpenClaw's own audit (`channels.<ch>.dm.scope_main_multiuser`), read from openclaw.json alone:
//   effective scope   a binding's session.dmScope for the channel, else session.dmScope, else "main"
//   DM policy         account, else channel (dmPolicy, legacy dm.policy), default "pairing"
//   admits others     "open" with "*" in allowFrom; any allowFrom id that is not an owner;
//                     "pairing": approved senders live in OpenClaw's pairing store, not in the file
// Owners: the bundle's one rule (src/session/owners.ts), the plugin's option objects included.
import { configView, parsePluginConfig } from "../../context/plugin-config.ts";
import { pluginEntry } from "../../context/delivery.ts";
import { isObject } from "../../host/events.ts";
import type { OpenClawConfig } from "../../host/events.ts";
import { canonicalChannel, isOwnerSender, ownerFromEntry, resolveOwners } from "../../session/owners.ts";
import type { DoctorCheck, DoctorFinding } from "./check.ts";

export type SharedDms = { channel: string; account?: string; policy: string; admits: string };

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}

/** The DM scope that applies to a channel: a binding's override for it, else session.dmScope, else "main". */
function dmScopeFor(cfg: OpenClawConfig | undefined, channel: string): string {
  const bindings = Array.isArray(cfg?.bindings) ? cfg.bindings : [];
  for (const binding of bindings) {
    if (!isObject(binding) || !isObject(binding.session)) continue;
    const match = isObject(binding.match) ? text(binding.match.channel) : undefined;
    const scope = text(binding.session.dmScope);
    if (scope && match && canonicalChannel(match) === canonicalChannel(channel)) return scope;
  }
  const session = isObject(cfg?.session) ? cfg.session : undefined;
  return text(session?.dmScope) ?? "main";
}

/** Every channel (and account) whose DMs land in the main session and may come from someone who is not an owner. */
export function sharedMainSessionDms(cfg: OpenClawConfig | undefined): SharedDms[] {
  const plugin = pluginEntry(cfg);
  // The plugin's ownerIds live in its own config; the owner rule reads the hooks' entries.
  const view = plugin ? configView(cfg, parsePluginConfig(plugin.config, { report: false }).config) : cfg;
  const { owners, source } = resolveOwners(view);
  const channels = isObject(cfg?.channels) ? cfg.channels : {};
  const found: SharedDms[] = [];
  for (const [name, channelCfg] of Object.entries(channels)) {
    if (!isObject(channelCfg) || channelCfg.enabled === false) continue;
    const channel = canonicalChannel(name) ?? name.toLowerCase();
    if (dmScopeFor(cfg, channel) !== "main") continue;
    const accounts = isObject(channelCfg.accounts) ? Object.entries(channelCfg.accounts).filter(([, account]) => isObject(account)) : [];
    const scopes: [string | undefined, Record<string, unknown>][] = accounts.length > 0 ? accounts.map(([id, account]) => [id, account as Record<string, unknown>]) : [[undefined, {}]];
    for (const [account, accountCfg] of scopes) {
      const legacy = (object: Record<string, unknown>) => (isObject(object.dm) ? object.dm : {});
      const policy = text(accountCfg.dmPolicy) ?? text(legacy(accountCfg).policy) ?? text(channelCfg.dmPolicy) ?? text(legacy(channelCfg).policy) ?? "pairing";
      if (policy === "disabled") continue;
      const allowRaw = accountCfg.allowFrom ?? legacy(accountCfg).allowFrom ?? channelCfg.allowFrom ?? legacy(channelCfg).allowFrom;
      const allowFrom = Array.isArray(allowRaw) ? allowRaw : [];
      const strangers = allowFrom.filter((entry) => {
        if (entry === "*") return false;
        const owner = ownerFromEntry(entry, channel);
        // With no explicit owner list the allowlists are the owners (OpenClaw 2026.3.13 treats them so too).
        return owner !== undefined && source === "owner-lists" && !isOwnerSender(owners, { channel, id: owner.id });
      });
      let admits: string | undefined;
      if (policy === "open" && allowFrom.includes("*")) admits = "anyone (dmPolicy open, allowFrom has \"*\")";
      else if (strangers.length > 0) admits = `${strangers.length} allowFrom id(s) that are not owners`;
      else if (policy === "pairing") admits = "whoever you approve with openclaw pairing approve (the approvals are in OpenClaw's pairing store, not in openclaw.json)";
      else if (source !== "owner-lists" && allowFrom.filter((entry) => entry !== "*").length > 1) admits = "several allowFrom ids, and no owner list says which one is you";
      if (admits) found.push({ channel, ...(account ? { account } : {}), policy, admits });
    }
  }
  return found;
}

export const dmScopeCheck: DoctorCheck = {
  id: "dmScope",
  run(ctx): DoctorFinding[] {
    const shared = sharedMainSessionDms(ctx.cfg);
    const session = isObject(ctx.cfg?.session) ? ctx.cfg.session : undefined;
    const findings: DoctorFinding[] = [];
    if (shared.length > 0) {
      findings.push({
        level: "warn",
        message: "session.dmScope is \"main\": DMs of people who are not owners run in your main session and share its history",
        detail: [
          ...shared.map((dm) => `${dm.channel}${dm.account ? ` (account ${dm.account})` : ""}: dmPolicy ${dm.policy} admits ${dm.admits}`),
          "openclaw-context gives a non-owner's turn no USER.md and no personal memory, but OpenClaw's session history is shared.",
        ],
        fix: "openclaw config set session.dmScope per-channel-peer (each DM its own session), or set commands.ownerAllowFrom and a dmPolicy of allowlist",
      });
    }
    if (text(session?.groupScope) === "main") {
      findings.push({ level: "warn", message: "session.groupScope is \"main\": groups run in your main session too", fix: "openclaw config set session.groupScope per-group" });
    }
    if (findings.length === 0) findings.push({ level: "ok", message: "no DM policy puts anyone but the owners into the main session" });
    return findings;
  },
};
