import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HELD_OUT_CONVERSATIONS, goldTurnsOf, loadConversation } from "../../bench/locomo/data.ts";
import { goldTextInBlock, summarise } from "../../bench/locomo/evaluate.ts";
import type { ConversationRun, QuestionResult } from "../../bench/locomo/evaluate.ts";

// The notes set: several facts may be drawn from one dialog turn; any of them reaching the block is
// a hit. Written here (not LoCoMo data) in the set's layout.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "bench-locomo-sets-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function writeConversation(name: string): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(path.join(dir, "memory"), { recursive: true });
  fs.writeFileSync(
    path.join(dir, "memory", "2023-05-08.md"),
    "# 2023-05-08\n\n## Ana\n\n- Ana adopted a cat called Miso. <!-- D1:3 -->\n\n- Miso is a grey tabby. <!-- D1:3 -->\n\n- Ana runs on Tuesdays. <!-- D1:5 -->\n",
  );
  fs.writeFileSync(path.join(dir, "queries.jsonl"), `${JSON.stringify({ q: "What pet does Ana have?", evidence: ["D1:3"], category: 4 })}\n`);
  return dir;
}

const question = (conversation: string, hit: boolean): QuestionResult => ({
  conversation,
  category: 4,
  question: "q",
  bundleInContext: { 250: hit, 500: hit, 1000: hit },
  bundleStory007InContext: { 250: hit, 500: hit, 1000: hit },
  baselineInContext: { 250: false, 500: hit, 1000: hit },
  bundleInjected: true,
  bundleGate: "ok",
  bundleInjectedTokens: 100,
  bundleMs: 1,
  baselineMs: 1,
  gateSweep: {},
});
const run = (conversation: string, hits: boolean[]): ConversationRun => ({ conversation, chunks: 3, indexMs: 1, questions: hits.map((hit) => question(conversation, hit)), nonMemory: [] });

describe("LoCoMo sets in the bench", () => {
  it("every fact drawn from a gold turn counts, not only the last one read", () => {
    writeConversation("conv-1");
    const conversation = loadConversation(tmp, "conv-1");
    const gold = goldTurnsOf(conversation, conversation.queries[0].evidence);
    expect(gold.map((turn) => turn.text)).toEqual(["- Ana adopted a cat called Miso.", "- Miso is a grey tabby."]);
    expect(goldTextInBlock("- [2023-05-08] Miso is a grey tabby.\n", gold)).toBe(true);
    expect(goldTextInBlock("- [2023-05-08] Ana runs on Tuesdays.\n", gold)).toBe(false);
  });

  it("the summary reports the tuning part and the held-out part apart", () => {
    const heldOut = [...HELD_OUT_CONVERSATIONS][0];
    const summary = summarise([run("conv-tuning", [true, true]), run(heldOut, [true, false])], 0.15);
    const parts = Object.fromEntries(summary.parts.map((part) => [part.part, part]));
    expect(parts.tuning.conversations).toEqual(["conv-tuning"]);
    expect(parts["held-out"].conversations).toEqual([heldOut]);
    expect(parts.tuning.bundle.inContext["250"]).toBe(1);
    expect(parts["held-out"].bundle.inContext["250"]).toBe(0.5);
    expect(summary.bundle[0].inContext["250"]).toBe(0.75);
    // Without held-out conversations, there is one part only.
    expect(summarise([run("conv-tuning", [true])], 0.15).parts.map((part) => part.part)).toEqual(["tuning"]);
  });
});
