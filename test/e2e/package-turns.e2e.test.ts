// The packed plugin's turns on a real OpenClaw 2026.9.6 gateway (issue 18): what the one package
// registers by itself, with no hook pack and no companion installed. Baseline (before the install):
// a subagent gets no SOUL.md, a cron run no HEARTBEAT.md. After `openclaw plugins install <tarball>`
// and one restart: a group's "remember that …" writes nothing; the main session gets the
// session-aware file set and its memory; the main session's "Remember that my … is …" is written to
// memory/<today>.md by the package's message:received hook and a NEW session's question gets it;
// after "Forget that …" it is gone from memory and a new session's request (test/e2e/forget-check.ts); a
// subagent gets SOUL.md and a cron run HEARTBEAT.md (the package's engine, systemPromptAddition),
// neither USER.md, MEMORY.md nor a memory; a main-session heartbeat gets HEARTBEAT.md through the
// package's before_prompt_build (registered in the gateway's "discovery" registration too). With
// the slot set back to legacy the package logs how to select its engine and memory goes as
// prependContext on the turn's own user message.
// The install itself, `openclaw context status`, the switch off and the uninstall are
// test/e2e/package.e2e.test.ts. Rows in HOOK_ASSUMPTIONS.md ("Plugin package").
import crypto from "node:crypto";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPlugin } from "../../src/ops/build-plugin.ts";
import { assumptionMismatches } from "./assumptions.ts";
import type { Observations } from "./assumptions.ts";
import { checkForgetReachesNextTurn } from "./forget-check.ts";
import { deepMerge, startGateway } from "./gateway.ts";
import type { Gateway, TurnResult } from "./gateway.ts";
import { messagesOf, messageText } from "./mock-model.ts";
import { HEARTBEAT_SENTINEL, MEMORY_SENTINEL, SOUL_SENTINEL, sentinelFiles, USER_SENTINEL } from "./sentinels.ts";
import { waitForFileContaining } from "./wait-file.ts";

const run = promisify(execFile);
const VERSION = "2026.9.6";
const PLUGIN_ID = "openclaw-context";
const MAIN = "agent:main:main";
const GROUP = "agent:main:telegram:group:-1009876543210";
const SAILBOAT = "Halcyon Drift";
const BUNDLE_MAIN = ["SOUL.md", "USER.md", "TOOLS_COMPACT.md"];
const REMEMBER = "Remember that my locker code is 4312";
const LOCKER_FACT = "my locker code is 4312";

/** Which workspace files the system prompt holds (Project Context headings are `## <abs path>`). */
function injected(turn: TurnResult, workspace: string): string[] {
  return ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md", "TOOLS_COMPACT.md"].filter((name) => turn.systemPrompt.includes(`## ${path.join(workspace, name)}`));
}

/** Everything the model was sent for that turn (system prompt, every message). */
const bodyOf = (turn: TurnResult) => JSON.stringify(turn.request.body);
/** The body without the gateway's UUIDs (session ids, run ids), which can contain any four digits. */
const withoutIds = (body: string) => body.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<id>");
/** A short letters-only tag: a UUID's unknown terms can sink a question under the confidence gate. */
const letters = (n: number) => Array.from(crypto.randomBytes(n), (byte) => String.fromCharCode(97 + (byte % 26))).join("");

