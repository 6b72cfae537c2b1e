// Heap cost of hostile session keys (issue 20): N messages, each with a distinct session key of
// K bytes, through the hook runtime (message:received parks a pending retrieval per session) and
// the plugin service (buildTurnContext memoises a turn per session). Retrieval is a search that
// stays pending until the end, so every session's pending work is alive when the heap is read.
//   node --expose-gc --import tsx bench/session-memory.ts [--messages 300] [--key-bytes 1048576] [--json]
import os from "node:os";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { setLogDestination } from "../src/core/log.ts";
import { HookPack } from "../src/hook-pack/service.ts";
import { MemoryContextService } from "../src/context/service.ts";
import type { Retriever } from "../src/memory/types.ts";
import { markdownTable } from "./lib/table.ts";

export type SessionMemoryRow = { path: string; messages: number; keyBytes: number; heapBeforeMB: number; heapAfterMB: number; addedMB: number; sessions: number; countedBytes: number };

const gc = (globalThis as { gc?: () => void }).gc;

function heapMB(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

/** A search that answers only when released: the pending work stays alive while the heap is read. */
function heldRetriever(): { factory: () => Retriever; release: () => void } {
  const waiting: (() => void)[] = [];
  return {
    factory: () => ({ label: "probe", search: () => new Promise((resolve) => waiting.push(() => resolve([]))) }),
    release: () => waiting.splice(0).forEach((resolve) => resolve()),
  };
}

/** `agent:main:main:thread:<id>` is the operator's main session: in scope, so each message starts a search. */
function hostileKey(i: number, keyBytes: number): string {
  const prefix = `agent:main:main:thread:${i}-`;
  return prefix + "x".repeat(Math.max(0, keyBytes - prefix.length));
}

const CFG = { agents: { defaults: { workspace: os.tmpdir() } } };

async function measureHook(messages: number, keyBytes: number): Promise<SessionMemoryRow> {
  const held = heldRetriever();
  const runtime = new HookPack({ createRetriever: held.factory, loadOpenClawConfig: () => CFG });
  const before = heapMB();
  for (let i = 0; i < messages; i++) {
    runtime.onMessageReceived({
      type: "message",
      action: "received",
      sessionKey: hostileKey(i, keyBytes),
      context: { content: `what did we decide about the garden plan, message ${i}?`, messageId: `m${i}` },
    } as never);
  }
  const after = heapMB();
  const row = { path: "hook: message:received (pending retrieval)", messages, keyBytes, heapBeforeMB: before, heapAfterMB: after, addedMB: after - before, sessions: runtime.sessions.size, countedBytes: runtime.sessions.storedBytes() };
  held.release();
  return row;
}

async function measurePlugin(messages: number, keyBytes: number): Promise<SessionMemoryRow> {
  const held = heldRetriever();
  const service = new MemoryContextService({ createRetriever: held.factory, composeBlock: null });
  const before = heapMB();
  const turns: Promise<unknown>[] = [];
  for (let i = 0; i < messages; i++) {
    const sessionKey = hostileKey(i, keyBytes);
    // The plugin's turn key falls back to `<sessionKey>|<message>` when the host gives no run id.
    turns.push(service.buildTurnContext({ sessionKey, cfg: CFG, text: `what did we decide about the garden plan, message ${i}?`, workspaceDir: os.tmpdir(), turnKey: `${sessionKey}|m${i}`, waitMs: 3_600_000 }));
  }
  const after = heapMB();
  const row = { path: "plugin: buildTurnContext (turn in flight)", messages, keyBytes, heapBeforeMB: before, heapAfterMB: after, addedMB: after - before, sessions: service.sessions.size, countedBytes: service.sessions.storedBytes() };
  held.release();
  await Promise.all(turns);
  return row;
}

export async function measureSessionMemory(options: { messages?: number; keyBytes?: number } = {}): Promise<SessionMemoryRow[]> {
  const messages = options.messages ?? 300;
  const keyBytes = options.keyBytes ?? 1024 * 1024;
  setLogDestination({ write: () => undefined });
  try {
    return [await measureHook(messages, keyBytes), await measurePlugin(messages, keyBytes)];
  } finally {
    setLogDestination(undefined);
  }
}

export function sessionMemoryTable(rows: readonly SessionMemoryRow[]): string {
  const mb = (v: number) => `${v.toFixed(1)} MB`;
  return markdownTable(
    ["path", "messages", "key size", "heap before", "heap after", "added", "sessions kept", "bytes counted by the cap"],
    rows.map((r) => [r.path, r.messages, `${(r.keyBytes / 1024).toFixed(0)} kB`, mb(r.heapBeforeMB), mb(r.heapAfterMB), mb(r.addedMB), r.sessions, `${(r.countedBytes / 1024).toFixed(0)} kB`]),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { messages: { type: "string" }, "key-bytes": { type: "string" }, json: { type: "boolean" } } });
  if (!gc) process.stderr.write("warning: run with node --expose-gc for a stable heap figure\n");
  const rows = await measureSessionMemory({ messages: values.messages ? Number(values.messages) : undefined, keyBytes: values["key-bytes"] ? Number(values["key-bytes"]) : undefined });
  if (values.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  else process.stdout.write(`### Heap cost of hostile session keys (Node ${process.version})\n\n${sessionMemoryTable(rows)}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
