import { getLogger } from "../core/log.ts";
import { loadHygieneConfigCached, HYGIENE_CONFIG_DEFAULTS } from "../memory/config-md.ts";
import type { HygieneConfig } from "../memory/config-md.ts";
import { runMaintenancePass } from "./pass.ts";
import type { PassResult } from "./pass.ts";
import { listRuns } from "./run-log.ts";
import type { RunSummary } from "./run-log.ts";
import type { StepName } from "./step.ts";

// The maintenance pass on the spec's schedule (§11, CONFIG.md §13), inside the process that calls
// startMaintenanceSchedule (the gateway): each maintenance agent at its CONFIG.md time, in the
// gateway's local time zone, as the spec's crontab would:
//   soul-keeper        daily at cron_soul_keeper (02:30)        soul history, corrections, the Soul Keeper's gate
//   conflict-detector  daily at cron_conflict_detector (07:00)  corrections (retraction), conflicts
//   memory-compactor   weekly at cron_compactor_weekly (Sunday 03:00)  corrections (archival), compaction, soul history
// A time missed while the gateway was down is caught up once it is up again (after
// `startupDelayMs`, so a starting gateway is not slowed); a workspace that never had a pass waits
// for the agent's next time (the operator can look first: `maintain --dry-run`, or run one by hand).
// One timer, unref'd: it never keeps a process alive. Passes run one after another, in the
// background: no turn waits for one.
// cron_memory_miner has no agent here: explicit capture writes facts on every message (src/capture).

export type ScheduledAgent = "soul-keeper" | "conflict-detector" | "memory-compactor";

export const AGENT_STEPS: Record<ScheduledAgent, readonly StepName[]> = {
  "soul-keeper": ["soul-history", "corrections", "soul-keeper"],
  "conflict-detector": ["corrections", "conflicts"],
  "memory-compactor": ["corrections", "compaction", "soul-history"],
};

export type AgentTime = { weekday?: number; hour: number; minute: number };

const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
/** Longest sleep between looks at CONFIG.md and the clock (a changed time or a new workspace is seen within it). */
export const MAX_SLEEP_MS = 3_600_000;
const DEFAULT_STARTUP_DELAY_MS = 60_000;

/** Seconds from the gateway's start to the first look at the schedule (a missed time is caught up then). */
export const MAINTENANCE_DELAY_ENV = "OPENCLAW_CONTEXT_MAINTENANCE_DELAY_SECONDS";

export function maintenanceStartupDelayMs(env: NodeJS.ProcessEnv = process.env): number {
  const seconds = Number(env[MAINTENANCE_DELAY_ENV]);
  return env[MAINTENANCE_DELAY_ENV] !== undefined && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : DEFAULT_STARTUP_DELAY_MS;
}

/** "02:30" (daily) or "Sunday 03:00" / "sun 03:00" (weekly); undefined when it is neither. */
export function parseAgentTime(value: string): AgentTime | undefined {
  const match = /^\s*(?:([a-z]+)\s+)?(\d{1,2}):(\d{2})\s*$/i.exec(value);
  if (!match) return undefined;
  const hour = Number(match[2]);
  const minute = Number(match[3]);
  if (hour > 23 || minute > 59) return undefined;
  if (!match[1] || /^daily$/i.test(match[1])) return { hour, minute };
  const weekday = WEEKDAYS.findIndex((day) => day.startsWith(match[1].toLowerCase()) && match[1].length >= 3);
  return weekday < 0 ? undefined : { weekday, hour, minute };
}

const DEFAULT_TIMES: Record<ScheduledAgent, string> = {
  "soul-keeper": HYGIENE_CONFIG_DEFAULTS.cron_soul_keeper,
  "conflict-detector": HYGIENE_CONFIG_DEFAULTS.cron_conflict_detector,
  "memory-compactor": HYGIENE_CONFIG_DEFAULTS.cron_compactor_weekly,
};

