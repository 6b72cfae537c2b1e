import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SLOTS, assembleContext, orderCorrections } from "../../src/context/assembler.ts";
import type { AssemblerInput, SlotContent, SlotItem, SlotName } from "../../src/context/assembler.ts";
import { estimateTokens } from "../../src/core/tokens.ts";
import { HYGIENE_CONFIG_DEFAULTS } from "../../src/memory/config-md.ts";

const words = (n: number, seed = "w") => Array.from({ length: n }, (_, i) => `${seed}${i}`).join(" ");
const item = (id: string, chars: number, extra: Partial<SlotItem> = {}): SlotItem => ({ id, text: `- ${id} ${"x".repeat(Math.max(0, chars - id.length - 3))}`, ...extra });

describe("assembleContext: examples", () => {
  it("everything fits: all slots in priority order, nothing truncated", () => {
    const result = assembleContext({
      slots: { identity: { items: [item("soul", 200)] }, semantic_recall: { items: [item("hit1", 100), item("hit2", 100)] }, corrections: { items: [item("c1", 80)] } },
      modelContextWindow: 128_000,
    });
    expect(result.blocks.map((b) => b.slot)).toEqual(["identity", "corrections", "semantic_recall"]);
    expect(result.slots.every((s) => !s.truncated)).toBe(true);
    expect(result.cap).toBe(6000);
    expect(result.text).toContain("## Identity (SOUL.md)\n- soul");
    expect(result.tokens).toBe(estimateTokens(result.text));
  });

  it("the cap is min(context_budget_tokens, window − headroom − system prompt)", () => {
    const result = assembleContext({ slots: {}, modelContextWindow: 4000, systemPromptTokens: 1200 });
    expect(result.maxInjectable).toBe(2300);
    expect(result.cap).toBe(2300);
    expect(result.decisions[0]).toMatch(/cap 2300 tokens/);
  });

  it("over the cap: truncates from slot 8 upward", () => {
    const slots: Partial<Record<SlotName, SlotContent>> = {
      identity: { items: [item("soul", 1600)] }, // 400 tokens
      recent_memory: { items: [item("r1", 1600), item("r2", 1600)] }, // ~800
      longterm_memory: { items: [item("m1", 1600)] }, // ~400
    };
    const result = assembleContext({ slots, modelContextWindow: 500 + 1000, systemPromptTokens: 0 }); // cap 1000
    const bySlot = Object.fromEntries(result.slots.map((s) => [s.slot, s]));
    expect(bySlot.longterm_memory.itemsKept).toBe(0);
    expect(bySlot.identity.truncated).toBe(false);
    expect(bySlot.recent_memory.itemsKept).toBe(1);
    expect(result.tokens).toBeLessThanOrEqual(1000);
    expect(result.decisions.some((d) => /over the cap: longterm_memory cut/.test(d))).toBe(true);
  });

  it("a higher-priority slot steals spare budget from the lowest-priority slot first, then in-use budget", () => {
    const result = assembleContext({
      slots: {
        corrections: { items: Array.from({ length: 12 }, (_, i) => item(`c${i}`, 200)) }, // ~620 tokens > 400
        crm: { items: [item("crm", 400)] }, // uses ~105 of 1000: spare 895
        longterm_memory: { items: [item("m", 1000)] }, // uses ~260 of 500: spare 240
      },
      modelContextWindow: 128_000,
    });
    const corrections = result.slots.find((s) => s.slot === "corrections")!;
    expect(corrections.truncated).toBe(false);
    expect(corrections.stolen[0]).toMatchObject({ from: "longterm_memory", spare: true });
    expect(result.slots.find((s) => s.slot === "longterm_memory")!.itemsKept).toBe(1);
    expect(result.slots.find((s) => s.slot === "crm")!.itemsKept).toBe(1);
  });

  it("stealing in-use budget shrinks the lowest-priority slot before the next one", () => {
    const config = { ...HYGIENE_CONFIG_DEFAULTS, identity_tokens: 100, crm_tokens: 100, longterm_memory_tokens: 100, context_budget_tokens: 300, user_profile_tokens: 0, corrections_tokens: 0, recent_memory_tokens: 0, semantic_recall_tokens: 0 };
    const result = assembleContext({
      config,
      slots: { identity: { items: [item("soul", 560)] }, crm: { items: [item("crm", 360)] }, longterm_memory: { items: [item("m", 360)] } },
      modelContextWindow: 128_000,
    });
    const by = Object.fromEntries(result.slots.map((s) => [s.slot, s]));
    expect(by.identity.truncated).toBe(false);
    expect(by.longterm_memory.truncated).toBe(true); // its only item is cut short
    expect(by.crm).toMatchObject({ itemsKept: 1, truncated: false });
    expect(by.identity.stolen.map((s) => [s.from, s.spare])).toEqual([["longterm_memory", true], ["crm", true], ["longterm_memory", false]]);
    expect(result.tokens).toBeLessThanOrEqual(300);
  });

  it("corrections overflow: prioritize_unverified keeps un-re-embedded, then unverified, newest first", () => {
    const t = (d: string) => new Date(`2026-02-${d}T00:00:00Z`);
    const items = [
      item("old-verified", 300, { verified: true, reEmbedded: true, timestamp: t("01") }),
      item("new-verified", 300, { verified: true, reEmbedded: true, timestamp: t("20") }),
      item("unverified", 300, { verified: false, reEmbedded: true, timestamp: t("02") }),
      item("not-embedded", 300, { verified: false, reEmbedded: false, timestamp: t("03") }),
    ];
    expect(orderCorrections(items, "prioritize_unverified").map((i) => i.id)).toEqual(["not-embedded", "unverified", "new-verified", "old-verified"]);
    expect(orderCorrections(items, "newest_first").map((i) => i.id)).toEqual(["new-verified", "not-embedded", "unverified", "old-verified"]);
    const config = { ...HYGIENE_CONFIG_DEFAULTS, context_budget_tokens: 250, corrections_tokens: 250 };
    const result = assembleContext({ config, slots: { corrections: { items } }, modelContextWindow: 128_000 });
    const report = result.slots.find((s) => s.slot === "corrections")!;
    expect(result.blocks[0].itemIds).toEqual(["not-embedded", "unverified", "new-verified"]);
    expect(report.dropped).toEqual([{ id: "old-verified", reason: "budget" }]);
  });

  it("recent memory keeps only the retention window", () => {
    const now = new Date("2026-02-22T12:00:00Z");
    const result = assembleContext({
      now,
      modelContextWindow: 128_000,
      slots: { recent_memory: { items: [item("today", 50, { timestamp: new Date("2026-02-22T08:00:00Z") }), item("old", 50, { timestamp: new Date("2026-02-19T08:00:00Z") })] } },
    });
    const report = result.slots.find((s) => s.slot === "recent_memory")!;
    expect(report).toMatchObject({ itemsIn: 2, itemsKept: 1, truncated: false, dropped: [{ id: "old", reason: "stale" }] });
  });

  it("a single long SOUL.md is cut at a line end, not dropped", () => {
    const soul = Array.from({ length: 200 }, (_, i) => `Principle ${i}: be kind and precise.`).join("\n");
    const result = assembleContext({ slots: { identity: { items: [{ id: "SOUL.md", text: soul }] } }, modelContextWindow: 500 + 300 });
    const block = result.blocks[0];
    expect(block.text.endsWith("…[truncated]")).toBe(true);
    expect(block.text).toMatch(/be kind and precise\. …\[truncated\]$/);
    expect(result.tokens).toBeLessThanOrEqual(300);
    expect(result.slots[0].cut).toMatchObject({ id: "SOUL.md", fullChars: soul.length });
  });
});

