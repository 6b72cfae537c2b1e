import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { capturedFacts, dayFileFor, settledCaptures } from "../../src/capture/capture.ts";
import { triageInboundMessage } from "../../src/capture/triage.ts";
import { HYGIENE_CONFIG_DEFAULTS } from "../../src/memory/config-md.ts";

// Issue 24, "capture takes what a person would not mean", through the entry point the hooks use:
// each case is a message (after some captured facts) and what the day file holds afterwards.

const NOW = new Date("2026-11-25T10:00:00.000Z");
const LATER = new Date("2026-11-25T11:00:00.000Z");
const FAST = { ...HYGIENE_CONFIG_DEFAULTS, lock_retry_interval_seconds: 0.01, lock_max_retries: 500 };

let ws: string;
beforeEach(() => {
  ws = fs.mkdtempSync(path.join(os.tmpdir(), "capture-language-"));
  setLogDestination({ write: () => true } as never);
});
afterEach(() => {
  setLogDestination(undefined);
  fs.rmSync(ws, { recursive: true, force: true });
});

/** A message triaged, and the in-place edits its capture recorded applied (pending-edits.ts). */
const say = async (content: string, now = NOW) => {
  const outcome = await triageInboundMessage({ content, workspaceDir: ws, now, config: FAST, capture: true, sessionKey: "agent:main:main" });
  await settledCaptures(ws);
  return outcome;
};
/** Captured facts in today's file: [statement, superseded, mentions, confidence], oldest first. */
const facts = () => {
  const file = dayFileFor(ws, NOW);
  return fs.existsSync(file) ? capturedFacts(fs.readFileSync(file, "utf8")).reverse().map((f) => [f.statement, f.superseded, f.meta.mentions, f.meta.confidence]) : [];
};
const current = () => facts().filter(([, superseded]) => !superseded).map(([statement]) => statement);

describe("what is not a fact to keep", () => {
  it.each([
    ["a negation", "Don't remember that, it was just a joke"],
    ["a negation with never", "Never remember that my code is 1234, it's only a test account"],
    ["a Chinese negation", "不要记住这个，我的密码是1234"],
    ["a question without a question mark", "do you remember that my sister lives in Lyon"],
    ["reported speech", "She said remember that the gate code is 1234"],
    ["a forwarded message", "---------- Forwarded message ---------\nFrom: Anna\n\nRemember that the rent is due on the 1st"],
    ["a Fwd: line", "Fwd: remember that the server migration is on Saturday"],
    ["a hypothetical", "If I ever say remember that my code is 0000, ignore it"],
    ["a moment recalled", "Remember when we went sailing in Sausalito, it was so windy"],
    ["the speaker remembering", "Thanks, I'll remember that!"],
  ])("%s writes nothing", async (_case, message) => {
    const outcome = await say(message);
    expect(outcome.errors).toEqual([]);
    expect(facts()).toEqual([]);
  });

  it("the operator's own words before a forwarded message are kept, the forwarded ones are not", async () => {
    await say("Remember that I'm on call next week.\n\n---------- Forwarded message ----------\nFrom: Ops\nDon't forget the retro on Monday");
    expect(current()).toEqual(["I'm on call next week"]);
  });
});

describe("a repeat keeps its polarity", () => {
  it("'I do not like coffee' is no repeat of 'I like coffee': the older one is not raised to 1, the newer one replaces it", async () => {
    await say("Remember that I like coffee");
    const outcome = await say("Remember that I do not like coffee", LATER);
    expect(outcome.capture?.action).toBe("superseded");
    expect(facts()).toEqual([
      ["I like coffee", true, 1, 0.95],
      ["I do not like coffee", false, 1, 0.95],
    ]);
  });

  it("the same words with the same polarity are a repeat", async () => {
    await say("Remember that I do not like coffee");
    expect((await say("remember that I don't like coffee!", LATER)).capture?.action).toBe("mentioned");
    expect(facts()).toEqual([["I do not like coffee", false, 2, 1]]);
  });
});

describe("supersede only when the same thing gets a new value", () => {
  it("'my flight to Paris cost 300 euros' leaves 'my flight is on 2026-05-03' current", async () => {
    await say("Remember that my flight is on 2026-05-03");
    await say("Remember that my flight to Paris cost 300 euros", LATER);
    expect(current()).toEqual(["my flight is on 2026-05-03", "my flight to Paris cost 300 euros"]);
  });

  it("'my son Tom has 2 cats' leaves 'my son is 7' current", async () => {
    await say("Remember that my son is 7");
    await say("Remember that my son Tom has 2 cats", LATER);
    expect(current()).toEqual(["my son is 7", "my son Tom has 2 cats"]);
  });

  it("a new value of the same attribute supersedes", async () => {
    await say("Remember that my son is 7");
    await say("Remember that my son is 8", LATER);
    expect(facts().map(([s, superseded]) => [s, superseded])).toEqual([
      ["my son is 7", true],
      ["my son is 8", false],
    ]);
  });
});

describe("what capture used to miss", () => {
  it("'Actually, my locker code is 5580 now' updates the captured locker code", async () => {
    await say("Remember that my locker code is 4312");
    const outcome = await say("Actually, my locker code is 5580 now", LATER);
    expect(outcome.capture).toMatchObject({ action: "superseded", supersededStatement: "my locker code is 4312" });
    expect(facts()).toEqual([
      ["my locker code is 4312", true, 1, 0.95],
      ["my locker code is 5580", false, 1, 1],
    ]);
  });

  it("'Remember that Dr. Smith …' is not cut at 'Dr.'", async () => {
    await say("Remember that Dr. Smith moved his practice to Elm St. next month");
    expect(current()).toEqual(["Dr. Smith moved his practice to Elm St. next month"]);
  });

  it("a second statement in one message is kept too", async () => {
    const outcome = await say("Remember that my locker code is 4312. Also remember that the gym closes at 10pm.");
    expect(outcome.captures?.map((c) => c.action)).toEqual(["added", "added"]);
    expect(current()).toEqual(["my locker code is 4312", "the gym closes at 10pm"]);
  });

  it.each([
    ["Spanish", "Recuerda que mi código de la taquilla es 4312", "mi código de la taquilla es 4312"],
    ["German", "Merk dir: mein Spindcode ist 4312", "mein Spindcode ist 4312"],
    ["French", "Retiens que mon code de casier est 4312", "mon code de casier est 4312"],
  ])("a %s trigger", async (_language, message, statement) => {
    await say(message);
    expect(current()).toEqual([statement]);
  });
});
