import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { vi } from "vitest";
import { decode, encode } from "@msgpack/msgpack";
import { RETRIEVED_MEMORY_RECORD_NAME } from "../../src/host/ids.ts";
import type { BootstrapFileRecord } from "../../src/host/events.ts";
import { bootstrapEventFor, webchatMessageEvent } from "./ethos-events.ts";

// Turns through the real ethos-context hook handler, the way the gateway drives it:
// message:received (not awaited by the host) then agent:bootstrap (awaited), with the hook's
// config both in openclaw.json on disk (message:received carries no cfg) and in the event's cfg.

const repo = path.resolve(__dirname, "../..");

export type Handler = (event: unknown) => Promise<void>;

/** A fresh copy of the sample workspace, plus `extra` files (relative path → content). */
export function makeWorkspace(root: string, name: string, extra: Record<string, string> = {}): string {
  const ws = path.join(root, name);
  fs.cpSync(path.join(repo, "fixtures/workspace"), ws, { recursive: true });
  for (const [rel, content] of Object.entries(extra)) {
    fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), content);
  }
  return ws;
}

let configCount = 0;
/**
 * openclaw.json with this ethos-context entry, at a new path each time (the loader caches by
 * path, size and mtime), and $OPENCLAW_CONFIG_PATH pointing at it. Returns the cfg for events.
 */
export function useHookConfig(
  root: string,
  entry: Record<string, unknown>,
  aciEntry: Record<string, unknown> = {},
  rest: Record<string, unknown> = {},
): Record<string, unknown> {
  const cfg = { ...rest, hooks: { internal: { enabled: true, entries: { "ethos-context": { enabled: true, ...entry }, "aci-bootstrap": { enabled: true, ...aciEntry } } } } };
  configCount += 1;
  const file = path.join(root, `openclaw-${configCount}.json`);
  fs.writeFileSync(file, JSON.stringify(cfg));
  vi.stubEnv("OPENCLAW_CONFIG_PATH", file);
  return cfg;
}

export const hostFiles = (ws: string): BootstrapFileRecord[] => [
  { name: "AGENTS.md", path: path.join(ws, "AGENTS.md"), content: "# AGENTS", missing: false },
  { name: "SOUL.md", path: path.join(ws, "SOUL.md"), content: "# SOUL", missing: false },
];

export type TurnResult = {
  /** bootstrapFiles after the handler ran. */
  files: unknown;
  /** Content of the injected ETHOS_CONTEXT.md record, or undefined when none was injected. */
  block: string | undefined;
};

let messageCount = 0;
/** message:received (optional) then agent:bootstrap for the same session, as one gateway turn. */
export async function hookTurn(
  handler: Handler,
  input: { ws: string; cfg: Record<string, unknown>; sessionKey: string; question?: string },
): Promise<TurnResult> {
  if (input.question !== undefined) {
    messageCount += 1;
    void handler(webchatMessageEvent(input.sessionKey, input.question, `msg-${messageCount}`));
  }
  return bootstrapOnly(handler, input);
}

/** agent:bootstrap alone (a second bootstrap of the same turn, or a run without a message). */
export async function bootstrapOnly(handler: Handler, input: { ws: string; cfg: Record<string, unknown>; sessionKey: string }): Promise<TurnResult> {
  const event = bootstrapEventFor(input.ws, input.sessionKey, hostFiles(input.ws));
  event.context.cfg = input.cfg;
  await handler(event);
  const files = event.context.bootstrapFiles;
  const record = Array.isArray(files) ? (files as BootstrapFileRecord[]).find((f) => f.name === RETRIEVED_MEMORY_RECORD_NAME) : undefined;
  return { files, block: record?.content };
}

export function tempRoot(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

// ------------------------------------------------------------------------------------------
// A loopback Ethos server (4-byte little-endian length + MessagePack over a Unix socket) whose
// answers the test controls: it answers at once, or holds a request until the test releases it.

export type EthosHit = { id: string; content: string; score: number };
type Held = { respond: () => void; query: string };

export type FakeEthos = {
  socketPath: string;
  /** Queries received, in order. */
  queries: string[];
  /** What the server answers with. */
  hits: EthosHit[];
  /** Per request ordinal (0-based): "hold" keeps that request unanswered until released. */
  holdRequests: Set<number>;
  /** Answer every held request now. */
  releaseAll(): void;
  /** Resolves when the server has received `count` requests in total. */
  received(count: number): Promise<void>;
  reset(): void;
  close(): Promise<void>;
};

function frame(message: unknown): Buffer {
  const payload = Buffer.from(encode(message));
  const header = Buffer.alloc(4);
  header.writeUInt32LE(payload.length, 0);
  return Buffer.concat([header, payload]);
}

export async function startFakeEthos(dir: string): Promise<FakeEthos> {
  const socketPath = path.join(dir, "ethos.sock");
  const sockets = new Set<net.Socket>();
  let held: Held[] = [];
  let waiters: { count: number; resolve: () => void }[] = [];
  const state = {
    socketPath,
    queries: [] as string[],
    hits: [] as EthosHit[],
    holdRequests: new Set<number>(),
  };
  const answer = (hits: EthosHit[]) => ({
    status: "ok",
    data: { results: hits.map((h) => ({ ...h, source: "user", metadata: {}, created_at: "2026-03-01T10:00:00Z" })), query: "", count: hits.length },
    error: null,
    version: "0.1.0",
  });
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    let buffered = Buffer.alloc(0);
    socket.on("data", (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length < 4 || buffered.length < 4 + buffered.readUInt32LE(0)) return;
      const request = decode(buffered.subarray(4, 4 + buffered.readUInt32LE(0))) as { query: string };
      const ordinal = state.queries.length;
      state.queries.push(request.query);
      const hits = state.hits;
      const respond = () => socket.end(frame(answer(hits)));
      if (state.holdRequests.has(ordinal)) held.push({ respond, query: request.query });
      else respond();
      const ready = waiters.filter((w) => state.queries.length >= w.count);
      waiters = waiters.filter((w) => state.queries.length < w.count);
      for (const w of ready) w.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return Object.assign(state, {
    releaseAll() {
      const now = held;
      held = [];
      for (const h of now) h.respond();
    },
    received(count: number) {
      if (state.queries.length >= count) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push({ count, resolve }));
    },
    reset() {
      state.queries.length = 0;
      state.hits = [];
      state.holdRequests = new Set();
      held = [];
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}