// ── properties ─────────────────────────────────────────────────────────────────────────────────

const itemArb = fc.record({
  id: fc.uuid(),
  text: fc.oneof(fc.string({ minLength: 1, maxLength: 300 }), fc.integer({ min: 1, max: 4000 }).map((n) => words(Math.ceil(n / 5)))),
  verified: fc.boolean(),
  reEmbedded: fc.boolean(),
});
const slotsArb = fc.dictionary(
  fc.constantFrom(...SLOTS),
  fc.record({ items: fc.array(itemArb, { maxLength: 6 }), title: fc.option(fc.string({ maxLength: 40 }), { nil: undefined }) }),
) as fc.Arbitrary<Partial<Record<SlotName, SlotContent>>>;
const budgetsArb = fc.record({
  context_budget_tokens: fc.integer({ min: 0, max: 8000 }),
  identity_tokens: fc.integer({ min: 0, max: 1500 }),
  user_profile_tokens: fc.integer({ min: 0, max: 1500 }),
  corrections_tokens: fc.integer({ min: 0, max: 1500 }),
  recent_memory_tokens: fc.integer({ min: 0, max: 1500 }),
  semantic_recall_tokens: fc.integer({ min: 0, max: 1500 }),
  crm_tokens: fc.integer({ min: 0, max: 1500 }),
  longterm_memory_tokens: fc.integer({ min: 0, max: 1500 }),
  external_context_budget: fc.integer({ min: 0, max: 1500 }),
  headroom_reserve_tokens: fc.integer({ min: 0, max: 2000 }),
  memory_retention_hours: fc.constant(48),
  correction_overflow_strategy: fc.constantFrom("prioritize_unverified" as const, "newest_first" as const),
});
const inputArb: fc.Arbitrary<AssemblerInput> = fc.record({
  slots: slotsArb,
  config: budgetsArb,
  modelContextWindow: fc.integer({ min: 0, max: 12_000 }),
  systemPromptTokens: fc.integer({ min: 0, max: 4000 }),
});

