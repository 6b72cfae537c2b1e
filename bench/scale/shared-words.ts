// Worst case for a keyword index: a vault whose chunks all share the query's common words (5,000
// chunks, 250 files). Every query term's postings list is the whole vault, so an unbounded search
// touches every chunk several times. Measures search time for the legacy and the compact index,
// and the compact index's bound on work (postings visited per search).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { MemoryIndex } from "../../src/memory/memory-index.ts";
import { workspaceMemorySources } from "../../src/memory/sources.ts";
import { MemoryIndex as LegacyMemoryIndex } from "../lib/legacy-memory-index.ts";
import { percentile } from "../lib/metrics.ts";
import { markdownTable } from "../lib/table.ts";

const COMMON = "project meeting update team review plan status notes work today week client budget".split(" ");
const QUERIES = ["project meeting update team review", "what is the status of the budget plan this week", "client notes today work", "item7x3 project meeting"];

export type SharedWordsRow = { index: string; chunks: number; p50Ms: number; p95Ms: number; maxPostingsVisited?: number };

export async function runSharedWords(rounds = 30): Promise<{ rows: SharedWordsRow[]; markdown: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "occ-bench-shared-words-"));
  try {
    fs.mkdirSync(path.join(dir, "memory"));
    for (let f = 0; f < 250; f++) {
      const lines = Array.from({ length: 20 }, (_, i) => `- ${COMMON.join(" ")} item${f}x${i} and ${COMMON.slice(0, 6).join(" ")}`);
      fs.writeFileSync(path.join(dir, "memory", `2025-01-${String(f).padStart(3, "0")}.md`), `# Day ${f}\n\n${lines.join("\n")}\n`);
    }
    const rows: SharedWordsRow[] = [];
    const indexes = [
      ["legacy", new LegacyMemoryIndex(workspaceMemorySources(dir), { cacheDir: false })],
      ["compact", new MemoryIndex(workspaceMemorySources(dir), { cacheDir: false })],
    ] as const;
    for (const [name, index] of indexes) {
      await index.refresh();
      for (const query of QUERIES) index.search(query, 10); // warm-up
      const times: number[] = [];
      let maxPostingsVisited: number | undefined;
      for (let round = 0; round < rounds; round++) {
        for (const query of QUERIES) {
          const start = performance.now();
          index.search(query, 10);
          times.push(performance.now() - start);
          if (index instanceof MemoryIndex) maxPostingsVisited = Math.max(maxPostingsVisited ?? 0, index.lastQueryCost?.postingsVisited ?? 0);
        }
      }
      rows.push({ index: name, chunks: index.chunkCount, p50Ms: percentile(times, 50), p95Ms: percentile(times, 95), maxPostingsVisited });
    }
    const markdown = [
      "#### Worst case: 5,000 chunks that all share the query's words",
      "",
      markdownTable(
        ["index", "chunks", "search p50 ms", "search p95 ms", "most postings visited by one search"],
        rows.map((r) => [r.index, r.chunks, r.p50Ms.toFixed(2), r.p95Ms.toFixed(2), r.maxPostingsVisited === undefined ? "unbounded" : r.maxPostingsVisited]),
      ),
    ].join("\n");
    return { rows, markdown };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
