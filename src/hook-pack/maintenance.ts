// The maintenance pass's schedule for the hook pack (OpenClaw 2026.3.13): the ethos-context hook
// also listens to `gateway:startup`, which the gateway emits once after its channels start and does
// not await. This only arms the schedule's timer (src/lifecycle/schedule.ts) and returns; the passes
// run in the background, and no turn waits for one. One schedule per process, also next to the
// plugin's service. HOOK_ASSUMPTIONS.md, `hookGatewayStartup`.
import { getLogger } from "../core/log.ts";
import { HOOK_KEYS } from "../host/ids.ts";
import { loadOpenClawConfigFile } from "../host/config-file.ts";
import { isObject } from "../host/events.ts";
import type { GatewayStartupEvent, OpenClawConfig } from "../host/events.ts";
import { resolveHookConfig } from "../host/hook-config.ts";
import { maintenanceStartupDelayMs, startMaintenanceScheduleOnce } from "../lifecycle/schedule.ts";
import type { StopSchedule } from "../lifecycle/schedule.ts";
import { parseEthosContextConfig } from "../context/config.ts";
import { agentWorkspaces } from "../context/workspace.ts";

/** gateway:startup: start the schedule over the gateway's agent workspaces, unless `maintenance: false`. */
export function startMaintenanceOnGatewayStartup(event: GatewayStartupEvent, loadConfig: () => OpenClawConfig | undefined = () => loadOpenClawConfigFile()): StopSchedule | undefined {
  const log = getLogger(HOOK_KEYS.ethosContext);
  const cfg = () => (isObject(event.context.cfg) ? event.context.cfg : loadConfig());
  const { config } = parseEthosContextConfig(resolveHookConfig(cfg(), HOOK_KEYS.ethosContext));
  if (!config.maintenance) {
    log.info({ event: "maintenance.off" }, "maintenance schedule not started (maintenance: false)");
    return undefined;
  }
  const defaultDir = typeof event.context.workspaceDir === "string" ? event.context.workspaceDir : undefined;
  const stop = startMaintenanceScheduleOnce({
    // Asked at every look: openclaw.json as it is then (the startup event's copy for the first look).
    workspaceDirs: () => agentWorkspaces(loadConfig() ?? cfg(), defaultDir),
    log: { info: (m) => log.info({ event: "maintenance.schedule" }, m), warn: (m) => log.warn({ event: "maintenance.schedule" }, m) },
    startupDelayMs: maintenanceStartupDelayMs(),
  });
  if (stop) log.info({ event: "maintenance.schedule" }, `maintenance schedule started (first look in ${Math.round(maintenanceStartupDelayMs() / 1000)} s)`);
  return stop;
}
