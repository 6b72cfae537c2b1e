// Issue 11 "Done when": fuzzed session keys and fuzzed agent:bootstrap events, fixed seed.
// Asserts no throw, no prototype change, and no USER.md or MEMORY.md in a non-owner session
// (group, forum topic, external DM, subagent, cron/heartbeat), whatever the event looks like.
// The suite runs 25k keys and 2k events (a few seconds); FUZZ_KEYS=100000 FUZZ_EVENTS=10000 runs the
// issue's full size (about 20 s on a 2-core machine). Same seed, same samples, every run.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { DEFAULT_POLICY, fileSetFor } from "../../src/bootstrap/policy.ts";
import { classifySession } from "../../src/session/classify.ts";
import { resolveMainKeys, resolveOwners } from "../../src/session/owners.ts";
import type { SessionType } from "../../src/session/types.ts";
import { CORE_NAMES } from "./hardening/bootstrap-events.ts";

const SEED = 20261123;
const KEYS = Number(process.env.FUZZ_KEYS) || 25_000;
const EVENTS = Number(process.env.FUZZ_EVENTS) || 2_000;
const NON_OWNER: ReadonlySet<SessionType> = new Set(["GROUP_CHAT", "FORUM_TOPIC", "EXTERNAL_DM", "SUBAGENT", "HEARTBEAT_CRON"]);
const PRIVATE = new Set(["USER.md", "MEMORY.md"]);
const HOSTILE_WORDS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", "\u212a777", "k777", "111", "K777", ""];
const SHAPE_WORDS = ["agent", "main", "global", "direct", "dm", "group", "channel", "room", "topic", "direct-topic", "thread", "subagent", "spawn", "acp", "cron", "run", "hook", "boot", "heartbeat", "dashboard", "explicit", "telegram", "slack"];

const segment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SHAPE_WORDS) },
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_WORDS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 6 }) },
  { weight: 1, arbitrary: fc.integer().map(String) },
);
const sessionKey = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.constantFrom("main", "Main", "ops", "__proto__"), fc.array(segment, { minLength: 1, maxLength: 7 })).map(([agent, rest]) => ["agent", agent, ...rest].join(":")) },
  { weight: 2, arbitrary: fc.array(segment, { maxLength: 8 }).map((parts) => parts.join(":")) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
);

const prototypeSnapshot = () => JSON.stringify([Object.getOwnPropertyNames(Object.prototype), Object.getOwnPropertyNames(Array.prototype), Object.getOwnPropertyNames(Function.prototype)]);

