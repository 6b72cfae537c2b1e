import fs from "node:fs/promises";
import path from "node:path";
import { settledCaptures } from "../capture/capture.ts";
import { getLogger } from "../core/log.ts";
import { withFileLock } from "../fs/lock.ts";
import { workspaceProblem } from "../fs/workspace-guard.ts";
import { loadHygieneConfig, lockOptionsFromConfig } from "../memory/config-md.ts";
import type { HygieneConfig } from "../memory/config-md.ts";
import { runCompactionStep } from "./compaction.ts";
import { runConflictsStep } from "./conflicts.ts";
import { runCorrectionsStep } from "./correction-maturation.ts";
import { beginRun, listRuns, MAINTENANCE_DIR, undoRun } from "./run-log.ts";
import type { Run, RunRecord, UndoRecord } from "./run-log.ts";
import { runSoulHistoryStep } from "./soul-history.ts";
import { applySoulPromotion, planSoulPromotion, runSoulKeeperStep } from "./soul-keeper.ts";
import type { SoulPromotionPlan } from "./soul-keeper.ts";
import { STEP_NAMES } from "./step.ts";
import type { PassContext, StepName } from "./step.ts";

// The maintenance pass: the persistent memory spec's maintenance agents (Soul Keeper, Conflict
// Detector, Memory Compactor) as one deterministic, idempotent run over a workspace's files.
// Deterministic: every decision comes from the files and the pass's clock. Idempotent: a second
// pass at the same clock finds nothing to do. One pass per workspace at a time, in this process
// and across processes (the gateway's schedule and the operator's CLI), through the lock on
// Archive/.maintenance/pass. Every change is a recorded write (run-log.ts): `undo` restores it.

const AGENT_NAME = "maintenance";
const STEPS: Record<StepName, (ctx: PassContext) => Promise<void>> = {
  "soul-history": runSoulHistoryStep,
  corrections: runCorrectionsStep,
  conflicts: runConflictsStep,
  compaction: runCompactionStep,
  "soul-keeper": runSoulKeeperStep,
};

const log = () => getLogger("openclaw-context.maintenance");

export type PassOptions = {
  workspaceDir: string;
  /** The pass's clock (default: now). */
  now?: Date;
  /** Plan only: nothing is written, the returned record lists what would change. */
  dryRun?: boolean;
  /** What started it: "manual", "schedule:<agent>", … (in the run's record). */
  trigger?: string;
  /** Steps to run, in the pass's order (default: all). */
  steps?: readonly StepName[];
  /** Settings (default: the workspace's CONFIG.md). */
  config?: HygieneConfig;
  /** Wall clock for the record's start and end times (tests pass their fake clock). */
  wallClock?: () => Date;
};

export type PassResult = { record: RunRecord; dryRun: boolean };

/** One pass per workspace in this process; the lock below covers other processes. */
const running = new Map<string, Promise<unknown>>();

async function exclusive<T>(workspaceDir: string, config: HygieneConfig, fn: () => Promise<T>, readOnly = false): Promise<T> {
  const key = path.resolve(workspaceDir);
  const previous = running.get(key) ?? Promise.resolve();
  const locked = async () => {
    // A plan (dry run) writes nothing, not even the lock.
    if (readOnly) return fn();
    await fs.mkdir(path.join(key, MAINTENANCE_DIR), { recursive: true });
    return withFileLock(path.join(key, MAINTENANCE_DIR, "pass"), fn, lockOptionsFromConfig(config, AGENT_NAME));
  };
  const mine = previous.catch(() => undefined).then(locked);
  running.set(key, mine);
  try {
    return await mine;
  } finally {
    if (running.get(key) === mine) running.delete(key);
  }
}

async function settingsFor(workspaceDir: string, given: HygieneConfig | undefined): Promise<HygieneConfig> {
  return given ?? (await loadHygieneConfig(workspaceDir)).config;
}

async function checkedWorkspace(workspaceDir: string): Promise<string> {
  const problem = await workspaceProblem(workspaceDir);
  if (problem) throw new Error(`workspace ${workspaceDir}: ${problem}; the maintenance pass writes only into an existing absolute folder`);
  return path.resolve(workspaceDir);
}

