import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultEthosContextConfig } from "../../src/context/config.ts";
import { runContextPipeline } from "../../src/context/pipeline.ts";
import { buildMemoryIndex } from "../../src/memory/memory-index.ts";
import type { MemoryIndex } from "../../src/memory/memory-index.ts";
import { lendToNeighbours } from "../../src/memory/neighbours.ts";
import { RankPool } from "../../src/memory/rank-pool.ts";
import { DEFAULT_RERANK_WEIGHTS, rerank } from "../../src/memory/rerank.ts";
import type { RerankWeights } from "../../src/memory/rerank.ts";
import { createEmbeddedRetriever } from "../../src/memory/retriever.ts";
import { workspaceMemorySources } from "../../src/memory/sources.ts";
import { OFF, candidate as c, order } from "./rerank-candidates.ts";

// Issue 29: how evidence is put together. Each signal on its own, against all off, then through a
// real index and the pipeline (the gate decides on a memory's own evidence, never on a loan).


describe("rank pool: own evidence and loans", () => {
  it("a loan raises the score, never the evidence, and adds to what the chunk has without passing 1", () => {
    const pool = new RankPool();
    const at = pool.add(c("a", "a", 0.4), 0.4);
    pool.lend(c("a", "a", 0.4), 0.5, "add");
    expect(pool.evidence[at]).toBe(0.4);
    expect(pool.scores[at]).toBeCloseTo(0.4 + 0.5 * 0.6);
    pool.lend(c("a", "a", 0.4), 5, "add");
    expect(pool.scores[at]).toBe(1);
  });

  it("a chunk brought in by a loan keeps its own relevance as evidence; `max` never lowers a score", () => {
    const pool = new RankPool();
    const at = pool.lend(c("new", "n", 0.1), 0.3, "max");
    expect(pool.evidence[at]).toBe(0.1);
    expect(pool.scores[at]).toBe(0.3);
    pool.lend(c("new", "n", 0.1), 0.2, "max");
    expect(pool.scores[at]).toBe(0.3);
  });
});

describe("neighbours in the same exchange", () => {
  // A file's chunks in order: a0 a1 [hit] a3 a4 a5; `near` answers within the file, like the index.
  const chunks = ["a0", "a1", "hit", "a3", "a4", "a5"].map((id) => c(id, id, 0));
  const near = (id: string, offset: number) => chunks[chunks.findIndex((x) => x.id === id) + offset];

  it("the best hit lends to the chunks next to it, less with distance, and not past the span", () => {
    const pool = new RankPool();
    pool.add(c("hit", "hit", 0.8), 0.8);
    lendToNeighbours(pool, [0], near, { share: 0.5, hits: 1, span: 2 });
    const score = (id: string) => pool.scores[pool.indexOf(id) ?? -1];
    expect(score("a3")).toBeCloseTo(0.4);
    expect(score("a1")).toBeCloseTo(0.4);
    expect(score("a4")).toBeCloseTo(0.2);
    expect(score("a0")).toBeCloseTo(0.2);
    expect(pool.indexOf("a5")).toBeUndefined();
    // None of it is evidence: the gate still sees one hit.
    expect(pool.evidence[pool.indexOf("a3") ?? -1]).toBe(0);
  });

  it("only the best `hits` lend", () => {
    const pool = new RankPool();
    pool.add(c("hit", "hit", 0.8), 0.8);
    pool.add(c("a5", "a5", 0.3), 0.3);
    lendToNeighbours(pool, [0, 1], near, { share: 0.5, hits: 1, span: 1 });
    expect(pool.indexOf("a4")).toBeUndefined();
    lendToNeighbours(pool, [0, 1], near, { share: 0.5, hits: 2, span: 1 });
    expect(pool.indexOf("a4")).toBeDefined();
  });

  it("in the reranker: a weak match next to the best hit rises above an equal match elsewhere", () => {
    const pool = [c("top", "the summer break", 0.9), c("beside", "Caroline: researching adoption agencies", 0.05), c("elsewhere", "Caroline: learning the piano", 0.06)];
    const neighbours = (id: string, offset: number) => (id === "top" && offset === 1 ? pool[1] : undefined);
    const context = { query: "What are Caroline's plans for the summer?", queryTerms: ["carolin", "plan", "summer"], idf: () => 1, near: neighbours };
    expect(order(rerank(pool, context, OFF))).toEqual(["top", "elsewhere", "beside"]);
    const on = rerank(pool, context, { ...OFF, near: 0.5, nearHits: 1, nearSpan: 1 });
    expect(order(on)).toEqual(["top", "beside", "elsewhere"]);
    expect(on.find((r) => r.id === "beside")?.evidence).toBe(0.05);
  });
});

