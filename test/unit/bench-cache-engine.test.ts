import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { armPluginsConfig, needsOtherEngine, PLUGIN_ARM_SETTINGS } from "../../bench/cache/arms.ts";
import { engineNotServing, FIXTURE_ENGINE_DIR, FIXTURE_SERVED_MARKER, otherEngine } from "../../bench/cache/other-engine.ts";
import type { OtherEngine } from "../../bench/cache/other-engine.ts";
import { armsAllowed, armsFor, versusEngineAlone } from "../../bench/cache/run.ts";

const PLUGIN = "openclaw-context";
const LOSSLESS: OtherEngine = { source: "/x/lossless.tgz", pluginId: "lossless-claw", engineId: "lossless-claw", label: "lossless-claw@1 (lossless.tgz)" };
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "bench-cache-engine-"));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe("the other engine of the engine arms", () => {
  it("is the fixture engine unless the environment names one; its marker is the line the fixture logs per assemble()", () => {
    const engine = otherEngine({});
    expect(engine).toMatchObject({ source: FIXTURE_ENGINE_DIR, pluginId: "fixture-engine", engineId: "fixture-engine", servedMarker: FIXTURE_SERVED_MARKER });
    expect(engine.label).toBe("openclaw-context-fixture-engine@0.0.0 (fixtures/engines/legacy-like-engine)");
    expect(fs.readFileSync(path.join(FIXTURE_ENGINE_DIR, "index.js"), "utf8")).toContain(`const ASSEMBLED_LINE = \`\${ENGINE_ID}: assembled\`;`);
    expect(FIXTURE_SERVED_MARKER).toBe("fixture-engine: assembled");
  });

  it("reads a packed tarball's manifests (package/…), names it by file name, and takes the engine id from the environment when given", () => {
    const dir = path.join(scratch, "package");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "openclaw.plugin.json"), JSON.stringify({ id: "some-engine" }));
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "@acme/some-engine", version: "1.2.3" }));
    const tarball = path.join(scratch, "acme-some-engine-1.2.3.tgz");
    execFileSync("tar", ["-czf", tarball, "-C", scratch, "package"]);
    expect(otherEngine({ OPENCLAW_CONTEXT_BENCH_ENGINE: tarball })).toEqual({ source: tarball, pluginId: "some-engine", engineId: "some-engine", label: "@acme/some-engine@1.2.3 (acme-some-engine-1.2.3.tgz)" });
    expect(otherEngine({ OPENCLAW_CONTEXT_BENCH_ENGINE: dir, OPENCLAW_CONTEXT_BENCH_ENGINE_ID: "other-id" })).toMatchObject({ pluginId: "some-engine", engineId: "other-id", label: "@acme/some-engine@1.2.3 (package)" });
    expect(() => otherEngine({ OPENCLAW_CONTEXT_BENCH_ENGINE: path.join(scratch, "missing.tgz") })).toThrow(/does not exist/);
  });

  it("served the turns only without a fallback line and, when it has one, with its line once per turn", () => {
    const fixture = otherEngine({});
    const served = Array.from({ length: 3 }, (_, i) => `[plugins] ${FIXTURE_SERVED_MARKER} session=s messages=${i}`).join("\n");
    expect(engineNotServing(fixture, served, 3)).toBeUndefined();
    expect(engineNotServing(fixture, served, 4)).toMatch(/assembled 3 times for 4 turns/);
    const degraded = '[context-engine] Context engine "fixture-engine" degraded to "legacy" for this logical turn: current-turn transcript fencing is not declared.';
    expect(engineNotServing(fixture, `${served}\n${degraded}`, 3)).toMatch(/did not run fixture-engine: .*degraded/);
    // No marker known (a real engine): only the fallback decides.
    expect(engineNotServing(LOSSLESS, "", 12)).toBeUndefined();
    expect(engineNotServing(LOSSLESS, '[context-engine] Context engine "lossless-claw" failed during factory: x; quarantining it for this process and falling back to default engine "legacy".', 12)).toMatch(/did not run lossless-claw/);
  });
});

describe("arm settings with another engine", () => {
  it("engine-alone: the other engine in the slot, the plugin off; engine-prepend and engine-append: the same slot, the plugin on", () => {
    expect(armPluginsConfig("engine-alone", LOSSLESS)).toEqual({
      slot: "lossless-claw",
      entries: { [PLUGIN]: { config: { waitMs: 10_000, enabled: false } }, "lossless-claw": { enabled: true, hooks: { allowConversationAccess: true } } },
    });
    expect(armPluginsConfig("engine-prepend", LOSSLESS)).toEqual({
      slot: "lossless-claw",
      entries: { [PLUGIN]: { config: { waitMs: 10_000 } }, "lossless-claw": { enabled: true, hooks: { allowConversationAccess: true } } },
    });
    expect(armPluginsConfig("engine-append", LOSSLESS)).toEqual(armPluginsConfig("engine-prepend", LOSSLESS));
    // Only the delivery differs, through the switch the plugin reads (src/context/delivery.ts), for that arm's gateway run.
    expect(PLUGIN_ARM_SETTINGS["engine-append"]?.env).toEqual({ OPENCLAW_CONTEXT_OTHER_ENGINE_DELIVERY: "append-system-context" });
    expect(PLUGIN_ARM_SETTINGS["engine-prepend"]?.env).toBeUndefined();
  });

  it("every other arm switches the other engine's entry off, so its presence changes nothing there; without one no entry is written", () => {
    expect(armPluginsConfig("hooks-off", LOSSLESS)).toEqual({ slot: "legacy", entries: { [PLUGIN]: { config: { waitMs: 10_000, enabled: false } }, "lossless-claw": { enabled: false, hooks: { allowConversationAccess: true } } } });
    expect(armPluginsConfig("plugin-path", LOSSLESS).slot).toBe(PLUGIN);
    expect(armPluginsConfig("plugin-path", LOSSLESS).entries["lossless-claw"]).toMatchObject({ enabled: false });
    expect(armPluginsConfig("plugin-path", undefined)).toEqual({ slot: PLUGIN, entries: { [PLUGIN]: { config: { waitMs: 10_000 } } } });
    expect(() => armPluginsConfig("engine-prepend", undefined)).toThrow(/no other context engine/);
    expect(() => armPluginsConfig("hook-path", LOSSLESS)).toThrow(/not an arm of the plugin/);
    expect(["engine-alone", "engine-prepend", "hooks-off", "plugin-path"].map((arm) => needsOtherEngine(arm as "hooks-off"))).toEqual([true, true, false, false]);
  });

  it("are asked for, never run by default, and only on the plugin's versions", () => {
    expect(armsFor("2026.9.6")).not.toContain("engine-alone");
    expect(armsAllowed("2026.9.6")).toEqual(expect.arrayContaining(["engine-alone", "engine-prepend", "engine-append"]));
    expect(armsAllowed("2026.3.13")).not.toContain("engine-prepend");
  });
});

describe("ratio to the engine alone", () => {
  it("only the plugin's arms next to the engine get it, n/a when engine-alone has no numbers", () => {
    expect(versusEngineAlone("engine-prepend", 1130, 1000)).toBe("; 1.13× engine alone");
    expect(versusEngineAlone("engine-append", 1200, 1000)).toBe("; 1.20× engine alone");
    expect(versusEngineAlone("engine-prepend", 1130, undefined)).toBe("; n/a engine alone");
    expect(versusEngineAlone("engine-alone", 1000, 1000)).toBe("");
    expect(versusEngineAlone("plugin-path", 900, 1000)).toBe("");
  });
});