describe.sequential(`the packed plugin's turns on a real OpenClaw ${VERSION} gateway`, () => {
  let gw: Gateway;
  let buildDir: string;
  let dayFile: string;
  const observed: Observations = {};

  /** chat.send, the model request, then the end of the run (the next step starts on a finished turn). */
  async function turn(sessionKey: string, text: string): Promise<TurnResult> {
    const result = await gw.chatSend(sessionKey, text, 600_000);
    const runId = (result.cliJson as { runId?: unknown } | undefined)?.runId;
    if (typeof runId === "string") await gw.call("agent.wait", { runId, timeoutMs: 600_000 }, { timeoutMs: 605_000 });
    return result;
  }
  const subagentTurn = () => turn(`agent:main:subagent:${crypto.randomUUID()}`, `Where is my sailboat moored, and what is my locker code? ${letters(6)}`);
  const cronTurn = () => gw.cronTurn(`Cron check: where is my sailboat moored, what is my locker code? ${letters(6)}`, 600_000);
  const heartbeatTurn = () => gw.heartbeatTurn(`Heartbeat: anything to check? ${letters(6)}`, 600_000);
  const written = () => (fs.existsSync(dayFile) ? fs.readFileSync(dayFile, "utf8") : "");

  beforeAll(async () => {
    buildDir = fs.mkdtempSync(path.join(os.tmpdir(), "openclaw-context-package-turns-"));
    const out = await buildPlugin(path.join(buildDir, "plugin"));
    await run("npm", ["pack", "--pack-destination", buildDir], { cwd: out, env: { ...process.env, npm_config_loglevel: "error" } });
    // No hook pack, no companion, no probe: the tarball is the only thing installed. Reload mode
    // off: the config written below takes effect at the one restart the test waits for.
    gw = await startGateway({ version: VERSION, installPack: false, installProbe: false, workspaceFiles: sentinelFiles(), config: { gateway: { reload: { mode: "off" } } } });
    dayFile = path.join(gw.workspaceDir, "memory", `${new Date().toISOString().slice(0, 10)}.md`);
  }, 900_000);

  afterAll(async () => {
    await gw?.stop();
    if (buildDir) fs.rmSync(buildDir, { recursive: true, force: true });
  });

  it("before the install (OpenClaw's default): a subagent gets no SOUL.md, a cron run no HEARTBEAT.md, a main-session heartbeat none on its messages", { timeout: 1_900_000 }, async () => {
    expect(bodyOf(await subagentTurn())).not.toContain(SOUL_SENTINEL);
    expect(bodyOf(await cronTurn())).not.toContain(HEARTBEAT_SENTINEL);
    const heartbeat = await heartbeatTurn();
    expect(gw.model.userTextOf(heartbeat.request)).not.toContain(HEARTBEAT_SENTINEL);
  });

  it("after `openclaw plugins install <tarball>` and a restart the package serves, logging under its own id", { timeout: 900_000 }, async () => {
    const tarball = fs.readdirSync(buildDir).find((name) => name.endsWith(".tgz"));
    expect(await gw.cli(["plugins", "install", path.join(buildDir, tarball!), "--force", "--accept-capabilities"], 300_000)).toContain(`Installed plugin: ${PLUGIN_ID}`);
    // What an operator adds once (docs/plugin.md), plus the capture test's settings: no
    // de-duplication across turns and no refresh interval, so the next question sees the new fact.
    const config = deepMerge(JSON.parse(fs.readFileSync(gw.configPath, "utf8")) as Record<string, unknown>, {
      plugins: {
        slots: { contextEngine: PLUGIN_ID },
        entries: { [PLUGIN_ID]: { hooks: { allowConversationAccess: true }, config: { waitMs: 10_000, ethosContext: { dedupeAcrossTurns: false, memory: { minRefreshIntervalMs: 0 } } } } },
      },
    });
    fs.writeFileSync(gw.configPath, `${JSON.stringify(config, null, 2)}\n`);
    await gw.restart();
    expect(gw.logs()).toContain(`[${PLUGIN_ID}] serving OpenClaw ${VERSION}; memory delivery: runtime-context carrier through context engine ${PLUGIN_ID}`);
  });

  it("a group saying \"remember that …\" writes nothing", { timeout: 900_000 }, async () => {
    // First: the package's message:received returns before any write is started for a group, so
    // once this turn has finished nothing can land later on its behalf.
    await turn(GROUP, `${REMEMBER} (${letters(6)})`);
    expect(written()).not.toContain("4312");
  });

  it("the main session gets the session-aware file set and its memory fact", { timeout: 900_000 }, async () => {
    const served = await turn(MAIN, `What is my sailboat named, and where is it moored? ${letters(6)}`);
    expect(injected(served, gw.workspaceDir)).toEqual(BUNDLE_MAIN);
    expect(gw.model.userTextOf(served.request)).toContain(SAILBOAT);
    expect(served.systemPrompt).not.toContain(SAILBOAT);
  });

  it("main session: \"Remember that my locker code is 4312\" is written to memory/<today>.md by the package, and a new session's question gets it", { timeout: 1_300_000 }, async () => {
    await turn(MAIN, REMEMBER);
    const lines = (await waitForFileContaining(dayFile, LOCKER_FACT, 600_000)).split("\n").filter((line) => line.includes("4312"));
    // One line (the group's identical words added no mention), with the capture metadata.
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^- my locker code is 4312 #knowledge <!-- confidence: 0\.95 source: operator mentions: 1 /);
    observed.registerHookMessageReceived = "memory/<today>.md written (main session); group: nothing";

    const asked = await turn(`agent:main:main:thread:${crypto.randomUUID()}`, `Tell me my locker code please (${letters(8)})`);
    expect(bodyOf(asked), "the new session's request does not carry the earlier turn").not.toContain(REMEMBER);
    expect(gw.model.userTextOf(asked.request)).toContain(LOCKER_FACT);
  });

  it("main session: \"Forget that my locker code is 4312\" takes it out of memory, and the next turn's request does not carry it", { timeout: 1_300_000 }, async () => {
    await checkForgetReachesNextTurn(gw, { turn, fact: LOCKER_FACT, value: "4312", forget: "Forget that my locker code is 4312", question: "Tell me my locker code please" });
  });

  it("a subagent gets SOUL.md from the package, and no USER.md, MEMORY.md or memory", { timeout: 900_000 }, async () => {
    const sub = await subagentTurn();
    const body = withoutIds(bodyOf(sub));
    expect(sub.systemPrompt).toContain(SOUL_SENTINEL);
    for (const secret of [USER_SENTINEL, MEMORY_SENTINEL, SAILBOAT, "4312"]) expect(body).not.toContain(secret);
    observed.packageSubagentSoul = "SOUL.md; no USER.md, MEMORY.md, memories";
  });

  it("a cron run gets HEARTBEAT.md from the package, and no USER.md, MEMORY.md or memory", { timeout: 900_000 }, async () => {
    const cron = await cronTurn();
    const body = withoutIds(bodyOf(cron));
    expect(body).toContain(HEARTBEAT_SENTINEL);
    for (const secret of [USER_SENTINEL, MEMORY_SENTINEL, SAILBOAT, "4312"]) expect(body).not.toContain(secret);
    observed.packageCronHeartbeat = "HEARTBEAT.md; no USER.md, MEMORY.md, memories";
  });

  it("a heartbeat run in the main session gets HEARTBEAT.md on its user message: the package's before_prompt_build runs", { timeout: 900_000 }, async () => {
    // Only before_prompt_build can add this (prependContext; the engine sees no trigger). The gateway
    // registers the plugin twice ("full", then "discovery") and runs the typed hooks of the second.
    const heartbeat = await heartbeatTurn();
    expect(gw.model.userTextOf(heartbeat.request)).toContain(HEARTBEAT_SENTINEL);
    expect(heartbeat.systemPrompt).not.toContain(HEARTBEAT_SENTINEL);
    observed.packageBeforePromptBuildRuns = "yes, when also registered in discovery mode";
  });

  it("with the engine not selected (slot back to legacy) the package says how to select it, and memory rides on this turn's own user message (prependContext)", { timeout: 900_000 }, async () => {
    const config = JSON.parse(fs.readFileSync(gw.configPath, "utf8")) as { plugins: { slots: Record<string, unknown> } };
    config.plugins.slots.contextEngine = "legacy";
    fs.writeFileSync(gw.configPath, `${JSON.stringify(config, null, 2)}\n`);
    await gw.restart();
    expect(gw.logs()).toContain(
      `[${PLUGIN_ID}] serving OpenClaw ${VERSION}; memory delivery: prependContext (plugins.slots.contextEngine is not ${PLUGIN_ID}; select it with: openclaw config set plugins.slots.contextEngine ${PLUGIN_ID})`,
    );
    const text = `What is my sailboat named, and where is it moored? ${letters(6)}`;
    const served = await turn(MAIN, text);
    const messages = messagesOf(served.request);
    const own = messages.findIndex((m) => m.role === "user" && messageText(m.content).includes(text));
    expect(own).toBeGreaterThanOrEqual(0);
    expect(messageText(messages[own]!.content)).toContain(SAILBOAT);
    expect(messages.slice(own + 1).some((m) => messageText(m.content).includes(SAILBOAT))).toBe(false);
    expect(served.systemPrompt).not.toContain(SAILBOAT);
  });

  it("the adapter compiled into the package logs under the package's id, never the companion's", () => {
    expect(gw.logs()).toMatch(/\[openclaw-context\] memory context for this turn/);
    expect(gw.logs()).not.toContain("openclaw-context-companion");
    expect(gw.logs()).not.toContain("npm run install-hooks to select");
  });

  it("HOOK_ASSUMPTIONS.md matches what this run observed", () => {
    console.log(`observed: ${JSON.stringify(observed)}`);
    const mismatches = assumptionMismatches(observed, VERSION);
    expect(Object.keys(observed).sort()).toEqual(["packageBeforePromptBuildRuns", "packageCronHeartbeat", "packageSubagentSoul", "registerHookMessageReceived"]);
    expect(mismatches).toEqual([]);
  });
});
