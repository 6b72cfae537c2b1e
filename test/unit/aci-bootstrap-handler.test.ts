import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import fg from "fast-glob";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { isAgentBootstrapEvent } from "../../src/host/events.ts";
import type { AgentBootstrapEvent, BootstrapFileRecord } from "../../src/host/events.ts";

const repo = path.resolve(__dirname, "../..");
const fixtureWorkspace = path.join(repo, "fixtures/workspace");
const noConfigDir = fs.mkdtempSync(path.join(os.tmpdir(), "aci-handler-"));

type Handler = (event: unknown) => Promise<void>;
let handler: Handler;
let lines: string[] = [];

beforeAll(async () => {
  // The handler reads openclaw.json when it loads: point it at a file that does not exist.
  vi.stubEnv("OPENCLAW_CONFIG_PATH", path.join(noConfigDir, "absent.json"));
  handler = (await import("../../hooks/aci-bootstrap/handler.ts")).default;
});
afterAll(() => {
  vi.unstubAllEnvs();
  fs.rmSync(noConfigDir, { recursive: true, force: true });
});
beforeEach(() => {
  lines = [];
  setLogDestination(new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } }));
});
afterEach(() => setLogDestination(undefined));

const logEntries = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
const decisions = () => logEntries().filter((entry) => entry.event === "aci-bootstrap.decision");

/** Replace the recording's workspace dir (or the `<workspace>` placeholder) with a local one. */
function remapWorkspace(value: unknown, from: string, to: string): unknown {
  if (typeof value === "string") return value.startsWith(from) ? to + value.slice(from.length) : value;
  if (Array.isArray(value)) return value.map((item) => remapWorkspace(item, from, to));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, remapWorkspace(item, from, to)]));
  }
  return value;
}

/** Every agent:bootstrap event inside a JSON file: the file itself, a wrapper, or a list. */
function bootstrapEventsIn(value: unknown, depth = 0): AgentBootstrapEvent[] {
  if (isAgentBootstrapEvent(value)) return [value];
  if (depth >= 3 || !value || typeof value !== "object") return [];
  return Object.values(value).flatMap((item) => bootstrapEventsIn(item, depth + 1));
}

function loadEvent(file: string): AgentBootstrapEvent[] {
  const raw = JSON.parse(fs.readFileSync(file, "utf8")) as unknown;
  return bootstrapEventsIn(raw).map((event) => {
    const recordedDir = typeof event.context.workspaceDir === "string" ? event.context.workspaceDir : "<workspace>";
    const target = recordedDir !== "<workspace>" && fs.existsSync(recordedDir) ? recordedDir : fixtureWorkspace;
    return remapWorkspace(event, recordedDir, target) as AgentBootstrapEvent;
  });
}

const names = (files: unknown) => (files as BootstrapFileRecord[]).map((file) => file.name);

