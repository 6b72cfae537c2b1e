import { describe, expect, it } from "vitest";
import { applyConfidenceGate } from "../../src/context/gate.ts";
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
});
