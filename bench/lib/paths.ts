// Where benchmark inputs and outputs live. The LoCoMo data is never copied into the repo.
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** `OPENCLAW_CONTEXT_LOCOMO_DIR` overrides the default `../shared/bench/locomo` next to the repo. */
export function locomoDir(): string {
  const fromEnv = process.env.OPENCLAW_CONTEXT_LOCOMO_DIR;
  return fromEnv ? path.resolve(fromEnv) : path.resolve(REPO_ROOT, "../shared/bench/locomo");
}

/**
 * LoCoMo written as curated daily notes (the dataset's per-session fact lists): the same questions on
 * the format most real vaults are in. `OPENCLAW_CONTEXT_LOCOMO_NOTES_DIR` overrides
 * `../shared/bench/locomo-notes`.
 */
export function locomoNotesDir(): string {
  const fromEnv = process.env.OPENCLAW_CONTEXT_LOCOMO_NOTES_DIR;
  return fromEnv ? path.resolve(fromEnv) : path.resolve(REPO_ROOT, "../shared/bench/locomo-notes");
}

export function resultsDir(): string {
  return path.join(REPO_ROOT, "bench", "results");
}

export const SAMPLE_WORKSPACE = path.join(REPO_ROOT, "fixtures", "workspace");
