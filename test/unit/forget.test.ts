// Forget (src/capture/forget.ts) and secrets on the write side: "forget that …" from the owner's
// chat and `memory forget` take a fact out of every place the bundle wrote it (memory files, triage
// queue, CORRECTIONS.md excerpt, ETHOS_CONTEXT.md, the index and its saved cache); a tombstone keeps
// the capture from writing it again; undo puts every byte back. Secrets are withheld wherever the
// bundle writes and never fill the Recent-memory slot.
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { dayFileFor } from "../../src/capture/capture.ts";
import { applyRanges, forgetFacts, forgetLogPath, readForgetLog, restoreEdit, tombstoneKey, unforget } from "../../src/capture/forget.ts";
import type { ForgetRecord } from "../../src/capture/forget.ts";
import { factId } from "../../src/capture/memory-facts.ts";
import { triageInboundMessage } from "../../src/capture/triage.ts";
import { contextFilePath, flushContextFileWrites, writeContextFile } from "../../src/context/context-file.ts";
import { assembleMemoryBlock, recentMemoryItems } from "../../src/context/memory-block.ts";
import { sealKeyPath } from "../../src/fs/seal.ts";
import { HYGIENE_CONFIG_DEFAULTS, parseHygieneConfigText } from "../../src/memory/config-md.ts";
import type { HygieneConfig } from "../../src/memory/config-md.ts";
import { buildMemoryIndex, resetSharedMemoryIndexes, sharedMemoryIndex } from "../../src/memory/memory-index.ts";
import { workspaceMemorySources } from "../../src/memory/sources.ts";
import { NPM_RUN, runCommand } from "../../src/ops/commands/command.ts";
import { memoryCommand } from "../../src/ops/commands/memory.ts";
import { collectStatus, formatStatus } from "../../src/ops/status.ts";
import { startInboundTriage } from "../../src/capture/inbound.ts";
import { createMemoryContextService } from "../../src/context/service.ts";
import type { MessageReceivedEvent } from "../../src/host/events.ts";
import { webchatMessageEvent } from "./ethos-events.ts";

const NOW = new Date("2026-11-25T03:12:09.120Z");
const SOON = new Date("2026-11-25T03:20:00.000Z");
const FAST: HygieneConfig = { ...HYGIENE_CONFIG_DEFAULTS, lock_retry_interval_seconds: 0.01, lock_max_retries: 500 };
const KEEP_SECRETS: HygieneConfig = { ...FAST, memory_keep_secrets: true };

let ws: string;
let state: string;
let logs: string[];
const savedStateDir = process.env.OPENCLAW_STATE_DIR;

beforeEach(() => {
  ws = fs.mkdtempSync(path.join(os.tmpdir(), "forget-ws-"));
  state = fs.mkdtempSync(path.join(os.tmpdir(), "forget-state-"));
  process.env.OPENCLAW_STATE_DIR = state; // the seal key and the default index cache live here
  logs = [];
  setLogDestination({ write: (line: string) => void logs.push(line) } as never);
});
afterEach(() => {
  setLogDestination(undefined);
  resetSharedMemoryIndexes();
  if (savedStateDir === undefined) delete process.env.OPENCLAW_STATE_DIR;
  else process.env.OPENCLAW_STATE_DIR = savedStateDir;
  fs.rmSync(ws, { recursive: true, force: true });
  fs.rmSync(state, { recursive: true, force: true });
});

const owner = (content: string, options: { now?: Date; config?: HygieneConfig; capture?: boolean } = {}) =>
  triageInboundMessage({ content, workspaceDir: ws, now: options.now ?? NOW, config: options.config ?? FAST, capture: options.capture ?? true, sessionKey: "agent:main:main" });
const read = (rel: string) => (fs.existsSync(path.join(ws, rel)) ? fs.readFileSync(path.join(ws, rel), "utf8") : "");
const today = () => path.relative(ws, dayFileFor(ws, NOW));
const queue = () => path.join("memory", ".triage", "2026-11-25.jsonl");

