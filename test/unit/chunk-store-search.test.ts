import { describe, expect, it } from "vitest";
import { BestSlots } from "../../src/memory/best-slots.ts";
import { BM25_B, BM25_K1, inverseDocumentFrequency } from "../../src/memory/calibrate.ts";
import { ChunkStore } from "../../src/memory/chunk-store.ts";
import type { SearchLimits, StoreCandidate } from "../../src/memory/chunk-store.ts";
import { termOf } from "../../src/memory/tokenize.ts";
import { seededRandom } from "../../bench/scale/vault.ts";

// The store's search scores slots a slice at a time and keeps the best in a bounded heap (for
// speed at 100k chunks). Checked against the search written plainly (each query term over every
// slot holding it, rarest term first, then a full sort), on random stores larger than a slice,
// with dead slots (deleted files) and postings added since the last rebuild (appended chunks).

const WORDS = ["harbour", "violin", "garden", "lantern", "meadow", "copper", "thunder", "pepper", "orchid", "glacier", "falcon", "saddle", "quartz", "walnut"];

function bm25Part(tf: number, idf: number, length: number, averageLength: number): number {
  const norm = BM25_K1 * (1 - BM25_B + (BM25_B * length) / averageLength);
  return (idf * (tf * (BM25_K1 + 1))) / (tf + norm);
}

type Random = () => number;

/** A chunk of 1–8 words, the commoner words far more often (as in real notes). */
function chunk(random: Random, n: number) {
  const words = Array.from({ length: 1 + Math.floor(random() * 8) }, () => WORDS[Math.floor(random() ** 3 * WORDS.length)]);
  return { text: `${n} ${words.join(" ")}\n`, headingPath: [], words, headingWords: [] };
}

/** Live slots, ascending (a file's chunks are consecutive slots). */
function liveSlots(store: ChunkStore<number>): number[] {
  const slots: number[] = [];
  for (const rel of store.fileNames()) {
    const file = store.file(rel)!;
    for (let slot = file.firstSlot; slot < file.firstSlot + file.count; slot++) slots.push(slot);
  }
  return slots.sort((a, b) => a - b);
}

/** The search as its doc comment states it, over a store without dead slots (or a budget nothing reaches). */
function plainSearch(store: ChunkStore<number>, queryTerms: readonly string[], limits: SearchLimits): StoreCandidate[] {
  const known = queryTerms.filter((term) => store.documentFrequencyOf(term) > 0).sort((a, b) => store.documentFrequencyOf(a) - store.documentFrequencyOf(b) || (a < b ? -1 : 1));
  const slots = liveSlots(store);
  const score = new Map<number, number>();
  let visited = 0;
  let traversed = 0;
  for (const [rank, term] of known.entries()) {
    const postings = store.documentFrequencyOf(term);
    if (rank >= limits.maxQueryTerms || (visited + postings > limits.maxPostings && traversed > 0)) continue;
    const idf = inverseDocumentFrequency(postings, store.chunkCount);
    const holding = slots.filter((slot) => store.hasTerm(slot, term)).slice(0, limits.maxPostings - visited);
    for (const slot of holding) score.set(slot, (score.get(slot) ?? 0) + bm25Part(store.termFrequencies(slot)[term]!, idf, store.lengthOf(slot), store.averageLength));
    visited += holding.length;
    traversed++;
  }
  return [...score]
    .sort(([slotA, a], [slotB, b]) => b - a || slotA - slotB)
    .slice(0, limits.candidates)
    .map(([slot, bm25]) => ({ slot, bm25, termFrequency: store.countsOf(slot, known), length: store.lengthOf(slot) }));
}

/**
 * A store of many score slices (4096 slots each): files of up to 400 chunks, packed by a search
 * at 31k slots; then some deleted and more added past the slice boundary at 32768 (postings added
 * since the pack), the last one grown in place.
 */
function randomStore(random: Random, options: { deletes: boolean }): ChunkStore<number> {
  const store = new ChunkStore<number>();
  let n = 0;
  let files = 0;
  const addFile = () => {
    const count = 1 + Math.floor(random() * 400);
    store.setFile(`f${files++}.md`, 0, Array.from({ length: count }, () => chunk(random, n++)));
  };
  while (n < 31_000) addFile();
  store.search([termOf(WORDS[0])!], { maxQueryTerms: 8, maxPostings: 1e9, candidates: 1 }); // packs the postings
  if (options.deletes) for (let i = 0; i < 20; i++) store.deleteFile(`f${Math.floor(random() * files)}.md`);
  while (n < 34_000) addFile();
  const last = `f${files - 1}.md`;
  store.appendToFile(last, 0, [chunk(random, n++), chunk(random, n++)]);
  return store;
}

/** 1–5 distinct analysed terms (as `analyzeQuery` gives them). */
function randomQuery(random: Random): string[] {
  return [...new Set(Array.from({ length: 1 + Math.floor(random() * 5) }, () => termOf(WORDS[Math.floor(random() * WORDS.length)])!))];
}

describe("ChunkStore.search", () => {
  it("finds what the plain search finds, scores equal to the last bit, with dead and recently added slots", () => {
    const random = seededRandom(11);
    for (let round = 0; round < 3; round++) {
      const store = randomStore(random, { deletes: true });
      for (let q = 0; q < 6; q++) {
        // Every touched slot, half the time: a slot scored wrong anywhere shows.
        const limits = { maxQueryTerms: 32, maxPostings: 1e9, candidates: q % 2 ? 100_000 : 1 + Math.floor(random() * 300) };
        const query = randomQuery(random);
        const { candidates } = store.search(query, limits);
        expect(candidates.length).toBeGreaterThan(0);
        expect(candidates).toEqual(plainSearch(store, query, limits));
      }
    }
  });

  it("keeps to the postings budget and the query-term limit as the plain search does", () => {
    const random = seededRandom(12);
    for (let round = 0; round < 2; round++) {
      const store = randomStore(random, { deletes: false });
      for (let q = 0; q < 8; q++) {
        const limits = { maxQueryTerms: 1 + Math.floor(random() * 4), maxPostings: 100 + Math.floor(random() * 40_000), candidates: 1 + Math.floor(random() * 300) };
        const query = randomQuery(random);
        const { candidates, cost } = store.search(query, limits);
        expect(cost.postingsVisited).toBeLessThanOrEqual(limits.maxPostings);
        expect(candidates).toEqual(plainSearch(store, query, limits));
      }
    }
  });
});

describe("BestSlots", () => {
  it("keeps the best slots of any offered order, as a full sort does (ties: lower slot)", () => {
    const random = seededRandom(13);
    for (let round = 0; round < 300; round++) {
      const offered = Array.from({ length: Math.floor(random() * 60) }, (_, slot) => ({ slot, score: Math.floor(random() * 8) / 2 }));
      offered.sort(() => random() - 0.5);
      const capacity = Math.floor(random() * 20);
      const best = new BestSlots(capacity);
      for (const { slot, score } of offered) if (score >= best.floor) best.offer(slot, score);
      const expected = [...offered].sort((a, b) => b.score - a.score || a.slot - b.slot).slice(0, capacity);
      expect(best.ranked()).toEqual(expected);
    }
  });
});
