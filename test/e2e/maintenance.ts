// The maintenance pass scheduled inside a real gateway (issue 26), as a check that runs on a gateway
// another suite already started, so no new gateway boot is needed. It needs:
//   - a gateway that starts the schedule: OpenClaw 2026.9+ with the packed plugin serving (its
//     maintenance service), or the hook pack's ethos-context hook enabled (gateway:startup);
//   - preferably OPENCLAW_CONTEXT_MAINTENANCE_DELAY_SECONDS set small in the gateway's environment
//     (the first look after a start; default 60 s, which only makes the check wait longer).
// What it does: a pass by hand (so the workspace has a last run), then the Soul Keeper's time in
// CONFIG.md set to a minute that begins after it (so that time is missed since the last run), a
// correction whose cool-down is over, the lock on CORRECTIONS.md taken by the test, and a restart.
// The schedule starts with the gateway, finds the Soul Keeper's time missed and starts its pass,
// which then waits for that lock.
// While the pass is running, a turn is sent: it must be answered with the pass still in progress
// (the pass holds up no turn). Then the lock goes, the pass finishes and the correction is verified.
// Every wait is for an event (a log line, a file's content), bounded generously.
import fs from "node:fs";
import path from "node:path";
import { CORRECTIONS_FILE_NAME, appendCorrection, parseCorrections } from "../../src/capture/corrections.ts";
import { withFileLock } from "../../src/fs/lock.ts";
import { runMaintenancePass } from "../../src/lifecycle/pass.ts";
import { MAINTENANCE_DIR, RUNS_FILE } from "../../src/lifecycle/run-log.ts";
import type { Gateway, TurnResult } from "./gateway.ts";

const WAIT_MS = 600_000;
const LOCK = { retryIntervalSeconds: 0.2, maxRetries: 50, agentName: "e2e-maintenance-check" };

export type ScheduledMaintenanceResult = {
  /** The run id of the scheduled pass. */
  run: string;
  /** What the turn sent during the pass saw (its request). */
  turn: TurnResult;
  /** Observation for HOOK_ASSUMPTIONS.md (`packageServiceSchedule`). */
  observed: string;
};

const two = (n: number) => String(n).padStart(2, "0");

/** Runs of the schedule in runs.jsonl with this trigger. */
function scheduledRuns(runsFile: string, trigger: string): { run: string; changes: { file: string; what: string }[] }[] {
  if (!fs.existsSync(runsFile)) return [];
  return fs
    .readFileSync(runsFile, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { run?: string; trigger?: string; changes?: { file: string; what: string }[] })
    .filter((record) => record.trigger === trigger && typeof record.run === "string")
    .map((record) => ({ run: record.run as string, changes: record.changes ?? [] }));
}

