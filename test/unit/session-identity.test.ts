// Issue 24: who sent the message decides whether a turn is the owner's, not only the session key.
import { describe, expect, it } from "vitest";
import { TurnClassifier } from "../../src/context/turn.ts";
import { classifySession } from "../../src/session/classify.ts";
import { classificationForSenders, isOperatorSurface, senderIsOwner } from "../../src/session/identity.ts";
import { resolveOwners } from "../../src/session/owners.ts";
import { MAX_LEDGER_SESSIONS, SENDER_AFTER_TURN_MS, SENDER_MAX_AGE_MS, SenderLedger } from "../../src/session/sender-ledger.ts";

const owners = resolveOwners({ commands: { ownerAllowFrom: ["telegram:4242"] } }).owners;
const main = classifySession("agent:main:main", { ownerIds: owners });

describe("identity.ts", () => {
  it("the gateway's own surfaces are the operator; a channel sender is the owner only by the owner list", () => {
    expect(isOperatorSurface({ channel: "webchat", id: "cli" })).toBe(true);
    expect(isOperatorSurface({ channel: "WebChat", id: "x" })).toBe(true);
    expect(isOperatorSurface({ id: "cli" })).toBe(false);
    expect(isOperatorSurface({ channel: "telegram", id: "cli" })).toBe(false);
    expect(senderIsOwner(owners, { channel: "webchat", id: "cli" })).toBe(true);
    expect(senderIsOwner(owners, { channel: "telegram", id: "4242" })).toBe(true);
    expect(senderIsOwner(owners, { channel: "telegram", id: "777" })).toBe(false);
  });

  it("an operator session whose senders are not all owners is an external DM; other types keep their classification", () => {
    expect(classificationForSenders(main, [])).toBe(main);
    expect(classificationForSenders(main, [{ owner: true }])).toBe(main);
    expect(classificationForSenders(main, [{ owner: true }, { owner: false }])).toMatchObject({ type: "EXTERNAL_DM", rule: "sender-not-owner", keyShape: main.keyShape });
    const dm = classifySession("agent:main:telegram:direct:4242", { ownerIds: owners });
    expect(classificationForSenders(dm, [{ owner: false }]).type).toBe("EXTERNAL_DM");
    const fallback = classifySession("agent:main:webchat:lobby", { ownerIds: owners });
    expect(classificationForSenders(fallback, [{ owner: false }]).type).toBe("EXTERNAL_DM");
    for (const key of ["agent:main:telegram:group:-100", "agent:main:subagent:abc", "agent:main:cron:job:run:x", "agent:main:telegram:direct:9"]) {
      const other = classifySession(key, { ownerIds: owners });
      expect(classificationForSenders(other, [{ owner: false }])).toBe(other);
    }
  });
});

describe("sender-ledger.ts", () => {
  it("a turn sees every sender noted since the last turn started, and for SENDER_AFTER_TURN_MS after that start", () => {
    const ledger = new SenderLedger();
    ledger.note("agent:main:main", false, 0);
    ledger.note("agent:main:main", true, 10);
    expect(ledger.turnSenders("agent:main:main", 20)).toEqual([{ owner: false }, { owner: true }]);
    // The same turn's later events, and the next message's turn shortly after, still see the stranger.
    expect(ledger.turnSenders("agent:main:main", 20 + SENDER_AFTER_TURN_MS - 1)).toEqual([{ owner: false }, { owner: true }]);
    expect(ledger.turnSenders("agent:main:main", 20 + SENDER_AFTER_TURN_MS)).toEqual([]);
  });

  it("a message whose run never came stops counting after SENDER_MAX_AGE_MS; sessions do not mix", () => {
    const ledger = new SenderLedger();
    ledger.note("agent:main:main", false, 0);
    expect(ledger.turnSenders("agent:main:other", 1)).toEqual([]);
    expect(ledger.turnSenders("agent:main:main", SENDER_MAX_AGE_MS - 1)).toEqual([{ owner: false }]);
    const fresh = new SenderLedger();
    fresh.note("agent:main:main", false, 0);
    expect(fresh.turnSenders("agent:main:main", SENDER_MAX_AGE_MS)).toEqual([]);
  });

  it("is bounded: the least recently noted session goes first, and a session keeps its last 16 senders", () => {
    const ledger = new SenderLedger();
    for (let i = 0; i <= MAX_LEDGER_SESSIONS; i += 1) ledger.note(`agent:main:s${i}`, false, 0);
    expect(ledger.turnSenders("agent:main:s0", 1)).toEqual([]);
    expect(ledger.turnSenders(`agent:main:s${MAX_LEDGER_SESSIONS}`, 1)).toEqual([{ owner: false }]);
    const busy = new SenderLedger();
    busy.note("agent:main:main", false, 0);
    for (let i = 1; i <= 16; i += 1) busy.note("agent:main:main", true, i);
    expect(busy.turnSenders("agent:main:main", 20)).toHaveLength(16);
    expect(busy.turnSenders("agent:main:main", 20).every((sender) => sender.owner)).toBe(true);
  });
});

