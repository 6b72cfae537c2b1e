// Ground truth for aci-bootstrap on real OpenClaw gateways, one block per pinned version.
// Two gateways per version on the same workspace: hook OFF (aci-bootstrap disabled in
// openclaw.json; the probe hook also runs its API experiments there) and hook ON. Every session
// type gets one real turn; assertions read the exact system prompt the mock model received.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { explainWorkspace } from "../../src/ops/explain-workspace.ts";
import type { SessionExplanation } from "../../src/ops/explain-workspace.ts";
import { HEARTBEAT_PROVIDERS } from "../../src/bootstrap/heartbeat-run.ts";
import { onDemandLine } from "../../src/bootstrap/on-demand.ts";
import { REPO_ROOT, SAMPLE_WORKSPACE, deepMerge, hashTree, startGateway } from "./gateway.ts";
import type { Gateway, ProbeEvent, TurnResult } from "./gateway.ts";
import { injectedChars, injectedNames, injectedTokens, parseInjectedFiles } from "./prompt.ts";
import { OPENCLAW_TARGETS } from "./versions.ts";
import { recordFixtures } from "./record.ts";
import { readAssumptionsDoc, saveObservations } from "./assumptions.ts";
import type { Observations } from "./assumptions.ts";
import { hookPackMemoryChecks } from "./hook-pack-memory-checks.ts";

const OWNER_ID = "424242";
const STRANGER_ID = "555001";
const GROUP_ID = "-1001234567890";
const SUBAGENT_UUID = "3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b";
const USER_SENTINEL = "PRIVACY_SENTINEL_USER_7f3a";
const MEMORY_SENTINEL = "PRIVACY_SENTINEL_MEMORY_9c1e";
const ETHOS_DISK_SENTINEL = "ETHOS_DISK_SENTINEL_41d2";
const PROBE_DISK_SENTINEL = "PROBE_DISK_SENTINEL_77aa";
const BUDGET_TOKENS = 500;

type SessionName = "main" | "ownerDm" | "strangerDm" | "group" | "topic" | "orchestration" | "subagent" | "cron" | "heartbeat";
/** The hook-on gateway's orchestration rule names this forum topic (issue 28 item 3). */
const ORCHESTRATION_TOPIC = "77";
/** Which host filter applies, for the custom-name probes. */
type HostKind = "direct" | "group" | "subagent" | "cron";

const SESSIONS: { name: SessionName; kind: HostKind; drive: (gw: Gateway) => Promise<TurnResult> }[] = [
  { name: "main", kind: "direct", drive: (gw) => gw.chatSend("agent:main:main") },
  { name: "ownerDm", kind: "direct", drive: (gw) => gw.agentTurn(`agent:main:telegram:direct:${OWNER_ID}`) },
  { name: "strangerDm", kind: "direct", drive: (gw) => gw.agentTurn(`agent:main:telegram:direct:${STRANGER_ID}`) },
  { name: "group", kind: "group", drive: (gw) => gw.agentTurn(`agent:main:telegram:group:${GROUP_ID}`) },
  { name: "topic", kind: "group", drive: (gw) => gw.agentTurn(`agent:main:telegram:group:${GROUP_ID}:topic:15`) },
  { name: "orchestration", kind: "group", drive: (gw) => gw.agentTurn(`agent:main:telegram:group:${GROUP_ID}:topic:${ORCHESTRATION_TOPIC}`) },
  { name: "subagent", kind: "subagent", drive: (gw) => gw.agentTurn(`agent:main:subagent:${SUBAGENT_UUID}`) },
  { name: "cron", kind: "cron", drive: (gw) => gw.cronTurn() },
  { name: "heartbeat", kind: "direct", drive: (gw) => gw.heartbeatTurn() },
];

const MAIN_SET = ["SOUL.md", "USER.md", "TOOLS_COMPACT.md"];
const HEARTBEAT_SET = ["SOUL.md", "HEARTBEAT.md"];

/** The ACI spec's default file sets (§10 SESSION_FILE_SETS, §3 orchestration) for the session each turn is. */
const SPEC_SETS: Record<SessionName, string[]> = {
  main: ["SOUL.md", "USER.md", "TOOLS_COMPACT.md"],
  ownerDm: ["SOUL.md", "USER.md", "TOOLS_COMPACT.md"],
  strangerDm: ["SOUL.md", "TOOLS_COMPACT.md"],
  group: ["SOUL.md", "TOOLS_COMPACT.md"],
  topic: ["SOUL.md", "TOOLS_COMPACT.md"],
  orchestration: ["SOUL.md", "AGENTS.md"],
  subagent: ["SOUL.md"],
  cron: HEARTBEAT_SET,
  // Same key as the main session and no flag on agent:bootstrap: HEARTBEAT_SET only where the host
  // announces the run as a heartbeat first (message:preprocessed; see heartbeatToldApart below).
  heartbeat: HEARTBEAT_SET,
};

/** Sessions the spec caps at 500 tokens (AC-1a/1b/2); SOUL + AGENTS (orchestration) is larger by design. */
const BUDGETED: SessionName[] = ["main", "ownerDm", "strangerDm", "group", "topic", "subagent", "cron", "heartbeat"];

/** Sessions where USER.md / MEMORY.md content must never appear (docs/architecture.md privacy rule). */
const PRIVATE_CONTENT_FORBIDDEN: SessionName[] = ["subagent", "strangerDm", "group", "topic", "orchestration", "cron"];

/** The hook-off gateway drives no orchestration turn: without the hook that topic is a forum topic like topic 15. */
const offTwin = (name: SessionName): SessionName => (name === "orchestration" ? "topic" : name);