/** Every file of the workspace (relative path → bytes), the audit log and lock leftovers aside. */
function snapshot(dir = ws): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = path.join(rel, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (!child.endsWith(".forgotten.jsonl") && !child.includes(".lock")) files[child] = fs.readFileSync(path.join(dir, child), "utf8");
    }
  };
  walk("");
  return files;
}

/** Every byte the bundle wrote in the workspace and the state dir, and every log line. */
const everything = () => [JSON.stringify(snapshot()), fs.existsSync(forgetLogPath(ws)) ? fs.readFileSync(forgetLogPath(ws), "utf8") : "", ...logs].join("\n");

async function command(args: string[]): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((...parts) => void out.push(parts.join(" ")));
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (out.push(String(chunk)), true));
  try {
    const code = await runCommand(memoryCommand, [...args, "--workspace", ws, "--config", path.join(state, "openclaw.json")], NPM_RUN);
    return { code, out: out.join("\n") };
  } finally {
    log.mockRestore();
    stderr.mockRestore();
  }
}

describe("\"forget that …\" in the owner's chat", () => {
  async function rememberEverywhere() {
    await owner("Remember that my locker code is 4312");
    await owner("You forgot: my locker code is 4312", { now: new Date(NOW.getTime() + 1000) }); // a CORRECTIONS.md excerpt
    await writeContextFile(ws, "1. **[2026-11-25]** my locker code is 4312 *(score: 0.92)*\n\n2. **[2026-11-20]** Jeff's sailboat is named Halcyon Drift\n");
    await flushContextFileWrites();
    expect(read(today())).toContain("my locker code is 4312");
    expect(read(queue())).toContain("4312");
    expect(read("CORRECTIONS.md")).toContain("> You forgot: my locker code is 4312");
  }

  it("takes the fact out of the day file, the triage queue, the CORRECTIONS.md excerpt and ETHOS_CONTEXT.md; the request itself is not queued", async () => {
    await rememberEverywhere();
    await owner("Remember that I prefer window seats");
    const outcome = await owner("Forget that my locker code is 4312", { now: SOON });
    expect(outcome.forget?.id).toMatch(/^fg-20261125-[0-9a-f]{6}$/);
    expect(outcome.forget?.errors).toEqual([]);
    for (const rel of [today(), queue(), "CORRECTIONS.md", "ETHOS_CONTEXT.md"]) expect(read(rel), rel).not.toContain("4312");
    // What else is there stays: the other fact, its queue line, the correction entry's fields, the other context line.
    expect(read(today())).toContain("I prefer window seats");
    expect(read(queue())).toContain("window seats");
    expect(read("CORRECTIONS.md")).toMatch(new RegExp(`## Correction c-[0-9a-f]{12} .*\\n[\\s\\S]*- verified: false[\\s\\S]*> \\(forgotten: ${outcome.forget!.id}\\)`));
    expect(read("ETHOS_CONTEXT.md")).toContain("Halcyon Drift");
    expect(read(queue())).not.toContain("Forget that");
    // The audit log: the tombstone and the undo data, written under its lock.
    const [record] = (await readForgetLog(ws)) as ForgetRecord[];
    expect(record).toMatchObject({ type: "forget", origin: "chat", undo: "kept", facts: [{ id: factId("my locker code is 4312"), key: tombstoneKey("my locker code is 4312"), handWritten: false }] });
    // A withheld value needs no seal: forgetting "my email password is [password withheld]" keeps plain undo data.
    await owner("remember that my email password is hunter2");
    expect((await owner("forget my email password", { now: SOON })).forget?.undo).toBe("kept");
    expect(logs.join("\n")).toContain('"event":"memory.forget"');
  });

  it("a tombstone keeps the capture from writing the fact again (and the queue from quoting it); another value is a new fact", async () => {
    await owner("Remember that my locker code is 4312");
    await owner("Forget my locker code", { now: SOON });
    expect(read(today())).not.toContain("4312");
    const again = await owner("Remember that my locker code is 4312", { now: SOON });
    expect(again.capture).toMatchObject({ action: "ignored", reason: expect.stringContaining("forgotten") });
    expect(read(today())).not.toContain("4312");
    expect(read(queue())).not.toContain("4312");
    expect(read(queue())).toContain("(a forgotten fact; excerpt withheld)");
    const other = await owner("Remember that my locker code is 5580", { now: SOON });
    expect(other.capture?.action).toBe("added");
  });

  it("\"delete that from memory\" forgets the newest capture of the last half hour, and nothing older", async () => {
    await owner("Remember that I prefer window seats");
    await owner("Remember that my locker code is 4312", { now: new Date(NOW.getTime() + 60_000) });
    await owner("Delete that from memory", { now: SOON });
    expect(read(today())).toContain("window seats");
    expect(read(today())).not.toContain("4312");
    const late = await owner("delete that from memory", { now: new Date(NOW.getTime() + 3 * 3_600_000) });
    expect(late.forget).toMatchObject({ facts: [] });
    expect(read(today())).toContain("window seats");
  });

  it("never deletes what a person wrote: the hand-written line stays and the log names it (id and line, no text)", async () => {
    fs.writeFileSync(path.join(ws, "MEMORY.md"), "# Memory\n\n- my locker code is 4312\n");
    await owner("Remember that my locker code is 4312");
    const outcome = await owner("forget that my locker code is 4312", { now: SOON });
    expect(read(today())).not.toContain("4312");
    expect(read("MEMORY.md")).toBe("# Memory\n\n- my locker code is 4312\n");
    expect(outcome.forget?.keptHandWritten.map((p) => `${p.rel}:${p.line}`)).toEqual(["MEMORY.md:3"]);
    const kept = logs.find((line) => line.includes("memory.forget.kept-hand-written"));
    expect(kept).toContain("MEMORY.md:3");
    expect(kept).toContain(factId("my locker code is 4312"));
    expect(kept).not.toContain("4312 ");
  });

  it("outside an owner session (capture: false) nothing is forgotten", async () => {
    await owner("Remember that my locker code is 4312");
    const outcome = await owner("Forget that my locker code is 4312", { capture: false, now: SOON });
    expect(outcome.forget).toBeUndefined();
    expect(read(today())).toContain("4312");
  });

  it("undo puts every byte back (the files untouched since), lifts the tombstone, and cannot run twice", async () => {
    await rememberEverywhere();
    const before = snapshot();
    const outcome = await owner("Forget that my locker code is 4312", { now: SOON });
    expect(snapshot()).not.toEqual(before);
    const undone = await unforget({ workspaceDir: ws, id: outcome.forget!.id!, origin: "command", config: FAST });
    expect(undone.restored.every((r) => r.exact)).toBe(true);
    expect(snapshot()).toEqual(before);
    expect((await owner("Remember that my locker code is 4312", { now: SOON })).capture?.action).toBe("mentioned");
    await expect(unforget({ workspaceDir: ws, id: outcome.forget!.id!, origin: "command", config: FAST })).rejects.toThrow(/already undone/);
  });

  it("undo after the file changed puts each piece back after the line it followed, and keeps the newer lines", async () => {
    await owner("Remember that I prefer window seats");
    await owner("Remember that my locker code is 4312", { now: new Date(NOW.getTime() + 1000) });
    await owner("Remember that the dentist is on Friday", { now: new Date(NOW.getTime() + 2000) });
    const original = read(today());
    const outcome = await owner("forget my locker code", { now: SOON });
    fs.appendFileSync(path.join(ws, today()), "- a line the agent wrote\n");
    const undone = await unforget({ workspaceDir: ws, id: outcome.forget!.id!, origin: "command", config: FAST });
    expect(undone.restored.find((r) => r.file === today())?.exact).toBe(false);
    expect(read(today())).toBe(`${original}- a line the agent wrote\n`);
  });
});