/** Each agent's time from CONFIG.md; a value that does not parse falls back to the spec's default. */
export function agentTimes(config: HygieneConfig): Record<ScheduledAgent, AgentTime> {
  const configured: Record<ScheduledAgent, string> = {
    "soul-keeper": config.cron_soul_keeper,
    "conflict-detector": config.cron_conflict_detector,
    "memory-compactor": config.cron_compactor_weekly,
  };
  const out = {} as Record<ScheduledAgent, AgentTime>;
  for (const agent of Object.keys(configured) as ScheduledAgent[]) {
    out[agent] = parseAgentTime(configured[agent]) ?? (parseAgentTime(DEFAULT_TIMES[agent]) as AgentTime);
  }
  return out;
}

/** The latest scheduled time at or before `now` (local time). */
export function previousDue(time: AgentTime, now: Date): Date {
  const due = new Date(now);
  due.setHours(time.hour, time.minute, 0, 0);
  if (time.weekday !== undefined) {
    const back = (due.getDay() - time.weekday + 7) % 7;
    due.setDate(due.getDate() - back);
  }
  if (due > now) due.setDate(due.getDate() - (time.weekday !== undefined ? 7 : 1));
  // setHours after setDate: a DST change between the two days moves the wall time back into place.
  due.setHours(time.hour, time.minute, 0, 0);
  return due;
}

/** The first scheduled time after `now` (local time). */
export function nextDue(time: AgentTime, now: Date): Date {
  const next = previousDue(time, now);
  next.setDate(next.getDate() + (time.weekday !== undefined ? 7 : 1));
  next.setHours(time.hour, time.minute, 0, 0);
  return next;
}

/** When the agent's steps last ran (a run of this agent, or a manual pass of every step), undone runs aside. */
function lastRunOf(agent: ScheduledAgent, runs: readonly RunSummary[]): Date | undefined {
  const covering = runs.filter((run) => !run.undone && AGENT_STEPS[agent].every((step) => run.steps.includes(step)) && (run.trigger === `schedule:${agent}` || run.trigger === "manual"));
  const last = covering.at(-1);
  return last ? new Date(last.clock) : undefined;
}

export type ScheduleLogger = { info(message: string): void; warn(message: string): void };

export type ScheduleOptions = {
  /** The workspaces to maintain; a function is asked at every look (agents and config may change). */
  workspaceDirs: readonly string[] | (() => readonly string[]);
  log?: ScheduleLogger;
  now?: () => Date;
  /** Catch-up after start waits this long (default 60 s). */
  startupDelayMs?: number;
  /** The pass (tests and the e2e check pass their own). */
  runPass?: typeof runMaintenancePass;
  /** Timer functions (tests use fake timers through vitest instead). */
  setTimer?: (fn: () => void, ms: number) => { unref?(): void };
  clearTimer?: (timer: unknown) => void;
};

/** Stops the timer; resolves when a pass in progress has finished. `passes`: the passes started so far. */
export type StopSchedule = (() => Promise<void>) & { readonly passes: readonly Promise<PassResult | undefined>[] };

type Due = { workspaceDir: string; agent: ScheduledAgent; at: Date };

/**
 * Agents due now or later, per workspace: a scheduled time since the agent's last run (or, for a
 * workspace that never had one, since the schedule started) is due at once.
 */
async function dueList(workspaceDirs: readonly string[], now: Date, scheduleStart: Date): Promise<Due[]> {
  const due: Due[] = [];
  for (const workspaceDir of workspaceDirs) {
    const config = (await loadHygieneConfigCached(workspaceDir)).config;
    const runs = await listRuns(workspaceDir).catch(() => [] as RunSummary[]);
    const times = agentTimes(config);
    for (const agent of Object.keys(times) as ScheduledAgent[]) {
      const last = lastRunOf(agent, runs);
      const missed = (last ?? scheduleStart) < previousDue(times[agent], now);
      due.push({ workspaceDir, agent, at: missed ? now : nextDue(times[agent], now) });
    }
  }
  return due.sort((a, b) => a.at.getTime() - b.at.getTime());
}

