// The hook pack's operator path end to end on a real OpenClaw 2026.3.13 gateway: install with
// `npm run install-hooks` through the real `openclaw` CLI → the next turn gets the bundle's file set
// → the hooks' log file and `npm run status` tell what happened → `install-hooks --uninstall` →
// the next turn is OpenClaw's bulk injection again, the pack is gone and openclaw.json is back byte
// for byte (comments included). rollback --phase 2 (disable aci-bootstrap) gives the bulk set back
// between install and uninstall (which then still restores byte for byte).
// On 2026.9+ install-hooks installs the plugin: its operator path (install, status, logs, doctor,
// a config typo, the rollback, capture-baseline --live, uninstall) is test/e2e/package.e2e.test.ts.
// One gateway, shared by the tests (they run in order).
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runOpsScript } from "../unit/ops-run-script.ts";
import { operatorEnv, startGateway } from "./gateway.ts";
import type { Gateway, TurnResult } from "./gateway.ts";

const MAIN = "agent:main:main";
/** Turns sent while waiting for a config reload to take effect. */
const MAX_TURNS = 20;
const BULK = ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md"];
const BUNDLE_MAIN = ["SOUL.md", "USER.md", "TOOLS_COMPACT.md"];
/** An operator's comment: install's CLI strips it, uninstall must bring it back. */
const OPERATOR_COMMENT = "// my gateway, edited by hand\n";

/** Which workspace files the system prompt holds (Project Context headings are `## <abs path>`). */
function injected(turn: TurnResult, workspace: string): string[] {
  return ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md", "TOOLS_COMPACT.md"].filter((name) => turn.systemPrompt.includes(`## ${path.join(workspace, name)}`));
}

