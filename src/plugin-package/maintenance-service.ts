// The maintenance pass's schedule inside the gateway (OpenClaw 2026.9+): a plugin service
// (`api.registerService`). OpenClaw starts services in the gateway process only (never for a CLI
// command, which also registers the plugin), awaits `start` with a deadline and calls `stop` at
// shutdown; `start` only arms a timer, so the gateway's start is not held up, and the passes run in
// the background of the event loop: no turn waits for one. HOOK_ASSUMPTIONS.md, "Plugin package".
import path from "node:path";
import { configuredWorkspace } from "../context/workspace.ts";
import { isObject } from "../host/events.ts";
import type { OpenClawConfig } from "../host/events.ts";
import { expandHome } from "../core/paths.ts";
import { DEFAULT_STARTUP_DELAY_MS, startMaintenanceSchedule } from "../lifecycle/schedule.ts";
import type { ScheduleLogger, StopSchedule } from "../lifecycle/schedule.ts";

export const MAINTENANCE_SERVICE_ID = "openclaw-context-maintenance";
/** Seconds from the gateway's start to the first look at the schedule (a missed time is caught up then). */
export const MAINTENANCE_DELAY_ENV = "OPENCLAW_CONTEXT_MAINTENANCE_DELAY_SECONDS";

export type ServiceContext = { config?: OpenClawConfig; workspaceDir?: string; logger?: Partial<ScheduleLogger> };

/** The workspaces of the gateway's agents: the default one, and every agent's explicit `workspace`. */
export function maintainedWorkspaces(cfg: OpenClawConfig | undefined, defaultDir: string | undefined, env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs = new Set<string>();
  if (defaultDir) dirs.add(path.resolve(defaultDir));
  const main = configuredWorkspace(cfg, "main", env);
  if (main) dirs.add(main);
  const agents = isObject(cfg?.agents) ? cfg.agents : {};
  const list = Array.isArray(agents.list) ? agents.list : [];
  const entries = isObject(agents.entries) ? Object.values(agents.entries) : [];
  for (const agent of [...list, ...entries]) {
    const workspace = isObject(agent) ? agent.workspace : undefined;
    if (typeof workspace === "string" && workspace.trim()) dirs.add(path.resolve(expandHome(workspace.trim(), env)));
  }
  return [...dirs];
}

export function startupDelayMs(env: NodeJS.ProcessEnv = process.env): number {
  const seconds = Number(env[MAINTENANCE_DELAY_ENV]);
  return env[MAINTENANCE_DELAY_ENV] !== undefined && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : DEFAULT_STARTUP_DELAY_MS;
}

/** One schedule per gateway process, however often the plugin registers (OpenClaw registers it twice). */
let running: StopSchedule | undefined;

export function maintenanceService(options: { config: () => OpenClawConfig | undefined; logPrefix: string }) {
  return {
    id: MAINTENANCE_SERVICE_ID,
    start(ctx: ServiceContext = {}): void {
      if (running) return;
      const say = (level: "info" | "warn", message: string) => {
        const target = ctx.logger?.[level];
        if (typeof target === "function") target.call(ctx.logger, `${options.logPrefix} ${message}`);
      };
      running = startMaintenanceSchedule({
        workspaceDirs: () => maintainedWorkspaces(options.config() ?? ctx.config, ctx.workspaceDir),
        log: { info: (m) => say("info", m), warn: (m) => say("warn", m) },
        startupDelayMs: startupDelayMs(),
      });
      say("info", `maintenance schedule started (first look in ${Math.round(startupDelayMs() / 1000)} s)`);
    },
    async stop(): Promise<void> {
      const stop = running;
      running = undefined;
      await stop?.();
    },
  };
}
