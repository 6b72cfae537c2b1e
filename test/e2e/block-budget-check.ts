// Issue 28 item 4's e2e check, written to run on a gateway a suite has already started (no gateway
// boot of its own): on OpenClaw 2026.9.6 the context engine's assemble() hands the plugin a budget
// (`tokenBudget`), and the turn's block is sized against it: the turn's log line names the window
// as `host-budget` with the room it left (after the history and headroom_reserve_tokens), and the
// block the model got fits in that room.
//
// What the gateway needs: OpenClaw 2026.9.6 with the plugin package serving and its context engine
// selected (`plugins.slots.contextEngine: openclaw-context`), the sample workspace (its MEMORY.md
// holds the sailboat fact), the bundle's log at `<root>/openclaw-context.log` (the harness sets
// OPENCLAW_CONTEXT_LOG_FILE), and ethosContext.dedupeAcrossTurns false, as package-turns sets it.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import type { Gateway, TurnResult } from "./gateway.ts";

type OutcomeLine = { msg?: string; reason?: string; chars?: number; room?: number; window?: string };

/** The bundle's "memory context for this turn" lines so far. */
function outcomeLines(gw: Gateway): OutcomeLine[] {
  const file = path.join(gw.root, "openclaw-context.log");
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.includes('"memory context for this turn"'))
    .map((line) => JSON.parse(line) as OutcomeLine);
}

export async function checkBlockWithinHostBudget(gw: Gateway, turn: (sessionKey: string, text: string) => Promise<TurnResult>, fact: string): Promise<void> {
  const before = outcomeLines(gw).length;
  // A new thread of the owner's main session: a short history, a memory question.
  const served = await turn(`agent:main:main:thread:${crypto.randomUUID()}`, "What is my sailboat named, and where is it moored?");
  expect(gw.model.userTextOf(served.request)).toContain(fact);
  const line = outcomeLines(gw).slice(before).find((outcome) => outcome.window !== undefined);
  expect(line, "the turn's outcome line names the window it was sized against").toMatchObject({ window: "host-budget" });
  // The mock model's window is 128,000 tokens; the host's budget for the messages is less than that
  // (its output reserve, the system prompt), and the block fits in the room it left.
  expect(line!.room).toBeGreaterThan(0);
  expect(line!.room).toBeLessThan(128_000 - 500);
  expect(Math.ceil((line!.chars ?? 0) / 4)).toBeLessThanOrEqual(line!.room!);
}