// Curated notes, an agent's memory/YYYY-MM-DD.md: one person's facts of one session in a row.
const DAYS: Record<string, string> = {
  "2023-05-25": "# 2023-05-25\n\n## Melanie\n\n- Melanie's kids are excited about the break from school.\n\n## Caroline\n\n- Caroline wants to spend the summer on something meaningful.\n\n- Caroline is researching adoption agencies to give kids a loving home.\n\n- Caroline's friends helped her through a tough breakup.\n",
  "2023-07-03": "# 2023-07-03\n\n## Caroline\n\n- Caroline is learning the piano to get creative.\n\n- Caroline went to a pride parade downtown.\n\n## Melanie\n\n- Melanie loves classical music, Bach and Mozart most.\n\n- Melanie drove her son to football practice.\n",
  "2023-08-14": "# 2023-08-14\n\n## Caroline\n\n- Caroline adopted a guinea pig called Oscar.\n",
};

describe("through the index and the pipeline (curated notes)", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "evidence-"));
  let index: MemoryIndex;
  beforeAll(async () => {
    fs.mkdirSync(path.join(tmp, "memory"));
    for (const [day, text] of Object.entries(DAYS)) fs.writeFileSync(path.join(tmp, "memory", `${day}.md`), text);
    index = await buildMemoryIndex(workspaceMemorySources(tmp), { cacheDir: false });
  });
  afterAll(() => {
    index.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  const ask = (message: string, options: { corroboration?: number } = {}) =>
    runContextPipeline({ message, retriever: createEmbeddedRetriever(index), config: defaultEthosContextConfig(), sessionType: "MAIN_SESSION", maxTokens: 1000, ...options });
  const withWeights = <T>(weights: Partial<RerankWeights>, run: () => T): T => {
    const saved = { ...DEFAULT_RERANK_WEIGHTS };
    Object.assign(DEFAULT_RERANK_WEIGHTS, weights);
    try {
      return run();
    } finally {
      Object.assign(DEFAULT_RERANK_WEIGHTS, saved);
    }
  };

  it("the fact told next to the best hit, under the same name, ranks above the person's unrelated facts", () => {
    const rankOf = (texts: string[], words: string) => texts.findIndex((t) => t.includes(words));
    const search = () => index.search("What are Caroline's plans for the summer?", 10).map((m) => m.text);
    const on = search();
    expect(on[0]).toContain("spend the summer");
    expect(rankOf(on, "researching adoption agencies")).toBeLessThan(rankOf(on, "learning the piano"));
    const off = withWeights({ near: 0 }, search);
    expect(rankOf(off, "researching adoption agencies")).toBeGreaterThan(rankOf(off, "learning the piano"));
  });

  it("a loan reaches the next fact under the same heading, never another section (another person's facts)", () => {
    const results = withWeights({ prf: 0 }, () => index.search("adoption agencies", 10));
    expect(results[0].text).toContain("researching adoption agencies");
    const next = results.find((m) => m.text.includes("tough breakup"));
    expect(next?.evidence).toBe(0);
    expect(next?.score).toBeGreaterThan(0);
    // Melanie's fact sits right before Caroline's section in the same file: nothing lent to it.
    expect(results.some((m) => m.text.includes("break from school"))).toBe(false);
  });

  it("evidence and matched words are reported with each result", () => {
    const [top] = index.search("Which guinea pig did Caroline adopt?", 5);
    expect(top.text).toContain("guinea pig called Oscar");
    expect(top.evidence).toBeGreaterThan(0);
    expect(top.matchedTerms).toBeGreaterThanOrEqual(3);
  });

  it("a prompt that shares one different word with each of two memories injects nothing (no corroboration)", async () => {
    const prompt = "parade, piano or drills?";
    const loose = await ask(prompt, { corroboration: 0 });
    expect(loose.decision).toMatchObject({ inject: true, tier: "multiple" });
    const strict = await ask(prompt);
    expect(strict.decision?.inject).toBe(false);
    expect(strict.block).toBe("");
  });

  it("a memory question still injects, the neighbours filling the block behind the hit", async () => {
    const result = await ask("What are Caroline's plans for the summer?");
    expect(result.decision?.inject).toBe(true);
    expect(result.block).toContain("spend the summer on something meaningful");
    expect(result.block).toContain("researching adoption agencies");
  });
});
