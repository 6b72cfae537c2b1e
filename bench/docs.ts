// Rewrites docs/benchmarks.md: a fixed explanation of what is measured, then the last tables.
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "./lib/paths.ts";

const MARKER = "<!-- bench:results -->";

/** Keeps everything above the marker (hand-written explanation) and replaces the tables below it. */
export function writeBenchmarksDoc(tables: string): void {
  const file = path.join(REPO_ROOT, "docs", "benchmarks.md");
  const existing = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : `# Benchmarks\n\n${MARKER}\n`;
  const head = existing.includes(MARKER) ? existing.slice(0, existing.indexOf(MARKER)) : `${existing.trimEnd()}\n\n`;
  fs.writeFileSync(file, `${head}${MARKER}\n\n${tables.replace(/^## .*\n/, "## Last results\n")}\n`);
}

// `tsx bench/docs.ts [results.md]`: put the tables of the last full run into docs/benchmarks.md.
if (import.meta.url === `file://${process.argv[1]}`) {
  const source = process.argv[2] ?? path.join(REPO_ROOT, "bench", "results", "bench-latest.md");
  writeBenchmarksDoc(fs.readFileSync(source, "utf8").trim());
  process.stdout.write(`docs/benchmarks.md updated from ${path.relative(REPO_ROOT, source)}\n`);
}
