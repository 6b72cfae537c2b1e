import { describe, expect, it } from "vitest";
import { dmScopeIsMain, sharedMainWarnings } from "../../src/session/shared-main.ts";
import { resolveOwners } from "../../src/session/owners.ts";

const owners = (cfg: Record<string, unknown>) => resolveOwners(cfg).owners;

describe("who else may run in the owner's main session (status warning, issue 24)", () => {
  it("dmScope defaults to main; per-channel-peer keeps DMs apart unless a binding sets main", () => {
    expect(dmScopeIsMain({})).toBe(true);
    expect(dmScopeIsMain({ session: { dmScope: "per-channel-peer" } })).toBe(false);
    expect(dmScopeIsMain({ session: { dmScope: "per-channel-peer" }, bindings: [{ session: { dmScope: "main" } }] })).toBe(true);
  });

  it("pairing (the default policy) may admit people openclaw.json cannot list", () => {
    const cfg = { commands: { ownerAllowFrom: ["telegram:4242"] }, channels: { telegram: { allowFrom: ["4242"] } } };
    expect(sharedMainWarnings(cfg, owners(cfg))).toEqual([{ channel: "telegram", reason: expect.stringContaining('dmPolicy "pairing"') }]);
  });

  it("an allowlist of the owners only is quiet; one more id is named as a count, never as the id", () => {
    const quiet = { commands: { ownerAllowFrom: ["telegram:4242"] }, channels: { telegram: { dmPolicy: "allowlist", allowFrom: ["telegram:4242"] } } };
    expect(sharedMainWarnings(quiet, owners(quiet))).toEqual([]);
    const loud = { commands: { ownerAllowFrom: ["telegram:4242"] }, channels: { telegram: { dmPolicy: "allowlist", allowFrom: ["4242", "777"] } } };
    const warnings = sharedMainWarnings(loud, owners(loud));
    expect(warnings).toEqual([{ channel: "telegram", reason: "allowFrom admits 1 id(s) that are not owners into the main session" }]);
    expect(JSON.stringify(warnings)).not.toContain("777");
  });

  it("an owner on another channel is not an owner here; open with * admits anyone; disabled and switched-off channels admit nobody", () => {
    const cfg = {
      commands: { ownerAllowFrom: ["discord:4242"] },
      channels: { telegram: { dmPolicy: "allowlist", allowFrom: ["4242"] }, slack: { dmPolicy: "open", allowFrom: ["*"] }, signal: { dmPolicy: "disabled" }, irc: { enabled: false, dmPolicy: "open", allowFrom: ["*"] } },
    };
    expect(sharedMainWarnings(cfg, owners(cfg)).map((w) => w.channel)).toEqual(["telegram", "slack"]);
  });

  it("accounts override their channel's settings, each reported on its own path", () => {
    const cfg = { commands: { ownerAllowFrom: ["telegram:4242"] }, channels: { telegram: { dmPolicy: "allowlist", allowFrom: ["4242"], accounts: { work: { allowFrom: ["4242", "99"] }, home: {} } } } };
    expect(sharedMainWarnings(cfg, owners(cfg)).map((w) => w.channel)).toEqual(["telegram.accounts.work"]);
  });

  it("reads only what openclaw.json can mean: a session or binding that is not an object, a scope that is not text", () => {
    expect(dmScopeIsMain(undefined)).toBe(true);
    expect(sharedMainWarnings(undefined, [])).toEqual([]);
    expect(dmScopeIsMain({ session: "per-channel-peer" })).toBe(true);
    expect(dmScopeIsMain({ session: { dmScope: 5 } })).toBe(true);
    expect(dmScopeIsMain({ session: { dmScope: "per-channel-peer" }, bindings: { session: { dmScope: "main" } } })).toBe(false);
    expect(dmScopeIsMain({ session: { dmScope: "per-channel-peer" }, bindings: [null, "main", { session: "main" }, { session: { dmScope: "per-peer" } }] })).toBe(false);
  });

  it("the older dm block (dm.policy, dm.allowFrom) is read when the channel has no dmPolicy or allowFrom of its own", () => {
    const cfg = { commands: { ownerAllowFrom: ["telegram:4242"] }, channels: { telegram: { dm: { policy: "allowlist", allowFrom: ["4242", "777"] } } } };
    expect(sharedMainWarnings(cfg, owners(cfg))).toEqual([{ channel: "telegram", reason: "allowFrom admits 1 id(s) that are not owners into the main session" }]);
    const own = { commands: { ownerAllowFrom: ["telegram:4242"] }, channels: { telegram: { dmPolicy: "allowlist", allowFrom: ["4242"], dm: { policy: "open", allowFrom: ["*"] } } } };
    expect(sharedMainWarnings(own, owners(own))).toEqual([]);
    const odd = { commands: { ownerAllowFrom: ["telegram:4242"] }, channels: { telegram: { dmPolicy: 3, allowFrom: "4242", dm: "open" } } };
    expect(sharedMainWarnings(odd, owners(odd))).toEqual([{ channel: "telegram", reason: 'dmPolicy "pairing" (the default): anyone you approve with openclaw pairing approve runs in the main session' }]);
  });

  it("open without * admits only allowFrom; the reasons name the policy", () => {
    const cfg = { commands: { ownerAllowFrom: ["telegram:4242"] }, channels: { telegram: { dmPolicy: "open", allowFrom: ["4242"] }, slack: { dmPolicy: "open", allowFrom: ["*"] } } };
    expect(sharedMainWarnings(cfg, owners(cfg))).toEqual([{ channel: "slack", reason: 'dmPolicy "open" with "*": anyone who DMs the bot runs in the main session' }]);
  });

  it("channel names are read as owners.ts reads them (any case, aliases); channels and accounts that are not objects are skipped", () => {
    const cfg = {
      commands: { ownerAllowFrom: ["telegram:4242"] },
      channels: { Telegram: { dmPolicy: "allowlist", allowFrom: ["4242"] }, irc: "on", signal: { dmPolicy: "allowlist", allowFrom: ["1"], accounts: { a: "x", b: { allowFrom: ["2"] } } } },
    };
    expect(sharedMainWarnings(cfg, owners(cfg)).map((w) => w.channel)).toEqual(["signal.accounts.b"]);
    expect(sharedMainWarnings({ channels: ["telegram"] }, [])).toEqual([]);
    // A channel owners.ts does not know is compared under its name in lower case.
    const other = { channels: { MyChat: { dmPolicy: "allowlist", allowFrom: ["7"] } } };
    expect(sharedMainWarnings(other, [{ channel: "mychat", id: "7" }])).toEqual([]);
    expect(sharedMainWarnings(other, [{ channel: "mychat", id: "8" }]).map((w) => w.channel)).toEqual(["MyChat"]);
  });

  it("a disabled DM policy admits nobody, whatever allowFrom lists", () => {
    const cfg = { commands: { ownerAllowFrom: ["telegram:4242"] }, channels: { telegram: { dmPolicy: "disabled", allowFrom: ["777", "*"] } } };
    expect(sharedMainWarnings(cfg, owners(cfg))).toEqual([]);
  });

  it("with DMs kept apart there is nothing to warn about", () => {
    const cfg = { session: { dmScope: "per-channel-peer" }, channels: { telegram: { dmPolicy: "open", allowFrom: ["*"] } } };
    expect(sharedMainWarnings(cfg, [])).toEqual([]);
  });
});