describe("restoreEdit / applyRanges", () => {
  it("round-trips a removal and a replacement exactly, and finds the anchor again in a changed file", () => {
    const text = "a\nb\nc\n> quote\nd\n";
    const edit = applyRanges(text, [
      { start: 2, end: 4, replacement: "" },
      { start: 6, end: 14, replacement: "> (forgotten)\n" },
    ]);
    expect(edit.next).toBe("a\nc\n> (forgotten)\nd\n");
    const file = { file: "x", after: "not the hash", segments: edit.segments };
    expect(restoreEdit(`z\n${edit.next}`, file)).toEqual({ next: `z\n${text}`, exact: false });
  });

  it("adjacent lines removed together go back in their order, whether the file changed since or not", () => {
    const text = "- one\n- two\n- three\n- four\n";
    const edit = applyRanges(text, [
      { start: 6, end: 12, replacement: "" },
      { start: 12, end: 20, replacement: "" },
    ]);
    expect(edit.next).toBe("- one\n- four\n");
    const after = createHash("sha256").update(edit.next).digest("hex");
    expect(restoreEdit(edit.next, { file: "x", after, segments: edit.segments })).toEqual({ next: text, exact: true });
    expect(restoreEdit(`${edit.next}- five\n`, { file: "x", after, segments: edit.segments })).toEqual({ next: `${text}- five\n`, exact: false });
  });
});

