// Links the e2e observations to HOOK_ASSUMPTIONS.md: each test stores what it saw under an id;
// the doc has one row per id (first backticked token of the "assumption" cell) and one column per
// version; the suite fails when a cell (backticks aside) is not exactly the observed value.
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "./gateway.ts";

export type Observations = Record<string, string>;

export const ASSUMPTIONS_DOC = path.join(REPO_ROOT, "HOOK_ASSUMPTIONS.md");
const OBSERVATIONS_DIR = path.join(REPO_ROOT, ".e2e-work");

/** Writes `.e2e-work/observations-<version>.json` (git-ignored) for writing or reviewing the doc. */
export function saveObservations(version: string, observed: Observations): void {
  fs.mkdirSync(OBSERVATIONS_DIR, { recursive: true });
  fs.writeFileSync(path.join(OBSERVATIONS_DIR, `observations-${version}.json`), `${JSON.stringify(observed, null, 2)}\n`);
}

/** id → { version → cell text } from the markdown tables of HOOK_ASSUMPTIONS.md. */
export function readAssumptionsDoc(file = ASSUMPTIONS_DOC): Map<string, Record<string, string>> {
  const rows = new Map<string, Record<string, string>>();
  if (!fs.existsSync(file)) return rows;
  let header: string[] | undefined;
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (!line.startsWith("|")) {
      header = undefined;
      continue;
    }
    const cells = line.split("|").slice(1, -1).map((cell) => cell.trim());
    if (!header) {
      header = cells;
      continue;
    }
    if (cells.every((cell) => /^:?-+:?$/.test(cell))) continue;
    const id = /`([^`]+)`/.exec(cells[0] ?? "")?.[1];
    if (!id) continue;
    const byVersion: Record<string, string> = {};
    header.forEach((name, index) => {
      if (/^\d{4}\.\d+\.\d+$/.test(name)) byVersion[name] = cells[index] ?? "";
    });
    rows.set(id, byVersion);
  }
  return rows;
}

/** One line per observation whose HOOK_ASSUMPTIONS.md cell for `version` (backticks aside) differs, or has no row. */
export function assumptionMismatches(observed: Observations, version: string, doc = readAssumptionsDoc()): string[] {
  return Object.entries(observed).flatMap(([id, value]) => {
    const cell = doc.get(id)?.[version];
    if (cell === undefined) return [`${id}: no row (observed ${JSON.stringify(value)})`];
    return cell.replaceAll("`", "") === value ? [] : [`${id}: doc says ${JSON.stringify(cell)}, observed ${JSON.stringify(value)}`];
  });
}
