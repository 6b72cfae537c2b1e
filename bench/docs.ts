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