describe("`memory` command", () => {
  it("list, show, forget (a hand-written entry needs --yes; without it nothing changes), unforget byte for byte", async () => {
    fs.writeFileSync(path.join(ws, "MEMORY.md"), "# Memory\n\n- my locker code is 4312\n- Jeff's sailboat is named Halcyon Drift\n");
    await owner("Remember that my locker code is 4312");
    await owner("Remember that I prefer window seats");
    const id = factId("my locker code is 4312");

    const list = await command(["list"]);
    expect(list.code).toBe(0);
    expect(list.out).toContain(`${id}  captured 2026-11-25 03:12 UTC  my locker code is 4312  ${today()}:1 (+1 more)`);
    expect(list.out).not.toContain("Halcyon");
    expect((await command(["list", "--all"])).out).toContain("hand-written  Jeff's sailboat is named Halcyon Drift  MEMORY.md:4");

    const show = await command(["show", id]);
    expect(show.out).toContain("MEMORY.md:3  hand-written (forget asks for --yes)");
    expect(show.out).toContain(`${queue()}:1`);

    const before = snapshot();
    const refused = await command(["forget", id]);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain(`${id}  MEMORY.md:3  - my locker code is 4312`);
    expect(refused.out).toContain("Nothing changed. Add --yes");
    expect(snapshot()).toEqual(before);

    const forgot = await command(["forget", id, "--yes"]);
    expect(forgot.code).toBe(0);
    for (const rel of ["MEMORY.md", today(), queue()]) expect(read(rel), rel).not.toContain("4312");
    expect(read("MEMORY.md")).toContain("Halcyon Drift");
    const forgetId = /Forgotten \((fg-[^)]+)\)/.exec(forgot.out)?.[1];
    expect(forgot.out).toContain(`undo: npm run memory -- unforget ${forgetId}`);
    expect((await command(["list", "--forgotten"])).out).toContain(`${forgetId}  command: 1 fact(s): my locker code is 4312 (undo kept)`);

    expect((await command(["unforget", forgetId!])).out).toContain("MEMORY.md: restored byte for byte");
    expect(snapshot()).toEqual(before);
  });

  it("words name a fact; nothing matching exits 1; bad usage exits 2", async () => {
    await owner("Remember that my locker code is 4312");
    expect((await command(["forget", "my", "bike", "lock"])).code).toBe(1);
    expect((await command(["frobnicate"])).code).toBe(2);
    expect((await command(["unforget", "f-123"])).code).toBe(2);
    const byWords = await command(["forget", "my", "locker", "code"]);
    expect(byWords.code).toBe(0);
    expect(read(today())).not.toContain("4312");
  });

  it("status lists the recent forgets, newest first, with their undo state", async () => {
    await owner("Remember that my locker code is 4312");
    const outcome = await owner("forget my locker code", { now: SOON });
    const report = await collectStatus({ configPath: path.join(state, "openclaw.json"), workspace: ws, env: { ...process.env, OPENCLAW_CONTEXT_LOG_FILE: "off" } });
    expect(report.forgotten).toEqual([{ id: outcome.forget!.id, ts: SOON.toISOString(), origin: "chat", facts: ["my locker code is 4312"], undo: "kept" }]);
    expect(formatStatus(report)).toContain(`${outcome.forget!.id}  chat: my locker code is 4312 (can be undone)`);
  });
});

