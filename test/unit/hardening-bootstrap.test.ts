// Issue 11 item 5: aci-bootstrap fails closed where privacy is at stake.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { filesAfterFailure } from "../../src/bootstrap/fail-closed.ts";
import { bootstrapEvent, hostList, namesOf, NON_OWNER_KEYS, OWNER_KEYS, PRIVATE_NAMES } from "./hardening/bootstrap-events.ts";

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "aci-failclosed-"));
let handler: (event: unknown) => Promise<void>;
let lines: string[] = [];

beforeAll(async () => {
  vi.stubEnv("OPENCLAW_CONFIG_PATH", path.join(workspace, "absent.json"));
  handler = (await import("../../hooks/aci-bootstrap/handler.ts")).default;
  for (const name of ["SOUL.md", "TOOLS_COMPACT.md", "HEARTBEAT.md"]) fs.writeFileSync(path.join(workspace, name), `# ${name}\n`);
});
afterAll(() => {
  vi.unstubAllEnvs();
  fs.rmSync(workspace, { recursive: true, force: true });
});
beforeEach(() => {
  lines = [];
  setLogDestination(new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } }));
});
afterEach(() => setLogDestination(undefined));

const failures = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => String(entry.msg).startsWith("aci-bootstrap: failed"));

describe("hostile topic ids are not looked up through the prototype", () => {
  it.each(["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"])("topic %s: normal FORUM_TOPIC set, no failure", async (topic) => {
    const cfg = { hooks: { internal: { entries: { "aci-bootstrap": { topicFiles: { "7": ["topics/ops.md"] } } } } } };
    const event = bootstrapEvent(workspace, `agent:main:telegram:group:-100123:topic:${topic}`, { cfg });
    await handler(event);
    expect(failures()).toEqual([]);
    expect(namesOf(event.context.bootstrapFiles).sort()).toEqual(["SOUL.md", "TOOLS_COMPACT.md"]);
    expect(Object.prototype).not.toHaveProperty("polluted");
  });
});

describe("a kept record whose content is a Buffer", () => {
  it("does not make the run fail; the group still loses USER.md and MEMORY.md", async () => {
    const files = hostList(workspace).map((file) => (file.name === "SOUL.md" ? { ...file, content: Buffer.from("binary soul") } : file));
    const event = bootstrapEvent(workspace, NON_OWNER_KEYS.GROUP_CHAT, { files });
    await handler(event);
    expect(failures()).toEqual([]);
    const names = namesOf(event.context.bootstrapFiles);
    expect(names).toContain("SOUL.md");
    for (const name of PRIVATE_NAMES) expect(names).not.toContain(name);
  });
});

describe("a cfg getter that throws", () => {
  const throwingEvent = (key: string) => {
    const event = bootstrapEvent(workspace, key);
    Object.defineProperty(event.context, "cfg", { get: () => { throw new Error("cfg exploded"); }, enumerable: true });
    return event;
  };

  it.each(Object.entries(NON_OWNER_KEYS))("%s: USER.md and MEMORY.md are removed, everything else stays", async (_type, key) => {
    const event = throwingEvent(key);
    await handler(event);
    const [failure] = failures();
    expect(failure?.action).toBe("private-files-removed");
    expect(namesOf(event.context.bootstrapFiles)).toEqual(hostList(workspace).map((f) => f.name).filter((name) => !PRIVATE_NAMES.has(name)));
  });

  it.each(Object.entries(OWNER_KEYS))("%s: the list stays exactly as received", async (_type, key) => {
    const event = throwingEvent(key);
    const received = event.context.bootstrapFiles;
    await handler(event);
    expect(failures()[0]?.action).toBe("left-as-received");
    expect(event.context.bootstrapFiles).toBe(received);
  });
});

describe("filesAfterFailure", () => {
  it("a PRIVATE_DM of a configured owner keeps its list; a stranger's DM does not", () => {
    const cfg = { commands: { ownerAllowFrom: ["telegram:42"] } };
    const owner = filesAfterFailure(bootstrapEvent(workspace, "agent:main:telegram:direct:42", { cfg }), hostList(workspace));
    expect(owner.action).toBe("left-as-received");
    const stranger = filesAfterFailure(bootstrapEvent(workspace, "agent:main:telegram:direct:43", { cfg }), hostList(workspace));
    expect(namesOf(stranger.files)).not.toContain("USER.md");
  });

  it("drops records it cannot read (a throwing name getter) and private files matched by path", () => {
    const weird = { get name(): string { throw new Error("no name"); }, path: "x" };
    const renamed = { name: "NOTES.md", path: path.join(workspace, "MEMORY.md"), content: "x" };
    const soul = { name: "SOUL.md", path: path.join(workspace, "SOUL.md"), content: "s" };
    const out = filesAfterFailure(bootstrapEvent(workspace, NON_OWNER_KEYS.GROUP_CHAT), [weird, renamed, soul]);
    expect(out.files).toEqual([soul]);
  });

  it("an event whose session key getter throws counts as a non-owner session", () => {
    const event = bootstrapEvent(workspace, "agent:main:main");
    Object.defineProperty(event, "sessionKey", { get: () => { throw new Error("boom"); } });
    const out = filesAfterFailure(event, hostList(workspace));
    expect(out.sessionType).toBe("unknown");
    expect(namesOf(out.files)).not.toContain("MEMORY.md");
  });
});
