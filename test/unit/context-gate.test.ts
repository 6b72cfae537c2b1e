import { describe, expect, it } from "vitest";
import { defaultEthosContextConfig } from "../../src/context/config.ts";
import { applyConfidenceGate } from "../../src/context/gate.ts";
import { selectAndFormat } from "../../src/context/pipeline.ts";
import type { RetrievedMemory } from "../../src/memory/types.ts";

const m = (id: string, score: number): RetrievedMemory => ({ id, text: id, score, headingPath: [], source: "embedded" });
const t = { gate: 0.12, high: 0.75 };

describe("story 007 confidence gate", () => {
  it("top ≥ 0.75 injects, with every result that clears the gate (sorted)", () => {
    const d = applyConfidenceGate([m("b", 0.3), m("a", 0.75), m("c", 0.05)], t);
    expect(d).toMatchObject({ inject: true, tier: "high", topScore: 0.75 });
    expect(d.passing.map((r) => r.id)).toEqual(["a", "b"]);
  });

  it("a single high result is enough", () => {
    expect(applyConfidenceGate([m("a", 0.9)], t)).toMatchObject({ inject: true, tier: "high" });
  });

  it("0.12 ≤ top < 0.75 injects only when at least two results clear the gate", () => {
    expect(applyConfidenceGate([m("a", 0.5), m("b", 0.12)], t)).toMatchObject({ inject: true, tier: "multiple" });
    const single = applyConfidenceGate([m("a", 0.74), m("b", 0.11)], t);
    expect(single).toMatchObject({ inject: false, tier: "single-below-high" });
    expect(single.passing).toEqual([]);
  });

  it("top < gate injects nothing; no results injects nothing", () => {
    expect(applyConfidenceGate([m("a", 0.119), m("b", 0.1)], t)).toMatchObject({ inject: false, tier: "below-gate" });
    expect(applyConfidenceGate([], t)).toMatchObject({ inject: false, tier: "no-results", topScore: 0 });
  });

  it("uses the configured gate (e.g. from ethos.toml)", () => {
    expect(applyConfidenceGate([m("a", 0.3), m("b", 0.25)], { gate: 0.3, high: 0.75 })).toMatchObject({ inject: false });
    expect(applyConfidenceGate([m("a", 0.3), m("b", 0.3)], { gate: 0.3, high: 0.75 })).toMatchObject({ inject: true });
  });

  it("small-vault rule: a lone result at or above `single` injects; below it, or without the rule, it does not", () => {
    const lone = [m("a", 0.4), m("b", 0.05)];
    expect(applyConfidenceGate(lone, { ...t, single: 0.35 })).toMatchObject({ inject: true, tier: "single" });
    expect(applyConfidenceGate(lone, { ...t, single: 0.35 }).passing.map((r) => r.id)).toEqual(["a"]);
    expect(applyConfidenceGate([m("a", 0.34)], { ...t, single: 0.35 })).toMatchObject({ inject: false, tier: "single-below-high" });
    expect(applyConfidenceGate(lone, t)).toMatchObject({ inject: false, tier: "single-below-high" });
    // `single` never lets anything under the gate through.
    expect(applyConfidenceGate([m("a", 0.2)], { gate: 0.3, high: 0.75, single: 0.1 })).toMatchObject({ inject: false, tier: "below-gate" });
  });

  it("named: a result about someone the query names opens the gate below the threshold", () => {
    const named = { ...m("a", 0.05), named: true as const };
    expect(applyConfidenceGate([named, m("b", 0.04)], t)).toMatchObject({ inject: true, tier: "named" });
    // The same scores without the mark stay out.
    expect(applyConfidenceGate([m("a", 0.05), m("b", 0.04)], t)).toMatchObject({ inject: false, tier: "below-gate" });
    // A lone weak result is injected only when it is about the named person.
    expect(applyConfidenceGate([{ ...m("a", 0.3), named: true as const }], { ...t, single: 0.35 })).toMatchObject({ inject: true, tier: "named" });
  });

  it("fill: once a turn injects, results below the gate fill the block down to a share of the top score", () => {
    const results = [m("a", 0.8), m("b", 0.3), m("c", 0.1), m("d", 0.03)];
    expect(applyConfidenceGate(results, t).passing.map((r) => r.id)).toEqual(["a", "b"]);
    expect(applyConfidenceGate(results, { ...t, fill: 0.1 }).passing.map((r) => r.id)).toEqual(["a", "b", "c"]);
    expect(applyConfidenceGate(results, { ...t, fill: 0 }).passing.map((r) => r.id)).toEqual(["a", "b", "c", "d"]);
    // The fill never decides whether to inject: below the gate nothing is filled.
    expect(applyConfidenceGate([m("a", 0.1), m("b", 0.09)], { ...t, fill: 0 })).toMatchObject({ inject: false, passing: [] });
    // A floor above the gate never cuts what cleared the gate.
    expect(applyConfidenceGate(results, { ...t, fill: 0.9 }).passing.map((r) => r.id)).toEqual(["a", "b"]);
  });
});

