// Where our records go inside the gateway besides our own file: OpenClaw's own log (`openclaw
// logs`). The hook pack has no host logger and writes through console.*, which OpenClaw's CLI
// captures (HOOK_ASSUMPTIONS.md hookConsoleInOpenclawLogs); the plugin's api.logger: plugin.test.ts.
import { afterAll, describe, expect, it, vi } from "vitest";
import { getLogger, setLogDestination } from "../../src/core/log.ts";
import { bridgeToConsole, hostLine } from "../../src/host/logger.ts";

afterAll(() => vi.restoreAllMocks());

describe("the hook pack's records through console.*", () => {
  it("one line per record at its level, `[openclaw-context] <message> {fields}`, the module as `component`", () => {
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    setLogDestination(undefined);
    bridgeToConsole();
    getLogger("aci-bootstrap").info({ sessionType: "MAIN_SESSION" }, "aci-bootstrap: MAIN_SESSION (main) kept=3");
    getLogger("ethos-context").warn({ err: "x" }, "triage failed");
    getLogger("ethos-context").error({ key: "hooks.internal.entries.ethos-context.serchTopK" }, "invalid config");
    expect(info.mock.calls).toEqual([['[openclaw-context] aci-bootstrap: MAIN_SESSION (main) kept=3 {"component":"aci-bootstrap","sessionType":"MAIN_SESSION"}']]);
    expect(warn.mock.calls).toEqual([['[openclaw-context] triage failed {"component":"ethos-context","err":"x"}']]);
    expect(error.mock.calls[0]![0]).toMatch(/^\[openclaw-context\] invalid config \{"component":"ethos-context","key":"hooks\.internal\.entries\.ethos-context\.serchTopK"\}$/);
  });

  it("a record of the plugin's own logger carries no component", () => {
    expect(hostLine({ level: "info", name: "openclaw-context", message: "serving OpenClaw 2026.9.6", fields: {} })).toBe("[openclaw-context] serving OpenClaw 2026.9.6");
  });
});
