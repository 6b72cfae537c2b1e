// Issue 11 "Done when": the fault cases run against both hooks' handlers in process, in the order
// the gateway runs them for agent:bootstrap (aci-bootstrap, then ethos-context), each after a
// message:received for the same session. One table is printed: fault → result, boot time.
// The test asserts outcomes only; the times are printed for the docs (docs/memory-hygiene.md,
// "Worst case"), never asserted: a busy CI machine must not fail it.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { flushContextFileWrites } from "../../src/context/context-file.ts";
import type { AgentBootstrapEvent } from "../../src/host/events.ts";
import { webchatMessageEvent } from "./ethos-events.ts";
import { hostList, namesOf, PRIVATE_NAMES } from "./hardening/bootstrap-events.ts";
import { holdTurnClock } from "./turn-clock.ts";

type Handler = (event: unknown) => Promise<void>;
const repo = path.resolve(__dirname, "../..");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "fault-matrix-"));
const today = new Date().toISOString().slice(0, 10);
let aci: Handler;
let ethos: Handler;

beforeAll(async () => {
  vi.stubEnv("OPENCLAW_CONFIG_PATH", path.join(tmp, "absent-openclaw.json"));
  vi.stubEnv("OPENCLAW_CONTEXT_INDEX_CACHE_DIR", path.join(tmp, "index-cache"));
  setLogDestination(new Writable({ write: (_chunk, _e, cb) => cb() }) as never);
  aci = (await import("../../hooks/aci-bootstrap/handler.ts")).default;
  ethos = (await import("../../hooks/ethos-context/handler.ts")).default;
  // The turn's wait ends when the search settles, not on real time: a busy machine cannot turn a
  // search that would have leaked into a timeout that injects nothing.
  holdTurnClock();
});
afterAll(async () => {
  vi.useRealTimers();
  await flushContextFileWrites();
  vi.unstubAllEnvs();
  setLogDestination(undefined);
  fs.rmSync(tmp, { recursive: true, force: true });
});

type Row = {
  fault: string;
  /** Session shape; the agent id is unique per row so rows never share runtime state. */
  session: (agent: string) => string;
  setup?: (ws: string) => void;
  /** Change the measured event (cfg getters, odd records). */
  event?: (event: AgentBootstrapEvent, ws: string) => void;
  /** The workspace the event names (default: the prepared one). */
  workspaceDir?: (ws: string) => string;
  check: (names: string[]) => void;
  /** The turn's memory must carry today's fact: the search ran, so a leak check below means something. */
  fact?: boolean;
};

const main = (agent: string) => `agent:${agent}:main`;
const group = (agent: string) => `agent:${agent}:telegram:group:-100777`;
const ownerSet = (names: string[]) => expect(names).toEqual(expect.arrayContaining(["SOUL.md", "USER.md"]));
const noPrivate = (names: string[]) => {
  for (const name of PRIVATE_NAMES) expect(names).not.toContain(name);
  expect(names).toContain("SOUL.md");
};
const mkfifo = (file: string) => execFileSync("mkfifo", [file]);
// The suite uses a 64 KiB file to stay fast; FAULT_MATRIX_BIG_FILE_KIB=2048 gives the docs' worst case.
const BIG_FILE_KIB = Number(process.env.FAULT_MATRIX_BIG_FILE_KIB) || 64;

const ROWS: Row[] = [
  { fault: "none (baseline, main session)", session: main, check: ownerSet, fact: true },
  { fault: "none (baseline, group)", session: group, check: noPrivate },
  // Parsed on message:received, edited, parsed again on agent:bootstrap (the old abort came on the second parse).
  { fault: "CONFIG.md: 1,000 nested [ (parsed, edited, parsed)", session: main, setup: (ws) => fs.writeFileSync(path.join(ws, "CONFIG.md"), "[".repeat(1000)), event: (_event, ws) => fs.appendFileSync(path.join(ws, "CONFIG.md"), "\n# edited\n"), check: ownerSet },
  { fault: "CONFIG.md: 64 KiB of - - - …", session: main, setup: (ws) => fs.writeFileSync(path.join(ws, "CONFIG.md"), "- ".repeat(30_000)), check: ownerSet },
  { fault: "FIFO at CONFIG.md", session: main, setup: (ws) => { fs.rmSync(path.join(ws, "CONFIG.md"), { force: true }); mkfifo(path.join(ws, "CONFIG.md")); }, check: ownerSet },
  { fault: "FIFO at CORRECTIONS.md", session: main, setup: (ws) => mkfifo(path.join(ws, "CORRECTIONS.md")), check: ownerSet },
  { fault: "FIFO at memory/<today>.md", session: main, setup: (ws) => { fs.rmSync(path.join(ws, "memory", `${today}.md`)); mkfifo(path.join(ws, "memory", `${today}.md`)); }, check: ownerSet },
  { fault: "FIFO at TOOLS_COMPACT.md", session: group, setup: (ws) => { fs.rmSync(path.join(ws, "TOOLS_COMPACT.md")); mkfifo(path.join(ws, "TOOLS_COMPACT.md")); }, check: (names) => { noPrivate(names); expect(names).not.toContain("TOOLS_COMPACT.md"); } },
  { fault: "memory/ is a link out of the workspace", session: main, setup: (ws) => { fs.rmSync(path.join(ws, "memory"), { recursive: true }); fs.symlinkSync(outsideDir(), path.join(ws, "memory")); }, check: ownerSet },
  { fault: "CORRECTIONS.md links out of the workspace", session: main, setup: (ws) => fs.symlinkSync(path.join(outsideDir(), "secret.md"), path.join(ws, "CORRECTIONS.md")), check: ownerSet, fact: true },
  { fault: "TOOLS_COMPACT.md links out of the workspace", session: group, setup: (ws) => { fs.rmSync(path.join(ws, "TOOLS_COMPACT.md")); fs.symlinkSync(path.join(outsideDir(), "secret.md"), path.join(ws, "TOOLS_COMPACT.md")); }, check: (names) => { noPrivate(names); expect(names).not.toContain("TOOLS_COMPACT.md"); } },
  { fault: "binary memory file (NUL bytes)", session: main, setup: (ws) => fs.writeFileSync(path.join(ws, "memory", "blob.md"), Buffer.alloc(512 * 1024, 0)), check: ownerSet },
  { fault: `${BIG_FILE_KIB} KiB memory file of one-line bullets`, session: main, setup: (ws) => fs.writeFileSync(path.join(ws, "memory", "huge.md"), "- sailboat note\n".repeat(Math.floor((BIG_FILE_KIB * 1024) / 16))), check: ownerSet },
  { fault: "topic id __proto__", session: (agent) => `agent:${agent}:telegram:group:-100777:topic:__proto__`, check: noPrivate },
  { fault: "topic id constructor", session: (agent) => `agent:${agent}:telegram:group:-100777:topic:constructor`, check: noPrivate },
  { fault: "kept record with Buffer content", session: group, event: (event) => { (event.context.bootstrapFiles as Array<{ name: string; content: unknown }>)[1].content = Buffer.from("soul"); }, check: noPrivate },
  { fault: "cfg getter throws (group)", session: group, event: (event) => Object.defineProperty(event.context, "cfg", { get: () => { throw new Error("cfg"); } }), check: noPrivate },
  { fault: "cfg getter throws (main)", session: main, event: (event) => Object.defineProperty(event.context, "cfg", { get: () => { throw new Error("cfg"); } }), check: ownerSet },
  { fault: "1 MB session key (group)", session: (agent) => `agent:${agent}:telegram:group:${"9".repeat(1_000_000)}`, check: noPrivate },
  { fault: "missing workspaceDir", session: main, workspaceDir: (ws) => path.join(ws, "does-not-exist"), check: ownerSet },
  { fault: "relative workspaceDir", session: main, workspaceDir: () => "relative-workspace-for-fault-matrix", check: ownerSet },
];