/** Resolves once `holds()` is true, re-checked on every change in `dir` (bounded: throws after timeoutMs). */
async function waitUntil(dir: string, holds: () => boolean, what: string, timeoutMs = WAIT_MS): Promise<void> {
  if (holds()) return;
  await new Promise<void>((resolve, reject) => {
    const watcher = fs.watch(dir, { recursive: false }, () => {
      if (holds()) done();
    });
    const bound = setTimeout(() => done(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
    function done(error?: Error) {
      clearTimeout(bound);
      watcher.close();
      if (error) reject(error);
      else resolve();
    }
    if (holds()) done();
  });
}

/** Wait for the wall clock to reach the start of the next minute (a time, not a speed, is waited for). */
async function nextMinute(): Promise<Date> {
  const now = Date.now();
  const next = new Date(Math.floor(now / 60_000) * 60_000 + 60_000);
  await new Promise((resolve) => setTimeout(resolve, next.getTime() - now + 250));
  return next;
}

export async function checkScheduledMaintenance(gw: Gateway, turn: (sessionKey: string, text: string) => Promise<TurnResult>): Promise<ScheduledMaintenanceResult> {
  const ws = gw.workspaceDir;
  const runsFile = path.join(ws, MAINTENANCE_DIR, RUNS_FILE);
  const configFile = path.join(ws, "CONFIG.md");
  const hadConfig = fs.existsSync(configFile) ? fs.readFileSync(configFile, "utf8") : undefined;
  const before = scheduledRuns(runsFile, "schedule:soul-keeper").length;

  // A last run (every agent's steps), then the Soul Keeper's time: the minute that begins after it
  // (local time, as the gateway's schedule reads it). The pass's own lock waits outlast ours.
  await runMaintenancePass({ workspaceDir: ws, trigger: "manual" });
  // A correction logged two days ago, after the pass by hand (which would verify it at once): past
  // its cool-down, so the Soul Keeper's scheduled pass has it to verify, under CORRECTIONS.md's lock.
  const { id } = await appendCorrection(
    ws,
    { loggedAt: new Date(Date.now() - 2 * 86_400_000), triggerPhrase: "you forgot", triggerConfidence: "high", patternClass: "recall_failure", sessionKey: "agent:main:main", excerpt: "You forgot: the e2e tide table is for zone PZZ545", cooldownHours: 24, dedupeKey: `e2e-maintenance-${Date.now()}` },
    LOCK,
  );

  const minute = await nextMinute();
  fs.writeFileSync(
    configFile,
    ["# CONFIG.md (e2e maintenance check)", "", "```yaml", `cron_soul_keeper: "${two(minute.getHours())}:${two(minute.getMinutes())}"`, "lock_retry_interval_seconds: 0.5", "lock_max_retries: 2400", "```", ""].join("\n"),
  );

  let answered: TurnResult | undefined;
  // The package logs through the service's logger (gateway.log), the hook pack to our own log file.
  const logFiles = [path.join(gw.root, "gateway.log"), path.join(gw.root, "openclaw-context.log")];
  const startedLine = `maintenance pass (soul-keeper) starting on ${ws}`;
  const starts = () => logFiles.reduce((n, file) => n + (fs.existsSync(file) ? fs.readFileSync(file, "utf8").split(startedLine).length - 1 : 0), 0);
  const logBefore = starts();
  await withFileLock(
    path.join(ws, CORRECTIONS_FILE_NAME),
    async () => {
      await gw.restart();
      // The schedule looked, found the time missed and started the pass: it now waits for our lock.
      await waitUntil(gw.root, () => starts() > logBefore, "the scheduled pass to start");
      answered = await turn("agent:main:main", `Where is Jeff's sailboat moored these days? (maintenance ${Date.now().toString(36)})`);
      // The turn is answered while the pass is still in progress: no new run line yet.
      const during = scheduledRuns(runsFile, "schedule:soul-keeper").length;
      if (during !== before) throw new Error(`the scheduled pass finished before the turn was answered (runs ${before} → ${during}): it did not wait for the lock`);
    },
    LOCK,
  );

  // The lock is free: the pass goes on and writes its run line.
  fs.mkdirSync(path.dirname(runsFile), { recursive: true });
  await waitUntil(path.dirname(runsFile), () => scheduledRuns(runsFile, "schedule:soul-keeper").length > before, "the scheduled pass to finish");
  const run = scheduledRuns(runsFile, "schedule:soul-keeper").at(-1)!;
  const verified = parseCorrections(fs.readFileSync(path.join(ws, CORRECTIONS_FILE_NAME), "utf8")).find((entry) => entry.id === id)?.verified;
  if (!verified) throw new Error(`the scheduled pass ${run.run} did not verify ${id}: ${JSON.stringify(run.changes)}`);
  if (hadConfig === undefined) fs.rmSync(configFile, { force: true });
  else fs.writeFileSync(configFile, hadConfig);
  return { run: run.run, turn: answered!, observed: "runs in the gateway; a turn during the pass is answered before it ends" };
}