describe("the chain a turn runs (message:received triage → the next turn's block), in process", () => {
  it("after the owner's \"Forget that …\" the next turn's block does not carry the fact; before it, it did", async () => {
    const cfg = {
      agents: { defaults: { workspace: ws } },
      hooks: { internal: { entries: { "ethos-context": { dedupeAcrossTurns: false, memory: { minRefreshIntervalMs: 0, indexCacheDir: path.join(state, "index") } } } } },
    };
    const service = createMemoryContextService();
    const say = (text: string, id: string) => startInboundTriage(webchatMessageEvent("agent:main:main", text, id) as unknown as MessageReceivedEvent, ws);
    const ask = (turnKey: string) =>
      service.buildTurnContext({ sessionKey: `agent:main:main:thread:${turnKey}`, cfg, text: "Tell me my locker code please", workspaceDir: ws, turnKey, waitMs: 10_000 });
    fs.writeFileSync(path.join(ws, "MEMORY.md"), "# Memory\n\n- Jeff's sailboat is named Halcyon Drift\n");
    await say("Remember that my locker code is 4312", "m1");
    expect((await ask("t1")).block).toContain("my locker code is 4312");
    await say("Forget that my locker code is 4312", "m2");
    const next = await ask("t2");
    expect(next.status).toBe("ok");
    expect(next.block).not.toContain("4312");
    await flushContextFileWrites();
    expect(read("ETHOS_CONTEXT.md")).not.toContain("4312");
  });
});

describe("the index and its saved cache after a forget", () => {
  it("the next search cannot find the fact, in this process or from a cache saved before", async () => {
    await owner("Remember that my locker code is 4312");
    const cacheDir = path.join(state, "openclaw-context", "memory-index");
    const shared = sharedMemoryIndex(workspaceMemorySources(ws), { cacheDir, watchForChanges: false, minRefreshIntervalMs: 60_000 });
    await shared.refresh();
    expect(shared.search("locker code", 5).map((m) => m.text).join()).toContain("4312");
    await shared.whenSaved();
    const cacheFile = shared.cacheFile!;
    expect(fs.readFileSync(cacheFile).includes("4312")).toBe(true);

    await owner("Forget my locker code", { now: SOON });
    expect(fs.existsSync(cacheFile)).toBe(false); // the saved text is gone
    await shared.refresh(); // within minRefreshIntervalMs and without a watch: re-checked all the same
    expect(shared.search("locker code", 5)).toEqual([]);
    await shared.whenSaved();
    expect(fs.readFileSync(cacheFile).includes("4312")).toBe(false);
    const fresh = await buildMemoryIndex(workspaceMemorySources(ws), { cacheDir, watchForChanges: false });
    expect(fresh.search("locker code", 5)).toEqual([]);
  });

  it("a cache another process saved for this workspace is dropped by the command too", async () => {
    await owner("Remember that my locker code is 4312");
    const elsewhere = path.join(state, "other-cache");
    const other = await buildMemoryIndex(workspaceMemorySources(ws), { cacheDir: elsewhere, watchForChanges: false });
    await other.whenSaved();
    other.close();
    const outcome = await forgetFacts({ workspaceDir: ws, select: { request: "my locker code" }, handWritten: "keep", origin: "command", config: FAST, indexCacheDirs: [elsewhere] });
    expect(outcome.droppedCaches).toEqual([other.cacheFile]);
    expect(fs.readdirSync(elsewhere).filter((name) => name.endsWith(".idx"))).toEqual([]);
  });
});

