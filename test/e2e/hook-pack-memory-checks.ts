// Same-turn memory and "remember that …" capture through the hook pack on a real gateway (the
// OpenClaw 2026.3 path; 2026.9+ is the plugin's, test/e2e/package-turns.e2e.test.ts). A describe
// body for a suite that already runs a gateway with the pack installed and aci-bootstrap on: its
// beforeAll restarts that gateway with ethos-context on, then
//   - a `chat.send` about a fact that lives only in memory/2026-02-22.md (core never loads daily
//     memory files) puts the fact into the system prompt of THAT turn, as the ETHOS_CONTEXT.md record;
//     a group and a subagent asking the same get nothing;
//   - the operator's "Remember that …" in the main session is written once to memory/<today>.md and
//     a NEW session's question gets it; a group saying the same words writes nothing; a correction
//     supersedes the older value.
//   - the hook pack starts the maintenance schedule on gateway:startup, and the scheduled pass runs
//     inside the gateway while a turn sent meanwhile is answered (test/e2e/maintenance.ts).
// Needs: the sample workspace's memory/ files, the hook pack installed, aci-bootstrap enabled, and
// OPENCLAW_CONTEXT_MAINTENANCE_DELAY_SECONDS small in the gateway's environment.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, expect, it } from "vitest";
import type { Gateway } from "./gateway.ts";
import type { RecordedRequest } from "./mock-model.ts";
import { bodyOf, count, letters, newMainThread, withoutIds } from "./turn-text.ts";
import { waitForFileContaining } from "./wait-file.ts";
import { checkScheduledMaintenance } from "./maintenance.ts";

const FACT = "Jeff's sailboat is named Halcyon Drift; it is moored at slip 14 in Sausalito.";
// Three phrasings with the same search terms (sailboat, moor, name), none a substring of another,
// so the mock model can match each request by its text.
const MAIN_QUESTION = "What is my sailboat named, and where is it moored?";
const GROUP_QUESTION = "Where is my sailboat moored, and what is it named?";
const SUBAGENT_QUESTION = "Remind me where my sailboat is moored and what it is named.";
const REMEMBER = "Remember that my locker code is 4312";
const LOCKER_FACT = "my locker code is 4312";
const CORRECTION = "Actually, the locker code is 5580 now.";
const GROUP = "agent:main:telegram:group:-1009876543210";

/**
 * ethos-context as the checks need it: a bound no machine misses for the cold index (the turn goes
 * on as soon as retrieval is done), and no de-duplication or refresh interval between turns, so
 * every question can get its fact.
 */
export const HOOK_PACK_MEMORY_CONFIG = {
  hooks: { internal: { entries: { "ethos-context": { enabled: true, awaitTimeoutMs: 5000, dedupeAcrossTurns: false, memory: { minRefreshIntervalMs: 0 } } } } },
};


