// The plugin's maintenance service (src/plugin/maintenance-service.ts): when it is
// registered, what start and stop do, which workspaces it maintains. The schedule itself is
// test/unit/lifecycle-schedule.test.ts; inside a real gateway, test/e2e/maintenance.ts.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { listRuns } from "../../src/lifecycle/run-log.ts";
import { runMaintenancePass } from "../../src/lifecycle/pass.ts";
import { register } from "../../src/plugin/index.ts";
import type { PluginApi, PluginService } from "../../src/host/plugin-api.ts";
import { MAINTENANCE_SERVICE_ID, maintenanceService } from "../../src/plugin/maintenance-service.ts";
import { MAINTENANCE_DELAY_ENV, maintenanceStartupDelayMs as startupDelayMs } from "../../src/lifecycle/schedule.ts";
import { agentWorkspaces } from "../../src/context/workspace.ts";
import { isolateFromOperatorConfig } from "./plugin-fixtures.ts";

const noConfigDir = isolateFromOperatorConfig("maintenance-service-");

function registered(input: { pluginConfig?: unknown; version?: string; mode?: string }): PluginService[] {
  const services: PluginService[] = [];
  const api: PluginApi = {
    id: "openclaw-context",
    config: {},
    pluginConfig: input.pluginConfig,
    registrationMode: input.mode ?? "full",
    logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    runtime: { version: input.version ?? "2026.9.6" },
    registerHook: () => undefined,
    registerCli: () => undefined,
    registerContextEngine: () => undefined,
    on: () => undefined,
    registerService: (service) => services.push(service),
  };
  register(api);
  return services;
}

describe("the maintenance service of the plugin", () => {
  it("is registered in the gateway's registrations (full and discovery) on 2026.9+, and not when switched off or on 2026.3", () => {
    expect(registered({}).map((s) => s.id)).toEqual([MAINTENANCE_SERVICE_ID]);
    expect(registered({ mode: "discovery" }).map((s) => s.id)).toEqual([MAINTENANCE_SERVICE_ID]);
    expect(registered({ pluginConfig: { maintenance: false } })).toEqual([]);
    expect(registered({ pluginConfig: { ethosContext: { maintenance: false } } })).toEqual([]);
    expect(registered({ pluginConfig: { enabled: false } })).toEqual([]);
    expect(registered({ version: "2026.3.13" })).toEqual([]);
    expect(registered({ mode: "cli-metadata" })).toEqual([]);
  });

  describe("start and stop", () => {
    let ws: string;
    afterEach(() => {
      vi.unstubAllEnvs();
      vi.stubEnv("OPENCLAW_CONFIG_PATH", path.join(noConfigDir, "absent.json"));
      fs.rmSync(ws, { recursive: true, force: true });
    });

    it("start arms one schedule per process (a second start is ignored); it catches up the times missed since the last pass in the gateway's workspace; stop waits for it", async () => {
      ws = fs.mkdtempSync(path.join(os.tmpdir(), "maintained-"));
      fs.writeFileSync(path.join(ws, "SOUL.md"), "# Soul\n");
      vi.stubEnv(MAINTENANCE_DELAY_ENV, "0");
      // A pass by hand eight days ago: every agent's latest time since is missed, and caught up.
      await runMaintenancePass({ workspaceDir: ws, now: new Date(Date.now() - 8 * 86_400_000) });
      const lines: string[] = [];
      const logger = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) };
      const first = maintenanceService({ config: () => undefined, logPrefix: "[openclaw-context]" });
      const second = maintenanceService({ config: () => undefined, logPrefix: "[openclaw-context]" });
      first.start({ workspaceDir: ws, logger });
      second.start({ workspaceDir: ws, logger });
      expect(lines.filter((l) => l.includes("maintenance schedule started"))).toHaveLength(1);
      // Wait for the three catch-up runs' lines.
      while ((await listRuns(ws)).length < 4) await new Promise((resolve) => setTimeout(resolve, 20));
      await first.stop();
      expect((await listRuns(ws)).map((run) => run.trigger)).toEqual(["manual", "schedule:soul-keeper", "schedule:conflict-detector", "schedule:memory-compactor"]);
      expect(lines).toContain(`[openclaw-context] maintenance pass (soul-keeper) starting on ${ws}`);
    });
  });

  it("maintains the default workspace and every agent's own", () => {
    const cfg = { agents: { defaults: { workspace: "/srv/main" }, list: [{ id: "main", workspace: "/srv/main" }, { id: "ops", workspace: "/srv/ops" }, { id: "x" }] } };
    expect(agentWorkspaces(cfg, "/srv/gateway-default", {})).toEqual(["/srv/gateway-default", "/srv/main", "/srv/ops"]);
    expect(agentWorkspaces({ agents: { defaults: { workspace: "/srv/solo" } } }, undefined, {})).toEqual(["/srv/solo"]);
  });

  it(`${MAINTENANCE_DELAY_ENV} sets the first look; anything else keeps the minute`, () => {
    expect(startupDelayMs({ [MAINTENANCE_DELAY_ENV]: "5" })).toBe(5000);
    expect(startupDelayMs({ [MAINTENANCE_DELAY_ENV]: "soon" })).toBe(60_000);
    expect(startupDelayMs({})).toBe(60_000);
  });
});
