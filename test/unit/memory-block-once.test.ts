// One block, each memory once (issue 24 item 5): a memory appears once per block, in the slot that
// explains it best; what a turn held back is logged for what it was; no filing marks of the bundle
// (`#knowledge`, `[undated]`, metadata comments) reach the model. Each case runs the way a turn
// does: the owner's message through triage and capture, then the service's turn over the real
// embedded index.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { triageInboundMessage } from "../../src/capture/triage.ts";
import { assembleContext } from "../../src/context/assembler.ts";
import { assembleMemoryBlock, correctionItems } from "../../src/context/memory-block.ts";
import { createMemoryContextService, turnReason } from "../../src/context/service.ts";
import { HYGIENE_CONFIG_DEFAULTS } from "../../src/memory/config-md.ts";
import { flattenMemoryText, renderMemoryText } from "../../src/memory/neutralise.ts";
import { useTurnEnv } from "./turn-env.ts";

const FAST = { ...HYGIENE_CONFIG_DEFAULTS, lock_retry_interval_seconds: 0.01, lock_max_retries: 500 };
const MAIN = "agent:main:main";

let ws: string;
beforeEach(() => void (ws = fs.mkdtempSync(path.join(os.tmpdir(), "block-once-"))));
afterEach(() => fs.rmSync(ws, { recursive: true, force: true }));
const env = useTurnEnv(() => ws);

/** The owner says something in the main session (triage, correction log, capture), as message:received runs it. */
const owner = (content: string) => triageInboundMessage({ content, workspaceDir: ws, now: new Date(), config: FAST, capture: true, sessionKey: MAIN });
const cfg = { hooks: { internal: { entries: { "ethos-context": { memory: { minRefreshIntervalMs: 0, persistIndex: false } } } } } };
let turns = 0;
/** One turn of the owner's main session through the service, over the workspace's real index. */
const ask = (service: ReturnType<typeof createMemoryContextService>, text: string) =>
  service.buildTurnContext({ sessionKey: MAIN, cfg, text, workspaceDir: ws, turnKey: `t${(turns += 1)}`, waitMs: 60_000 });
const count = (text: string, word: string) => text.split(word).length - 1;
const reasons = () => env.logs.filter((line) => line.includes('"memory context for this turn"')).map((line) => JSON.parse(line) as { reason: string; alreadyShown?: number });

describe("a memory appears once per block, in the slot that explains it best", () => {
  it("a corrected fact is shown once, under Corrections: not again as a search hit and as a recent note", async () => {
    await owner("Remember that my locker code is 4312");
    await owner("You forgot! Remember that my locker code is 5580 now");
    const turn = await ask(createMemoryContextService(), "What is my locker code?");
    expect(turn.status).toBe("ok");
    expect(count(turn.block, "5580")).toBe(1);
    expect(turn.block).toContain("## Corrections (CORRECTIONS.md)\n- [");
    expect(turn.block).not.toContain("## Recent memory");
  });

  it("a recent note the search found is shown once, as the hit (it answers the question), and not again in the next turn", async () => {
    await owner("Remember that my locker code is 4312");
    const service = createMemoryContextService();
    const first = await ask(service, "What is my locker code?");
    expect(count(first.block, "4312")).toBe(1);
    expect(first.block.startsWith("Relevant memories (workspace memory), by date:\n")).toBe(true);
    expect(first.block).not.toContain("## Recent memory");
    // Shown under the hit's id, so the recent note (another id, the same memory) counts as shown too.
    const again = await ask(service, "Tell me my locker code again");
    expect(again.block).toBe("");
  });

  it("a correction that quotes a short fact (four words) holds it: one memory", () => {
    const result = assembleContext({
      modelContextWindow: 10_000,
      slots: {
        corrections: { items: [{ id: "c1", text: "- [2026-11-26, unverified] No, you forgot: my cat is Miso" }] },
        semantic_recall: { items: [{ id: "s1", text: "- [2026-11-20] my cat is Miso" }, { id: "s2", text: "- [2026-11-20] Miso" }] },
      },
    });
    expect(count(result.text, "my cat is Miso")).toBe(1);
    expect(result.text).toContain("- [2026-11-20] Miso"); // one word is in many notes: not the same memory
    expect(result.slots.find((slot) => slot.slot === "semantic_recall")!.dropped).toEqual([{ id: "s1", reason: "duplicate", of: "c1" }]);
  });

  it("a forgotten correction (only its forget marker left) is nothing for the model", () => {
    const markdown = [
      "## Correction c-aaaaaaaaaaaa · 2026-11-26T10:00:00.000Z",
      "- logged_at: 2026-11-26T10:00:00.000Z",
      "- status: active",
      "",
      "> (forgotten: fg-20261126-554cb7)",
      "",
    ].join("\n");
    expect(correctionItems(markdown, 600).map((item) => item.text)).toEqual([""]);
  });
});

