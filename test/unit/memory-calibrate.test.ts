import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyMemoryConfidence, calibratedScore, inverseDocumentFrequency } from "../../src/memory/calibrate.ts";
import type { CorpusStats } from "../../src/memory/calibrate.ts";
import { analyzeQuery, analyzeText, termFrequencies } from "../../src/memory/tokenize.ts";

/** A tiny corpus with real analysed terms, so the numbers match what the index computes. */
function corpus(texts: string[]) {
  const docs = texts.map((t) => {
    const terms = analyzeText(t);
    return { termFrequency: termFrequencies(terms), length: terms.length };
  });
  const df = new Map<string, number>();
  for (const d of docs) for (const t of Object.keys(d.termFrequency)) df.set(t, (df.get(t) ?? 0) + 1);
  const stats: CorpusStats = {
    documentCount: docs.length,
    averageLength: docs.reduce((s, d) => s + d.length, 0) / docs.length,
    documentFrequency: (t) => df.get(t) ?? 0,
  };
  return { docs, stats, score: (query: string, i: number) => calibratedScore(analyzeQuery(query), docs[i], stats) };
}

const memories = [
  "Jeff's sailboat is named Halcyon Drift; it is moored at slip 14 in Sausalito.",
  "Jeff prefers TypeScript over Go for internal tooling.",
  "Jeff lives in Oakland with his partner Sam.",
  "Jeff's favourite coffee is a cortado from the corner cafe.",
  "Priya signed the Harbor Books contract; the project lives in Linear.",
];

describe("calibrated score (maps BM25 evidence onto story 007's cosine-like thresholds)", () => {
  const c = corpus(memories);

  it("a chunk holding every informative query term scores in the high tier (≥ 0.75)", () => {
    expect(c.score("What is my sailboat named and where is it moored?", 0)).toBeGreaterThanOrEqual(0.75);
    expect(c.score("which coffee does Jeff like, a cortado?", 3)).toBeGreaterThanOrEqual(0.75);
  });

  it("a chunk sharing only a word every memory contains stays under the 0.12 gate", () => {
    // "jeff" is in 4 of 5 chunks (low idf); "breakfast" and "omelette" are in none (high idf).
    const s = c.score("Jeff breakfast omelette", 1);
    expect(s).toBeGreaterThan(0);
    expect(s).toBeLessThan(0.12);
  });

  it("partial coverage lands between the gate and the high tier", () => {
    const s = c.score("Where is the sailboat insured?", 0);
    expect(s).toBeGreaterThanOrEqual(0.12);
    expect(s).toBeLessThan(0.75);
  });

  it("no shared term scores exactly 0", () => {
    expect(c.score("quantum chromodynamics lecture", 0)).toBe(0);
  });

  it("matching one more query term never lowers the score", () => {
    expect(c.score("sailboat moored Sausalito", 0)).toBeGreaterThan(c.score("sailboat moored Tahoe", 0));
  });

  it("idf is positive and largest for terms absent from the corpus", () => {
    expect(inverseDocumentFrequency(0, 5)).toBeGreaterThan(inverseDocumentFrequency(1, 5));
    expect(inverseDocumentFrequency(5, 5)).toBeGreaterThan(0);
  });

  it("always lies in [0, 1] for any corpus and query", () => {
    const word = fc.constantFrom("alpha", "beta", "gamma", "delta", "sail", "boat", "jeff", "coffee", "zeta", "omega");
    fc.assert(
      fc.property(
        fc.array(fc.array(word, { minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 12 }),
        fc.array(word, { minLength: 1, maxLength: 8 }),
        (docs, query) => {
          const k = corpus(docs.map((d) => d.join(" ")));
          for (let i = 0; i < docs.length; i++) {
            const s = k.score(query.join(" "), i);
            if (!(s >= 0 && s <= 1)) return false;
          }
          return true;
        },
      ),
    );
  });
});

describe("applyMemoryConfidence (spec 004 §8 hook into ranking)", () => {
  it("is neutral without metadata or at weight 1, lowers decayed memories, boosts corrections, stays ≤ 1", () => {
    expect(applyMemoryConfidence(0.8, undefined)).toBe(0.8);
    expect(applyMemoryConfidence(0.8, 1)).toBeCloseTo(0.8);
    expect(applyMemoryConfidence(0.8, 0.2)).toBeCloseTo(0.64);
    expect(applyMemoryConfidence(0.8, 1.5)).toBeCloseTo(0.9);
    expect(applyMemoryConfidence(0.95, 1.5)).toBe(1);
  });
});
