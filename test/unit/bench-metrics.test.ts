import { describe, expect, it } from "vitest";
import {
  describeGrowth,
  firstRelevantRank,
  hitAtK,
  logLogSlope,
  mean,
  percentile,
  reciprocalRankAt,
} from "../../bench/lib/metrics.ts";
import { Bm25Baseline, baselineTokens } from "../../bench/locomo/bm25-baseline.ts";
import { stripTurnIds, turnIdsIn } from "../../bench/locomo/data.ts";
import type { Turn } from "../../bench/locomo/data.ts";
import { baselineBlock, goldTextInBlock } from "../../bench/locomo/evaluate.ts";
import { estimateTokens } from "../../src/core/tokens.ts";
import { generateVault, seededRandom } from "../../bench/scale/vault.ts";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

describe("ranking metrics on a toy ranking", () => {
  // Three queries: gold at rank 1, gold at rank 4, gold absent.
  const rankings = [
    { ranked: ["a", "b", "c", "d", "e"], gold: ["a"] },
    { ranked: ["x", "y", "z", "g", "h"], gold: ["g", "q"] },
    { ranked: ["m", "n", "o"], gold: ["p"] },
  ];
  const ranks = rankings.map((r) => firstRelevantRank(r.ranked, (id) => r.gold.includes(id)));

  it("finds the first relevant rank, 1-based", () => {
    expect(ranks).toEqual([1, 4, undefined]);
  });

  it("computes R@1, R@3, R@5", () => {
    const recall = (k: number) => mean(ranks.map((r) => (hitAtK(r, k) ? 1 : 0)));
    expect(recall(1)).toBeCloseTo(1 / 3);
    expect(recall(3)).toBeCloseTo(1 / 3);
    expect(recall(5)).toBeCloseTo(2 / 3);
  });

  it("computes MRR with a cutoff", () => {
    expect(mean(ranks.map((r) => reciprocalRankAt(r, 10)))).toBeCloseTo((1 + 0.25 + 0) / 3);
    expect(reciprocalRankAt(4, 3)).toBe(0);
  });
});

describe("percentile and growth fit", () => {
  it("uses nearest rank", () => {
    const values = [5, 1, 4, 2, 3, 6, 7, 8, 9, 10];
    expect(percentile(values, 50)).toBe(5);
    expect(percentile(values, 95)).toBe(10);
    expect(percentile(values, 10)).toBe(1);
  });

  it("recovers the exponent of a power law", () => {
    const linear = [1e3, 1e4, 1e5].map((x) => ({ x, y: 0.002 * x }));
    const quadratic = [1e3, 1e4, 1e5].map((x) => ({ x, y: 1e-6 * x * x }));
    expect(logLogSlope(linear).slope).toBeCloseTo(1, 6);
    expect(logLogSlope(quadratic).slope).toBeCloseTo(2, 6);
    expect(describeGrowth(1.02)).toBe("about linear");
    expect(describeGrowth(2)).toBe("quadratic or worse");
  });
});

describe("BM25 baseline", () => {
  it("tokenises on non-alphanumerics and drops stopwords", () => {
    expect(baselineTokens("What did Ana's CLASS do, in 2023?")).toEqual(["ana", "s", "class", "2023"]);
  });

  it("ranks the document with the rare matching term first", () => {
    const index = new Bm25Baseline([
      { item: "d1", text: "Ana went to the pottery class yesterday" },
      { item: "d2", text: "Ben painted a sunrise at the lake" },
      { item: "d3", text: "Ana and Ben talked about the lake" },
    ]);
    const hits = index.search("When did Ben paint the sunrise?", 3);
    expect(hits[0].item).toBe("d2");
    expect(hits.map((h) => h.item)).not.toContain("d1");
  });
});

describe("LoCoMo turn ids", () => {
  it("extracts and strips the id comment", () => {
    const text = "Ana: I joined a pottery class. <!-- D1:3 -->";
    expect(turnIdsIn(text)).toEqual(["D1:3"]);
    expect(stripTurnIds(text)).toBe("Ana: I joined a pottery class.");
  });
});

describe("synthetic vault", () => {
  it("is deterministic for a seed and has the requested sections", () => {
    const a = fs.mkdtempSync(path.join(os.tmpdir(), "vault-a-"));
    const b = fs.mkdtempSync(path.join(os.tmpdir(), "vault-b-"));
    try {
      const infoA = generateVault(a, 95, 3);
      const infoB = generateVault(b, 95, 3);
      expect(infoA.sections).toBe(95);
      expect(infoA.chunks).toBe(95);
      expect(infoA.bytes).toBe(infoB.bytes);
      const dailyA = fs.readdirSync(path.join(a, "memory")).sort();
      expect(dailyA).toEqual(fs.readdirSync(path.join(b, "memory")).sort());
      expect(fs.readFileSync(path.join(a, "memory", dailyA[0]), "utf8")).toBe(
        fs.readFileSync(path.join(b, "memory", dailyA[0]), "utf8"),
      );
      const all = dailyA.map((f) => fs.readFileSync(path.join(a, "memory", f), "utf8")).join("\n");
      expect(all.match(/^## /gm)?.length).toBe(95 - 20);
      expect(all).toContain("```");
    } finally {
      fs.rmSync(a, { recursive: true });
      fs.rmSync(b, { recursive: true });
    }
  });

  it("seeded random differs between seeds", () => {
    expect(seededRandom(1)()).not.toBe(seededRandom(2)());
  });
});

describe("injected-context recall", () => {
  const turn = (id: string, text: string): Turn => ({ id, file: "memory/2023-05-08.md", raw: `${text} <!-- ${id} -->`, text });
  const gold = turn("D1:3", "Ana: I joined a pottery class yesterday and loved the wheel.");

  it("finds the whole gold turn despite escaping and line breaks in the block", () => {
    const block = "## 🧠 Memory Context\n\n1. **[2023-05-08]** Ana: I joined a pottery class\nyesterday and loved the wheel\\. *(score: 0.91)*";
    expect(goldTextInBlock(block, [gold])).toBe(true);
  });

  it("does not count a truncated snippet or an empty block", () => {
    expect(goldTextInBlock("1. **[2023-05-08]** Ana: I joined a pottery class…", [gold])).toBe(false);
    expect(goldTextInBlock("", [gold])).toBe(false);
  });

  it("does not match inside a longer word", () => {
    const short = turn("D2:1", "Ben: art");
    expect(goldTextInBlock("Ben: artistic plans", [short])).toBe(false);
  });

  it("packs the baseline block best first and never over budget", () => {
    const turns = [turn("D1:1", "a".repeat(100)), turn("D1:2", "b".repeat(2000)), turn("D1:3", "c".repeat(100))];
    const block = baselineBlock(turns, 100);
    expect(estimateTokens(block)).toBeLessThanOrEqual(100);
    expect(block.indexOf("aaa")).toBeLessThan(block.indexOf("ccc"));
    expect(block).not.toContain("bbb");
  });
});