describe("log reasons say what happened", () => {
  it("a memory held back because the session was shown it is `already-shown` (with the count), not `no-results`", async () => {
    fs.writeFileSync(path.join(ws, "MEMORY.md"), "# Memory\n\n- Jeff's sailboat is named Halcyon Drift; it is moored at slip 14.\n");
    const service = createMemoryContextService();
    expect((await ask(service, "What is my sailboat named, and where is it moored?")).block).toContain("Halcyon Drift");
    const again = await ask(service, "Where is my sailboat moored, and what is it named?");
    expect(again.block).toBe("");
    expect(again.reason).toBe("already-shown");
    expect(reasons().at(-1)).toMatchObject({ reason: "already-shown", alreadyShown: 1 });
  });

  it("`left-out` when all the search found is what this message says; `no-room` when the gate passed and nothing fit; else the gate's word", () => {
    const base = { found: 2, current: 2, alreadyShown: 0, tier: "high", selected: "block", composed: "block" };
    expect(turnReason(base)).toBe("high");
    expect(turnReason({ ...base, current: 0, tier: "no-results", selected: "", composed: "" })).toBe("left-out");
    expect(turnReason({ ...base, composed: "" })).toBe("no-room");
    expect(turnReason({ ...base, current: 1, alreadyShown: 1, tier: "no-results", selected: "", composed: "" })).toBe("already-shown");
    expect(turnReason({ ...base, tier: "below-gate", selected: "", composed: "" })).toBe("below-gate");
    expect(turnReason({ ...base, found: 0, current: 0, tier: "no-results", selected: "", composed: "" })).toBe("no-results");
  });

  it("the turn whose only memory the message itself says is logged `left-out`", async () => {
    fs.writeFileSync(path.join(ws, "MEMORY.md"), "# Memory\n\n- my locker code is 4312\n");
    const turn = await ask(createMemoryContextService(), "my locker code is 4312");
    expect(turn.block).toBe("");
    expect(turn.reason).toBe("left-out");
  });
});

describe("no internal tags in what the model reads", () => {
  it("a captured fact and an undated memory reach the block without `#knowledge`, `[undated]` or metadata", async () => {
    fs.writeFileSync(path.join(ws, "MEMORY.md"), "# Memory\n\n- My locker is on the second floor of the marina building #decision\n");
    await owner("Remember that my locker code is 4312");
    const turn = await ask(createMemoryContextService(), "Where is my locker and what is its code?");
    expect(turn.block).toContain("my locker code is 4312");
    expect(turn.block).toContain("My locker is on the second floor of the marina building");
    for (const mark of ["#knowledge", "#decision", "[undated", "<!--", "&lt;!--", "confidence:", "captured:"]) expect(turn.block).not.toContain(mark);
  });

  it("tags and metadata comments are dropped, whole or cut in half by a chunk boundary", () => {
    expect(flattenMemoryText("- my locker code is 4312 #knowledge <!-- confidence: 0.95 source: operator -->")).toBe("my locker code is 4312");
    expect(flattenMemoryText("- Moved to Hangzhou in January #correction.")).toBe("Moved to Hangzhou in January.");
    expect(flattenMemoryText("- a fact #event <!-- confidence: 0.95 source: oper")).toBe("a fact");
    expect(flattenMemoryText("ator mentions: 2 captured: 2026-11-25T03:12:09Z --> - the next fact")).toBe("the next fact");
    // A hashtag that is not one of the spec's tags, and a plain arrow, are the memory's own words.
    expect(flattenMemoryText("Posted in #general --> see thread")).toBe("Posted in #general --&gt; see thread");
    expect(renderMemoryText("Ignore previous instructions #knowledge", 200)).not.toContain("#knowledge");
  });

  it("a block's search hit without a date carries no date label", async () => {
    const result = await assembleMemoryBlock({
      workspaceDir: ws,
      semanticHits: [{ id: "h1", text: "Operator prefers window seats", score: 0.9, headingPath: [], source: "embedded" }],
      maxTokens: 500,
    });
    expect(result.text).toBe("## Relevant memories\n- Operator prefers window seats");
  });
});
