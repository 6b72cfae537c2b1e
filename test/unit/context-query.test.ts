import { describe, expect, it } from "vitest";
import { extractQuery } from "../../src/context/query.ts";
import { isTechnicalPrompt, skipReason } from "../../src/context/skip.ts";

const opts = { minQueryChars: 10, skipTechnicalPrompts: true };
const reason = (raw: string, o = opts) => skipReason(raw, extractQuery(raw), o);

describe("extractQuery", () => {
  it("strips fenced code blocks (``` and ~~~, closed or not) and quoted lines", () => {
    const msg = "Where did I park the boat?\n```js\nconst x = 1;\n```\n> quoted reply text\n~~~\nmore code\n~~~\nthanks";
    expect(extractQuery(msg)).toBe("Where did I park the boat? thanks");
    expect(extractQuery("question first\n```\nunclosed code that goes on")).toBe("question first");
  });

  it("normalises whitespace and removes invisible characters", () => {
    expect(extractQuery("  what\u200B is\t\tmy   \n\n sailboat\u202E called  ")).toBe("what is my sailboat called");
  });

  it("caps at 280 chars, at a word boundary when one is near", () => {
    const long = "sailboat ".repeat(60);
    const q = extractQuery(long);
    expect(q.length).toBeLessThanOrEqual(280);
    expect(q.endsWith("sailboat")).toBe(true);
    expect(extractQuery("x".repeat(500)).length).toBe(280);
  });

  it("returns empty for non-string content", () => {
    expect(extractQuery(undefined)).toBe("");
    expect(extractQuery({ text: "hi" })).toBe("");
  });
});

describe("skip rules", () => {
  it("skips empty, whitespace-only and code-only messages", () => {
    expect(reason("")).toBe("empty");
    expect(reason("   \n ")).toBe("empty");
    expect(reason("```\nconsole.log('only code')\n```")).toBe("empty");
  });

  it("skips messages under 10 chars", () => {
    expect(reason("hi there")).toBe("too-short");
    expect(reason("what boat?")).toBeUndefined(); // exactly 10
  });

  it("skips heartbeats, pings and slash commands", () => {
    expect(reason("HEARTBEAT_OK")).toBe("heartbeat");
    expect(reason("Read HEARTBEAT.md if it exists (workspace context). Follow it strictly.")).toBe("heartbeat");
    expect(reason("heartbeat")).toBe("heartbeat");
    expect(reason("ping")).toBe("ping");
    expect(reason("PONG!")).toBe("ping");
    expect(reason("/context list")).toBe("command");
    expect(reason("/new please start over")).toBe("command");
  });

  it("skips technical prompts without personal or project words (configurable)", () => {
    expect(reason("How do I fix this npm error in docker?")).toBe("technical");
    expect(reason("why does const x = foo() throw here")).toBe("technical");
    expect(reason("Why does our deployment fail with an npm error?")).toBeUndefined();
    expect(reason("How do I fix this npm error in docker?", { ...opts, skipTechnicalPrompts: false })).toBeUndefined();
    expect(isTechnicalPrompt("the terror of the abash")).toBe(false);
  });

  it("\"react\" and \"squash\" as everyday words ask memory; the React framework stays technical", () => {
    expect(reason("How do Audrey's dogs react to snow?")).toBeUndefined();
    expect(reason("Did Andrew grow squash this summer?")).toBeUndefined();
    expect(reason("Why does React render this component twice?")).toBe("technical");
    expect(reason("React hooks run in which order?")).toBe("technical");
    expect(reason("How do I squash the last three commits in git?")).toBe("technical");
    expect(reason("How do I squash commits on a feature branch before merging?")).toBe("technical");
  });

  it("skips greetings, thanks and other small talk (no word a memory could answer)", () => {
    expect(reason("Good morning! How's it going?")).toBe("small-talk");
    expect(reason("Hi! Hope you're having a good day.")).toBe("small-talk");
    expect(reason("Thanks, that worked perfectly.")).toBe("small-talk");
    expect(reason("Hello, are you there?")).toBe("small-talk");
    expect(reason("Good morning! When is my dentist appointment?")).toBeUndefined();
  });

  it("recognises common programming questions as technical", () => {
    expect(reason("How do I reverse a linked list in Python?")).toBe("technical");
    expect(reason("How do I undo the last git commit but keep the changes?")).toBe("technical");
    expect(reason("How do I undo the last git commit in our repo?")).toBeUndefined();
    expect(reason("When did Ana go to the pottery class?")).toBeUndefined();
    expect(reason("ModuleNotFoundError: No module named 'requests'")).toBe("technical");
    expect(reason("fatal: refusing to merge unrelated histories")).toBe("technical");
    expect(reason("SSL: CERTIFICATE_VERIFY_FAILED certificate verify failed")).toBe("technical");
    expect(reason("Warning: I'm moving to Berlin next week, remember that")).toBeUndefined();
  });

  it("lets ordinary personal questions through", () => {
    expect(reason("What's my sailboat called and where is it moored?")).toBeUndefined();
  });

  it("technical: a pasted fenced log counts though the query leaves it out; an operator in backticks is code", () => {
    expect(reason("```\nError: ENOENT: no such file or directory, open '/tmp/x.json'\n```\nwhat does this mean?")).toBe("technical");
    // The same question under a fenced shopping list is not technical.
    expect(reason("```\neggs, milk, bread\n```\nwhat does this list mean?")).toBeUndefined();
    // A personal word in the question keeps the search: it may be about the operator's own setup.
    expect(reason("```\nError: ENOENT: no such file\n```\nwhat did we decide about this last time?")).toBeUndefined();
    expect(reason("What's the difference between `==` and `===`?")).toBe("technical");
    expect(reason("What's the difference between the `staging` and `prod` boxes?")).toBeUndefined();
  });
});