/** The body of the `## <path>` section a record renders as in "# Project Context", or undefined. */
function projectContextSection(systemPrompt: string, recordPath: string): string | undefined {
  const heading = `## ${recordPath}\n`;
  const start = systemPrompt.indexOf(heading);
  if (start === -1) return undefined;
  const rest = systemPrompt.slice(start + heading.length);
  // Core renders each record under `## <absolute path>`; our own block has a `## 🧠` heading inside.
  const next = rest.search(/\n## \/|\n<!-- \/openclaw:attempt/);
  return next === -1 ? rest : rest.slice(0, next);
}

/** The checks, as a describe body: `gateway()` is the suite's running gateway (the hook pack installed). */
export function hookPackMemoryChecks(gateway: () => Gateway): void {
  let dayFile: string;

  /** chat.send, then this turn's model request (the harness takes the one sent after the call: a group may have sent the same words). */
  async function chatSend(sessionKey: string, text: string): Promise<RecordedRequest> {
    return (await gateway().chatSend(sessionKey, text, 60_000)).request;
  }
  const systemPromptOf = (request: RecordedRequest) => gateway().model.systemPromptOf(request);
  const written = () => (fs.existsSync(dayFile) ? fs.readFileSync(dayFile, "utf8") : "");

  beforeAll(async () => {
    // Hooks load at gateway start: the config goes in while it is down.
    await gateway().restart(HOOK_PACK_MEMORY_CONFIG);
    dayFile = path.join(gateway().workspaceDir, "memory", `${new Date().toISOString().slice(0, 10)}.md`);
  }, 600_000);

  it("ethos-context puts the memory fact into the system prompt of the same turn (main session, chat.send)", { timeout: 120_000 }, async () => {
    const systemPrompt = systemPromptOf(await chatSend("agent:main:main", MAIN_QUESTION));
    const recordPath = path.join(gateway().workspaceDir, "ETHOS_CONTEXT.md");
    const section = projectContextSection(systemPrompt, recordPath);
    expect(section, `no "## ${recordPath}" section in the system prompt`).toBeDefined();
    // The model reads the compact layout.
    expect(section).toContain("Relevant memories (workspace memory), by date:");
    expect(section).toContain("\n[2026-02-22]\n");
    expect(section).toContain(`\n- ${FACT}`);
    // Observability copy on disk: the same memories in story 007's layout, written in the background.
    const onDisk = await waitForFileContaining(recordPath, FACT);
    expect(onDisk).toContain(`**[2026-02-22]** ${FACT}`);
    expect(onDisk).toContain("<!-- ethos:context ts=");
  });

  it("ethos-context: a group session asking the same thing gets nothing", { timeout: 120_000 }, async () => {
    const systemPrompt = systemPromptOf(await chatSend(GROUP, GROUP_QUESTION));
    expect(systemPrompt).not.toContain("Halcyon Drift");
    expect(systemPrompt).not.toContain("Relevant memories (");
  });

  it("ethos-context: a subagent session asking the same thing gets nothing", { timeout: 120_000 }, async () => {
    const systemPrompt = systemPromptOf(await chatSend(`agent:main:subagent:${crypto.randomUUID()}`, SUBAGENT_QUESTION));
    expect(systemPrompt).not.toContain("Halcyon Drift");
    expect(systemPrompt).not.toContain("Relevant memories (");
  });

  it("capture: a group saying \"remember that …\" writes nothing", { timeout: 180_000 }, async () => {
    // Sent first: the hook's message:received for a group returns before any write is started, so
    // once this turn reached the model nothing can land later on its behalf.
    await chatSend(GROUP, REMEMBER);
    expect(written()).not.toContain("4312");
  });

  it("capture, main session: the fact is written once, not echoed in the same turn, and a new session's question gets it", { timeout: 240_000 }, async () => {
    const first = await chatSend("agent:main:main", REMEMBER);
    const lines = (await waitForFileContaining(dayFile, LOCKER_FACT)).split("\n").filter((line) => line.includes("4312"));
    // One line (the group's identical words did not add a mention), with the §8 metadata.
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^- my locker code is 4312 #knowledge <!-- confidence: 0\.95 source: operator mentions: 1 last: \d{4}-\d{2}-\d{2} captured: \S+ -->$/);
    // Same turn: the fact appears only inside the operator's own words, never as a memory repeating them.
    expect(count(bodyOf(first), LOCKER_FACT)).toBe(count(bodyOf(first), REMEMBER));

    const body = bodyOf(await chatSend(newMainThread(), `What is my locker code? (${letters(8)})`));
    expect(body, "the new session's request does not carry the earlier turn").not.toContain(REMEMBER);
    expect(body).toContain(LOCKER_FACT);
  });

  it("capture: a correction supersedes the older value; the next question gets only the new one", { timeout: 240_000 }, async () => {
    await chatSend("agent:main:main", CORRECTION);
    // The new value is appended first and the older line marked after it (a failure in between
    // leaves both values, never neither), so wait for the mark.
    const text = await waitForFileContaining(dayFile, "status: superseded");
    expect(text).toMatch(/^- my locker code is 4312 #knowledge <!-- [^>]*status: superseded[^>]*-->$/m);
    expect(text).toMatch(/^- my locker code is 5580 #knowledge <!-- confidence: 1 source: correction [^>]*-->$/m);
    const body = withoutIds(bodyOf(await chatSend(newMainThread(), `Tell me my locker code please (${letters(8)})`)));
    expect(body).toContain("my locker code is 5580");
    expect(body, "the superseded value is not injected as current").not.toContain("4312");
  });

  it("the hook pack starts the maintenance schedule on gateway:startup", { timeout: 180_000 }, async () => {
    const log = path.join(gateway().root, "openclaw-context.log");
    expect(await waitForFileContaining(log, "maintenance schedule started", 120_000)).toContain("maintenance schedule started (first look in 5 s)");
  });

  it("the scheduled maintenance pass runs inside the gateway, and a turn sent meanwhile is answered before it ends", { timeout: 1_900_000 }, async () => {
    const { run } = await checkScheduledMaintenance(gateway(), (sessionKey, text) => gateway().chatSend(sessionKey, text, 600_000));
    expect(run).toMatch(/^\d{8}T\d{6}Z/);
    // The pass by hand archived the sample's old day files: the sailboat comes from Archive/Chronicles/ now.
    expect(fs.existsSync(path.join(gateway().workspaceDir, "memory", "2026-02-22.md"))).toBe(false);
    expect(bodyOf(await chatSend(newMainThread(), `What is Jeff's sailboat named? (${letters(8)})`))).toContain("Halcyon Drift");
  });
}
