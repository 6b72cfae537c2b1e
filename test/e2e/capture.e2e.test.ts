import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway } from "./gateway.ts";
import type { Gateway } from "./gateway.ts";
import type { RecordedRequest } from "./mock-model.ts";
import { OPENCLAW_TARGETS } from "./versions.ts";
import { waitForFileContaining } from "./wait-file.ts";
import { checkScheduledMaintenance } from "./maintenance.ts";

// "Remember that …" on real gateways: the operator says it in the main session, the hook's triage
// writes a fact line into memory/<today>.md, and a NEW session's question gets the fact in that
// turn's model request (wherever the delivery puts it: the hook's record on 2026.3.13, the companion
// plugin on 2026.9.6). A group saying the same words writes nothing. A correction supersedes the
// older value, so the request never carries both as current.

const REMEMBER = "Remember that my locker code is 4312";
const FACT = "my locker code is 4312";
const CORRECTION = "Actually, the locker code is 5580 now.";

/** chat.send; the model request that carries `text`. */
async function chatSend(gateway: Gateway, sessionKey: string, text: string): Promise<RecordedRequest> {
  return (await gateway.chatSend(sessionKey, text, 60_000)).request;
}

const bodyOf = (request: RecordedRequest) => JSON.stringify(request.body);
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;
/** The body without the gateway's UUIDs (session ids, run ids), which can contain any four digits. */
const withoutIds = (body: string) => body.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<id>");
/** A fresh main-session thread: MAIN_SESSION, with none of the earlier turns in its history. */
const newMainThread = () => `agent:main:main:thread:${crypto.randomUUID()}`;

describe.each(OPENCLAW_TARGETS.map((t) => [t.label, t.openclaw] as const))("explicit capture on OpenClaw %s", (_label, version) => {
  let gateway: Gateway;
  let dayFile: string;

  beforeAll(async () => {
    const plugin = version !== "2026.3.13"; // 2026.9+: the companion plugin delivers memory
    gateway = await startGateway({
      version,
      // Bounds no machine misses for the cold index (the turn goes on as soon as retrieval is done);
      // de-duplication off between turns so every question can get the fact.
      hooks: { "ethos-context": { enabled: true, awaitTimeoutMs: 5000, dedupeAcrossTurns: false, memory: { minRefreshIntervalMs: 0 } } },
      installPlugin: plugin,
      config: plugin ? { plugins: { entries: { "openclaw-context-companion": { config: { waitMs: 10_000 } } } } } : {},
      // The maintenance schedule's first look 5 s after each start (default 60 s): its check below waits less.
      env: { OPENCLAW_CONTEXT_MAINTENANCE_DELAY_SECONDS: "5" },
    });
    dayFile = path.join(gateway.workspaceDir, "memory", `${new Date().toISOString().slice(0, 10)}.md`);
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it("a group saying \"remember that …\" writes nothing", { timeout: 180_000 }, async () => {
    // Sent first: the hook's message:received for a group returns before any write is started, so
    // once this turn reached the model nothing can land later on its behalf.
    await chatSend(gateway, "agent:main:telegram:group:-1009876543210", REMEMBER);
    expect(fs.existsSync(dayFile) ? fs.readFileSync(dayFile, "utf8") : "").not.toContain("4312");
  });

  it("main session: the fact is written once, not echoed in the same turn, and a new session's question gets it", { timeout: 240_000 }, async () => {
    const first = await chatSend(gateway, "agent:main:main", REMEMBER);
    const written = await waitForFileContaining(dayFile, FACT);
    const lines = written.split("\n").filter((line) => line.includes("4312"));
    // One line (the group's identical words did not add a mention), with the §8 metadata.
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^- my locker code is 4312 #knowledge <!-- confidence: 0\.95 source: operator mentions: 1 last: \d{4}-\d{2}-\d{2} captured: \S+ -->$/);
    // Same turn: the fact appears only inside the operator's own words, never as a memory repeating them.
    expect(count(bodyOf(first), FACT)).toBe(count(bodyOf(first), REMEMBER));

    const question = `What is my locker code? (${crypto.randomUUID().slice(0, 8)})`;
    const asked = await chatSend(gateway, newMainThread(), question);
    const body = bodyOf(asked);
    expect(body, "the new session's request does not carry the earlier turn").not.toContain(REMEMBER);
    expect(body).toContain(FACT);
  });

  it("a correction supersedes the older value: the next question gets only the new one", { timeout: 240_000 }, async () => {
    await chatSend(gateway, "agent:main:main", CORRECTION);
    // The new value is appended first and the older line marked after it (a failure in between
    // leaves both values, never neither), so wait for the mark.
    const written = await waitForFileContaining(dayFile, "status: superseded");
    expect(written).toMatch(/^- my locker code is 4312 #knowledge <!-- [^>]*status: superseded[^>]*-->$/m);
    expect(written).toMatch(/^- my locker code is 5580 #knowledge <!-- confidence: 1 source: correction [^>]*-->$/m);

    // A tag of letters only: it cannot contain 4312, and one unknown word (not a UUID's five) keeps
    // the question about the locker code for the confidence gate.
    const tag = Array.from(crypto.randomBytes(8), (byte) => String.fromCharCode(97 + (byte % 26))).join("");
    const question = `Tell me my locker code please (${tag})`;
    const body = withoutIds(bodyOf(await chatSend(gateway, newMainThread(), question)));
    expect(body).toContain("my locker code is 5580");
    expect(body, "the superseded value is not injected as current").not.toContain("4312");
  });

  it("the hook pack starts the maintenance schedule on gateway:startup", { timeout: 180_000 }, async () => {
    const log = path.join(gateway.root, "openclaw-context.log");
    expect(await waitForFileContaining(log, "maintenance schedule started", 120_000)).toContain("maintenance schedule started (first look in 5 s)");
  });

  it.runIf(version === "2026.3.13")("2026.3.13, hook pack: the scheduled maintenance pass runs inside the gateway, and a turn sent meanwhile is answered before it ends", { timeout: 1_900_000 }, async () => {
    const { run } = await checkScheduledMaintenance(gateway, (sessionKey, text) => gateway.chatSend(sessionKey, text, 600_000));
    expect(run).toMatch(/^\d{8}T\d{6}Z/);
    // The pass by hand archived the sample's old day files: the sailboat comes from Archive/Chronicles/ now.
    expect(fs.existsSync(path.join(gateway.workspaceDir, "memory", "2026-02-22.md"))).toBe(false);
    expect(bodyOf(await chatSend(gateway, newMainThread(), `What is Jeff's sailboat named? (${crypto.randomUUID().slice(0, 8)})`))).toContain("Halcyon Drift");
  });
});
