import path from "node:path";
import { CORRECTIONS_FILE_NAME, parseCorrections } from "../capture/corrections.ts";
import { readRegularFile } from "../fs/safe-read.ts";
import type { HygieneConfig } from "../memory/config-md.ts";
import { CHANGELOG_FILE, CONFLICTS_FILE } from "./audit-log.ts";
import { openConflicts } from "./conflicts.ts";
import { isOpenCorrection } from "./correction-maturation.ts";
import { hasOpenReview, QUEUE_NAME } from "./review-gate.ts";
import { listRuns, startRun } from "./run-log.ts";
import type { RunSummary } from "./run-log.ts";
import { correctionPatterns, proposals, SOUL_DRAFT, SOUL_DRAFT_NAME, allCorrections } from "./soul-keeper.ts";

// What `status` says about maintenance: the last pass and what it changed, the conflicts still
// open, and the corrections waiting (in their cool-down, or verified and waiting for the operator's
// review of a SOUL.md proposal). Read only.

export type MaintenanceStatus = {
  lastRun?: RunSummary;
  runs: number;
  openConflicts: { id: string; heading: string }[];
  corrections: {
    /** Open entries still in their cool-down (verified: false). */
    coolingDown: number;
    /** Verified corrections in patterns that pass the gate and are not in SOUL.md yet. */
    awaitingReview: number;
    /** Principles in those patterns. */
    proposals: number;
    /** DAILY_EXECUTION_QUEUE.md has an open REVIEW NEEDED for the Soul Keeper's draft. */
    reviewOpen: boolean;
    draft: string;
  };
};

async function readText(workspaceDir: string, name: string): Promise<string> {
  const read = await readRegularFile(path.join(workspaceDir, name), { maxBytes: 16 * 1024 * 1024, root: workspaceDir });
  return read.ok ? read.bytes.toString("utf8") : "";
}

export async function maintenanceStatus(workspaceDir: string, now: Date, config: HygieneConfig): Promise<MaintenanceStatus> {
  const runs = await listRuns(workspaceDir);
  const lastRun = [...runs].reverse().find((run) => run.trigger !== "promote");
  // A dry run is a read-only view of the files: the gate's reader without any write.
  const view = startRun({ workspaceDir, clock: now, trigger: "status", lock: {}, dryRun: true });
  const pending = proposals(correctionPatterns(await allCorrections(view), now, config), config, await readText(workspaceDir, CHANGELOG_FILE));
  const entries = parseCorrections(await readText(workspaceDir, CORRECTIONS_FILE_NAME));
  return {
    lastRun,
    runs: runs.length,
    openConflicts: openConflicts(await readText(workspaceDir, CONFLICTS_FILE)),
    corrections: {
      coolingDown: entries.filter((entry) => isOpenCorrection(entry) && !entry.verified).length,
      awaitingReview: pending.reduce((n, p) => n + p.occurrences.length, 0),
      proposals: pending.length,
      reviewOpen: hasOpenReview(await readText(workspaceDir, QUEUE_NAME), SOUL_DRAFT_NAME),
      draft: SOUL_DRAFT,
    },
  };
}
