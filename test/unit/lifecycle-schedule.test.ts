import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { runMaintenancePass } from "../../src/lifecycle/pass.ts";
import type { PassOptions } from "../../src/lifecycle/pass.ts";
import { AGENT_STEPS, agentTimes, MAX_SLEEP_MS, nextDue, parseAgentTime, previousDue, startMaintenanceSchedule } from "../../src/lifecycle/schedule.ts";
import { HYGIENE_CONFIG_DEFAULTS, parseHygieneConfigText } from "../../src/memory/config-md.ts";

// Local times: the schedule runs in the gateway's time zone, as the spec's crontab would.
const local = (y: number, m: number, d: number, h = 0, min = 0) => new Date(y, m - 1, d, h, min, 0, 0);

describe("CONFIG.md times", () => {
  it("parses HH:MM (daily) and '<weekday> HH:MM' (weekly)", () => {
    expect(parseAgentTime("02:30")).toEqual({ hour: 2, minute: 30 });
    expect(parseAgentTime("Sunday 03:00")).toEqual({ weekday: 0, hour: 3, minute: 0 });
    expect(parseAgentTime("sat 23:59")).toEqual({ weekday: 6, hour: 23, minute: 59 });
    expect(parseAgentTime("daily 7:05")).toEqual({ hour: 7, minute: 5 });
    for (const bad of ["25:00", "Funday 03:00", "su 03:00", "3pm", ""]) expect(parseAgentTime(bad)).toBeUndefined();
  });

  it("the cron_* keys act; a value that does not parse falls back to the spec's default", () => {
    const { config } = parseHygieneConfigText("```yaml\ncron_soul_keeper: \"05:15\"\ncron_conflict_detector: \"23:00\"\ncron_compactor_weekly: \"Friday 04:00\"\n```");
    expect(agentTimes(config)).toEqual({ "soul-keeper": { hour: 5, minute: 15 }, "conflict-detector": { hour: 23, minute: 0 }, "memory-compactor": { weekday: 5, hour: 4, minute: 0 } });
    expect(agentTimes({ ...HYGIENE_CONFIG_DEFAULTS, cron_compactor_weekly: "whenever" })["memory-compactor"]).toEqual({ weekday: 0, hour: 3, minute: 0 });
  });

  it("previous and next scheduled times, daily and weekly", () => {
    const thursdayNoon = local(2026, 11, 26, 12); // 2026-11-26 is a Thursday
    expect(previousDue({ hour: 2, minute: 30 }, thursdayNoon)).toEqual(local(2026, 11, 26, 2, 30));
    expect(nextDue({ hour: 2, minute: 30 }, thursdayNoon)).toEqual(local(2026, 11, 27, 2, 30));
    expect(previousDue({ hour: 13, minute: 0 }, thursdayNoon)).toEqual(local(2026, 11, 25, 13));
    expect(previousDue({ weekday: 0, hour: 3, minute: 0 }, thursdayNoon)).toEqual(local(2026, 11, 22, 3));
    expect(nextDue({ weekday: 0, hour: 3, minute: 0 }, thursdayNoon)).toEqual(local(2026, 11, 29, 3));
    expect(previousDue({ weekday: 4, hour: 13, minute: 0 }, thursdayNoon)).toEqual(local(2026, 11, 19, 13));
    expect(previousDue({ hour: 12, minute: 0 }, thursdayNoon)).toEqual(thursdayNoon);
  });
});

