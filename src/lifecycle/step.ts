import type { HygieneConfig } from "../memory/config-md.ts";
import type { Run } from "./run-log.ts";

// What every step of the maintenance pass gets: the run (every read and write goes through it, so
// a dry run sees its own plan and a real run records what it changed), the CONFIG.md settings and
// the pass's clock. Steps never read the wall clock: the pass is deterministic for a given clock.

export type StepName = "corrections" | "conflicts" | "compaction" | "soul-history" | "soul-keeper";

export const STEP_NAMES: readonly StepName[] = ["soul-history", "corrections", "conflicts", "compaction", "soul-keeper"];

export type PassContext = {
  run: Run;
  config: HygieneConfig;
  now: Date;
  /** The clock of the last pass that ran every step, if any (the conflict scan covers at least the time since). */
  previousClock?: Date;
};

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

export function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}
