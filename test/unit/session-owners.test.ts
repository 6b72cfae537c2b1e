import { describe, expect, it } from "vitest";
import { ownerIdsFromEntry, resolveMainKeys, resolveOwnerIds } from "../../src/session/owners.ts";

describe("resolveOwnerIds", () => {
  const cfg = {
    commands: { ownerAllowFrom: ["telegram:123456789"] },
    channels: {
      telegram: { allowFrom: ["tg:222", "*"] },
      whatsapp: { allowFrom: ["+15555550123"], accounts: { work: { allowFrom: [333] } } },
    },
  };

  it("joins the hook's own ownerIds to commands.ownerAllowFrom (one union, never a replacement)", () => {
    const owners = resolveOwnerIds(cfg, ["U07ABC"]);
    expect(owners.source).toBe("owner-lists");
    expect([...owners.ids].sort()).toEqual(["123456789", "telegram:123456789", "u07abc"]);
  });

  it("uses commands.ownerAllowFrom without hook lists, keeping the bare id; allowFrom lists do not widen it", () => {
    const owners = resolveOwnerIds(cfg);
    expect(owners.source).toBe("owner-lists");
    expect(owners.lists).toEqual(["commands.ownerAllowFrom"]);
    expect(owners.ids.has("123456789")).toBe(true);
    expect(owners.ids.has("222")).toBe(false);
  });

  it("then every channel and account allowFrom; wildcards identify nobody", () => {
    const owners = resolveOwnerIds({ channels: cfg.channels });
    expect(owners.source).toBe("channels.allowFrom");
    expect([...owners.ids].sort()).toEqual(["+15555550123", "222", "333", "tg:222"]);
  });

  it("finds nobody without config, and survives config of the wrong type", () => {
    expect(resolveOwnerIds(undefined).source).toBe("none");
    expect(resolveOwnerIds({ channels: "telegram", commands: [] } as never).ids.size).toBe(0);
    expect(resolveOwnerIds({ channels: { telegram: { allowFrom: "123" } } }).ids.size).toBe(0);
  });

  it("normalises entries", () => {
    expect(ownerIdsFromEntry(" Telegram:ABC ")).toEqual(["telegram:abc", "abc"]);
    expect(ownerIdsFromEntry("*")).toEqual([]);
    expect(ownerIdsFromEntry({ id: 1 })).toEqual([]);
  });
});

describe("resolveMainKeys", () => {
  it("adds session.mainKey to main", () => {
    expect(resolveMainKeys({ session: { mainKey: "Home" } })).toEqual(["main", "home"]);
    expect(resolveMainKeys({ session: { mainKey: 5 } })).toEqual(["main"]);
    expect(resolveMainKeys(undefined)).toEqual(["main"]);
  });
});