describe("assembleContext: one memory, one place", () => {
  it("an item already shown in a higher slot (same words, or held whole by a longer text) is left out and reported", () => {
    const result = assembleContext({
      modelContextWindow: 200_000,
      slots: {
        recent_memory: { items: [{ id: "r1", text: "- [2026-02-22] Sprint review moved to 3pm on Thursday" }] },
        semantic_recall: {
          items: [
            { id: "s1", text: "- [2026-02-22] sprint review moved to 3pm, on Thursday!" },
            { id: "s2", text: "- [undated] Notes: Sprint review moved to 3pm on Thursday. Bring the slides." },
            { id: "s3", text: "- [undated] Operator prefers window seats" },
          ],
        },
      },
    });
    expect(result.text.match(/Sprint review/gi)).toHaveLength(1);
    expect(result.text).toContain("Operator prefers window seats");
    const semantic = result.slots.find((slot) => slot.slot === "semantic_recall")!;
    expect(semantic.dropped).toEqual([
      { id: "s1", reason: "duplicate", of: "r1" },
      { id: "s2", reason: "duplicate", of: "r1" },
    ]);
    expect(semantic.itemsIn).toBe(3);
    expect(result.decisions).toContain("semantic_recall: 2 item(s) already shown in a higher slot left out");
  });

  it("short texts are only duplicates when equal (a one-word note is in many others)", () => {
    const result = assembleContext({
      modelContextWindow: 200_000,
      slots: { recent_memory: { items: [{ id: "r1", text: "- [d] Mia" }] }, semantic_recall: { items: [{ id: "s1", text: "- [d] Mia starts school in September" }] } },
    });
    expect(result.text).toContain("Mia starts school in September");
  });
});

describe("assembleContext: properties", () => {
  it("the output never exceeds the budget (either stealing mode)", () => {
    fc.assert(
      fc.property(inputArb, fc.constantFrom("spare-then-used" as const, "spare-only" as const), (input, stealing) => {
        const result = assembleContext({ ...input, stealing });
        expect(estimateTokens(result.text)).toBeLessThanOrEqual(result.cap);
        expect(result.cap).toBeLessThanOrEqual(input.config!.context_budget_tokens);
        expect(result.cap).toBeLessThanOrEqual(Math.max(0, input.modelContextWindow - input.config!.headroom_reserve_tokens - input.systemPromptTokens!));
        for (const report of result.slots) expect(report.used).toBeLessThanOrEqual(report.allocated);
      }),
      { numRuns: 400 },
    );
  });

  it("a higher-priority slot is never truncated while a lower-priority one keeps content", () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const result = assembleContext(input);
        result.slots.forEach((report, i) => {
          if (!report.truncated) return;
          for (const lower of result.slots.slice(i + 1)) expect(lower.itemsKept, `${report.slot} truncated but ${lower.slot} kept content`).toBe(0);
        });
      }),
      { numRuns: 400 },
    );
  });

  it("every input item is accounted for: kept or dropped with a reason", () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const result = assembleContext(input);
        for (const report of result.slots) {
          const nonEmpty = (input.slots[report.slot]?.items ?? []).filter((i) => i.text.trim() !== "").length;
          expect(report.itemsKept + report.dropped.length).toBe(nonEmpty);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("with room for everything, nothing is truncated and every item appears", () => {
    fc.assert(
      fc.property(slotsArb, (slots) => {
        const roomy = 100_000;
        const big = { ...HYGIENE_CONFIG_DEFAULTS, context_budget_tokens: 1_000_000, identity_tokens: roomy, user_profile_tokens: roomy, corrections_tokens: roomy, recent_memory_tokens: roomy, semantic_recall_tokens: roomy, crm_tokens: roomy, longterm_memory_tokens: roomy, external_context_budget: roomy };
        const result = assembleContext({ slots, config: big, modelContextWindow: 2_000_000 });
        expect(result.slots.some((s) => s.truncated)).toBe(false);
        for (const [slot, content] of Object.entries(slots)) {
          // Every item appears, except one already shown in a higher slot (reported as a duplicate).
          const duplicates = result.slots.find((s) => s.slot === slot)!.dropped.filter((d) => d.reason === "duplicate").map((d) => d.id);
          for (const it of content!.items) if (it.text.trim() && !duplicates.includes(it.id)) expect(result.blocks.find((b) => b.slot === slot)!.text).toContain(it.text);
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe("assembleContext: spare-only stealing", () => {
  it("a higher slot takes only unused budget, so a lower slot keeps its own share", () => {
    const config = { ...HYGIENE_CONFIG_DEFAULTS, context_budget_tokens: 400, corrections_tokens: 100, recent_memory_tokens: 150, semantic_recall_tokens: 150, identity_tokens: 0, user_profile_tokens: 0, crm_tokens: 0, longterm_memory_tokens: 0 };
    const slots = {
      recent_memory: { items: Array.from({ length: 10 }, (_, i) => item(`r${i}`, 200)) }, // wants ~500
      semantic_recall: { items: [item("h1", 200), item("h2", 200)] }, // wants ~110
    };
    const strict = assembleContext({ config, slots, modelContextWindow: 100_000 });
    const shared = assembleContext({ config, slots, modelContextWindow: 100_000, stealing: "spare-only" });
    expect(strict.slots.find((s) => s.slot === "semantic_recall")!.itemsKept).toBe(0);
    expect(shared.slots.find((s) => s.slot === "semantic_recall")!.itemsKept).toBe(2);
    // recent memory still gets the unused corrections budget
    expect(shared.slots.find((s) => s.slot === "recent_memory")!.stolen.map((s) => s.from)).toContain("corrections");
  });
});