describe("hand-made events (shapes from the internals reference §1)", () => {
  const expected: Record<string, { type: string; names: string[] }> = {
    "main.json": { type: "MAIN_SESSION", names: ["SOUL.md", "USER.md", "BOOTSTRAP.md", "TOOLS_COMPACT.md"] },
    "dm-owner.json": { type: "PRIVATE_DM", names: ["SOUL.md", "USER.md", "BOOTSTRAP.md", "TOOLS_COMPACT.md"] },
    "dm-external.json": { type: "EXTERNAL_DM", names: ["SOUL.md", "BOOTSTRAP.md", "TOOLS_COMPACT.md"] },
    "group.json": { type: "GROUP_CHAT", names: ["SOUL.md", "BOOTSTRAP.md", "TOOLS_COMPACT.md"] },
    "topic-ops.json": { type: "FORUM_TOPIC", names: ["SOUL.md", "BOOTSTRAP.md", "TOOLS_COMPACT.md", "topics/ops.md"] },
    "subagent.json": { type: "SUBAGENT", names: ["SOUL.md"] },
    "cron-run.json": { type: "HEARTBEAT_CRON", names: ["SOUL.md", "HEARTBEAT.md"] },
    "cron-light-context.json": { type: "HEARTBEAT_CRON", names: [] },
    "main-with-ethos-record.json": { type: "MAIN_SESSION", names: ["SOUL.md", "USER.md", "BOOTSTRAP.md", "ETHOS_CONTEXT.md", "TOOLS_COMPACT.md"] },
    "no-session-key.json": { type: "FALLBACK", names: ["AGENTS.md", "SOUL.md", "USER.md", "BOOTSTRAP.md", "TOOLS_COMPACT.md"] },
  };

  it("covers every hand-made file", () => {
    const files = fs.readdirSync(path.join(repo, "fixtures/events/handmade")).filter((file) => file.endsWith(".json"));
    expect(files.sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))("%s", async (file, want) => {
    const [event] = loadEvent(path.join(repo, "fixtures/events/handmade", file));
    await handler(event);
    expect(names(event.context.bootstrapFiles)).toEqual(want.names);
    const [decision] = decisions();
    expect(decision.sessionType).toBe(want.type);
  });
});

// Recorded events (fixtures/events/<version>/) are added by the e2e suite; replay whatever is there.
const recordedFiles = fg.sync("fixtures/events/*/**/*.json", { cwd: repo, absolute: true });

/**
 * What each recorded turn must come out as, written by hand from the spec's file sets (not computed
 * with the code under test). The recordings come from the hook-off gateway, whose config names no
 * owner, so the owner's DM is an EXTERNAL_DM there. Both pinned versions give the same result:
 * files the host did not send are added from the workspace (TOOLS_COMPACT.md, HEARTBEAT.md), and
 * BOOTSTRAP.md is kept where the host sent it (always-kept name).
 */
const RECORDED_EXPECTED: Record<string, { type: string; names: string[] }> = {
  main: { type: "MAIN_SESSION", names: ["SOUL.md", "USER.md", "BOOTSTRAP.md", "TOOLS_COMPACT.md"] },
  heartbeat: { type: "MAIN_SESSION", names: ["SOUL.md", "USER.md", "BOOTSTRAP.md", "TOOLS_COMPACT.md"] },
  ownerDm: { type: "EXTERNAL_DM", names: ["SOUL.md", "BOOTSTRAP.md", "TOOLS_COMPACT.md"] },
  strangerDm: { type: "EXTERNAL_DM", names: ["SOUL.md", "BOOTSTRAP.md", "TOOLS_COMPACT.md"] },
  group: { type: "GROUP_CHAT", names: ["SOUL.md", "BOOTSTRAP.md", "TOOLS_COMPACT.md"] },
  topic: { type: "FORUM_TOPIC", names: ["SOUL.md", "BOOTSTRAP.md", "TOOLS_COMPACT.md"] },
  subagent: { type: "SUBAGENT", names: ["SOUL.md"] },
  cron: { type: "HEARTBEAT_CRON", names: ["SOUL.md", "HEARTBEAT.md"] },
};

describe("replaying every recorded or hand-made agent:bootstrap event", () => {
  it("finds the fixtures", () => {
    expect(recordedFiles.length).toBeGreaterThanOrEqual(10);
  });

  it.each(recordedFiles.map((file) => [path.relative(repo, file), file]))("%s", async (_label, file) => {
    for (const event of loadEvent(file)) {
      if (!Array.isArray(event.context.bootstrapFiles)) {
        const asRecorded = event.context.bootstrapFiles;
        await handler(event);
        expect(event.context.bootstrapFiles).toBe(asRecorded);
        continue;
      }
      const incoming = event.context.bootstrapFiles as unknown[];
      const snapshot = structuredClone(incoming);
      const kind = /agent-bootstrap\.([^.]+)\.json$/.exec(file)?.[1];
      const want = file.includes("/handmade/") ? undefined : RECORDED_EXPECTED[kind ?? ""];
      if (!file.includes("/handmade/")) expect(want, `hand-written expectation for ${path.basename(file)} (add it to RECORDED_EXPECTED)`).toBeDefined();

      await handler(event);

      const out = event.context.bootstrapFiles as BootstrapFileRecord[];
      expect(Array.isArray(out)).toBe(true);
      expect(incoming).toEqual(snapshot); // the received array is never mutated
      if (want) {
        expect(names(out)).toEqual(want.names);
        expect(decisions().at(-1)?.sessionType).toBe(want.type);
      }
      for (const record of out) {
        expect(["MEMORY.md", "IDENTITY.md"]).not.toContain(record.name);
        if (!incoming.includes(record)) {
          // Added by us: inline content, inside the workspace, never a rename of a core record.
          expect(record.missing).toBe(false);
          expect(typeof record.content).toBe("string");
          expect(path.relative(String(event.context.workspaceDir), record.path).startsWith("..")).toBe(false);
          expect(path.basename(record.path)).toBe(path.basename(record.name));
        }
      }
    }
  });
});

describe("guards", () => {
  const base = () => JSON.parse(fs.readFileSync(path.join(repo, "fixtures/events/handmade/main.json"), "utf8"));

  it.each([["undefined", undefined], ["null", null], ["an object", { name: "SOUL.md" }], ["a string", "SOUL.md"]])(
    "bootstrapFiles %s: warns and leaves it alone",
    async (_label, value) => {
      const event = base();
      event.context.bootstrapFiles = value;
      await handler(event);
      expect(event.context.bootstrapFiles).toBe(value);
      expect(logEntries().some((entry) => entry.level === 40 && String(entry.msg).includes("not an array"))).toBe(true);
    },
  );

  it("ignores events that are not agent:bootstrap", async () => {
    const event = { type: "message", action: "received", sessionKey: "agent:main:main", context: { bootstrapFiles: [] } };
    await handler(event);
    expect(event.context.bootstrapFiles).toEqual([]);
    expect(lines).toEqual([]);
  });

  it("any internal failure leaves the array exactly as received", async () => {
    const event = remapWorkspace(base(), "<workspace>", fixtureWorkspace) as AgentBootstrapEvent;
    const received = event.context.bootstrapFiles as unknown[];
    const copy = structuredClone(received);
    // A config whose `hooks` getter throws makes the policy lookup fail mid-run.
    event.context.cfg = Object.defineProperty({}, "hooks", { enumerable: true, get() { throw new Error("boom"); } });
    await expect(handler(event)).resolves.toBeUndefined();
    expect(event.context.bootstrapFiles).toBe(received);
    expect(event.context.bootstrapFiles).toEqual(copy);
    expect(logEntries().some((entry) => entry.level === 40 && String(entry.msg).includes("failed"))).toBe(true);
  });

  it("config of the wrong type logs one error and uses the defaults", async () => {
    const event = remapWorkspace(base(), "<workspace>", fixtureWorkspace) as AgentBootstrapEvent;
    (event.context.cfg as any).hooks.internal.entries["aci-bootstrap"] = { enabled: true, fileSets: "SOUL.md" };
    await handler(event);
    expect(names(event.context.bootstrapFiles)).toEqual(["SOUL.md", "USER.md", "BOOTSTRAP.md", "TOOLS_COMPACT.md"]);
    const errors = logEntries().filter((entry) => entry.level === 50);
    expect(errors).toHaveLength(1);
    expect(String(errors[0].key)).toContain("hooks.internal.entries.aci-bootstrap.fileSets");
    expect(decisions()[0].configOk).toBe(false);
  });
});

describe("decision log", () => {
  it("one line per bootstrap with type, rule, names and tokens; no contents, no peer ids", async () => {
    const [event] = loadEvent(path.join(repo, "fixtures/events/handmade/dm-external.json"));
    await handler(event);
    const all = decisions();
    expect(all).toHaveLength(1);
    const [decision] = all;
    expect(decision).toMatchObject({
      sessionType: "EXTERNAL_DM",
      rule: "dm-other",
      kept: ["SOUL.md", "BOOTSTRAP.md"],
      dropped: ["AGENTS.md", "IDENTITY.md", "USER.md", "MEMORY.md"],
      added: ["TOOLS_COMPACT.md"],
      ownerSource: "channels.allowFrom",
    });
    expect(decision.tokensBefore as number).toBeGreaterThan(decision.tokensAfter as number);
    const text = lines.join("");
    expect(text).not.toContain("555000111");
    expect(text).not.toContain("two-person studio"); // USER.md content
    expect(text).not.toContain("Mission Control is on 3100"); // AGENTS.md content
  });
});

describe("owner ids from openclaw.json at hook start", () => {
  it("classifies an owner DM as private when the event carries no cfg", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "aci-owner-"));
    const configFile = path.join(dir, "openclaw.json");
    fs.writeFileSync(configFile, "{ // JSON5\n channels: { telegram: { allowFrom: ['tg:424242'] } } }\n");
    vi.stubEnv("OPENCLAW_CONFIG_PATH", configFile);
    vi.resetModules();
    const fresh = (await import("../../hooks/aci-bootstrap/handler.ts")).default as Handler;
    const { setLogDestination: setFreshLog } = await import("../../src/core/log.ts");
    const freshLines: string[] = [];
    setFreshLog(new Writable({ write(chunk, _enc, done) { freshLines.push(String(chunk)); done(); } }));
    const [event] = loadEvent(path.join(repo, "fixtures/events/handmade/dm-owner.json"));
    event.sessionKey = "agent:main:telegram:direct:424242";
    delete event.context.cfg;
    await fresh(event);
    const decision = freshLines.map((line) => JSON.parse(line)).find((entry) => entry.event === "aci-bootstrap.decision");
    expect(decision.sessionType).toBe("PRIVATE_DM");
    expect(names(event.context.bootstrapFiles)).toContain("USER.md");
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