describe("fuzzed session keys", () => {
  it(`${KEYS} keys: classify and pick a file set without throwing; non-owner sets never hold USER.md or MEMORY.md`, () => {
    const before = prototypeSnapshot();
    const owners = resolveOwners({ commands: { ownerAllowFrom: ["telegram:111", "k777"] } }).owners;
    const keys = fc.sample(sessionKey, { seed: SEED, numRuns: KEYS });
    let nonOwner = 0;
    for (const key of keys) {
      const classification = classifySession(key, { ownerIds: owners, mainKeys: ["main"] });
      const files = fileSetFor(DEFAULT_POLICY, classification);
      if (NON_OWNER.has(classification.type)) {
        nonOwner++;
        for (const name of files) if (PRIVATE.has(name)) throw new Error(`${name} in ${classification.type} for ${JSON.stringify(key)}`);
      }
    }
    expect(keys).toHaveLength(KEYS);
    expect(nonOwner).toBeGreaterThan(KEYS / 10); // the generator reaches the sessions that matter
    expect(prototypeSnapshot()).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("fuzzed agent:bootstrap events", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "fuzz-events-"));
  const ws = path.join(tmp, "workspace");
  let handler: (event: unknown) => Promise<void>;

  beforeAll(async () => {
    fs.mkdirSync(ws);
    for (const name of ["SOUL.md", "TOOLS_COMPACT.md", "HEARTBEAT.md", "USER.md", "MEMORY.md"]) fs.writeFileSync(path.join(ws, name), `# ${name}\n`);
    vi.stubEnv("OPENCLAW_CONFIG_PATH", path.join(tmp, "absent.json"));
    setLogDestination({ write: () => undefined });
    handler = (await import("../../hooks/aci-bootstrap/handler.ts")).default;
  });
  afterAll(() => {
    vi.unstubAllEnvs();
    setLogDestination(undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const content = fc.oneof(
    { weight: 6, arbitrary: fc.string({ maxLength: 30 }) },
    { weight: 1, arbitrary: fc.constant(Buffer.from("buffer")) },
    { weight: 1, arbitrary: fc.constantFrom(undefined, null, 42, {}, []) },
  );
  const record = fc.oneof(
    {
      weight: 8,
      arbitrary: fc
        .record({ name: fc.oneof(fc.constantFrom(...CORE_NAMES, "memory.md", "TOOLS_COMPACT.md"), fc.string({ maxLength: 10 })), content, missing: fc.boolean() })
        .map((file) => ({ ...file, path: path.join(ws, file.name || "unnamed") })),
    },
    { weight: 1, arbitrary: fc.constantFrom(null, "USER.md", 7, { name: 5 }, { path: path.join(ws, "MEMORY.md") }) },
  );
  const hookEntry = fc.record(
    {
      topicFiles: fc.dictionary(fc.constantFrom(...HOSTILE_WORDS, "7"), fc.array(fc.constantFrom("topics/ops.md", "USER.md", "MEMORY.md"), { maxLength: 2 })),
      ownerIds: fc.array(fc.constantFrom("111", "\u212a777", "*", 5), { maxLength: 2 }),
      fileSets: fc.constantFrom(undefined, { GROUP_CHAT: ["SOUL.md"] }, { FALLBACK: ["SOUL.md"] }),
    },
    { requiredKeys: [] },
  );
  const cfg = fc.oneof(
    { weight: 3, arbitrary: fc.constant({}) },
    { weight: 3, arbitrary: hookEntry.map((entry) => ({ hooks: { internal: { entries: { "aci-bootstrap": entry } } }, commands: { ownerAllowFrom: ["telegram:111"] } })) },
    { weight: 1, arbitrary: fc.constantFrom(undefined, null, "cfg", [], { hooks: "x" }, { agents: { entries: { __proto__: { bootstrapMaxChars: 1 } } } }) },
  );
  const event = fc.record({
    sessionKey: fc.oneof({ weight: 8, arbitrary: sessionKey }, { weight: 1, arbitrary: fc.constantFrom(undefined, 5, null) }),
    files: fc.oneof({ weight: 9, arbitrary: fc.array(record, { maxLength: 8 }) }, { weight: 1, arbitrary: fc.constantFrom(undefined, "files", {}) }),
    cfg,
    throwingCfg: fc.boolean(),
    workspaceDir: fc.constantFrom(ws, ws, ws, "relative/ws", path.join(tmp, "missing"), undefined, 7),
  });

  it(`${EVENTS} events: the handler never rejects, never touches a prototype, never leaves a private file in a non-owner session`, async () => {
    const before = prototypeSnapshot();
    const samples = fc.sample(event, { seed: SEED, numRuns: EVENTS });
    let nonOwnerChecked = 0;
    for (const sample of samples) {
      const context: Record<string, unknown> = { workspaceDir: sample.workspaceDir, bootstrapFiles: sample.files, sessionKey: sample.sessionKey, agentId: "main" };
      if (sample.throwingCfg) Object.defineProperty(context, "cfg", { get: () => { throw new Error("cfg getter"); }, enumerable: true });
      else context.cfg = sample.cfg;
      const hookEvent = { type: "agent", action: "bootstrap", sessionKey: sample.sessionKey, context, messages: [] };
      await handler(hookEvent); // a rejection fails the test
      const plainCfg = sample.throwingCfg || typeof sample.cfg !== "object" || sample.cfg === null ? undefined : (sample.cfg as never);
      const type = classifySession(typeof sample.sessionKey === "string" ? sample.sessionKey : undefined, {
        ownerIds: resolveOwners(plainCfg).owners,
        mainKeys: resolveMainKeys(plainCfg),
      }).type;
      if (NON_OWNER.has(type) && Array.isArray(context.bootstrapFiles)) {
        nonOwnerChecked++;
        for (const file of context.bootstrapFiles as unknown[]) {
          const name = (file as { name?: unknown } | null)?.name;
          const filePath = (file as { path?: unknown } | null)?.path;
          if ((typeof name === "string" && PRIVATE.has(name)) || (typeof filePath === "string" && PRIVATE.has(path.basename(filePath)))) {
            throw new Error(`${String(name)} left in ${type}: ${JSON.stringify(sample.sessionKey)}`);
          }
        }
      }
    }
    expect(samples).toHaveLength(EVENTS);
    expect(nonOwnerChecked).toBeGreaterThan(EVENTS / 10);
    expect(prototypeSnapshot()).toBe(before);
  }, 600_000); // bounded by the number of events, not the clock
});