let outside: string | undefined;
function outsideDir(): string {
  if (!outside) {
    outside = path.join(tmp, "outside");
    fs.mkdirSync(outside, { recursive: true });
    fs.writeFileSync(path.join(outside, "secret.md"), "- OUTSIDE_SENTINEL the sailboat goes to the regatta; the neighbour's pin is 4321\n");
  }
  return outside;
}

function workspaceFor(index: number): string {
  const ws = path.join(tmp, `ws-${index}`);
  fs.cpSync(path.join(repo, "fixtures/workspace"), ws, { recursive: true });
  fs.writeFileSync(path.join(ws, "memory", `${today}.md`), `# ${today}\n\n- ${FACT}\n`);
  return ws;
}

const FACT = "Jeff wants the sailboat hauled out before the regatta.";

function bootstrapFor(ws: string, workspaceDir: string, sessionKey: string, agent: string): AgentBootstrapEvent {
  return {
    type: "agent",
    action: "bootstrap",
    sessionKey,
    context: { workspaceDir, bootstrapFiles: hostList(ws), cfg: {}, sessionKey, agentId: agent },
    messages: [],
  } as AgentBootstrapEvent;
}

describe("fault matrix: agent:bootstrap through both hooks", () => {
  it("every fault ends in a bounded, privacy-safe file list", async () => {
    const table: Array<{ fault: string; result: string; bootMs: string }> = [];
    for (const [index, row] of ROWS.entries()) {
      const agent = `fm${index}`;
      const ws = workspaceFor(index);
      const workspaceDir = row.workspaceDir?.(ws) ?? ws;
      const sessionKey = row.session(agent);
      // A first turn registers the workspace for the agent, as on a live gateway.
      const warm = bootstrapFor(ws, workspaceDir, sessionKey, agent);
      await aci(warm);
      await ethos(warm);
      row.setup?.(ws);
      await ethos(webchatMessageEvent(sessionKey, "Where is the sailboat going before the regatta?", `m${index}`));
      const event = bootstrapFor(ws, workspaceDir, sessionKey, agent);
      row.event?.(event, ws);
      const started = performance.now();
      await aci(event);
      await ethos(event);
      const bootMs = performance.now() - started;
      const names = namesOf(event.context.bootstrapFiles);
      row.check(names);
      // The file outside matches the question: a followed link would put it in the block.
      expect(JSON.stringify(event.context.bootstrapFiles ?? [])).not.toContain("OUTSIDE_SENTINEL");
      if (row.fact) expect(JSON.stringify(event.context.bootstrapFiles ?? []), row.fault).toContain(FACT);
      expect(Object.prototype).not.toHaveProperty("polluted");
      table.push({ fault: row.fault, result: names.join(", "), bootMs: bootMs.toFixed(1) });
      expect(fs.existsSync(path.resolve("relative-workspace-for-fault-matrix"))).toBe(false);
      expect(fs.existsSync(path.join(ws, "does-not-exist"))).toBe(false);
    }
    const width = Math.max(...table.map((r) => r.fault.length));
    const lines = ["fault".padEnd(width) + " | boot ms | result (files after both hooks)", "-".repeat(width) + "-|---------|-------"];
    for (const r of table) lines.push(`${r.fault.padEnd(width)} | ${r.bootMs.padStart(7)} | ${r.result}`);
    process.stdout.write(`\n${lines.join("\n")}\n`);
  });
});
