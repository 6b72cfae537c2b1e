import { describe, expect, it } from "vitest";
import { analyseConversation, classifyFirstDiff, commonPrefixLength, extrapolatedCost, flattenRequest, measuredCost, turnCost } from "../../bench/cache/analyse.ts";

const SYSTEM = "S".repeat(400);
const openai = (system: string, ...messages: [string, string][]) => ({
  tools: [{ name: "read" }],
  messages: [{ role: "system", content: system }, ...messages.map(([role, content]) => ({ role, content }))],
});
const turns = [
  { kind: "memory", text: "q1", fact: "FACT-1" },
  { kind: "chat", text: "q2" },
  { kind: "chat", text: "q3" },
];

describe("flattenRequest", () => {
  it("reads the system prompt from messages[0] (OpenAI) or the top-level system (Anthropic)", () => {
    expect(flattenRequest(openai("sys", ["user", "hi"])).system).toBe("sys");
    const anthropic = { system: [{ type: "text", text: "stable" }, { type: "text", text: "dynamic" }], messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] };
    const flat = flattenRequest(anthropic);
    expect(flat.system).toBe("stable\ndynamic");
    expect(flat.segments.map((s) => s.kind)).toEqual(["tools", "system", "message"]);
    expect(flat.text.endsWith("user:\nhi\n")).toBe(true);
  });
});

describe("classifyFirstDiff", () => {
  const previous = flattenRequest(openai(SYSTEM, ["user", "old"], ["assistant", "a"], ["user", "q2 block"], ["user", "carrier"]));
  const at = (needle: string) => previous.text.indexOf(needle);
  it("names the part of the previous request where the first difference falls", () => {
    expect(classifyFirstDiff(previous, 10, "q2").diff).toBe("system prompt");
    expect(classifyFirstDiff(previous, at(SYSTEM) + 5, "q2").diff).toBe("system prompt");
    expect(classifyFirstDiff(previous, at("old"), "q2").diff).toBe("older history");
    expect(classifyFirstDiff(previous, at("q2 block") + 3, "q2").diff).toBe("previous user message");
    expect(classifyFirstDiff(previous, at("carrier"), "q2").diff).toBe("new content");
    expect(classifyFirstDiff(previous, previous.text.length, "q2").diff).toBe("none");
  });
});

describe("analyseConversation", () => {
  it("reports prefix reuse, system identity, the first difference and whether the fact arrived", () => {
    const bodies = [
      openai(SYSTEM + "FACT-1", ["user", "q1"]),
      openai(SYSTEM, ["user", "q1"], ["assistant", "a"], ["user", "q2"]),
      openai(SYSTEM, ["user", "q1"], ["assistant", "a"], ["user", "q2"], ["assistant", "a"], ["user", "q3"]),
    ];
    const rows = analyseConversation(turns, bodies);
    expect(rows[0]).toMatchObject({ turn: 1, prefixTokens: 0, firstDiff: "none", factReached: true });
    expect(rows[1]).toMatchObject({ systemIdentical: false, firstDiff: "system prompt" });
    expect(rows[2]).toMatchObject({ systemIdentical: true, firstDiff: "none", factReached: undefined });
    expect(rows[2]!.reusePct).toBeGreaterThan(90);
    expect(rows[1]!.prefixTokens).toBe(Math.floor(commonPrefixLength(flattenRequest(bodies[0]!).text, flattenRequest(bodies[1]!).text) / 4));
  });
});

describe("cost model", () => {
  it("reads the common prefix at 0.1x and writes the rest at 1.25x", () => {
    expect(turnCost(1000, 0)).toBe(1250);
    expect(turnCost(1000, 1000)).toBe(100);
    expect(turnCost(1000, 600)).toBeCloseTo(60 + 500);
  });

  const row = (turn: number, requestTokens: number, prefixTokens: number, firstDiff: "none" | "system prompt" | "new content") =>
    ({ turn, kind: "x", requestTokens, prefixTokens, reusePct: 0, firstDiff, firstDiffAt: "", before: "", after: "" }) as const;

  it("extrapolates a tail change as a constant re-write and a system-prompt change as a growing one", () => {
    const tail = [row(1, 1000, 0, "none"), row(2, 1100, 990, "new content")];
    const head = [row(1, 1000, 0, "none"), row(2, 1100, 500, "system prompt")];
    const assumptions = { turns: 4, historyTokensPerTurn: 100 };
    // tail: turn 3 = 1200 tokens re-reading 1100 - 10; turn 4 = 1300 re-reading 1200 - 10.
    expect(extrapolatedCost(tail, assumptions)).toBeCloseTo(measuredCost(tail) + turnCost(1200, 1090) + turnCost(1300, 1190));
    // head: every later turn re-reads only the 500-token prefix.
    expect(extrapolatedCost(head, assumptions)).toBeCloseTo(measuredCost(head) + turnCost(1200, 500) + turnCost(1300, 500));
    expect(extrapolatedCost(head, assumptions)).toBeGreaterThan(extrapolatedCost(tail, assumptions));
  });
});