/** The clock of the newest full pass that was not undone (the conflict scan reaches back to it). */
async function previousClock(workspaceDir: string): Promise<Date | undefined> {
  const runs = (await listRuns(workspaceDir)).filter((run) => !run.undone && run.steps.includes("conflicts"));
  const last = runs.at(-1);
  return last ? new Date(last.clock) : undefined;
}

async function stepsIn(ctx: PassContext, steps: readonly StepName[]): Promise<void> {
  for (const name of STEP_NAMES.filter((step) => steps.includes(step))) {
    try {
      await STEPS[name](ctx);
    } catch (error) {
      // One step failing (a lock not taken, a file changed under it) leaves the others to run;
      // what it wrote before the failure is recorded and can be undone.
      const message = error instanceof Error ? error.message : String(error);
      ctx.run.note(`${name}: failed: ${message}`);
      log().warn({ workspace: ctx.run.workspaceDir, step: name, run: ctx.run.id, error: message }, "maintenance step failed; the pass goes on");
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Run the maintenance pass (or plan it, with dryRun) on one workspace. */
export async function runMaintenancePass(options: PassOptions): Promise<PassResult> {
  const workspaceDir = await checkedWorkspace(options.workspaceDir);
  const config = await settingsFor(workspaceDir, options.config);
  const now = options.now ?? new Date();
  const steps = options.steps ?? STEP_NAMES;
  return exclusive(workspaceDir, config, async () => {
    // What this process's captures recorded ahead (a mention count, a superseded mark) is in the
    // files before the pass reads them (pending-edits.ts).
    if (!options.dryRun) await settledCaptures(workspaceDir);
    const run = await beginRun({ workspaceDir, clock: now, trigger: options.trigger ?? "manual", lock: lockOptionsFromConfig(config, AGENT_NAME), dryRun: options.dryRun, wallClock: options.wallClock });
    await stepsIn({ run, config, now, previousClock: await previousClock(workspaceDir) }, steps);
    const record = await run.finish();
    if (!options.dryRun) log().info({ workspace: workspaceDir, run: record.run, trigger: record.trigger, steps: record.steps, changes: record.changes.length, notes: record.notes.length }, `maintenance pass ${record.run}: ${record.changes.length} change(s)`);
    return { record, dryRun: Boolean(options.dryRun) };
  }, options.dryRun);
}

/** Undo one run (under the same exclusivity as a pass). */
export async function undoMaintenanceRun(options: { workspaceDir: string; run: string; config?: HygieneConfig; wallClock?: () => Date }): Promise<UndoRecord> {
  const workspaceDir = await checkedWorkspace(options.workspaceDir);
  const config = await settingsFor(workspaceDir, options.config);
  return exclusive(workspaceDir, config, async () => {
    const record = await undoRun(workspaceDir, options.run, { lock: lockOptionsFromConfig(config, AGENT_NAME), wallClock: options.wallClock });
    log().info({ workspace: workspaceDir, undone: options.run, files: record.restored.length }, `maintenance run ${options.run} undone`);
    return record;
  });
}

export type PromoteResult = { plan: SoulPromotionPlan; record?: RunRecord };

/**
 * The Soul Keeper's promote: plan (always) and, with `approve` and no problems, apply it as a run
 * of its own (trigger "promote"), so `undo` can take it back.
 */
export async function promoteSoulProposal(options: { workspaceDir: string; approve: boolean; now?: Date; config?: HygieneConfig; wallClock?: () => Date }): Promise<PromoteResult> {
  const workspaceDir = await checkedWorkspace(options.workspaceDir);
  const config = await settingsFor(workspaceDir, options.config);
  const now = options.now ?? new Date();
  return exclusive(workspaceDir, config, async () => {
    const run: Run = await beginRun({ workspaceDir, clock: now, trigger: "promote", lock: lockOptionsFromConfig(config, AGENT_NAME), dryRun: !options.approve, wallClock: options.wallClock });
    run.step("promote");
    const plan = await planSoulPromotion(run, now, config);
    if (!options.approve || plan.problems.length > 0) return { plan };
    await applySoulPromotion(run, plan, now);
    return { plan, record: await run.finish() };
  }, !options.approve);
}
