import { describe, expect, it } from "vitest";
import { ChunkStore } from "../../src/memory/chunk-store.ts";
import { termOf } from "../../src/memory/tokenize.ts";
import { seededRandom } from "../../bench/scale/vault.ts";

// A day file of thousands of captured facts is rewritten in the index a slice of chunks at a time
// (setFileSteps), and dead slots are compacted in steps (settle): the event loop gets turns in
// between, and a search in between must see the store as it was before the rewrite, never half of it.

const WORDS = ["harbour", "violin", "garden", "lantern", "meadow", "copper", "thunder", "pepper", "orchid", "glacier", "falcon", "saddle"];
type Random = () => number;

function chunk(random: Random, n: number) {
  const words = Array.from({ length: 1 + Math.floor(random() * 6) }, () => WORDS[Math.floor(random() ** 2 * WORDS.length)]);
  return { text: `${n} ${words.join(" ")}\n`, headingPath: [], words, headingWords: [] };
}

type Chunk = ReturnType<typeof chunk>;

/** The same files, in the same order, in a new store; its postings packed by a first search. */
function storeOf(files: readonly (readonly [string, readonly Chunk[]])[]): ChunkStore<number> {
  const store = new ChunkStore<number>();
  for (const [rel, chunks] of files) store.setFile(rel, 0, chunks);
  store.search([termOf("harbour")!], { maxQueryTerms: 8, maxPostings: 1e9, candidates: 1 });
  return store;
}

/** What a search finds, by text: slot numbers differ between stores that hold the same chunks. */
function found(store: ChunkStore<number>, words: readonly string[]) {
  const { candidates } = store.search(words.map((w) => termOf(w)!), { maxQueryTerms: 8, maxPostings: 1e9, candidates: 50 });
  return candidates.map((c) => ({ text: store.chunk(c.slot).text, bm25: c.bm25 }));
}

const QUERIES = [["harbour"], ["violin", "garden"], ["glacier", "falcon", "saddle"], ["copper"], ["lantern", "orchid"]];

function expectSameSearches(store: ChunkStore<number>, reference: ChunkStore<number>): void {
  expect(store.chunkCount).toBe(reference.chunkCount);
  expect(store.averageLength).toBe(reference.averageLength);
  for (const query of QUERIES) expect(found(store, query), query.join(" ")).toEqual(found(reference, query));
}

/** Ten files of 300 chunks, and a rewrite of the fourth with 2,500 (several steps). */
function scene(seed: number) {
  const random = seededRandom(seed);
  let n = 0;
  const files = Array.from({ length: 10 }, (_, f) => [`f${f}.md`, Array.from({ length: 300 }, () => chunk(random, n++))] as const);
  const rewrite = Array.from({ length: 2500 }, () => chunk(random, n++));
  const after = [...files.filter(([rel]) => rel !== "f3.md"), ["f3.md", rewrite] as const];
  return { files, rewrite, after };
}

describe("ChunkStore.setFileSteps", () => {
  it("between its steps searches see the file as it was (a postings rebuild in between included); after the last, as setFile leaves it", () => {
    const { files, rewrite, after } = scene(21);
    const store = storeOf(files);
    const steps = store.setFileSteps("f3.md", 0, rewrite);
    const before = storeOf(files);
    expect(steps.next().done).toBe(false);
    expectSameSearches(store, before);
    let taken = 1;
    while (!steps.next().done) {
      taken++;
      // Past 4,096 recent postings, the next search rebuilds the packed postings: pending slots must keep theirs.
      if (taken % 4 === 0) expectSameSearches(store, before);
    }
    expect(taken).toBeGreaterThan(4);
    expectSameSearches(store, storeOf(after));
    expect(store.isLastFile("f3.md")).toBe(true);
  });

  it("a snapshot taken between its steps holds the file as it was", async () => {
    const { files, rewrite } = scene(22);
    const store = storeOf(files);
    const steps = store.setFileSteps("f3.md", 0, rewrite);
    steps.next();
    const loaded = await ChunkStore.load(store.snapshot(), async () => undefined);
    expectSameSearches(loaded, storeOf(files));
  });

  it("abandoned before its last step: the old file stays, the pending chunks are dead slots, compacted by settle", async () => {
    const { files, rewrite } = scene(23);
    const store = storeOf(files);
    const steps = store.setFileSteps("f3.md", 0, rewrite);
    for (let taken = 0; taken < 6; taken++) expect(steps.next().done).toBe(false); // over 1,024 chunks pending
    steps.return(undefined);
    expectSameSearches(store, storeOf(files));
    let pauses = 0;
    await store.settle(async () => void pauses++);
    expect(pauses).toBeGreaterThan(0); // the dead slots were compacted, in steps
    expectSameSearches(store, storeOf(files));
    expect(store.isLastFile("f9.md")).toBe(true); // renumbered densely: nothing after the last file
  });
});

describe("ChunkStore.growFileSteps", () => {
  it("a file that is not the last grows: between the steps searches see it as it was; after, as a rewrite with the new chunks leaves it", async () => {
    const { files, rewrite } = scene(25);
    const store = storeOf(files);
    const added = rewrite.slice(0, 700);
    const grown = [...files.filter(([rel]) => rel !== "f3.md"), ["f3.md", [...files[3][1], ...added]] as const];
    const before = storeOf(files);
    const steps = store.growFileSteps("f3.md", 0, added);
    let taken = 0;
    while (!steps.next().done) {
      taken++;
      expectSameSearches(store, before);
    }
    expect(taken).toBeGreaterThan(2);
    expectSameSearches(store, storeOf(grown));
    expect(store.isLastFile("f3.md")).toBe(true);
    expect(store.chunkAt("f3.md", 0).text).toBe(files[3][1][0].text);
    expect(store.chunkAt("f3.md", 300).text).toBe(added[0].text);
    // Its old chunks are dead slots now; compacted, the store still searches the same.
    await store.settle(async () => undefined);
    expectSameSearches(store, storeOf(grown));
  });
});

describe("ChunkStore.settle", () => {
  it("compacts dead slots in steps, not in deleteFile; searches before and after equal a fresh store's", async () => {
    const { files } = scene(24);
    const store = storeOf(files);
    for (const rel of ["f1.md", "f2.md", "f4.md", "f6.md"]) store.deleteFile(rel); // 1,200 dead of 3,000
    const kept = files.filter(([rel]) => !["f1.md", "f2.md", "f4.md", "f6.md"].includes(rel));
    expectSameSearches(store, storeOf(kept));
    expect(store.isLastFile("f9.md")).toBe(true);
    const pauses: number[] = [];
    await store.settle(async () => void pauses.push(store.chunkCount));
    expect(pauses.length).toBeGreaterThan(1);
    expectSameSearches(store, storeOf(kept));
    // Compacted: a file deleted now leaves 300 dead of 1,500, under the threshold; nothing to do.
    store.deleteFile("f9.md");
    let more = 0;
    await store.settle(async () => void more++);
    expect(more).toBe(0);
  });
});