/** The on-demand line a forum topic of the sample workspace gets (src/bootstrap/on-demand.ts). */
const TOPIC_ON_DEMAND = onDemandLine(["AGENTS.md", "TOOLS.md"]);

/** Probe experiments (hook-off gateway): session key → probe-hook mutations applied on it. */
const PROBES = {
  multi: "agent:main:probe-multi",
  splice: "agent:main:probe-splice",
  reassign: "agent:main:probe-reassign",
  undefinedList: "agent:main:probe-undefined",
  customGroup: "agent:main:telegram:group:probe-custom",
  customSubagent: "agent:main:subagent:probe-custom-0b1c",
  customCron: "agent:main:cron:probe-custom:run:probe",
  throwing: "agent:main:probe-throw",
  delay: "agent:main:probe-delay",
} as const;

const PROBE_MUTATIONS = [
  { keyContains: "probe-multi", op: "push" },
  { keyContains: "probe-multi", op: "custom-names" },
  { keyContains: "probe-multi", op: "no-content" },
  { keyContains: "probe-splice", op: "splice-soul" },
  { keyContains: "probe-reassign", op: "reassign" },
  { keyContains: "probe-undefined", op: "undefined" },
  { keyContains: "probe-throw", op: "throw" },
  { keyContains: "probe-multi", op: "core-names" },
  { keyContains: "probe-custom", op: "custom-names" },
  { keyContains: "probe-custom", op: "core-names" },
];

/** Probe session per host filter kind, for what survives the host's post-hook filter. */
const KIND_PROBE: Record<HostKind, string> = { direct: "probe:multi", group: "probe:customGroup", subagent: "probe:customSubagent", cron: "probe:customCron" };

type Outcome = { turn?: TurnResult; error?: string; seconds: number };

async function drive(gw: Gateway, f: (gw: Gateway) => Promise<TurnResult>): Promise<Outcome> {
  const started = Date.now();
  try {
    return { turn: await f(gw), seconds: (Date.now() - started) / 1000 };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error), seconds: (Date.now() - started) / 1000 };
  }
}

/** The turn, or a failure that says exactly which session type could not be driven and why. */
function turnOf(outcomes: Map<string, Outcome>, name: string, version: string): TurnResult {
  const outcome = outcomes.get(name);
  if (!outcome?.turn) throw new Error(`openclaw ${version}: session "${name}" could not be driven: ${outcome?.error ?? "not run"}`);
  return outcome.turn;
}

function workspaceFilesWithSentinels(): Record<string, string> {
  const read = (name: string) => (fs.existsSync(path.join(SAMPLE_WORKSPACE, name)) ? fs.readFileSync(path.join(SAMPLE_WORKSPACE, name), "utf8") : "");
  return {
    "USER.md": `${read("USER.md").trimEnd()}\n- Private note: ${USER_SENTINEL}\n`,
    "MEMORY.md": `${read("MEMORY.md").trimEnd() || "# MEMORY.md"}\n- ${MEMORY_SENTINEL}: durable private fact\n`,
    // Ethos story assumption: a file with this name on disk is auto-loaded.
    "ETHOS_CONTEXT.md": `# ETHOS_CONTEXT\n${ETHOS_DISK_SENTINEL}\n`,
    // The probe's no-content record points here: does the host re-read a path?
    "PROBE_DISK.md": `${PROBE_DISK_SENTINEL}\n`,
  };
}

function bootstrapEvents(events: ProbeEvent[], sessionKey: string): ProbeEvent[] {
  return events.filter((e) => e.event === "agent:bootstrap" && e.sessionKey === sessionKey);
}