for (const version of ["2026.3.13"]) {
  describe.sequential(`operator tools on a real OpenClaw ${version} gateway`, () => {
    let gw: Gateway;
    let env: NodeJS.ProcessEnv;
    let configBefore: string;
    let logFile: string;

    /**
     * Config reloads are asynchronous (hybrid mode): send turns until `done`. Bounded by a count of
     * turns, not by seconds: on a slow machine each turn takes longer and the reload gets that time too.
     */
    async function turnUntil(done: (files: string[]) => boolean): Promise<string[]> {
      let files: string[] = [];
      for (let attempt = 0; attempt < MAX_TURNS; attempt += 1) {
        files = injected(await gw.agentTurn(MAIN), gw.workspaceDir);
        if (done(files)) return files;
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
      return files;
    }

    beforeAll(async () => {
      gw = await startGateway({
        version,
        installPack: false,
        // The operator's own settings, with a typo: install and uninstall must leave them alone.
        hooks: { "ethos-context": { serchTopK: 5 } },
        // The hooks' default log file (under the state dir), as on an operator's machine.
        env: { OPENCLAW_CONTEXT_LOG_FILE: "" },
      });
      // The scripts call `openclaw` like an operator would: a wrapper around the harness's pinned CLI.
      env = operatorEnv(gw, { OPENCLAW_CONTEXT_LOG_FILE: "" });
      configBefore = OPERATOR_COMMENT + fs.readFileSync(gw.configPath, "utf8");
      fs.writeFileSync(gw.configPath, configBefore);
      logFile = path.join(gw.stateDir, "openclaw-context", "logs", "openclaw-context.log");
    }, 600_000);

    afterAll(async () => {
      await gw?.stop();
    });

    it("install-hooks (no --workspace: taken from openclaw.json) installs with this version's CLI command; the next turn gets the bundle's set", async () => {
      expect(await turnUntil(() => true)).toEqual(expect.arrayContaining(BULK));
      const result = await runOpsScript("install.ts", [], env, 540_000);
      expect(result.stderr).not.toMatch(/FAILED|error/);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`for workspace ${gw.workspaceDir}`);
      expect(result.stdout).toContain(version.startsWith("2026.3.") ? "openclaw hooks install <clean copy>" : "openclaw plugins install <clean copy> --force");
      expect(result.stdout).toMatch(/aci-bootstrap: eligible/);
      expect(result.stdout).toMatch(/ethos-context: eligible/);
      expect(fs.existsSync(path.join(gw.stateDir, "hooks", "openclaw-context", "hooks", "aci-bootstrap", "handler.ts"))).toBe(true);
      // 2026.3.13 loads a newly installed pack only at start (hotReloadPack); the script says so.
      const restartNeeded = version.startsWith("2026.3.");
      expect(result.stdout.includes("RESTART NEEDED")).toBe(restartNeeded);
      if (restartNeeded) await gw.restart();
      expect(await turnUntil((names) => names.includes("TOOLS_COMPACT.md"))).toEqual(BUNDLE_MAIN);
    }, 600_000);

    it("the hooks log decisions and the config typo to <state>/openclaw-context/logs and, through console.*, to `openclaw logs`; status tells all of it", async () => {
      const records = fs
        .readFileSync(logFile, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(records.some((r) => r.event === "aci-bootstrap.decision" && r.sessionType === "MAIN_SESSION")).toBe(true);
      expect(records.some((r) => r.event === "config.invalid-key" && r.key === "hooks.internal.entries.ethos-context.serchTopK" && String(r.reason).includes("did you mean searchTopK?"))).toBe(true);
      // What an operator tries first: OpenClaw's own log, the file `openclaw logs` reads (`logging.file`).
      // The hook pack writes there through console.*, which OpenClaw captures (HOOK_ASSUMPTIONS.md
      // hookConsoleInOpenclawLogs). Read as a file: 2026.3.13's `openclaw logs` could not reach this
      // gateway from the suite's CLI ("Gateway not reachable"), while every other CLI call could.
      const openclawLogs = fs.readFileSync(path.join(gw.root, "openclaw-gateway.log"), "utf8");
      expect(openclawLogs).toContain("[openclaw-context] aci-bootstrap: MAIN_SESSION (main)");
      expect(openclawLogs.split("\n").filter((line) => line.includes("invalid config hooks.internal.entries.ethos-context.serchTopK: unknown key (did you mean searchTopK?)"))).toHaveLength(1);

      const status = await runOpsScript("status.ts", [], env, 180_000);
      expect(status.code).toBe(0);
      expect(status.stdout).toContain(`hook-pack: installed (pack mode) at ${path.join(gw.stateDir, "hooks", "openclaw-context")}`);
      expect(status.stdout).toMatch(/aci-bootstrap: enabled \([^)]*\); the gateway lists it as eligible/);
      expect(status.stdout).toContain("- hooks.internal.entries.ethos-context.serchTopK: unknown key (did you mean searchTopK?)");
      expect(status.stdout).toMatch(/\n {2}\d+ \w+ ago {2}MAIN_SESSION \(main\) session [0-9a-f]{10}\n {6}files: SOUL\.md, USER\.md, (?:BOOTSTRAP\.md, )?TOOLS_COMPACT\.md/);
    }, 240_000);


    {
      // The rollback sits between install and uninstall, so the uninstall after it must still
      // restore openclaw.json exactly.
      it("rollback --phase 2 (openclaw hooks disable aci-bootstrap) → after a restart the next turn is bulk injection again", async () => {
        const result = await runOpsScript("rollback.ts", ["--phase", "2"], env);
        expect(result.code).toBe(0);
        expect(result.stdout).toContain("via openclaw-cli");
        await gw.restart();
        const files = await turnUntil((names) => names.includes("AGENTS.md") && !names.includes("TOOLS_COMPACT.md"));
        expect(files).toEqual(expect.arrayContaining(BULK));
        expect(files).not.toContain("TOOLS_COMPACT.md");
      }, 360_000);
    }

    it("install-hooks --uninstall: pack gone, openclaw.json back byte for byte, the next turn is bulk injection again", async () => {
      const result = await runOpsScript("install.ts", ["--uninstall"], env, 300_000);
      expect(result.stderr).not.toMatch(/FAILED|error/);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("Uninstalled.");
      expect(fs.existsSync(path.join(gw.stateDir, "hooks", "openclaw-context"))).toBe(false);
      expect(fs.readFileSync(gw.configPath, "utf8")).toBe(configBefore);
      // Both versions keep running the hooks they loaded until the gateway restarts; the script says so.
      expect(result.stdout).toContain("RESTART NEEDED");
      await gw.restart();
      const files = await turnUntil((names) => names.includes("AGENTS.md") && !names.includes("TOOLS_COMPACT.md"));
      expect(files).toEqual(expect.arrayContaining(BULK));
      expect(files).not.toContain("TOOLS_COMPACT.md");
    }, 360_000);

  });
}
