import { describe, expect, it } from "vitest";
import { isOwnerPeer, isOwnerSender, ownerFromEntry, ownersFrom, resolveMainKeys, resolveOwners } from "../../src/session/owners.ts";

describe("resolveOwners", () => {
  const cfg = {
    commands: { ownerAllowFrom: ["telegram:123456789"] },
    channels: {
      telegram: { allowFrom: ["tg:222", "*"] },
      whatsapp: { allowFrom: ["+15555550123"], accounts: { work: { allowFrom: [333] } } },
    },
  };

  it("joins the hook's own ownerIds to commands.ownerAllowFrom (one union, never a replacement)", () => {
    const owners = resolveOwners(cfg, ["U07ABC"]);
    expect(owners.source).toBe("owner-lists");
    expect(owners.owners).toEqual([{ id: "U07ABC" }, { channel: "telegram", id: "123456789" }]);
  });

  it("uses commands.ownerAllowFrom without hook lists; allowFrom lists do not widen it", () => {
    const owners = resolveOwners(cfg);
    expect(owners.source).toBe("owner-lists");
    expect(owners.lists).toEqual(["commands.ownerAllowFrom"]);
    expect(owners.owners).toEqual([{ channel: "telegram", id: "123456789" }]);
  });

  it("then every channel and account allowFrom, each on its own channel; wildcards identify nobody", () => {
    const owners = resolveOwners({ channels: cfg.channels });
    expect(owners.source).toBe("channels.allowFrom");
    expect(owners.owners).toEqual([
      { channel: "telegram", id: "222" },
      { channel: "whatsapp", id: "+15555550123" },
      { channel: "whatsapp", id: "333" },
    ]);
  });

  it("finds nobody without config, and survives config of the wrong type", () => {
    expect(resolveOwners(undefined).source).toBe("none");
    expect(resolveOwners({ channels: "telegram", commands: [] } as never).owners).toEqual([]);
    expect(resolveOwners({ channels: { telegram: { allowFrom: "123" } } }).owners).toEqual([]);
  });

  it("reads an entry as OpenClaw reads commands.ownerAllowFrom: a known channel (or alias) qualifies it, nothing is trimmed", () => {
    expect(ownerFromEntry("Telegram:ABC")).toEqual({ channel: "telegram", id: "ABC" });
    expect(ownerFromEntry("telegram:user:42")).toEqual({ channel: "telegram", id: "42" });
    expect(ownerFromEntry("teams:29:abc")).toEqual({ channel: "msteams", id: "29:abc" });
    expect(ownerFromEntry("uuid:1234")).toEqual({ id: "uuid:1234" });
    expect(ownerFromEntry(" 4242")).toEqual({ id: " 4242" });
    expect(ownerFromEntry("*")).toBeUndefined();
    expect(ownerFromEntry("")).toBeUndefined();
    expect(ownerFromEntry({ id: 1 })).toBeUndefined();
  });
});

describe("owner matching (issue 24: loose matching)", () => {
  const owners = resolveOwners({ commands: { ownerAllowFrom: ["telegram:4242", "slack:U07ABC"] } }).owners;

  it("a channel-qualified owner matches on its own channel only", () => {
    expect(isOwnerPeer(owners, "telegram", "4242")).toBe(true);
    expect(isOwnerPeer(owners, "irc", "4242")).toBe(false);
    expect(isOwnerPeer(owners, undefined, "4242")).toBe(false);
    expect(isOwnerSender(owners, { channel: "telegram", id: "4242" })).toBe(true);
    expect(isOwnerSender(owners, { channel: "irc", id: "4242" })).toBe(false);
  });

  it("slack:U07ABC is not a Discord u07abc; on Slack the host's lowercased key peer still matches", () => {
    expect(isOwnerPeer(owners, "discord", "u07abc")).toBe(false);
    expect(isOwnerPeer(owners, "slack", "u07abc")).toBe(true);
    expect(isOwnerSender(owners, { channel: "discord", id: "u07abc" })).toBe(false);
    expect(isOwnerSender(owners, { channel: "slack", id: "U07ABC" })).toBe(true);
  });

  it("ids are compared exactly after NFC: no trimming, no Unicode case folding", () => {
    const bare = resolveOwners({ commands: { ownerAllowFrom: ["4242", "caf\u00e9"] } }).owners;
    expect(isOwnerSender(bare, { channel: "telegram", id: " 4242" })).toBe(false);
    expect(isOwnerSender(bare, { channel: "telegram", id: "4242\t" })).toBe(false);
    expect(isOwnerPeer(bare, "telegram", " 4242")).toBe(false);
    expect(isOwnerSender(bare, { channel: "telegram", id: "cafe\u0301" })).toBe(true); // NFC of é
    // Full-width digits are not digits of the id (NFC keeps them; only NFKC would fold them).
    expect(isOwnerSender(bare, { channel: "telegram", id: "\uff14242" })).toBe(false);
  });

  it("a case-sensitive channel (Matrix) compares its senders letter for letter", () => {
    const matrix = resolveOwners({ commands: { ownerAllowFrom: ["matrix:@Me:example.org"] } }).owners;
    expect(isOwnerSender(matrix, { channel: "matrix", id: "@Me:example.org" })).toBe(true);
    expect(isOwnerSender(matrix, { channel: "matrix", id: "@me:example.org" })).toBe(false);
  });
});

