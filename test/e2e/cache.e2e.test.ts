// Prompt-cache targets on real gateways (issue 10): one main session of 12 `chat.send` turns
// (bench/cache/turns.json) per arm, one fresh gateway per arm (hook entries and plugins are read at
// start). 2026.9.6 runs against a mock speaking the Anthropic messages API, so the same requests
// also show where OpenClaw puts `cache_control`. 2026.3.13 (no plugin delivery there) runs the
// hook path and asserts only what is robust. Numbers for every arm: `npm run bench -- --only cache`.
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { analyseBreakpoints, extrapolatedCost } from "../../bench/cache/analyse.ts";
import type { BreakpointRow } from "../../bench/cache/analyse.ts";
import { ARM_LABELS, loadConversation, runArm } from "../../bench/cache/arms.ts";
import type { Arm, ArmResult } from "../../bench/cache/arms.ts";
import { summaryTable, turnTable, breakpointTable } from "../../bench/cache/run.ts";
import { readAssumptionsDoc } from "./assumptions.ts";
import type { Observations } from "./assumptions.ts";
import { REPO_ROOT } from "./gateway.ts";

const turns = loadConversation();
const facts = turns.flatMap((turn) => (turn.fact ? [turn.fact] : []));
const MEMORY_TURN = turns.findIndex((turn) => turn.fact === "Halcyon Drift");
const ARM_TIMEOUT_MS = 900_000;

/** Rows of HOOK_ASSUMPTIONS.md this suite checks: each observed value must start the doc's cell. */
function checkAssumptions(version: string, observed: Observations): string[] {
  const doc = readAssumptionsDoc();
  return Object.entries(observed).flatMap(([id, value]) => {
    const cell = doc.get(id)?.[version];
    if (cell === undefined) return [`${id}: no row (observed ${JSON.stringify(value)})`];
    return cell.replaceAll("`", "").startsWith(value) ? [] : [`${id}: doc says ${JSON.stringify(cell)}, observed ${JSON.stringify(value)}`];
  });
}

/** Rows without the request bodies, kept for the docs (git-ignored). */
function saveRun(version: string, results: readonly ArmResult[], breakpoints?: BreakpointRow[]): void {
  const dir = path.join(REPO_ROOT, ".e2e-work");
  fs.mkdirSync(dir, { recursive: true });
  const arms = results.map(({ bodies: _bodies, ...rest }) => ({ ...rest, extrapolated: rest.status === "ok" ? extrapolatedCost(rest.rows) : undefined }));
  fs.writeFileSync(path.join(dir, `cache-${version}.json`), `${JSON.stringify({ arms, breakpoints }, null, 1)}\n`);
}

const classesAfterTurnOne = (rows: ArmResult["rows"]) => [...new Set(rows.slice(1).map((row) => row.firstDiff))].sort().join(", ");
const identicalCount = (rows: ArmResult["rows"]) => `${rows.slice(1).filter((row) => row.systemIdentical).length}/${rows.length - 1}`;

