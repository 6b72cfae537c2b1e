// AC-8 end to end on a real OpenClaw 2026.9.6 gateway: the operator installs the bundle with
// scripts/install.ts (through the real `openclaw` CLI), the next turn gets the bundle's file set;
// `rollback --phase 2` disables aci-bootstrap and the next turn is OpenClaw's bulk injection again,
// with no workspace file missing or changed. Also records live /context json with capture-baseline.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runOpsScript } from "../unit/ops-run-script.ts";
import { GATEWAY_TOKEN, hashTree, startGateway } from "./gateway.ts";
import type { Gateway, TurnResult } from "./gateway.ts";

const VERSION = "2026.9.6";
const MAIN = "agent:main:main";
const TURN_WAIT_MS = 45_000;

let gw: Gateway;
let env: NodeJS.ProcessEnv;

/** Which workspace files the system prompt holds (Project Context headings are `## <abs path>`). */
function injected(turn: TurnResult, workspace: string): string[] {
  return ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md", "TOOLS_COMPACT.md"].filter((name) => turn.systemPrompt.includes(`## ${path.join(workspace, name)}`));
}

/** Config reloads are asynchronous (hybrid mode): send turns until `done`, bounded by TURN_WAIT_MS. */
async function turnUntil(done: (files: string[]) => boolean): Promise<string[]> {
  const deadline = Date.now() + TURN_WAIT_MS;
  let files: string[] = [];
  while (Date.now() < deadline) {
    files = injected(await gw.agentTurn(MAIN), gw.workspaceDir);
    if (done(files)) return files;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  return files;
}

beforeAll(async () => {
  gw = await startGateway({ version: VERSION, installPack: false });
  // The scripts call `openclaw` like an operator would: a wrapper around the harness's pinned CLI.
  const bin = path.join(gw.root, "bin");
  fs.mkdirSync(bin, { recursive: true });
  const wrapper = path.join(bin, "openclaw");
  fs.writeFileSync(wrapper, `#!/bin/sh\nexec "${gw.installed.nodeBin}" "${gw.installed.openclawEntry}" "$@"\n`, { mode: 0o755 });
  env = {
    HOME: gw.home,
    OPENCLAW_STATE_DIR: gw.stateDir,
    OPENCLAW_CONFIG_PATH: gw.configPath,
    OPENCLAW_GATEWAY_TOKEN: GATEWAY_TOKEN,
    OPENCLAW_CLI: wrapper,
    npm_config_cache: path.join(os.homedir(), ".npm"),
    PATH: `${path.dirname(gw.installed.nodeBin)}${path.delimiter}${process.env.PATH ?? ""}`,
  };
}, 600_000);

afterAll(async () => {
  await gw?.stop();
});

describe(`operator tools on a real OpenClaw ${VERSION} gateway`, () => {
  it("before install the gateway injects OpenClaw's bulk set", async () => {
    const files = await turnUntil(() => true);
    expect(files).toEqual(expect.arrayContaining(["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md"]));
    expect(files).not.toContain("TOOLS_COMPACT.md");
  }, 120_000);

  it("install-hooks installs the pack with the CLI, both hooks eligible; the next turn gets the bundle's set", async () => {
    const result = await runOpsScript("install.ts", ["--workspace", gw.workspaceDir], env, 540_000);
    expect(result.stderr).not.toMatch(/FAILED/);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("pack mode");
    expect(result.stdout).toMatch(/aci-bootstrap: eligible/);
    expect(result.stdout).toMatch(/ethos-context: eligible/);
    const files = await turnUntil((names) => names.includes("TOOLS_COMPACT.md"));
    expect(files).toEqual(["SOUL.md", "USER.md", "TOOLS_COMPACT.md"]);
  }, 600_000);

  it("AC-8: rollback --phase 2 → the next turn is bulk injection again, workspace unchanged", async () => {
    // Precondition: the bundle is active (the install test above left it so).
    expect(await turnUntil((names) => names.includes("TOOLS_COMPACT.md"))).toEqual(["SOUL.md", "USER.md", "TOOLS_COMPACT.md"]);
    const before = hashTree(gw.workspaceDir);
    const result = await runOpsScript("rollback.ts", ["--phase", "2", "--workspace", gw.workspaceDir], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("via openclaw-cli");
    const files = await turnUntil((names) => names.includes("AGENTS.md") && !names.includes("TOOLS_COMPACT.md"));
    expect(files).toEqual(expect.arrayContaining(["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md"]));
    expect(files).not.toContain("TOOLS_COMPACT.md");
    expect(hashTree(gw.workspaceDir)).toEqual(before);
  }, 180_000);

  it("capture-baseline --live records the gateway's own /context json report", async () => {
    const result = await runOpsScript("capture-baseline.ts", ["--workspace", gw.workspaceDir, "--live", "--stdout", "--timeout-ms", "60000"], env, 150_000);
    expect(result.stderr).not.toMatch(/live capture failed/);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`## OpenClaw's own report (/context json, ${MAIN})`);
    expect(result.stdout).toMatch(/^SOUL\.md\s+false\s+\d+\s+\d+/m);
  }, 180_000);
});