/** The probe log, read again until `until` matches a line (bounded: the probe ends by itself within 30 s). */
async function probeEventsOnceLogged(gw: Gateway, until: (event: ProbeEvent) => boolean, timeoutMs = 60_000): Promise<ProbeEvent[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const events = gw.probeEvents();
    if (events.some(until) || Date.now() > deadline) return events;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Probe log lines showing that the probe applied `op` on a key that is, or extends, `sessionKey`. */
function mutationsOf(events: ProbeEvent[], sessionKey: string, op: string): ProbeEvent[] {
  return events.filter((e) => e.event === "probe:mutated" && String(e.sessionKey).startsWith(sessionKey) && e.op === op);
}

/** Names in the list the probe left after `op` on `sessionKey`. */
function namesAfter(events: ProbeEvent[], sessionKey: string, op: string): string[] {
  const after = mutationsOf(events, sessionKey, op)[0]?.bootstrapFilesAfter;
  return Array.isArray(after) ? (after as FileRow[]).map((f) => f.name) : [];
}

type FileRow = { name: string; missing?: boolean; keys?: string[] };
function filesOf(event: ProbeEvent | undefined): FileRow[] {
  const context = event?.context as { bootstrapFiles?: FileRow[] } | undefined;
  return context?.bootstrapFiles ?? [];
}

const timings: Record<string, Record<string, number>> = {};
const reductionRows: Record<string, unknown>[] = [];

for (const target of OPENCLAW_TARGETS) {
  const version = target.openclaw;

  describe(`openclaw ${version} (real gateway)`, () => {
    const off = new Map<string, Outcome>();
    const on = new Map<string, Outcome>();
    const observed: Observations = {};
    let offGw: Gateway | undefined;
    let onGw: Gateway | undefined;
    let offEvents: ProbeEvent[] = [];
    let offHashes: { before: Record<string, string>; after: Record<string, string> } | undefined;
    let onHashes: { before: Record<string, string>; after: Record<string, string> } | undefined;
    const explained = new Map<SessionName, SessionExplanation | string>();
    const versionStarted = Date.now();

    beforeAll(async () => {
      const started = Date.now();
      offGw = await startGateway({
        version,
        hooks: { "aci-bootstrap": { enabled: false }, "ethos-context": { enabled: false }, "e2e-probe": { enabled: true, mutations: PROBE_MUTATIONS } },
        workspaceFiles: workspaceFilesWithSentinels(),
      });
      timings[version] = { ...timings[version], installSeconds: offGw.installed.installSeconds, offStartSeconds: (Date.now() - started) / 1000 };
      console.log(`e2e boot seconds openclaw ${version} (hook off): ${JSON.stringify(offGw.bootSeconds)}`);
      const before = hashTree(offGw.workspaceDir);
      // With the hook off an orchestration topic is a forum topic like any other: its twin's turn stands in.
      for (const session of SESSIONS) if (session.name !== "orchestration") off.set(session.name, await drive(offGw, session.drive));
      for (const [name, key] of Object.entries(PROBES)) {
        if (name === "delay") off.set(`probe:${name}`, await drive(offGw, (gw) => gw.chatSend(key, `e2e delayed turn ${crypto.randomUUID()} [probe-delay]`)));
        else off.set(`probe:${name}`, await drive(offGw, (gw) => gw.agentTurn(key)));
      }
      // The delayed message:received handler ends once it has seen its turn's bootstrap: wait for
      // that line (an event, not a fixed sleep) before the log is read.
      offEvents = await probeEventsOnceLogged(offGw, (e) => e.event === "message:received" && e.phase === "end" && e.sessionKey === PROBES.delay);
      offHashes = { before, after: hashTree(offGw.workspaceDir) };
      if (process.env.OPENCLAW_CONTEXT_RECORD === "1") {
        recordFixtures(version, offGw.workspaceDir, offEvents, Object.fromEntries(SESSIONS.filter((s) => off.has(s.name)).map((s) => [s.name, off.get(s.name)?.turn?.sessionKey])));
      }
      await offGw.stop();
      timings[version] = { ...timings[version], offSeconds: (Date.now() - started) / 1000 };
    });

    beforeAll(async () => {
      const started = Date.now();
      onGw = await startGateway({
        version,
        hooks: { "aci-bootstrap": { enabled: true, ownerIds: [OWNER_ID], orchestration: { topics: [ORCHESTRATION_TOPIC] } }, "ethos-context": { enabled: false } },
        workspaceFiles: workspaceFilesWithSentinels(),
        // The maintenance schedule's first look 5 s after each start (default 60 s): the hook pack's check waits less.
        env: { OPENCLAW_CONTEXT_MAINTENANCE_DELAY_SECONDS: "5" },
      });
      console.log(`e2e boot seconds openclaw ${version} (hook on): ${JSON.stringify(onGw.bootSeconds)}`);
      const before = hashTree(onGw.workspaceDir);
      for (const session of SESSIONS) on.set(session.name, await drive(onGw, session.drive));
      // A second turn of the forum topic: its on-demand line must be the same bytes (cache-stable).
      on.set("topic:again", await drive(onGw, SESSIONS.find((session) => session.name === "topic")!.drive));
      onHashes = { before, after: hashTree(onGw.workspaceDir) };
      // What `npm run explain` predicts for the same workspace, config and keys (host filters of this version).
      const cfg = deepMerge(JSON.parse(fs.readFileSync(onGw.configPath, "utf8")) as Record<string, unknown>, { hooks: { internal: { entries: { "aci-bootstrap": { hostVersion: version } } } } });
      for (const session of SESSIONS) {
        const sessionKey = on.get(session.name)?.turn?.sessionKey;
        if (!sessionKey) continue;
        try {
          // A heartbeat run is told apart only where the host announces it (2026.3.13's
          // message:preprocessed, HOOK_ASSUMPTIONS preprocessedHeartbeat); explain is told so too.
          const heartbeatRun = session.name === "heartbeat" && version.startsWith("2026.3.");
          explained.set(session.name, (await explainWorkspace({ workspaceDir: onGw.workspaceDir, cfg, sessionKey, heartbeatRun })).sessions[0]!);
        } catch (error) {
          explained.set(session.name, error instanceof Error ? error.message : String(error));
        }
      }
      // Not stopped here: the hook-pack memory checks at the end of this block restart it (afterAll stops it).
      timings[version] = { ...timings[version], onSeconds: (Date.now() - started) / 1000 };
    });

    afterAll(async () => {
      await offGw?.stop();
      await onGw?.stop();
      saveObservations(version, observed);
      timings[version] = { ...timings[version], totalSeconds: (Date.now() - versionStarted) / 1000 };
      console.log(`e2e timing openclaw ${version}: ${JSON.stringify(timings[version])}`);
      const turnSeconds = (map: Map<string, Outcome>) => Object.fromEntries([...map].map(([k, v]) => [k, v.seconds.toFixed(1)]));
      console.log(`e2e turn seconds openclaw ${version}: hook off ${JSON.stringify(turnSeconds(off))}; hook on ${JSON.stringify(turnSeconds(on))}`);
    });

    // ------------------------------------------------------------------ harness sanity
    it("drives every session type with the hook off and on (no type silently missing)", () => {
      // Our whole pack went in through the OpenClaw CLI (a manifest hook left out would show here).
      expect(onGw!.packInstall).not.toContain("missing");
      const failures = [...off, ...on].filter(([, o]) => !o.turn).map(([name, o]) => `${name}: ${o.error}`);
      expect(failures, `session types that could not be driven on ${version}`).toEqual([]);
      for (const session of SESSIONS) {
        expect(offEvents.some((e) => e.event === "agent:bootstrap" && e.sessionKey === turnOf(off, offTwin(session.name), version).sessionKey), `agent:bootstrap for ${session.name}`).toBe(true);
      }
    });

    // ------------------------------------------------------------------ hook API assumptions (ACI Task 1)
    it("A1 sessionKey is top level on agent:bootstrap, and context.sessionKey", () => {
      const event = bootstrapEvents(offEvents, "agent:main:main")[0]!;
      expect(event, "agent:bootstrap for agent:main:main").toBeDefined();
      observed.sessionKeyTopLevel = (event.topKeys as string[]).includes("sessionKey") && event.sessionKey === "agent:main:main" ? "yes" : "no";
      const ctx = event.context as Record<string, unknown>;
      observed.contextSessionKey = ctx.sessionKey === event.sessionKey ? "same as top level" : ctx.sessionKey === null ? "undefined" : `differs: ${String(ctx.sessionKey)}`;
      observed.bootstrapTopKeys = (event.topKeys as string[]).join(", ");
      observed.bootstrapContextKeys = (event.contextKeys as string[]).join(", ");
      expect(observed.sessionKeyTopLevel).toBe("yes");
    });

    it("A2 WorkspaceBootstrapFile shape", () => {
      const records = filesOf(bootstrapEvents(offEvents, "agent:main:main")[0]);
      expect(records.length).toBeGreaterThan(0);
      const present = [...new Set(records.filter((r) => !r.missing).flatMap((r) => r.keys ?? []))].sort();
      const missing = [...new Set(records.filter((r) => r.missing).flatMap((r) => r.keys ?? []))].sort();
      observed.recordShape = `{${present.join(", ")}}; missing: {${missing.join(", ")}}`;
      observed.hostFileNames = records.map((r) => r.name).join(", ");
      expect(present).toEqual(expect.arrayContaining(["name", "path", "missing", "content"]));
    });

    it("A3 in-place push / splice and reassignment of bootstrapFiles are honoured", () => {
      const multi = turnOf(off, "probe:multi", version).systemPrompt;
      const splice = injectedNames(turnOf(off, "probe:splice", version).systemPrompt);
      const reassign = turnOf(off, "probe:reassign", version).systemPrompt;
      observed.pushHonoured = multi.includes("PROBE_PUSH_MARKER") ? "yes" : "no";
      observed.spliceHonoured = splice.includes("SOUL.md") ? "no" : "yes";
      observed.reassignHonoured = reassign.includes("PROBE_REASSIGN_MARKER") && !injectedNames(reassign).includes("SOUL.md") ? "yes" : "no";
      // Each observation means something only if the probe really changed the list as described.
      expect(namesAfter(offEvents, PROBES.multi, "push"), "probe pushed PROBE_PUSH.md").toContain("PROBE_PUSH.md");
      expect(mutationsOf(offEvents, PROBES.splice, "splice-soul"), "probe spliced on its key").toHaveLength(1);
      expect(namesAfter(offEvents, PROBES.splice, "splice-soul"), "probe spliced SOUL.md out").not.toContain("SOUL.md");
      expect(namesAfter(offEvents, PROBES.reassign, "reassign"), "probe reassigned the list").toContain("PROBE_REASSIGN.md");
      // The host's own SOUL.md is there when nobody removes it, so "spliceHonoured" is not vacuous.
      expect(injectedNames(turnOf(off, "main", version).systemPrompt)).toContain("SOUL.md");
      // aci-bootstrap returns its list by reassignment: the bundle relies on this one.
      expect(observed.reassignHonoured).toBe("yes");
    });

    it("A4 non-standard basenames from a hook, per host filter; inline content used as-is; no re-read", () => {
      const hasCustom = (key: keyof typeof PROBES) => {
        const prompt = turnOf(off, `probe:${key}`, version).systemPrompt;
        return prompt.includes("TOOLS_COMPACT_INLINE_MARKER") && prompt.includes("ETHOS_INLINE_MARKER") ? "kept" : prompt.includes("TOOLS_COMPACT_INLINE_MARKER") || prompt.includes("ETHOS_INLINE_MARKER") ? "partly kept" : "dropped";
      };
      observed.customNamesDirect = hasCustom("multi");
      observed.customNamesGroup = hasCustom("customGroup");
      observed.customNamesSubagent = hasCustom("customSubagent");
      observed.customNamesCron = hasCustom("customCron");
      for (const [kind, probe] of Object.entries(KIND_PROBE)) {
        const prompt = turnOf(off, probe, version).systemPrompt;
        const kept = ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "TOOLS.md"].filter((name) => prompt.includes(`PROBE_NAME_${name}`));
        observed[`postHookKeeps_${kind}`] = kept.length === 6 ? "all probed names" : kept.length ? kept.join(", ") : "none";
      }
      const multi = turnOf(off, "probe:multi", version).systemPrompt;
      observed.inlineContentUsedAsIs = multi.includes("ETHOS_INLINE_MARKER") && !multi.includes(ETHOS_DISK_SENTINEL) ? "yes" : "no";
      observed.recordWithoutContentReadFromDisk = multi.includes(PROBE_DISK_SENTINEL) ? "yes" : "no (skipped)";
      // The probe added the records on every probed key (so "dropped" is the host's doing).
      for (const key of [PROBES.multi, PROBES.customGroup, PROBES.customSubagent, PROBES.customCron]) {
        expect(namesAfter(offEvents, key, "custom-names"), `custom-names applied on ${key}`).toEqual(expect.arrayContaining(["ETHOS_CONTEXT.md", "TOOLS_COMPACT.md"]));
        expect(namesAfter(offEvents, key, "core-names"), `core-names applied on ${key}`).toEqual(expect.arrayContaining(["AGENTS.md", "HEARTBEAT.md", "TOOLS.md"]));
      }
      expect(mutationsOf(offEvents, PROBES.multi, "no-content"), "no-content record added").toHaveLength(1);
      // What the bundle relies on: its own basenames with inline content reach main/DM and group prompts.
      expect([observed.customNamesDirect, observed.customNamesGroup, observed.inlineContentUsedAsIs]).toEqual(["kept", "kept", "yes"]);
    });

    it("A5 bootstrapFiles: type received, and what setting it to undefined does", () => {
      const types = [...new Set(offEvents.filter((e) => e.event === "agent:bootstrap").map((e) => (e.context as { bootstrapFilesType?: string }).bootstrapFilesType))];
      observed.bootstrapFilesReceivedType = types.join(", ");
      const prompt = turnOf(off, "probe:undefinedList", version).systemPrompt;
      const throwing = off.get("probe:throwing");
      observed.throwingHookTolerated = throwing?.turn && injectedNames(throwing.turn.systemPrompt).includes("SOUL.md") ? "yes, turn ran with the host's files" : `no: ${throwing?.error ?? "no turn"}`;
      observed.undefinedBootstrapFiles = injectedNames(prompt).includes("SOUL.md") ? "host keeps its own list" : "files dropped";
      // The probe really set the list to undefined and really ran (and threw) on the throwing key.
      expect(mutationsOf(offEvents, PROBES.undefinedList, "undefined")[0]?.bootstrapFilesAfter, "probe set bootstrapFiles to undefined").toBeNull();
      expect(mutationsOf(offEvents, PROBES.undefinedList, "undefined"), "undefined applied once").toHaveLength(1);
      expect(bootstrapEvents(offEvents, PROBES.throwing).length, "probe ran on the throwing key").toBeGreaterThan(0);
      expect(mutationsOf(offEvents, PROBES.throwing, "throw"), "a throw logs no mutation").toEqual([]);
    });

    // ------------------------------------------------------------------ Ethos story assumptions
    it("E1 ETHOS_CONTEXT.md on disk is (not) auto-loaded", () => {
      const main = turnOf(off, "main", version).systemPrompt;
      observed.ethosContextAutoLoaded = main.includes(ETHOS_DISK_SENTINEL) ? "yes" : "no";
      // "no" means something only if the file was really in the gateway's workspace and the prompt
      // did carry workspace files: the sentinel file is there (hash) and USER.md's sentinel reached the prompt.
      const onDisk = crypto.createHash("sha256").update(workspaceFilesWithSentinels()["ETHOS_CONTEXT.md"]!).digest("hex");
      expect(offHashes!.after["ETHOS_CONTEXT.md"], "ETHOS_CONTEXT.md in the hook-off workspace").toBe(onDisk);
      expect(main).toContain(USER_SENTINEL);
    });

    it("E2 message:received: fires on chat.send before bootstrap; awaited or not; fields", () => {
      const received = offEvents.filter((e) => e.event === "message:received" && e.sessionKey === PROBES.delay);
      const start = received.find((e) => e.phase === "start");
      const end = received.find((e) => e.phase === "end");
      const bootstrap = bootstrapEvents(offEvents, PROBES.delay)[0];
      expect(start, "message:received for the delayed chat.send").toBeDefined();
      expect(bootstrap, "agent:bootstrap for the delayed chat.send").toBeDefined();
      observed.receivedStartsBeforeBootstrap = start!.seq < bootstrap!.seq ? "yes" : "no";
      // The probe's handler ends on this turn's bootstrap or by a 30 s timeout: whichever came first
      // answers the question, whatever the machine's speed.
      expect(end, "message:received end line for the delayed chat.send").toBeDefined();
      observed.receivedAwaitedBeforeBootstrap = end!.seq < bootstrap!.seq ? "yes" : "no";
      expect(end!.endedBy, "the delayed handler ended on this turn's bootstrap, else by its timeout").toBe(observed.receivedAwaitedBeforeBootstrap === "yes" ? "timeout" : "bootstrap");
      const contextKeys = start!.contextKeys as string[];
      observed.receivedContextSessionKey = contextKeys.includes("sessionKey") ? "yes" : "no (top level only)";
      observed.receivedHasCfg = contextKeys.includes("cfg") ? "yes" : "no";
      observed.receivedHasWorkspaceDir = contextKeys.includes("workspaceDir") ? "yes" : "no";
      observed.receivedOnAgentRpc = offEvents.some((e) => e.event === "message:received" && e.sessionKey === `agent:main:telegram:direct:${OWNER_ID}`) ? "yes" : "no";
      // agent:main:main gets exactly two turns: the chat.send one and the heartbeat run.
      observed.receivedOnHeartbeat = offEvents.filter((e) => e.event === "message:received" && e.sessionKey === "agent:main:main").length >= 2 ? "yes" : "no";
      const firstMainReceived = offEvents.find((e) => e.event === "message:received" && e.sessionKey === "agent:main:main");
      const firstMainBootstrap = bootstrapEvents(offEvents, "agent:main:main")[0];
      // Ethos story option 2 caches sessionKey → workspaceDir on agent:bootstrap for use in
      // message:received: on a session's first turn that cache is still empty.
      observed.receivedBeforeFirstBootstrapOfSession = firstMainReceived && firstMainBootstrap && firstMainReceived.seq < firstMainBootstrap.seq ? "yes" : "no";
    });

    it("E3 workspaceDir on agent:bootstrap is the agent workspace for every session key", () => {
      const dirs = new Set(offEvents.filter((e) => e.event === "agent:bootstrap").map((e) => (e.context as { workspaceDir?: string }).workspaceDir));
      observed.bootstrapWorkspaceDir = dirs.size === 1 && dirs.has(offGw!.workspaceDir) ? "yes, same dir for every key" : `no: ${[...dirs].join(", ")}`;
      expect(dirs.has(offGw!.workspaceDir)).toBe(true);
    });

    // ------------------------------------------------------------------ session keys and host filters
    it("K1 session-key formats the hooks see", () => {
      observed.keyMain = turnOf(off, "main", version).sessionKey === "agent:main:main" && bootstrapEvents(offEvents, "agent:main:main").length > 0 ? "agent:main:main" : "other";
      const cronKey = turnOf(off, "cron", version).sessionKey;
      observed.keyCron = cronKey.replace(/^agent:main:cron:[^:]+/, "agent:main:cron:<jobId>").replace(/:run:[^:]+$/, ":run:<sessionId>");
      const heartbeatTurn = turnOf(off, "heartbeat", version);
      const heartbeatBootstrap = offEvents.filter((e) => e.event === "agent:bootstrap" && e.t <= heartbeatTurn.request.receivedAt).at(-1);
      observed.keyHeartbeat = String(heartbeatBootstrap?.sessionKey);
      for (const name of ["ownerDm", "group", "topic", "subagent"] as const) {
        const key = turnOf(off, name, version).sessionKey;
        observed[`key_${name}`] = bootstrapEvents(offEvents, key).length > 0 ? "seen as sent" : "not seen";
      }
      expect(observed.keyCron).toMatch(/^agent:main:cron:<jobId>/);
    });

    it("K2 host filters: what survives per session type with the hook off", () => {
      for (const name of ["group", "subagent", "cron"] as const) observed[`hostNames_${name}`] = injectedNames(turnOf(off, name, version).systemPrompt).join(", ");
      observed.hostNames_main = injectedNames(turnOf(off, "main", version).systemPrompt).join(", ");
      observed.groupGetsMemory = turnOf(off, "group", version).systemPrompt.includes(MEMORY_SENTINEL) ? "yes" : "no";
      observed.subagentGetsUser = turnOf(off, "subagent", version).systemPrompt.includes(USER_SENTINEL) ? "yes" : "no";
      observed.heartbeatGetsBootstrap = bootstrapEvents(offEvents, "agent:main:main").length >= 2 ? "yes" : "no";
      expect(observed.hostNames_main).toContain("SOUL.md");
    });

    /**
     * The message:preprocessed the host emitted for the heartbeat run, between the main turn's
     * agent:bootstrap and the heartbeat's (both on agent:main:main, hook-off gateway): its provider,
     * or "no event". aci-bootstrap gives the run the heartbeat set when this names a heartbeat.
     */
    const heartbeatAnnouncement = (): string => {
      const mainBootstraps = bootstrapEvents(offEvents, "agent:main:main");
      const [userTurn, heartbeatRun] = [mainBootstraps[0], mainBootstraps[1]];
      if (!userTurn || !heartbeatRun) return "no heartbeat bootstrap";
      const announced = offEvents.filter((e) => e.event === "message:preprocessed" && e.sessionKey === "agent:main:main" && e.seq > userTurn.seq && e.seq < heartbeatRun.seq).at(-1);
      return announced ? String(announced.provider ?? "(none)") : "no event";
    };
    const heartbeatToldApart = () => HEARTBEAT_PROVIDERS.has(heartbeatAnnouncement());

    it("K3 how a heartbeat run in the main session can be told apart (issue 28): message:preprocessed before its bootstrap", () => {
      observed.preprocessedHeartbeat = heartbeatAnnouncement();
      // The chat.send turn of the same key is announced too, as what it is (so the note is cleared by user turns).
      const userTurn = offEvents.filter((e) => e.event === "message:preprocessed" && e.sessionKey === "agent:main:main" && e.seq < bootstrapEvents(offEvents, "agent:main:main")[0]!.seq).at(-1);
      observed.preprocessedChatSend = userTurn ? String(userTurn.provider ?? "(none)") : "no event";
      expect(observed.preprocessedHeartbeat).not.toBe("no heartbeat bootstrap");
    });

    // ------------------------------------------------------------------ AC-8 rollback
    it("AC-8 hook disabled in openclaw.json: default bulk set; no workspace file changed", () => {
      const main = turnOf(off, "main", version);
      const hostGave = filesOf(bootstrapEvents(offEvents, "agent:main:main")[0]).filter((r) => !r.missing).map((r) => r.name);
      expect(injectedNames(main.systemPrompt).sort()).toEqual([...hostGave].sort());
      for (const name of ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md"]) expect(injectedNames(main.systemPrompt)).toContain(name);
      for (const hashes of [offHashes!, onHashes!]) {
        for (const [file, hash] of Object.entries(hashes.before)) expect(hashes.after[file], `workspace file ${file}`).toBe(hash);
      }
    });

    // ------------------------------------------------------------------ ACI acceptance criteria (hook on)
    /** Does a record the hook returns with this name reach the prompt in this session kind? (probe evidence) */
    const hostAllows = (session: (typeof SESSIONS)[number], name: string): boolean => {
      const prompt = turnOf(off, KIND_PROBE[session.kind], version).systemPrompt;
      return name === "TOOLS_COMPACT.md" ? prompt.includes("TOOLS_COMPACT_INLINE_MARKER") : prompt.includes(`PROBE_NAME_${name}`);
    };
    const specSet = (name: SessionName) => (name === "heartbeat" && !heartbeatToldApart() ? MAIN_SET : SPEC_SETS[name]);
    const expectedOn = (session: (typeof SESSIONS)[number]) =>
      specSet(session.name).filter((name) => fs.existsSync(path.join(SAMPLE_WORKSPACE, name)) && hostAllows(session, name));

    for (const session of SESSIONS) {
      const budgeted = BUDGETED.includes(session.name);
      it(`AC-1/2/4/5 ${session.name}: exactly the configured files the host delivers${budgeted ? `, ≤ ${BUDGET_TOKENS} tokens` : ""}, no MEMORY.md`, () => {
        const prompt = turnOf(on, session.name, version).systemPrompt;
        const names = injectedNames(prompt);
        expect(new Set(names), `${session.name} on ${version}: injected ${names.join(", ")}`).toEqual(new Set(expectedOn(session)));
        expect(names).not.toContain("MEMORY.md");
        expect(prompt).not.toContain(MEMORY_SENTINEL);
        if (budgeted) expect(injectedTokens(prompt), `${session.name} injected bootstrap tokens`).toBeLessThanOrEqual(BUDGET_TOKENS);
      });
    }

    // ------------------------------------------------------------------ issue 28: on-demand index, orchestration, heartbeat
    it("on-demand index: a forum topic's request carries it on SOUL.md, the same bytes on a second turn", () => {
      const [first, again] = [turnOf(on, "topic", version), turnOf(on, "topic:again", version)];
      const soul = (turn: TurnResult) => parseInjectedFiles(turn.systemPrompt).find((file) => file.name === "SOUL.md")?.content ?? "";
      expect(soul(first).endsWith(TOPIC_ON_DEMAND), `SOUL.md of the topic turn ends with the line: ${soul(first).slice(-200)}`).toBe(true);
      const projectContext = (turn: TurnResult) => parseInjectedFiles(turn.systemPrompt).map((file) => `${file.path}\n${file.content}`).join("\n");
      expect(projectContext(again)).toBe(projectContext(first));
      expect(first.systemPrompt.split(TOPIC_ON_DEMAND).length - 1, "exactly one line").toBe(1);
      observed.onDemandTopic = soul(first).endsWith(TOPIC_ON_DEMAND) && projectContext(again) === projectContext(first) ? "on SOUL.md, byte-identical" : "no";
    });

    it("orchestration session (topic named by the rule): SOUL + AGENTS with the index, no USER.md, MEMORY.md or TOOLS_COMPACT.md", () => {
      const prompt = turnOf(on, "orchestration", version).systemPrompt;
      expect(injectedNames(prompt).sort()).toEqual(["AGENTS.md", "SOUL.md"]);
      const dispatch = fs.readFileSync(path.join(SAMPLE_WORKSPACE, "AGENTS.md"), "utf8").split("\n").find((line) => line.startsWith("## Dispatch"))!;
      expect(prompt).toContain(dispatch);
      expect(prompt).toContain(onDemandLine(["TOOLS.md"]));
      for (const sentinel of [USER_SENTINEL, MEMORY_SENTINEL]) expect(prompt).not.toContain(sentinel);
      observed.orchestrationSet = injectedNames(prompt).sort().join(", ");
    });

    it("heartbeat run in the main session: HEARTBEAT.md where the host announced it, the main set otherwise", () => {
      const prompt = turnOf(on, "heartbeat", version).systemPrompt;
      const checklist = fs.readFileSync(path.join(SAMPLE_WORKSPACE, "HEARTBEAT.md"), "utf8").split("\n").find((line) => line.startsWith("- Mission Control"))!;
      observed.heartbeatGetsHeartbeatMd = prompt.includes(checklist) ? "yes" : "no";
      expect(observed.heartbeatGetsHeartbeatMd).toBe(heartbeatToldApart() ? "yes" : "no");
      // The user turn of the same session before it kept the main set (the note is per run).
      expect(injectedNames(turnOf(on, "main", version).systemPrompt)).toEqual(expect.arrayContaining(["USER.md"]));
    });

    it("AC-4 subagent: no USER.md, MEMORY.md or TOOLS_COMPACT.md content; SOUL.md only if the host allows it", () => {
      const session = SESSIONS.find((s) => s.name === "subagent")!;
      const prompt = turnOf(on, "subagent", version).systemPrompt;
      const toolsCompact = fs.readFileSync(path.join(SAMPLE_WORKSPACE, "TOOLS_COMPACT.md"), "utf8").split("\n").find((l) => l.trim().length > 20)!;
      expect(prompt).not.toContain(USER_SENTINEL);
      expect(prompt).not.toContain(MEMORY_SENTINEL);
      expect(prompt).not.toContain(toolsCompact.trim());
      const soulLine = fs.readFileSync(path.join(SAMPLE_WORKSPACE, "SOUL.md"), "utf8").split("\n").find((l) => l.trim().length > 20)!.trim();
      observed.subagentSoulAllowedByHost = hostAllows(session, "SOUL.md") ? "yes" : "no";
      expect(prompt.includes(soulLine)).toBe(hostAllows(session, "SOUL.md"));
    });

    it("explain (the hook's own model of the host) predicts the files each real prompt got", () => {
      const disagreements: string[] = [];
      for (const session of SESSIONS) {
        const explanation = explained.get(session.name);
        if (typeof explanation !== "object") {
          disagreements.push(`${session.name}: explain failed: ${explanation ?? "not run"}`);
          continue;
        }
        const predicted = explanation.injected.map((f) => f.name).sort();
        const actual = injectedNames(turnOf(on, session.name, version).systemPrompt).sort();
        if (predicted.join() !== actual.join()) disagreements.push(`${session.name}: explain says [${predicted.join(", ")}], gateway injected [${actual.join(", ")}]`);
      }
      expect(disagreements, `explain vs openclaw ${version}`).toEqual([]);
    });

    it("privacy sentinels never reach subagent, external-DM, group, topic or cron prompts (hook on)", () => {
      for (const name of PRIVATE_CONTENT_FORBIDDEN) {
        const prompt = turnOf(on, name, version).systemPrompt;
        expect(prompt, `${name}: USER.md sentinel`).not.toContain(USER_SENTINEL);
        expect(prompt, `${name}: MEMORY.md sentinel`).not.toContain(MEMORY_SENTINEL);
      }
      // And the owner's own sessions do get USER.md (the sentinel is a real, reachable marker).
      expect(turnOf(on, "ownerDm", version).systemPrompt).toContain(USER_SENTINEL);
    });

    it("reduction: injected bootstrap characters, hook off vs on, per session type", () => {
      const rows = SESSIONS.map((session) => {
        const offChars = injectedChars(turnOf(off, offTwin(session.name), version).systemPrompt);
        const onChars = injectedChars(turnOf(on, session.name, version).systemPrompt);
        return {
          version,
          session: session.name,
          offChars,
          onChars,
          offTokens: injectedTokens(turnOf(off, offTwin(session.name), version).systemPrompt),
          onTokens: injectedTokens(turnOf(on, session.name, version).systemPrompt),
          reduction: offChars ? `${(((offChars - onChars) / offChars) * 100).toFixed(0)}%` : "n/a",
        };
      });
      reductionRows.push(...rows);
      console.log(`reduction table, openclaw ${version}`);
      console.table(rows);
      for (const row of rows) expect(row.onChars, `${row.session}`).toBeLessThanOrEqual(row.offChars);
    });

    it("size report: our parse and estimateTokens vs OpenClaw's systemPromptReport", () => {
      type ReportFile = { name: string; missing: boolean; injectedChars: number };
      const rows: { session: string; ourFiles: string; reportFiles: string; ourChars: number; reportedChars: number; ourTokens: number; reportTokens: number }[] = [];
      for (const session of SESSIONS.filter((s) => !["main", "cron", "heartbeat"].includes(s.name))) {
        const turn = turnOf(on, session.name, version);
        const report = (turn.cliJson as { result?: { meta?: { systemPromptReport?: { injectedWorkspaceFiles?: ReportFile[] } } } })?.result?.meta?.systemPromptReport;
        expect(report, `${session.name}: systemPromptReport in the agent RPC result`).toBeDefined();
        const reported = (report!.injectedWorkspaceFiles ?? []).filter((f) => f.injectedChars > 0);
        const ours = parseInjectedFiles(turn.systemPrompt);
        const reportedChars = reported.reduce((sum, f) => sum + f.injectedChars, 0);
        rows.push({
          session: session.name,
          ourFiles: ours.map((f) => `${f.name}:${f.content.length}`).join(" "),
          reportFiles: reported.map((f) => `${f.name}:${f.injectedChars}`).join(" "),
          ourChars: ours.reduce((sum, f) => sum + f.content.length, 0),
          reportedChars,
          ourTokens: injectedTokens(turn.systemPrompt),
          reportTokens: Math.ceil(reportedChars / 4),
        });
      }
      console.log(`size report, openclaw ${version}`);
      console.table(rows);
      for (const row of rows) {
        const names = (list: string) => list.split(" ").filter(Boolean).map((f) => f.replace(/:\d+$/, "")).sort();
        expect(names(row.ourFiles), `${row.session}: injected files, ours vs OpenClaw's report`).toEqual(names(row.reportFiles));
        // The host trims trailing whitespace; our parse trims both ends. Allow 2 chars per file.
        expect(Math.abs(row.ourChars - row.reportedChars), `${row.session}: injected chars, ours vs OpenClaw's report`).toBeLessThanOrEqual(2 * Math.max(1, row.ourFiles.split(" ").length));
      }
    });

    it("HOOK_ASSUMPTIONS.md matches what this run observed", () => {
      const doc = readAssumptionsDoc();
      const mismatches: string[] = [];
      for (const [id, value] of Object.entries(observed)) {
        const cell = doc.get(id)?.[version];
        if (cell === undefined) mismatches.push(`${id}: no row (observed ${JSON.stringify(value)})`);
        else if (cell.replaceAll("`", "") !== String(value)) mismatches.push(`${id}: doc says ${JSON.stringify(cell)}, observed ${JSON.stringify(value)}`);
      }
      expect(mismatches, `HOOK_ASSUMPTIONS.md (${path.relative(process.cwd(), path.join(REPO_ROOT, "HOOK_ASSUMPTIONS.md"))}) vs this run`).toEqual([]);
    });

    // ------------------------------------------------------------------ hook pack: same-turn memory and capture
    // On the hook pack's host only (2026.9+ is the plugin's: package-turns.e2e.test.ts). Runs last: it
    // restarts the hook-on gateway with ethos-context on (hook-pack-memory-checks.ts).
    if (version.startsWith("2026.3.")) {
      describe("hook pack memory: ethos-context and capture on the hook-on gateway, restarted with ethos-context on", () => {
        hookPackMemoryChecks(() => onGw!);
      });
    }
  });
}

afterAll(() => {
  if (reductionRows.length) {
    console.log("reduction table, all versions");
    console.table(reductionRows);
  }
});