describe("prompt cache on OpenClaw 2026.9.6 (Anthropic messages API)", () => {
  const version = "2026.9.6";
  const results = new Map<Arm, ArmResult>();
  let breakpoints: BreakpointRow[] = [];

  beforeAll(async () => {
    // One gateway at a time: two boots at once starve a 2-core machine.
    for (const arm of ["hooks-off", "aci-only", "plugin-path"] as const) {
      results.set(arm, await runArm({ version, arm, turns, gateway: { modelApi: "anthropic-messages" } }));
    }
    const plugin = results.get("plugin-path")!;
    breakpoints = analyseBreakpoints(plugin.bodies, facts);
    const ok = [...results.values()];
    saveRun(version, ok, breakpoints);
    console.log([`cache e2e ${version}`, summaryTable(ok), ...ok.filter((r) => r.status === "ok").map((r) => `${ARM_LABELS[r.arm]}\n${turnTable(r.rows)}`), breakpointTable(breakpoints)].join("\n\n"));
  }, ARM_TIMEOUT_MS * 3);

  const plugin = () => {
    const result = results.get("plugin-path")!;
    // Never a silent pass: without plugin/ in the checkout the plugin targets fail loudly.
    expect(result.status, result.reason).toBe("ok");
    return result;
  };

  it("baseline arms ran every turn, one model request each", () => {
    for (const arm of ["hooks-off", "aci-only"] as const) {
      expect(results.get(arm)!.status).toBe("ok");
      expect(results.get(arm)!.rows).toHaveLength(turns.length);
    }
    // OpenClaw alone keeps its own system prompt stable: the reference the plugin path must match.
    expect(results.get("hooks-off")!.rows.slice(1).every((row) => row.systemIdentical)).toBe(true);
  });

  it("plugin path: the system prompt is byte-identical on every turn 2..N", () => {
    const rows = plugin().rows;
    expect(rows).toHaveLength(turns.length);
    expect(rows.slice(1).filter((row) => !row.systemIdentical).map((row) => row.turn)).toEqual([]);
  });

  it("plugin path: the first changed byte is never before the previous turn's user message", () => {
    const early = plugin().rows.filter((row) => row.firstDiff === "system prompt" || row.firstDiff === "older history");
    expect(early.map((row) => `turn ${row.turn}: ${row.firstDiff} at ${row.firstDiffAt}`)).toEqual([]);
  });

  it("plugin path: the memory fact reaches the same turn's request (and is not in the system prompt)", () => {
    const row = plugin().rows[MEMORY_TURN]!;
    expect(row.factReached).toBe(true);
    const body = plugin().bodies[MEMORY_TURN]!;
    expect(JSON.stringify(body.system)).not.toContain("Halcyon Drift");
  });

  it("plugin path: modeled 40-turn input cost ≤ 1.0× hooks off and within 5% of aci-bootstrap only", () => {
    const cost = (arm: Arm) => extrapolatedCost(results.get(arm)!.rows);
    const pluginCost = extrapolatedCost(plugin().rows);
    expect(pluginCost / cost("hooks-off")).toBeLessThanOrEqual(1.0);
    expect(Math.abs(pluginCost / cost("aci-only") - 1)).toBeLessThanOrEqual(0.05);
  });

  it("Anthropic breakpoints: tools and the stable system prompt are readable by every next request", () => {
    plugin();
    for (const row of breakpoints.slice(0, -1)) {
      const fixed = row.breakpoints.filter((bp) => bp.label === "tools" || bp.label.startsWith("system"));
      expect(fixed.length, `turn ${row.turn}`).toBeGreaterThanOrEqual(2);
      expect(fixed.every((bp) => bp.readableNextTurn), `turn ${row.turn}: ${JSON.stringify(fixed)}`).toBe(true);
    }
  });

  it("Anthropic breakpoints: OpenClaw puts the message breakpoint on this turn's user message, the one that carries prependContext", () => {
    plugin();
    for (const row of breakpoints) {
      const message = row.breakpoints.filter((bp) => bp.label.startsWith("message"));
      expect(message.map((bp) => bp.label), `turn ${row.turn}`).toEqual([expect.stringMatching(/^message \d+ \(user\)/)]);
    }
    // The memory turn: the block (with its fact) is inside the breakpoint's block, and the next
    // request replays that message without it, so the entry written there is never read.
    const memory = breakpoints[MEMORY_TURN]!.breakpoints.find((bp) => bp.label.startsWith("message"))!;
    expect(memory.carries).toContain("Halcyon Drift");
    expect(memory.readableNextTurn).toBe(false);
  });

  it("HOOK_ASSUMPTIONS.md matches what this run observed", () => {
    const rows = plugin().rows;
    const first = breakpoints[0]!.breakpoints.map((bp) => (bp.label === "tools" ? "last tool" : bp.label.startsWith("system") ? "stable system block" : "this turn's user message"));
    const memory = breakpoints[MEMORY_TURN]!.breakpoints.find((bp) => bp.label.startsWith("message"))!;
    const observed: Observations = {
      cacheSystemIdenticalHooksOff: identicalCount(results.get("hooks-off")!.rows),
      cacheSystemIdenticalBundle: identicalCount(rows),
      cacheFirstDiffBundle: classesAfterTurnOne(rows),
      cacheMemoryInSystemPrompt: JSON.stringify(plugin().bodies[MEMORY_TURN]!.system).includes("Halcyon Drift") ? "yes" : "no",
      anthropicBreakpoints: first.join(", "),
      anthropicBreakpointOnBlock: memory.carries?.includes("Halcyon Drift") && memory.readableNextTurn === false ? "yes" : "no",
    };
    expect(checkAssumptions(version, observed)).toEqual([]);
  });
});

describe("prompt cache on OpenClaw 2026.3.13 (hook path)", () => {
  const version = "2026.3.13";
  let result: ArmResult;

  beforeAll(async () => {
    result = await runArm({ version, arm: "hook-path", turns });
    saveRun(version, [result]);
    console.log([`cache e2e ${version}`, summaryTable([result]), turnTable(result.rows)].join("\n\n"));
  }, ARM_TIMEOUT_MS);

  it("the memory fact reaches the same turn's system prompt", () => {
    expect(result.rows[MEMORY_TURN]!.factReached).toBe(true);
  });

  it("history is never rewritten: every first difference is in the system prompt (the record) or after the previous user message", () => {
    // No cache boundary on 2026.3.13 and prependContext is not used there: a changed record moves the
    // first difference into the system prompt; otherwise only new content differs.
    const classes = new Set(result.rows.slice(1).map((row) => row.firstDiff));
    expect([...classes].filter((c) => c === "older history" || c === "previous user message")).toEqual([]);
  });

  it("a turn whose system prompt changed is one that carried or followed a memory record", () => {
    // The record's block opens with the compact layout's header (the story-007 marker only in the file copy).
    const carried = result.rows.map((_row, i) => JSON.stringify((result.bodies[i]!.messages as unknown[])[0] ?? "").includes("Relevant memories ("));
    expect(carried.filter(Boolean).length, "turns whose system prompt carried the memory record").toBeGreaterThan(0);
    for (const row of result.rows.slice(1)) {
      if (!row.systemIdentical) expect(carried[row.turn - 1] || carried[row.turn - 2], `turn ${row.turn}`).toBe(true);
    }
  });

  it("HOOK_ASSUMPTIONS.md matches what this run observed", () => {
    const memoryTurn = result.bodies[MEMORY_TURN]!;
    const observed: Observations = {
      cacheFirstDiffBundle: classesAfterTurnOne(result.rows),
      cacheMemoryInSystemPrompt: JSON.stringify((memoryTurn.messages as unknown[])[0]).includes("Halcyon Drift") ? "yes" : "no",
    };
    expect(checkAssumptions(version, observed)).toEqual([]);
  });
});