describe("budget fill per backend", () => {
  const results = [m("a", 0.8), m("b", 0.5), m("c", 0.1)];
  const select = (backend: "embedded" | "ethos") =>
    selectAndFormat(results, { config: { ...defaultEthosContextConfig(), backend }, sessionType: "MAIN_SESSION", sourceLabel: "test" });

  it("the embedded index fills past the gate; an Ethos server's similarities keep the gate as the floor", () => {
    expect(select("embedded").decision.passing.map((r) => r.id)).toEqual(["a", "b", "c"]);
    expect(select("ethos").decision.passing.map((r) => r.id)).toEqual(["a", "b"]);
  });
});

describe("issue 29: the gate decides on each memory's own evidence, with corroboration", () => {
  const own = (id: string, score: number, evidence: number, matchedTerms?: number): RetrievedMemory => ({ ...m(id, score), evidence, ...(matchedTerms === undefined ? {} : { matchedTerms }) });

  it("a score lent by a neighbour fills the block but never opens the gate", () => {
    // One weak hit (0.3 of its own) and a neighbour lifted to 0.3 by a loan: one hit, not two.
    const lent = [own("hit", 0.3, 0.3, 2), own("neighbour", 0.3, 0, 0)];
    expect(applyConfidenceGate(lent, t)).toMatchObject({ inject: false, tier: "single-below-high", topEvidence: 0.3 });
    // The same scores, both earned: two results over the gate.
    expect(applyConfidenceGate([own("hit", 0.3, 0.3, 2), own("other", 0.3, 0.3, 2)], t)).toMatchObject({ inject: true, tier: "multiple" });
    // A loan above `high` is not high confidence either.
    expect(applyConfidenceGate([own("hit", 0.4, 0.4, 2), own("neighbour", 0.9, 0.05, 0)], t).tier).toBe("single-below-high");
  });

  it("once a turn injects, lent results fill the block in score order", () => {
    const decision = applyConfidenceGate([own("hit", 0.9, 0.9, 3), own("neighbour", 0.5, 0, 0), own("weak", 0.2, 0.2, 1)], { ...t, fill: 0.05 });
    expect(decision).toMatchObject({ inject: true, tier: "high" });
    expect(decision.passing.map((r) => r.id)).toEqual(["hit", "neighbour", "weak"]);
  });

  it("corroboration: two results that each hold one of the query's words are not enough; one holding two is", () => {
    const coincidences = [own("a", 0.3, 0.3, 1), own("b", 0.25, 0.25, 1)];
    expect(applyConfidenceGate(coincidences, { ...t, corroboration: 2 })).toMatchObject({ inject: false, tier: "single-below-high" });
    expect(applyConfidenceGate(coincidences, t)).toMatchObject({ inject: true, tier: "multiple" });
    expect(applyConfidenceGate([own("a", 0.3, 0.3, 2), own("b", 0.25, 0.25, 1)], { ...t, corroboration: 2 })).toMatchObject({ inject: true, tier: "multiple" });
    // A memory under the gate does not corroborate.
    expect(applyConfidenceGate([own("a", 0.3, 0.3, 1), own("b", 0.25, 0.25, 1), own("c", 0.1, 0.1, 3)], { ...t, corroboration: 2 }).inject).toBe(false);
    // A backend that does not count words (Ethos) keeps story 007's rule.
    expect(applyConfidenceGate([m("a", 0.3), m("b", 0.25)], { ...t, corroboration: 2 })).toMatchObject({ inject: true, tier: "multiple" });
  });

  it("corroboration leaves the other tiers alone: high, a lone strong result, a named person", () => {
    expect(applyConfidenceGate([own("a", 0.8, 0.8, 1)], { ...t, corroboration: 2 }).tier).toBe("high");
    expect(applyConfidenceGate([own("a", 0.4, 0.4, 1), own("b", 0.2, 0.2, 1)], { ...t, single: 0.35, corroboration: 2 }).tier).toBe("single");
    expect(applyConfidenceGate([{ ...own("a", 0.2, 0.2, 1), named: true as const }, own("b", 0.2, 0.2, 1)], { ...t, corroboration: 2 }).tier).toBe("named");
  });

  it("the pipeline asks for corroboration by default", () => {
    const results = [own("a", 0.3, 0.3, 1), own("b", 0.25, 0.25, 1)];
    const select = (corroboration?: number) => selectAndFormat(results, { config: defaultEthosContextConfig(), sessionType: "MAIN_SESSION", sourceLabel: "test", corroboration });
    expect(select().decision.inject).toBe(false);
    expect(select(0).decision.inject).toBe(true);
  });
});