describe("secrets where the bundle writes", () => {
  it("by default the value is withheld in the day file, the triage queue, CORRECTIONS.md, ETHOS_CONTEXT.md and the log", async () => {
    const outcome = await owner("remember that my email password is hunter2");
    expect(outcome.capture?.line).toMatch(/^- my email password is \[password withheld\] #knowledge <!-- /);
    await owner("You forgot: my bank PIN is 4321", { now: SOON });
    await writeContextFile(ws, "1. **[2026-11-25]** my bank PIN is 4321\n");
    await flushContextFileWrites();
    expect(read(queue())).toContain("my email password is [password withheld]");
    expect(read("CORRECTIONS.md")).toContain("> You forgot: my bank PIN is [PIN withheld]");
    expect(read("ETHOS_CONTEXT.md")).toBe("1. **[2026-11-25]** my bank PIN is [PIN withheld]\n");
    expect(logs.join("\n")).toContain('"event":"capture.secret-withheld","kinds":["password"]');
    const all = everything();
    expect(all).not.toContain("hunter2");
    expect(all).not.toContain("4321");
  });

  it("memory_keep_secrets: true (CONFIG.md, validated) keeps the value in the day file only", async () => {
    expect(parseHygieneConfigText("```yaml\nmemory_keep_secrets: true\n```").config.memory_keep_secrets).toBe(true);
    expect(parseHygieneConfigText("```yaml\nmemory_keep_secrets: sometimes\n```").error).toContain("memory_keep_secrets");
    await owner("remember that my email password is hunter2", { config: KEEP_SECRETS });
    expect(read(today())).toContain("my email password is hunter2");
    expect(read(queue())).not.toContain("hunter2");
  });

  it("a secret never fills the Recent-memory slot, kept or withheld; a search hit that asks for it does reach the block", async () => {
    await owner("remember that my email password is hunter2", { config: KEEP_SECRETS });
    await owner("remember that my bank PIN is 4321");
    await owner("Remember that I am allergic to walnuts");
    const recent = await recentMemoryItems(ws, SOON, 48, 600);
    expect(recent.map((item) => item.text)).toEqual(["- [2026-11-25] I am allergic to walnuts"]);
    const dayText = read(today());
    const hit = { id: "memory/2026-11-25.md#1", text: dayText.split("\n")[0], score: 0.9, rawScore: 5, file: today(), headingPath: [], source: "embedded" as const };
    const block = await assembleMemoryBlock({ workspaceDir: ws, semanticHits: [hit], maxTokens: 1000, now: SOON, config: FAST });
    expect(block.text).toContain("my email password is hunter2");
    expect(block.text.match(/hunter2/g)).toHaveLength(1);
    expect(block.text).not.toContain("4321");
  });

  it("forgetting a kept secret: the audit log holds it only sealed (key in the state dir), undo restores it exactly; without the key undo says why", async () => {
    await owner("remember that my email password is hunter2", { config: KEEP_SECRETS });
    const before = snapshot();
    const outcome = await owner("forget my email password", { now: SOON, config: KEEP_SECRETS });
    expect(read(today())).not.toContain("hunter2");
    const log = fs.readFileSync(forgetLogPath(ws), "utf8");
    expect(log).not.toContain("hunter2");
    expect(JSON.parse(log)).toMatchObject({ undo: "sealed", sealed: expect.stringMatching(/^aes-256-gcm:/), facts: [{ preview: "my email password is [password withheld]" }] });
    expect(fs.statSync(sealKeyPath()).mode & 0o777).toBe(0o600);
    // The tombstone cannot be guessed back to the value: every password of that account gives the same key.
    expect(tombstoneKey("my email password is hunter2")).toBe(tombstoneKey("my email password is letmein"));

    const id = outcome.forget!.id!;
    fs.renameSync(sealKeyPath(), `${sealKeyPath()}.away`);
    await expect(unforget({ workspaceDir: ws, id, origin: "command", config: FAST })).rejects.toThrow(/the key that sealed it is gone/);
    fs.renameSync(`${sealKeyPath()}.away`, sealKeyPath());
    await unforget({ workspaceDir: ws, id, origin: "command", config: FAST });
    expect(snapshot()).toEqual(before);
  });

  it("--no-undo keeps neither the removed text nor its preview in the audit log", async () => {
    await owner("Remember that my locker code is 4312");
    await forgetFacts({ workspaceDir: ws, select: { request: "my locker code" }, handWritten: "keep", origin: "command", config: FAST, keepUndo: false });
    const log = fs.readFileSync(forgetLogPath(ws), "utf8");
    expect(log).not.toContain("4312");
    expect(JSON.parse(log)).toMatchObject({ undo: "not kept", facts: [{ preview: "(not kept)" }] });
    expect(contextFilePath(ws)).toBe(path.join(ws, "ETHOS_CONTEXT.md"));
  });
});