describe("the schedule (fake clock, timers driven by the test)", () => {
  let ws: string;
  let clock: Date;
  let timers: { fn: () => void; ms: number }[];
  let calls: PassOptions[];

  beforeEach(() => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), "schedule-"));
    setLogDestination({ write: () => true } as never);
    timers = [];
    calls = [];
  });
  afterEach(() => {
    setLogDestination(undefined);
    fs.rmSync(ws, { recursive: true, force: true });
  });

  const start = (startupDelayMs = 60_000) =>
    startMaintenanceSchedule({
      workspaceDirs: () => [ws],
      now: () => clock,
      startupDelayMs,
      log: { info: () => undefined, warn: () => undefined },
      setTimer: (fn, ms) => {
        timers.push({ fn, ms });
        return {};
      },
      clearTimer: () => undefined,
      runPass: (options) => {
        calls.push(options);
        return runMaintenancePass({ ...options, config: { ...HYGIENE_CONFIG_DEFAULTS, lock_retry_interval_seconds: 0.01 }, wallClock: () => clock });
      },
    });

  /** Fire the last armed timer and wait until the look it started has armed the next one. */
  async function fire(stop: ReturnType<typeof start>): Promise<void> {
    const armed = timers.length;
    timers[armed - 1].fn();
    while (timers.length === armed) await Promise.all([...stop.passes, new Promise((resolve) => setImmediate(resolve))]);
  }

  it("a workspace that never had a pass waits for each agent's time; then every time is kept, at most an hour asleep", async () => {
    clock = local(2026, 11, 26, 10); // Thursday 10:00
    const stop = start();
    expect(timers.map((t) => t.ms)).toEqual([60_000]);
    await fire(stop);
    expect(calls).toEqual([]);
    expect(timers.at(-1)!.ms).toBe(MAX_SLEEP_MS);
    clock = local(2026, 11, 27, 2, 0);
    await fire(stop);
    expect(calls).toEqual([]);
    expect(timers.at(-1)!.ms).toBe(30 * 60_000); // armed for 02:30 exactly
    clock = local(2026, 11, 27, 2, 30);
    await fire(stop);
    expect(calls.map((c) => c.trigger)).toEqual(["schedule:soul-keeper"]);
    expect(calls[0].steps).toEqual(AGENT_STEPS["soul-keeper"]);
    clock = local(2026, 11, 27, 7, 1);
    await fire(stop);
    expect(calls.slice(1).map((c) => c.trigger)).toEqual(["schedule:conflict-detector"]);
    expect(calls[1].steps).toEqual(AGENT_STEPS["conflict-detector"]);
    // The compactor waits for Sunday 03:00; Saturday's Conflict Detector (missed: no look since Friday) is caught up.
    clock = local(2026, 11, 29, 3, 0);
    await fire(stop);
    expect(calls.slice(2).map((c) => c.trigger)).toEqual(["schedule:soul-keeper", "schedule:conflict-detector", "schedule:memory-compactor"]);
    expect(calls[4].steps).toEqual(AGENT_STEPS["memory-compactor"]);
    await stop();
  });

  it("after a start, every time missed since the last pass is caught up at the first look", async () => {
    // A manual pass eight days ago: every agent's latest time is after it.
    await runMaintenancePass({ workspaceDir: ws, now: local(2026, 11, 18, 10), config: { ...HYGIENE_CONFIG_DEFAULTS }, wallClock: () => clock });
    clock = local(2026, 11, 26, 10);
    const stop = start();
    await fire(stop);
    expect(calls.map((c) => c.trigger)).toEqual(["schedule:soul-keeper", "schedule:conflict-detector", "schedule:memory-compactor"]);
    expect(timers.at(-1)!.ms).toBe(MAX_SLEEP_MS);
    await stop();
  });

  it("a manual full pass counts: nothing is caught up after it", async () => {
    clock = local(2026, 11, 26, 10);
    await runMaintenancePass({ workspaceDir: ws, now: clock, config: { ...HYGIENE_CONFIG_DEFAULTS }, wallClock: () => clock });
    const stop = start(0);
    await fire(stop);
    expect(calls).toEqual([]);
    await stop();
  });

  it("CONFIG.md's cron_soul_keeper moves the Soul Keeper's time", async () => {
    clock = local(2026, 11, 26, 10);
    fs.writeFileSync(path.join(ws, "CONFIG.md"), '```yaml\ncron_soul_keeper: "10:30"\n```\n');
    await runMaintenancePass({ workspaceDir: ws, now: clock, config: { ...HYGIENE_CONFIG_DEFAULTS }, wallClock: () => clock });
    const stop = start(0);
    await fire(stop);
    expect(timers.at(-1)!.ms).toBe(30 * 60_000);
    clock = local(2026, 11, 26, 10, 30);
    await fire(stop);
    expect(calls.map((c) => c.trigger)).toEqual(["schedule:soul-keeper"]);
    await stop();
  });

  it("stop waits for a pass in progress and arms nothing after it", async () => {
    await runMaintenancePass({ workspaceDir: ws, now: local(2026, 11, 18, 10), config: { ...HYGIENE_CONFIG_DEFAULTS }, wallClock: () => clock });
    clock = local(2026, 11, 26, 10);
    const stop = start(0);
    timers[0].fn();
    await stop();
    const armed = timers.length;
    await Promise.all(stop.passes);
    expect(timers.length).toBe(armed);
  });
});