describe("cache section tables", async () => {
  const { armsFor, summaryTable } = await import("../../bench/cache/run.ts");
  it("runs the plugin's configs on 2026.9 and the hook pack plus the persisted-prependContext alternative on 2026.3.13", () => {
    expect(armsFor("2026.9.6")).toEqual(["hooks-off", "aci-only", "plugin-prepend", "plugin-path"]);
    expect(armsFor("2026.3.13")).toEqual(["hooks-off", "aci-only", "hook-path", "persisted-prepend"]);
  });
  const rows = [
    { turn: 1, kind: "memory", requestTokens: 100, prefixTokens: 0, reusePct: 0, firstDiff: "none", firstDiffAt: "", before: "", after: "", factReached: true },
    { turn: 2, kind: "chat", requestTokens: 110, prefixTokens: 99, reusePct: 90, systemIdentical: true, firstDiff: "new content", firstDiffAt: "", before: "", after: "" },
  ] as const;
  it("gives cost ratios to the hooks-off arm and names an arm that has no numbers", () => {
    const table = summaryTable([
      { version: "2026.9.6", arm: "hooks-off", status: "ok", rows: [...rows], cost: { measured: 200, extrapolated: 1000 } },
      { version: "2026.9.6", arm: "aci-only", status: "ok", rows: [...rows], cost: { measured: 180, extrapolated: 900 } },
      { version: "2026.9.6", arm: "plugin-path", status: "failed", rows: [] },
    ]);
    expect(table).toContain("180 (0.90×)");
    expect(table).toContain("900 (0.90×)");
    expect(table).toMatch(/plugin path .*\| failed/);
    expect(table).toContain("1/1");
  });
  it("also gives the arms with our plugin next to another engine their ratio to that engine alone", () => {
    const table = summaryTable([
      { version: "2026.9.6", arm: "hooks-off", status: "ok", rows: [...rows], cost: { measured: 200, extrapolated: 1000 } },
      { version: "2026.9.6", arm: "engine-alone", status: "ok", rows: [...rows], cost: { measured: 250, extrapolated: 1250 } },
      { version: "2026.9.6", arm: "engine-prepend", status: "ok", rows: [...rows], cost: { measured: 300, extrapolated: 1500 } },
    ]);
    expect(table).toContain("250 (1.25×)");
    expect(table).toContain("300 (1.50×; 1.20× engine alone)");
    expect(table).toContain("1500 (1.50×; 1.20× engine alone)");
  });
});

describe("Anthropic breakpoints", async () => {
  const { analyseBreakpoints, breakpointCost, extrapolatedBreakpointCost } = await import("../../bench/cache/analyse.ts");
  const tool = { name: "read", cache_control: { type: "ephemeral" } };
  const system = [{ type: "text", text: "S".repeat(400), cache_control: { type: "ephemeral" } }, { type: "text", text: "dynamic" }];
  const user = (text: string, breakpoint: boolean) => ({ role: "user", content: breakpoint ? [{ type: "text", text, cache_control: { type: "ephemeral" } }] : text });
  const assistant = { role: "assistant", content: [{ type: "text", text: "ok" }] };
  const bodies = [
    { tools: [tool], system, messages: [user("BLOCK q1", true)] },
    { tools: [tool], system, messages: [user("q1", false), assistant, user("q2", true)] },
    { tools: [tool], system, messages: [user("q1", false), assistant, user("q2", false), assistant, user("q3", true)] },
  ];
  const rows = analyseBreakpoints(bodies, ["BLOCK"]);

  it("lists each breakpoint, what it carries and whether the next request can read its entry", () => {
    expect(rows[0]!.breakpoints.map((bp) => bp.label)).toEqual(["tools", "system block 0", "message 0 (user) block 0"]);
    expect(rows[0]!.breakpoints[2]).toMatchObject({ carries: "BLOCK", readableNextTurn: false });
    expect(rows[0]!.breakpoints.slice(0, 2).every((bp) => bp.readableNextTurn)).toBe(true);
    expect(rows[1]!.breakpoints[2]!.readableNextTurn).toBe(true);
  });

  it("reads only entries that are an exact prefix: after a block turn, back to the stable system block", () => {
    const stableEnd = rows[0]!.breakpoints[1]!.tokens;
    expect(rows[1]!.readTokens).toBe(stableEnd - 1);
    expect(rows[2]!.readTokens).toBeGreaterThan(rows[1]!.readTokens);
    expect(breakpointCost(rows)).toBeGreaterThan(0);
    expect(extrapolatedBreakpointCost(rows, { turns: 5, historyTokensPerTurn: 100 })).toBeGreaterThan(breakpointCost(rows));
  });
});