describe("owner entries: what names somebody and what does not", () => {
  it("a blank entry or a blank id after the channel names nobody, so it is no explicit owner list", () => {
    for (const blank of [" ", "\t", "telegram: ", "telegram:*", "tg:user: "]) expect(ownerFromEntry(blank)).toBeUndefined();
    expect(resolveOwners({ commands: { ownerAllowFrom: [" ", "telegram: "] }, channels: { telegram: { allowFrom: ["7"] } } })).toMatchObject({
      source: "channels.allowFrom",
      owners: [{ channel: "telegram", id: "7" }],
    });
  });

  it("only a known channel before the first colon qualifies an id; only a leading user: is dropped", () => {
    // "irc2" is an id: no colon, so no channel, although "irc" is one.
    expect(ownerFromEntry("irc2")).toEqual({ id: "irc2" });
    expect(ownerFromEntry(":4242")).toEqual({ id: ":4242" });
    expect(ownerFromEntry("telegram:a:user:1")).toEqual({ channel: "telegram", id: "a:user:1" });
    expect(ownerFromEntry("telegram:user:")).toEqual({ channel: "telegram", id: "user:" });
  });

  it("a finite number is an id, on the list's channel; other numbers name nobody", () => {
    expect(ownerFromEntry(4242)).toEqual({ id: "4242" });
    expect(ownerFromEntry(7, "telegram")).toEqual({ channel: "telegram", id: "7" });
    expect(ownerFromEntry(Number.NaN)).toBeUndefined();
    expect(ownerFromEntry(Number.POSITIVE_INFINITY)).toBeUndefined();
  });

  it("ownersFrom keeps owner objects with a string id and parses everything else as an entry", () => {
    const entries = ["telegram:1", { id: "2" }, { channel: "slack", id: "U" }, null, { id: 3 }, 5, "*"] as never[];
    expect(ownersFrom(entries)).toEqual([{ channel: "telegram", id: "1" }, { id: "2" }, { channel: "slack", id: "U" }, { id: "5" }]);
  });
});

describe("owner matching: channels and blank ids", () => {
  it("a sender or peer on a channel alias is on that channel; an unknown channel matches by its lowercased name", () => {
    const owners = resolveOwners({ commands: { ownerAllowFrom: ["telegram:4242"] } }).owners;
    expect(isOwnerPeer(owners, "tg", "4242")).toBe(true);
    expect(isOwnerSender(owners, { channel: "TG", id: "4242" })).toBe(true);
    const custom = resolveOwners({ channels: { MyChat: { allowFrom: ["Ann"] } } }).owners;
    expect(custom).toEqual([{ channel: "mychat", id: "Ann" }]);
    expect(isOwnerSender(custom, { channel: "MyChat", id: "ann" })).toBe(true);
    expect(isOwnerPeer(custom, "MyChat", "ann")).toBe(true);
    expect(isOwnerSender(custom, { channel: "OtherChat", id: "ann" })).toBe(false);
    expect(isOwnerSender(custom, { id: "ann" })).toBe(false);
  });

  it("a blank sender or peer is nobody, whatever an owner list passed as objects holds", () => {
    const blank = ownersFrom([{ id: " " }, { id: "\t" }]);
    expect(isOwnerPeer(blank, "telegram", " ")).toBe(false);
    expect(isOwnerSender(blank, { channel: "telegram", id: "\t" })).toBe(false);
    expect(isOwnerSender(blank, { channel: "matrix", id: " " })).toBe(false);
  });
});

describe("resolveMainKeys", () => {
  it("adds session.mainKey to main", () => {
    expect(resolveMainKeys({ session: { mainKey: "Home" } })).toEqual(["main", "home"]);
    expect(resolveMainKeys({ session: { mainKey: 5 } })).toEqual(["main"]);
    expect(resolveMainKeys(undefined)).toEqual(["main"]);
  });
});
