import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_RERANK_WEIGHTS, dateMatches, entityOf, queryPeriod, queryWritesName, rerank, speakerOf } from "../../src/memory/rerank.ts";
import type { RerankCandidate } from "../../src/memory/candidate.ts";
import { buildMemoryIndex } from "../../src/memory/memory-index.ts";
import { workspaceMemorySources } from "../../src/memory/sources.ts";
import { OFF, candidate as c, order, termsOf as tf } from "./rerank-candidates.ts";

const ctx = (query: string, queryTerms: string[], next?: (id: string) => RerankCandidate | undefined) => ({ query, queryTerms, idf: () => 1, next });

describe("reranker signals (each one on its own, against all off)", () => {
  it("speaker: the named person's own entries rise above entries that only address them", () => {
    const pool = [c("addressed", "Caroline: Thanks, Melanie! What did you paint?", 0.6), c("own", "Melanie: I painted a lake at sunrise.", 0.55)];
    const query = ctx("What did Melanie paint?", ["melani", "paint"]);
    expect(order(rerank(pool, query, OFF))).toEqual(["addressed", "own"]);
    expect(order(rerank(pool, query, { ...OFF, speaker: DEFAULT_RERANK_WEIGHTS.speaker }))).toEqual(["own", "addressed"]);
    // No speaker named in the query: no change.
    expect(order(rerank(pool, ctx("What was painted?", ["paint"]), { ...OFF, speaker: 0.25 }))).toEqual(["addressed", "own"]);
  });

  it("date: a query that names a month prefers memories dated then (or told in the two weeks after)", () => {
    const pool = [c("may", "Went camping with the kids.", 0.5, { date: "2023-05-20" }), c("july", "Went camping again.", 0.45, { date: "2023-07-03" })];
    const query = ctx("When did Melanie go camping in June?", ["camp"]);
    expect(order(rerank(pool, query, OFF))).toEqual(["may", "july"]);
    expect(order(rerank(pool, query, { ...OFF, date: DEFAULT_RERANK_WEIGHTS.date }))).toEqual(["july", "may"]);
    expect(queryPeriod("What did I do on October 13, 2023?")).toEqual({ month: "10", day: "13", year: "2023" });
    expect(queryPeriod("Where may I park?")).toBeUndefined(); // "may" the verb is no month
    expect(dateMatches("2023-10-15", { year: "2023", month: "10", day: "13" })).toBe(true);
    expect(dateMatches("2022-06-15", { year: "2023", month: "06" })).toBe(false);
  });

  it("answer: the reply to a matching question inherits most of its score, even without a shared word", () => {
    const asked = c("q", "Caroline: You play any instruments? <!-- D15:25 -->", 0.9);
    const reply = c("a", "Melanie: Yeah, I play clarinet! <!-- D15:26 -->", 0);
    const other = c("x", "Melanie: instruments are fun", 0.5);
    const next = (id: string) => (id === "q" ? reply : undefined);
    const query = ctx("What instruments does Melanie play?", ["instrument", "melani", "plai"], next);
    expect(order(rerank([asked, other], query, OFF))).toEqual(["q", "x"]);
    const on = rerank([asked, other], query, { ...OFF, answer: DEFAULT_RERANK_WEIGHTS.answer });
    expect(order(on)).toEqual(["q", "a", "x"]);
    expect(on[1].score).toBeCloseTo(0.9 * DEFAULT_RERANK_WEIGHTS.answer);
  });

  it("pseudo-relevance feedback: a candidate sharing the best hits' vocabulary rises", () => {
    const pool = [
      c("top", "pottery class clay", 0.9, { terms: tf("potteri", "class", "clai") }),
      c("plain", "a class on monday", 0.41, { terms: tf("class", "mondai") }),
      c("related", "kids loved the clay", 0.4, { terms: tf("kid", "love", "clai") }),
    ];
    const query = ctx("What class did she take?", ["class"]);
    expect(order(rerank(pool, query, { ...OFF, prfDocs: 1 }))).toEqual(["top", "plain", "related"]);
    expect(order(rerank(pool, query, { ...OFF, prf: DEFAULT_RERANK_WEIGHTS.prf, prfDocs: 1 }))).toEqual(["top", "related", "plain"]);
  });

  it("scores stay in [0, 1] and a candidate without any signal keeps its calibrated score", () => {
    const results = rerank([c("a", "Melanie: x", 0.99, { date: "2023-06-01" }), c("b", "plain", 0.3)], ctx("Melanie in June 2023", ["melani"]));
    expect(results[0].score).toBe(1);
    expect(results.find((r) => r.id === "b")?.score).toBe(0.3);
    expect(speakerOf("- **Jeff:** likes boats")).toBe("Jeff");
    expect(speakerOf("Note: nothing")).toBe("Note"); // a label is a label; it only counts when the query names it
  });
});

