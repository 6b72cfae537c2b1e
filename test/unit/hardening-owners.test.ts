// Issue 11 item 11, issue 10's "one owner rule" and issue 24's owner matching: owner ids compare
// exactly after Unicode NFC (ASCII A–Z folded for key peers, which the host lowercases; no other
// case folding), and every adapter classifies the same DM the same way.
import { describe, expect, it } from "vitest";
import { sessionContextFor } from "../../src/bootstrap/run.ts";
import { parseEthosContextConfig } from "../../src/context/config.ts";
import { resolveRetrievalScope } from "../../src/context/scope.ts";
import { classifyByKey, TurnClassifier } from "../../src/context/turn.ts";
import { classifySession } from "../../src/session/classify.ts";
import { comparableId, resolveOwners } from "../../src/session/owners.ts";

const dm = (peer: string) => `agent:main:telegram:direct:${peer}`;

describe("owner ids compare exactly after NFC (item 11, issue 24)", () => {
  it("Unicode case pairs do not match; a canonically equal id (NFC) does", () => {
    expect(classifySession(dm("\u0130d"), { ownerIds: ["i\u0307d"] }).type).toBe("EXTERNAL_DM");
    expect(classifySession(dm("stra\u00dfe"), { ownerIds: ["STRASSE"] }).type).toBe("EXTERNAL_DM");
    expect(classifySession(dm("\u00e9"), { ownerIds: ["\u00c9"] }).type).toBe("EXTERNAL_DM");
    expect(classifySession(dm("caf\u00e9"), { ownerIds: ["cafe\u0301"] }).type).toBe("PRIVATE_DM");
    // The Kelvin sign is canonically "K" (NFC), so it is the id K777 (and, folded, the key peer k777).
    expect(comparableId("\u212a777")).toBe("k777");
    expect(classifySession(dm("k777"), { ownerIds: ["\u212a777"] }).type).toBe("PRIVATE_DM");
  });

  it("ASCII letters fold for a key's peer, because the host lowercases peer ids in session keys; nothing is trimmed", () => {
    expect(classifySession(dm("u07abc"), { ownerIds: ["U07ABC"] }).type).toBe("PRIVATE_DM");
    expect(classifySession(dm("4242"), { ownerIds: [" 4242"] }).type).toBe("EXTERNAL_DM");
    expect(classifySession(dm("4242"), { ownerIds: ["4242\t"] }).type).toBe("EXTERNAL_DM");
    expect(comparableId(" U07ABC\t")).toBe(" u07abc\t");
  });

  it("a channel-qualified owner is the owner on that channel only", () => {
    expect(classifySession(dm("4242"), { ownerIds: ["telegram:4242"] }).type).toBe("PRIVATE_DM");
    expect(classifySession("agent:main:irc:direct:4242", { ownerIds: ["telegram:4242"] }).type).toBe("EXTERNAL_DM");
    expect(classifySession("agent:main:discord:direct:u07abc", { ownerIds: ["slack:U07ABC"] }).type).toBe("EXTERNAL_DM");
    // A key without a channel (dmScope per-peer) cannot prove the channel: only a bare owner id matches it.
    expect(classifySession("agent:main:direct:4242", { ownerIds: ["telegram:4242"] }).type).toBe("EXTERNAL_DM");
    expect(classifySession("agent:main:direct:4242", { ownerIds: ["4242"] }).type).toBe("PRIVATE_DM");
  });

  it("an opted-in group is matched the same way (no trimming, no Unicode case folding of group ids)", () => {
    const config = parseEthosContextConfig({ scope: { groups: [{ peerId: "k778", memoryDir: "/srv/group-k" }] } }).config;
    const other = classifySession("agent:main:telegram:group:\u00e9778", { ownerIds: [] });
    expect(resolveRetrievalScope(other, config).allowed).toBe(false);
    const real = classifySession("agent:main:telegram:group:k778", { ownerIds: [] });
    expect(resolveRetrievalScope(real, config).allowed).toBe(true);
  });
});

describe("one owner rule for every adapter (issue 10 design)", () => {
  const cfg = {
    commands: { ownerAllowFrom: ["telegram:111"] },
    hooks: { internal: { entries: { "ethos-context": { scope: { ownerIds: ["222"] } } } } },
  };
  const aciType = (peer: string) => {
    const { owners, mainKeys } = sessionContextFor(cfg);
    return classifySession(dm(peer), { ownerIds: owners.owners, mainKeys }).type;
  };
  const turnType = (peer: string) => new TurnClassifier().turn(dm(peer), cfg).classification.type;

  it("ownerAllowFrom telegram:111 plus ethos-context scope.ownerIds 222: both DMs are PRIVATE_DM everywhere", () => {
    for (const peer of ["111", "222"]) {
      expect(aciType(peer)).toBe("PRIVATE_DM");
      expect(turnType(peer)).toBe("PRIVATE_DM");
      expect(classifyByKey(dm(peer), cfg).type).toBe("PRIVATE_DM");
    }
    expect(aciType("333")).toBe("EXTERNAL_DM");
    expect(turnType("333")).toBe("EXTERNAL_DM");
  });

  it("aci-bootstrap ownerIds join the union", () => {
    const withAci = { ...cfg, hooks: { internal: { entries: { ...cfg.hooks.internal.entries, "aci-bootstrap": { ownerIds: ["444"] } } } } };
    const owners = resolveOwners(withAci);
    expect(owners.owners).toEqual([{ id: "444" }, { id: "222" }, { channel: "telegram", id: "111" }]);
    expect(owners.lists).toEqual(["aci-bootstrap.ownerIds", "ethos-context.scope.ownerIds", "commands.ownerAllowFrom"]);
    expect(turnType("444")).toBe("EXTERNAL_DM");
    expect(new TurnClassifier().turn(dm("444"), withAci).classification.type).toBe("PRIVATE_DM");
  });

  it("channel allowlists are a fallback only: they never widen an explicit owner list", () => {
    const withAllow = { ...cfg, channels: { telegram: { allowFrom: ["555"] } } };
    expect(resolveOwners(withAllow).owners.some((owner) => owner.id === "555")).toBe(false);
    expect(resolveOwners({ channels: { telegram: { allowFrom: ["555"] } } }).owners).toEqual([{ channel: "telegram", id: "555" }]);
  });
});
