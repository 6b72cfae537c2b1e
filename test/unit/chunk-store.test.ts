import { describe, expect, it } from "vitest";
import { ChunkStore } from "../../src/memory/chunk-store.ts";
import type { StoredChunkInput } from "../../src/memory/chunk-store.ts";

const input = (text: string, headingPath: string[]): StoredChunkInput => ({ text, headingPath, words: text.toLowerCase().split(/\W+/), headingWords: [] });

describe("ChunkStore heading paths", () => {
  it("gives back every chunk's heading path as it came, shared paths once, a title holding the key separator too", () => {
    // The chunker cuts titles out of the file's text; the store keeps copies cut from its own key.
    const fileText = "# Trip to Lisbon — 2026\n## Day one: the tram ride up the hill\n";
    const outer = fileText.slice(2, 23);
    const inner = fileText.slice(27, fileText.length - 1);
    const paths = [[outer], [outer, inner], [outer, inner], [], ["a\u0000b", "c"]];
    const store = new ChunkStore<number>();
    store.setFile("trip.md", 1, paths.map((headingPath, i) => input(`chunk ${i} lisbon tram\n`, headingPath)));
    expect(paths.map((_, i) => store.chunkAt("trip.md", i).headingPath)).toEqual(paths);
    expect(store.chunkAt("trip.md", 1).headingPath).toBe(store.chunkAt("trip.md", 2).headingPath);
    expect(store.snapshot().headings).toEqual([[outer], [outer, inner], [], ["a\u0000b", "c"]]);
  });
});
