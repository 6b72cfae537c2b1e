// The hook pack's maintenance schedule: the ethos-context hook starts it on gateway:startup
// (src/hook-pack/maintenance.ts), once per process, unless `maintenance: false`.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { startMaintenanceOnGatewayStartup } from "../../src/hook-pack/maintenance.ts";
import { MAINTENANCE_DELAY_ENV } from "../../src/lifecycle/schedule.ts";
import { listRuns } from "../../src/lifecycle/run-log.ts";
import { runMaintenancePass } from "../../src/lifecycle/pass.ts";
import ethosContextHandler from "../../hooks/ethos-context/handler.ts";
import type { GatewayStartupEvent } from "../../src/host/events.ts";

const startup = (workspaceDir: string, cfg: Record<string, unknown> = {}): GatewayStartupEvent => ({ type: "gateway", action: "startup", context: { workspaceDir, cfg } });

describe("gateway:startup starts the maintenance schedule (hook pack)", () => {
  let ws: string;
  const records: string[] = [];
  beforeEach(() => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), "hook-maintenance-"));
    fs.writeFileSync(path.join(ws, "SOUL.md"), "# Soul\n");
    records.length = 0;
    setLogDestination({ write: (line: string) => (records.push(line), true) } as never);
    vi.stubEnv(MAINTENANCE_DELAY_ENV, "0");
    vi.stubEnv("OPENCLAW_CONFIG_PATH", path.join(ws, "absent.json"));
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    setLogDestination(undefined);
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it("the handler starts it; a second start in the same process is ignored; the times missed since the last pass are caught up", async () => {
    await runMaintenancePass({ workspaceDir: ws, now: new Date(Date.now() - 8 * 86_400_000) });
    await ethosContextHandler(startup(ws));
    const again = startMaintenanceOnGatewayStartup(startup(ws));
    expect(again).toBeUndefined();
    expect(records.filter((r) => r.includes("maintenance schedule started"))).toHaveLength(1);
    while ((await listRuns(ws)).length < 4) await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await listRuns(ws)).map((run) => run.trigger)).toEqual(["manual", "schedule:soul-keeper", "schedule:conflict-detector", "schedule:memory-compactor"]);
    // The handler's schedule is the process's one: take it down through a fresh start's guard.
    const holder = globalThis as Record<symbol, (() => Promise<void>) | undefined>;
    await holder[Symbol.for("openclaw-context.maintenance-schedule")]?.();
    expect(holder[Symbol.for("openclaw-context.maintenance-schedule")]).toBeUndefined();
  });

  it("maintenance: false in the hook's entry leaves it off", () => {
    const cfg = { hooks: { internal: { entries: { "ethos-context": { enabled: true, maintenance: false } } } } };
    expect(startMaintenanceOnGatewayStartup(startup(ws, cfg))).toBeUndefined();
    expect(records.some((r) => r.includes("maintenance schedule not started (maintenance: false)"))).toBe(true);
  });

  it("returns a stop function that ends the schedule before its first look", async () => {
    vi.stubEnv(MAINTENANCE_DELAY_ENV, "3600");
    const stop = startMaintenanceOnGatewayStartup(startup(ws));
    expect(stop).toBeTypeOf("function");
    await stop!();
    expect(await listRuns(ws)).toEqual([]);
  });
});
