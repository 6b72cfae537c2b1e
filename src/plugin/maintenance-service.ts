// The maintenance pass's schedule inside the gateway (OpenClaw 2026.9+): a plugin service
// (`api.registerService`). OpenClaw starts services in the gateway process only (never for a CLI
// command, which also registers the plugin), awaits `start` with a deadline and calls `stop` at
// shutdown; `start` only arms a timer, so the gateway's start is not held up, and the passes run in
// the background of the event loop: no turn waits for one. HOOK_ASSUMPTIONS.md, `packageServiceSchedule`.
import { agentWorkspaces } from "../context/workspace.ts";
import type { OpenClawConfig } from "../host/events.ts";
import { maintenanceStartupDelayMs, startMaintenanceScheduleOnce } from "../lifecycle/schedule.ts";
import type { ScheduleLogger, StopSchedule } from "../lifecycle/schedule.ts";

export const MAINTENANCE_SERVICE_ID = "openclaw-context-maintenance";

export type ServiceContext = { config?: OpenClawConfig; workspaceDir?: string; logger?: Partial<ScheduleLogger> };

export function maintenanceService(options: { config: () => OpenClawConfig | undefined; logPrefix: string }) {
  // One schedule per gateway process, however often the plugin registers (OpenClaw registers it twice).
  let running: StopSchedule | undefined;
  return {
    id: MAINTENANCE_SERVICE_ID,
    start(ctx: ServiceContext = {}): void {
      if (running) return;
      const say = (level: "info" | "warn", message: string) => {
        const target = ctx.logger?.[level];
        if (typeof target === "function") target.call(ctx.logger, `${options.logPrefix} ${message}`);
      };
      running = startMaintenanceScheduleOnce({
        workspaceDirs: () => agentWorkspaces(options.config() ?? ctx.config, ctx.workspaceDir),
        log: { info: (m) => say("info", m), warn: (m) => say("warn", m) },
        startupDelayMs: maintenanceStartupDelayMs(),
      });
      if (running) say("info", `maintenance schedule started (first look in ${Math.round(maintenanceStartupDelayMs() / 1000)} s)`);
    },
    async stop(): Promise<void> {
      const stop = running;
      running = undefined;
      await stop?.();
    },
  };
}