/**
 * Start the schedule. Returns its stop function at once; the first look happens after startupDelayMs.
 * Never throws into the caller; every failure is logged and the next look is scheduled.
 */
export function startMaintenanceSchedule(options: ScheduleOptions): StopSchedule {
  const workspaceDirs = typeof options.workspaceDirs === "function" ? options.workspaceDirs : () => options.workspaceDirs as readonly string[];
  const now = options.now ?? (() => new Date());
  const log = options.log ?? { info: (m: string) => getLogger("openclaw-context.maintenance").info(m), warn: (m: string) => getLogger("openclaw-context.maintenance").warn(m) };
  const runPass = options.runPass ?? runMaintenancePass;
  const setTimer = options.setTimer ?? ((fn: () => void, ms: number) => setTimeout(fn, ms));
  const clearTimer = options.clearTimer ?? ((timer: unknown) => clearTimeout(timer as NodeJS.Timeout));
  const passes: Promise<PassResult | undefined>[] = [];
  const startedAt = now();
  let stopped = false;
  let timer: unknown;
  let current: Promise<void> = Promise.resolve();

  const arm = (ms: number) => {
    if (stopped) return;
    const handle = setTimer(() => {
      current = look().catch((error: unknown) => log.warn(`maintenance schedule: ${error instanceof Error ? error.message : String(error)}`));
    }, Math.max(0, Math.min(ms, MAX_SLEEP_MS)));
    handle.unref?.();
    timer = handle;
  };

  async function look(): Promise<void> {
    if (stopped) return;
    let next = MAX_SLEEP_MS;
    try {
      const clock = now();
      for (const due of await dueList([...new Set(workspaceDirs())], clock, startedAt)) {
        if (stopped) return;
        if (due.at > clock) {
          next = Math.min(next, due.at.getTime() - clock.getTime());
          continue;
        }
        log.info(`maintenance pass (${due.agent}) starting on ${due.workspaceDir}`);
        const pass = runPass({ workspaceDir: due.workspaceDir, now: clock, trigger: `schedule:${due.agent}`, steps: AGENT_STEPS[due.agent] }).then(
          (result) => {
            log.info(`maintenance pass ${result.record.run} (${due.agent}) on ${due.workspaceDir}: ${result.record.changes.length} change(s)`);
            return result;
          },
          (error: unknown) => {
            log.warn(`maintenance pass (${due.agent}) on ${due.workspaceDir} failed: ${error instanceof Error ? error.message : String(error)}`);
            return undefined;
          },
        );
        passes.push(pass);
        await pass; // one pass at a time: the next agent sees this one's changes
      }
    } finally {
      arm(next);
    }
  }

  arm(options.startupDelayMs ?? DEFAULT_STARTUP_DELAY_MS);
  const stop = async () => {
    stopped = true;
    if (timer !== undefined) clearTimer(timer);
    await current;
  };
  return Object.assign(stop, { passes });
}

/** One schedule per process, whichever artifact starts it (the package's service, the hook pack's gateway:startup, both). */
const RUNNING = Symbol.for("openclaw-context.maintenance-schedule");

/** startMaintenanceSchedule unless this process runs one already (then undefined). Its stop function forgets it. */
export function startMaintenanceScheduleOnce(options: ScheduleOptions): StopSchedule | undefined {
  const holder = globalThis as { [RUNNING]?: StopSchedule };
  if (holder[RUNNING]) return undefined;
  const stop = startMaintenanceSchedule(options);
  const forget = Object.assign(
    async () => {
      if (holder[RUNNING] === forget) delete holder[RUNNING];
      await stop();
    },
    { passes: stop.passes },
  );
  holder[RUNNING] = forget;
  return forget;
}