describe("through the index", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rerank-"));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("brings the reply to a matching question from the same file, though it shares no query word", async () => {
    fs.mkdirSync(path.join(tmp, "memory"), { recursive: true });
    fs.writeFileSync(
      path.join(tmp, "memory", "2023-08-01.md"),
      "# 2023-08-01\n\nCaroline: You play any instruments, Melanie?\n\nYeah, clarinet since I was young.\n\nCaroline: Cool. Any musical hobbies besides?\n",
    );
    const index = await buildMemoryIndex(workspaceMemorySources(tmp), { cacheDir: false });
    const texts = () => index.search("What instruments does Melanie play?", 5).map((r) => r.text);
    expect(texts()).toContain("Yeah, clarinet since I was young.");
    const saved = { ...DEFAULT_RERANK_WEIGHTS };
    // The neighbours signal would bring the reply in too (it is the turn after a hit): both off.
    Object.assign(DEFAULT_RERANK_WEIGHTS, { answer: 0, near: 0 });
    try {
      expect(texts()).not.toContain("Yeah, clarinet since I was young.");
    } finally {
      Object.assign(DEFAULT_RERANK_WEIGHTS, saved);
    }
  });
});

describe("name headings (curated notes: `## Caroline` / `- fact`)", () => {
  it("an entry is about its speaker, else about a heading that is only a name", () => {
    expect(entityOf("Caroline: I went to a support group.", ["2023-05-08"])).toBe("Caroline");
    expect(entityOf("- Went to a support group.", ["2023-05-08", "Caroline"])).toBe("Caroline");
    expect(entityOf("- Went to a support group.", ["2023-05-08", "Things to do this week"])).toBeUndefined();
    expect(entityOf("- Went to a support group.", ["2023-05-08"])).toBeUndefined();
  });

  it("a query writes a name when it is capitalised, a whole word, and not the query's first word", () => {
    expect(queryWritesName("When did Caroline go?", "Caroline")).toBe(true);
    expect(queryWritesName("What is Caroline's job?", "Caroline")).toBe(true);
    expect(queryWritesName("when did caroline go?", "Caroline")).toBe(false);
    expect(queryWritesName("Is Carolines here?", "Caroline")).toBe(false);
    expect(queryWritesName("Notes on the Python GIL", "Notes")).toBe(false);
    expect(queryWritesName("Notes from Notes", "Notes")).toBe(true);
  });

  it("the named person's facts rise above facts filed under someone else, and are marked named", () => {
    const pool = [
      c("about-caroline", "- Caroline told Melanie about the painting class.", 0.6, { headingPath: ["2023-05-08", "Caroline"] }),
      c("about-melanie", "- Painted a lake at sunrise.", 0.55, { headingPath: ["2023-05-08", "Melanie"] }),
    ];
    const query = ctx("What did Melanie paint?", ["melani", "paint"]);
    expect(order(rerank(pool, query, OFF))).toEqual(["about-caroline", "about-melanie"]);
    const ranked = rerank(pool, query, { ...OFF, speaker: DEFAULT_RERANK_WEIGHTS.speaker });
    expect(order(ranked)).toEqual(["about-melanie", "about-caroline"]);
    expect(ranked.find((r) => r.id === "about-melanie")?.named).toBe(true);
    expect(ranked.find((r) => r.id === "about-caroline")?.named).toBeUndefined();
    // Lowercase in the query: still ranked as the person's, but not marked (the gate's mark needs a written name).
    const lower = rerank(pool, ctx("what did melanie paint?", ["melani", "paint"]), { ...OFF, speaker: DEFAULT_RERANK_WEIGHTS.speaker });
    expect(order(lower)).toEqual(["about-melanie", "about-caroline"]);
    expect(lower.some((r) => r.named)).toBe(false);
  });
});