describe("sender-ledger.ts: ages and bounds", () => {
  it("ages run from when the sender was noted and when the turn started, not from time zero", () => {
    const start = 5 * SENDER_MAX_AGE_MS;
    const ledger = new SenderLedger();
    ledger.note("agent:main:main", false, start);
    expect(ledger.turnSenders("agent:main:main", start + SENDER_AFTER_TURN_MS - 1)).toEqual([{ owner: false }]);
    expect(ledger.turnSenders("agent:main:main", start + 2 * SENDER_AFTER_TURN_MS - 2)).toEqual([{ owner: false }]);
    expect(ledger.turnSenders("agent:main:main", start + 2 * SENDER_AFTER_TURN_MS - 1)).toEqual([]);
    const unanswered = new SenderLedger();
    unanswered.note("agent:main:main", true, start);
    unanswered.note("agent:main:main", false, start + SENDER_MAX_AGE_MS - 1);
    expect(unanswered.turnSenders("agent:main:main", start + SENDER_MAX_AGE_MS)).toEqual([{ owner: false }]);
  });

  it("a session whose senders all stopped counting is forgotten; one still counting stays", () => {
    const ledger = new SenderLedger();
    ledger.note("agent:main:a", false, 0);
    ledger.note("agent:main:b", true, SENDER_MAX_AGE_MS / 2);
    expect(ledger.size).toBe(2);
    expect(ledger.turnSenders("agent:main:a", SENDER_MAX_AGE_MS)).toEqual([]);
    expect(ledger.size).toBe(1);
    expect(ledger.turnSenders("agent:main:b", SENDER_MAX_AGE_MS)).toEqual([{ owner: true }]);
    expect(ledger.size).toBe(1);
    expect(ledger.turnSenders("agent:main:nobody", SENDER_MAX_AGE_MS)).toEqual([]);
    expect(ledger.size).toBe(1);
  });

  it("keeps exactly MAX_LEDGER_SESSIONS sessions and exactly 16 senders per session", () => {
    const ledger = new SenderLedger();
    for (let i = 0; i < MAX_LEDGER_SESSIONS; i += 1) ledger.note(`agent:main:s${i}`, false, 0);
    expect(ledger.size).toBe(MAX_LEDGER_SESSIONS);
    expect(ledger.turnSenders("agent:main:s0", 1)).toEqual([{ owner: false }]);
    // Noting s0 again made it the most recent: s1 is the one to go.
    ledger.note("agent:main:s0", true, 2);
    ledger.note("agent:main:new", true, 2);
    expect(ledger.size).toBe(MAX_LEDGER_SESSIONS);
    expect(ledger.turnSenders("agent:main:s1", 3)).toEqual([]);
    expect(ledger.turnSenders("agent:main:s0", 3)).toEqual([{ owner: false }, { owner: true }]);
    const busy = new SenderLedger();
    for (let i = 0; i < 16; i += 1) busy.note("agent:main:main", i === 0, i);
    expect(busy.turnSenders("agent:main:main", 20)).toEqual([{ owner: true }, ...Array.from({ length: 15 }, () => ({ owner: false }))]);
  });
});

describe("TurnClassifier", () => {
  const cfg = { commands: { ownerAllowFrom: ["telegram:4242"] } };

  it("message:received with a stranger's sender makes that turn and the session's next events non-owner", () => {
    let now = 1000;
    const turns = new TurnClassifier({ now: () => now });
    expect(turns.message("agent:main:main", cfg, { channel: "telegram", id: "777" }).classification.rule).toBe("sender-not-owner");
    now += 5;
    expect(turns.turn("agent:main:main", cfg).classification.rule).toBe("sender-not-owner");
    now += SENDER_AFTER_TURN_MS;
    expect(turns.turn("agent:main:main", cfg).classification).toMatchObject({ type: "MAIN_SESSION", rule: "main" });
  });

  it("an owner's message and an event with no sender at all keep the key's classification; an event's own stranger sender does not", () => {
    const turns = new TurnClassifier();
    expect(turns.message("agent:main:main", cfg, { channel: "telegram", id: "4242" }).classification.type).toBe("MAIN_SESSION");
    expect(turns.turn("agent:main:main", cfg).classification.type).toBe("MAIN_SESSION");
    expect(new TurnClassifier().message("agent:main:main", cfg, undefined).classification.type).toBe("MAIN_SESSION");
    expect(new TurnClassifier().turn("agent:main:main", cfg, { channel: "telegram", id: "777" }).classification.type).toBe("EXTERNAL_DM");
  });

  it("a changed owner list is a new classification; an equal one from another config object is not", () => {
    let calls = 0;
    const turns = new TurnClassifier({ classify: (key, options) => ((calls += 1), classifySession(key, options)) });
    turns.keyClassification("agent:main:telegram:direct:4242", cfg);
    turns.keyClassification("agent:main:telegram:direct:4242", { ...cfg });
    expect(calls).toBe(1);
    expect(turns.keyClassification("agent:main:telegram:direct:4242", { commands: { ownerAllowFrom: ["telegram:1"] } }).type).toBe("EXTERNAL_DM");
    expect(calls).toBe(2);
  });
});
