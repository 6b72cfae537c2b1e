// Issue 11 item 11 and issue 10's "one owner rule": owner ids compare exactly (ASCII A–Z folded,
// no Unicode folding), and aci-bootstrap and ethos-context classify the same DM the same way.
import { describe, expect, it } from "vitest";
import { sessionContextFor } from "../../src/bootstrap/run.ts";
import { parseEthosContextConfig } from "../../src/context/config.ts";
import { classifyForRetrieval, resolveRetrievalScope } from "../../src/context/scope.ts";
import { classifySession } from "../../src/session/classify.ts";
import { foldId, resolveOwnerIds } from "../../src/session/owners.ts";

const dm = (peer: string) => `agent:main:telegram:direct:${peer}`;

describe("owner ids compare exactly (item 11)", () => {
  it("the Kelvin sign is not k, and other Unicode case pairs do not match either", () => {
    expect(classifySession(dm("\u212a777"), { ownerIds: ["k777"] }).type).toBe("EXTERNAL_DM");
    expect(classifySession(dm("k777"), { ownerIds: ["\u212a777"] }).type).toBe("EXTERNAL_DM");
    expect(classifySession(dm("\u0130d"), { ownerIds: ["i\u0307d"] }).type).toBe("EXTERNAL_DM");
    expect(classifySession(dm("stra\u00dfe"), { ownerIds: ["STRASSE"] }).type).toBe("EXTERNAL_DM");
    expect(classifySession(dm("\u00e9"), { ownerIds: ["\u00c9"] }).type).toBe("EXTERNAL_DM");
    const owners = resolveOwnerIds({ commands: { ownerAllowFrom: ["telegram:k777"] } });
    expect(classifySession(dm("\u212a777"), { ownerIds: owners.ids }).type).toBe("EXTERNAL_DM");
    expect(classifySession(dm("k777"), { ownerIds: owners.ids }).type).toBe("PRIVATE_DM");
  });

  it("ASCII letters fold, because the host lowercases peer ids in session keys", () => {
    expect(classifySession(dm("u07abc"), { ownerIds: ["U07ABC"] }).type).toBe("PRIVATE_DM");
    expect(foldId(" U07ABC\t")).toBe("u07abc");
    expect(foldId("\u212a\u00c9Z")).toBe("\u212a\u00c9z");
  });

  it("an opted-in group is matched the same way (no Unicode folding of group ids)", () => {
    const config = parseEthosContextConfig({ scope: { groups: [{ peerId: "k777", memoryDir: "/srv/group-k" }] } }).config;
    const kelvin = classifySession("agent:main:telegram:group:\u212a777", { ownerIds: [] });
    expect(resolveRetrievalScope(kelvin, config).allowed).toBe(false);
    const real = classifySession("agent:main:telegram:group:k777", { ownerIds: [] });
    expect(resolveRetrievalScope(real, config).allowed).toBe(true);
  });
});

describe("one owner rule for both hooks (issue 10 design)", () => {
  const cfg = {
    commands: { ownerAllowFrom: ["telegram:111"] },
    hooks: { internal: { entries: { "ethos-context": { scope: { ownerIds: ["222"] } } } } },
  };
  const ethosConfig = parseEthosContextConfig(cfg.hooks.internal.entries["ethos-context"]).config;
  const aciType = (peer: string) => {
    const { owners, mainKeys } = sessionContextFor(cfg);
    return classifySession(dm(peer), { ownerIds: owners.ids, mainKeys }).type;
  };
  const ethosType = (peer: string) => classifyForRetrieval(dm(peer), cfg, ethosConfig).type;

  it("ownerAllowFrom 111 plus ethos-context scope.ownerIds 222: both DMs are PRIVATE_DM for both hooks", () => {
    for (const peer of ["111", "222"]) {
      expect(aciType(peer)).toBe("PRIVATE_DM");
      expect(ethosType(peer)).toBe("PRIVATE_DM");
    }
    expect(aciType("333")).toBe("EXTERNAL_DM");
    expect(ethosType("333")).toBe("EXTERNAL_DM");
  });

  it("aci-bootstrap ownerIds join the union for ethos-context too", () => {
    const withAci = { ...cfg, hooks: { internal: { entries: { ...cfg.hooks.internal.entries, "aci-bootstrap": { ownerIds: ["444"] } } } } };
    const owners = resolveOwnerIds(withAci);
    expect([...owners.ids].sort()).toEqual(["111", "222", "444", "telegram:111"]);
    expect(owners.lists).toEqual(["aci-bootstrap.ownerIds", "ethos-context.scope.ownerIds", "commands.ownerAllowFrom"]);
    expect(classifyForRetrieval(dm("444"), withAci, ethosConfig).type).toBe("PRIVATE_DM");
  });

  it("channel allowlists are a fallback only: they never widen an explicit owner list", () => {
    const withAllow = { ...cfg, channels: { telegram: { allowFrom: ["555"] } } };
    expect(resolveOwnerIds(withAllow).ids.has("555")).toBe(false);
    expect(resolveOwnerIds({ channels: { telegram: { allowFrom: ["555"] } } }).ids.has("555")).toBe(true);
  });
});
