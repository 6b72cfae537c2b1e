import { ChunkStore } from "../../src/memory/chunk-store.ts";
import type { StoredChunkInput } from "../../src/memory/chunk-store.ts";
import type { CacheIdentity } from "../../src/memory/index-cache.ts";

// Small chunk stores whose index caches are kept as files in index-cache-fixtures/: each file is
// what the one-buffer encoder of cache format 3 wrote for the store built here. Words are plain
// lowercase nouns and numbered tokens, which the analyser keeps as they are.

export type FixtureMeta = { size: number; hash: string };

export const FIXTURE_IDENTITY: CacheIdentity = { key: "fixture", rootDir: "/vault", maxChunkChars: 1200, analyser: "fixture" };

const WORDS = ["harbour", "violin", "garden", "lantern", "meadow", "copper", "thunder", "pepper", "orchid", "glacier", "falcon", "saddle", "quartz", "walnut", "café", "naïve"];

/** A deterministic chunk: the n-th, under `headingPath`, its words taken from its own text. */
function chunk(n: number, headingPath: string[], extra = "", date?: string, confidence?: number): StoredChunkInput {
  const words = [WORDS[n % WORDS.length], WORDS[(n * 7 + 3) % WORDS.length], `t${n % 97}`];
  const input: StoredChunkInput = { text: `- ${n}: ${words.join(" ")}${extra}\n`, headingPath, words, headingWords: headingPath.map((h) => h.toLowerCase()) };
  if (date) input.date = date;
  if (confidence !== undefined) input.confidence = confidence;
  return input;
}

const meta = (rel: string, n: number): FixtureMeta => ({ size: n * 17 + rel.length, hash: `h-${rel}-${n}` });

function chunks(from: number, count: number, headingPath: string[], extra = "", date?: string): StoredChunkInput[] {
  return Array.from({ length: count }, (_, i) => chunk(from + i, headingPath, extra, date));
}

/** Three ASCII files with headings, dates and one confidence. */
function plain(): ChunkStore<FixtureMeta> {
  const store = new ChunkStore<FixtureMeta>();
  store.setFile("MEMORY.md", meta("MEMORY.md", 1), [chunk(0, ["MEMORY"], "", undefined, 0.4), ...chunks(1, 3, ["MEMORY", "Preferences"])]);
  store.setFile("memory/2026-01-01.md", meta("memory/2026-01-01.md", 2), chunks(10, 4, ["2026-01-01", "Standup"], "", "2026-01-01"));
  store.setFile("memory/2026-01-02.md", meta("memory/2026-01-02.md", 3), chunks(20, 2, ["2026-01-02"], " decided", "2026-01-02"));
  return store;
}

/**
 * Non-ASCII text and headings (accents, a dash, an emoji, CJK), empty files (one first, one
 * between others), a heading holding the title separator, and lone surrogates: a file ending in
 * a high one, the next beginning with a low one (each file's text is encoded on its own).
 */
function unicode(): ChunkStore<FixtureMeta> {
  const store = new ChunkStore<FixtureMeta>();
  store.setFile("memory/2026-02-00.md", meta("empty-first", 0), []);
  store.setFile("memory/2026-02-01.md", meta("memory/2026-02-01.md", 4), [
    chunk(1, ["Café — notes"], " café naïve — 🙂 日本語テキスト"),
    chunk(2, ["Café — notes", "Über\u0001alles"], " Grüße aus Köln"),
    { ...chunk(3, ["Café — notes", "Über\u0001alles"]), text: "ends in a high surrogate \ud83d" },
  ]);
  store.setFile("memory/2026-02-02.md", meta("empty-between", 0), []);
  store.setFile("memory/2026-02-03.md", meta("memory/2026-02-03.md", 5), [{ ...chunk(4, ["日本"]), text: "\ude42 starts with a low surrogate 🙂🙂\n" }, chunk(5, ["日本"], " ✓ done")]);
  return store;
}

/** Files replaced and removed: dead slots left for the snapshot to drop (too few to compact). */
function deadSlots(): ChunkStore<FixtureMeta> {
  const store = new ChunkStore<FixtureMeta>();
  for (let f = 0; f < 12; f++) store.setFile(`memory/d${f}.md`, meta(`d${f}`, f), chunks(f * 10, 5, [`Day ${f}`], "", `2026-03-${String(f + 1).padStart(2, "0")}`));
  store.setFile("memory/d3.md", meta("d3-edited", 99), chunks(500, 3, ["Day 3", "Edited"]));
  store.deleteFile("memory/d7.md");
  store.deleteFile("memory/d0.md");
  return store;
}

/**
 * Enough removed chunks for a compaction, then more dead slots. The fixture was written when
 * deleteFile compacted at once; compaction now waits for settle, and the snapshot (a compacted
 * copy of the live slots either way) is byte for byte the same.
 */
function compacted(): ChunkStore<FixtureMeta> {
  const store = new ChunkStore<FixtureMeta>();
  for (let f = 0; f < 6; f++) store.setFile(`memory/c${f}.md`, meta(`c${f}`, f), chunks(f * 300, 300, [`Block ${f}`]));
  for (const f of [1, 3, 4, 5]) store.deleteFile(`memory/c${f}.md`); // 1,200 dead slots, 600 live
  store.setFile("memory/c2.md", meta("c2-edited", 7), chunks(2000, 4, ["Block 2"]));
  return store;
}

/** More files than the encoder handles between hand-backs, some of them empty. */
function manyFiles(): ChunkStore<FixtureMeta> {
  const store = new ChunkStore<FixtureMeta>();
  for (let f = 0; f < 300; f++) store.setFile(`memory/m${String(f).padStart(3, "0")}.md`, meta(`m${f}`, f), f % 50 === 0 ? [] : chunks(f, 1 + (f % 3), [`M ${f % 10}`]));
  return store;
}

export const FIXTURE_STORES: Record<string, () => ChunkStore<FixtureMeta>> = { plain, unicode, "dead-slots": deadSlots, compacted, "many-files": manyFiles };
