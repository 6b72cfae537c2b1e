import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { decode, encode } from "@msgpack/msgpack";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultEthosContextConfig, parseEthosContextConfig } from "../../src/context/config.ts";
import { setLogDestination } from "../../src/core/log.ts";
import { EthosError, ethosSearch } from "../../src/ethos/client.ts";
import type { EthosEndpoint } from "../../src/ethos/client.ts";
import { createEthosRetriever, resetEthosOutages, resolveConfidenceGate, resolveEthosEndpoint } from "../../src/ethos/retriever.ts";

// Loopback servers speaking the real Ethos framing: 4-byte little-endian length + MessagePack over
// a Unix socket, JSON over HTTP. Each test picks how the server misbehaves.

type Mode = "ok" | "error" | "hang" | "half" | "oversized" | "garbage" | "split";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ethos-client-"));
const socketPath = path.join(tmp, "ethos.sock");
let mode: Mode = "ok";
let requests: unknown[] = [];
let logs: string[] = [];
const openSockets = new Set<net.Socket>();
// A successful or failing answer returns as soon as it arrives, so its timeout is a bound no
// machine reaches; only the "hang" cases, where the timeout IS the behaviour, use a short one.
const options = { timeoutMs: 30_000, maxFrameBytes: 64 * 1024 };
const hangOptions = { ...options, timeoutMs: 300 };

const OK_RESPONSE = {
  status: "ok",
  data: {
    results: [
      { id: "8d3c6b9e-0000-4000-8000-000000000001", content: "Jeff's sailboat is named Halcyon Drift.", source: "user", score: 0.91,
        metadata: { channel: "telegram" }, created_at: "2026-02-22T10:59:00Z" },
      { id: "8d3c6b9e-0000-4000-8000-000000000002", content: "Slip 14 in Sausalito.", source: "assistant", score: 1.3, metadata: {}, created_at: null },
    ],
    query: "sailboat",
    count: 2,
  },
  error: null,
  version: "0.1.0",
};

function frame(message: unknown): Buffer {
  const payload = Buffer.from(encode(message));
  const header = Buffer.alloc(4);
  header.writeUInt32LE(payload.length, 0);
  return Buffer.concat([header, payload]);
}

const socketServer = net.createServer((socket) => {
  openSockets.add(socket);
  socket.on("close", () => openSockets.delete(socket));
  let buffered = Buffer.alloc(0);
  socket.on("data", (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    if (buffered.length < 4 || buffered.length < 4 + buffered.readUInt32LE(0)) return;
    requests.push(decode(buffered.subarray(4, 4 + buffered.readUInt32LE(0))));
    if (mode === "ok") socket.end(frame(OK_RESPONSE));
    else if (mode === "error") socket.write(frame({ status: "error", data: null, error: "Deserialization error: missing field `query`", version: "0.1.0" }));
    else if (mode === "half") socket.end(frame(OK_RESPONSE).subarray(0, 20));
    else if (mode === "oversized") {
      const header = Buffer.alloc(4);
      header.writeUInt32LE(0x7fffffff, 0);
      socket.write(header);
    } else if (mode === "garbage") socket.end(Buffer.concat([Buffer.from([3, 0, 0, 0]), Buffer.from([0xc1, 0xc1, 0xc1])]));
    else if (mode === "split") {
      const whole = frame(OK_RESPONSE);
      socket.write(whole.subarray(0, 2));
      setTimeout(() => socket.write(whole.subarray(2, 30)), 5);
      setTimeout(() => socket.end(whole.subarray(30)), 10);
    }
    // "hang": never answer
  });
});

const httpServer = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    requests.push({ method: req.method, url: req.url, contentType: req.headers["content-type"], body: JSON.parse(body || "null") });
    if (mode === "ok") res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ...OK_RESPONSE.data, took_ms: 12 }));
    else if (mode === "error") res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: "query must not be empty", status: "error" }));
    else if (mode === "half") {
      res.writeHead(200, { "content-type": "application/json", "content-length": "5000" });
      res.write('{"results": [');
      setTimeout(() => res.destroy(), 5);
    } else if (mode === "oversized") res.writeHead(200).end(JSON.stringify({ results: [], pad: "x".repeat(100 * 1024) }));
    else if (mode === "garbage") res.writeHead(200).end("<html>not json</html>");
    // "hang": never answer
  });
});

let httpPort = 0;
const socketEndpoint: EthosEndpoint = { transport: "socket", socketPath };
const httpEndpoint = (): EthosEndpoint => ({ transport: "http", host: "127.0.0.1", port: httpPort });

await new Promise<void>((resolve) => socketServer.listen(socketPath, resolve));
await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
httpPort = (httpServer.address() as net.AddressInfo).port;

afterAll(async () => {
  for (const s of openSockets) s.destroy();
  httpServer.closeAllConnections();
  await new Promise((r) => socketServer.close(r));
  await new Promise((r) => httpServer.close(r));
  fs.rmSync(tmp, { recursive: true, force: true });
});
beforeEach(() => {
  mode = "ok";
  requests = [];
  logs = [];
  resetEthosOutages();
  setLogDestination(new Writable({ write: (chunk, _e, cb) => (logs.push(String(chunk)), cb()) }) as never);
});
afterEach(() => setLogDestination(undefined));

async function failure(endpoint: EthosEndpoint, callOptions = options): Promise<EthosError> {
  try {
    await ethosSearch(endpoint, { query: "sailboat", limit: 5 }, callOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(EthosError);
    return error as EthosError;
  }
  throw new Error("expected a failure");
}

describe("Ethos client over the Unix socket", () => {
  it("ok: sends a top-level search request in a little-endian frame and decodes the results", async () => {
    const hits = await ethosSearch(socketEndpoint, { query: "sailboat", limit: 5, agentId: "main" }, options);
    expect(requests).toEqual([{ action: "search", query: "sailboat", limit: 5, use_spreading: false, agent_id: "main" }]);
    expect(hits.map((h) => [h.id, h.content, h.score, h.createdAt])).toEqual([
      ["8d3c6b9e-0000-4000-8000-000000000001", "Jeff's sailboat is named Halcyon Drift.", 0.91, "2026-02-22T10:59:00Z"],
      ["8d3c6b9e-0000-4000-8000-000000000002", "Slip 14 in Sausalito.", 1.3, undefined],
    ]);
  });

  it("ok when the answer arrives in several chunks (length prefix split)", async () => {
    mode = "split";
    expect(await ethosSearch(socketEndpoint, { query: "sailboat", limit: 5 }, options)).toHaveLength(2);
  });

  it("error status", async () => {
    mode = "error";
    const error = await failure(socketEndpoint);
    expect(error.kind).toBe("status");
    expect(error.message).toContain("Deserialization error");
  });

  it("timeout", async () => {
    mode = "hang";
    expect((await failure(socketEndpoint, hangOptions)).kind).toBe("timeout");
  });

  it("half frame", async () => {
    mode = "half";
    const error = await failure(socketEndpoint);
    expect(error.kind).toBe("closed");
    expect(error.message).toContain("mid-frame");
  });

  it("oversized frame is refused from its length prefix", async () => {
    mode = "oversized";
    expect((await failure(socketEndpoint)).kind).toBe("oversized");
  });

  it("garbage frame", async () => {
    mode = "garbage";
    expect((await failure(socketEndpoint)).kind).toBe("decode");
  });

  it("connection refused (no server at the path)", async () => {
    expect((await failure({ transport: "socket", socketPath: path.join(tmp, "absent.sock") })).kind).toBe("connect");
  });
});

describe("Ethos client over HTTP", () => {
  it("ok: POST /search with a JSON body, answer is the data object plus took_ms", async () => {
    const hits = await ethosSearch(httpEndpoint(), { query: "sailboat", limit: 5 }, options);
    expect(requests).toEqual([{ method: "POST", url: "/search", contentType: "application/json", body: { query: "sailboat", limit: 5, use_spreading: false } }]);
    expect(hits).toHaveLength(2);
  });

  it("error status", async () => {
    mode = "error";
    const error = await failure(httpEndpoint());
    expect(error.kind).toBe("status");
    expect(error.message).toBe("HTTP 400 query must not be empty");
  });

  it("timeout", async () => {
    mode = "hang";
    expect((await failure(httpEndpoint(), hangOptions)).kind).toBe("timeout");
  });

  it("half body", async () => {
    mode = "half";
    expect(["closed", "decode"]).toContain((await failure(httpEndpoint())).kind);
  });

  it("oversized body", async () => {
    mode = "oversized";
    expect((await failure(httpEndpoint())).kind).toBe("oversized");
  });

  it("garbage body", async () => {
    mode = "garbage";
    expect((await failure(httpEndpoint())).kind).toBe("decode");
  });

  it("connection refused", async () => {
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect((await failure({ transport: "http", host: "127.0.0.1", port })).kind).toBe("connect");
  });
});

describe("Ethos retriever: outages", () => {
  const config = parseEthosContextConfig({ backend: "ethos", ethos: { timeoutMs: 30_000 } }).config;
  /** Same endpoint (so the same outage tracker), short timeout: for the hanging server only. */
  const hangConfig = parseEthosContextConfig({ backend: "ethos", ethos: { timeoutMs: 300 } }).config;

  it("maps hits to memories with clamped scores and dates", async () => {
    const memories = await createEthosRetriever(socketEndpoint, config).search("sailboat", 5);
    expect(memories.map((m) => [m.id, m.score, m.date, m.source])).toEqual([
      ["ethos:8d3c6b9e-0000-4000-8000-000000000001", 0.91, "2026-02-22", "ethos"],
      ["ethos:8d3c6b9e-0000-4000-8000-000000000002", 1, undefined, "ethos"],
    ]);
  });

  it("down, hanging or garbage → empty context, ONE warning per outage, next turn retries and recovers", async () => {
    const retriever = createEthosRetriever(socketEndpoint, config);
    const impatient = createEthosRetriever(socketEndpoint, hangConfig);
    for (const m of ["hang", "garbage", "error", "half"] as Mode[]) {
      mode = m;
      expect(await (m === "hang" ? impatient : retriever).search("sailboat", 5)).toEqual([]);
    }
    expect(requests).toHaveLength(4); // every turn tried again
    expect(logs.filter((l) => l.includes("Ethos server unavailable"))).toHaveLength(1);
    mode = "ok";
    expect(await retriever.search("sailboat", 5)).toHaveLength(2);
    expect(logs.filter((l) => l.includes("reachable again"))).toHaveLength(1);
    mode = "hang";
    await impatient.search("sailboat", 5);
    expect(logs.filter((l) => l.includes("Ethos server unavailable"))).toHaveLength(2); // a new outage
  });

  it("does not send agent_id unless configured (the server treats it as a filter)", async () => {
    await createEthosRetriever(socketEndpoint, config).search("sailboat", 5);
    expect(requests[0]).not.toHaveProperty("agent_id");
  });
});

describe("endpoint and gate resolution (hook config, ethos.toml, env, defaults)", () => {
  it("defaults to /tmp/ethos.sock, honours $ETHOS_SOCKET, ethos.toml and the hook config in that order", () => {
    const base = defaultEthosContextConfig();
    expect(resolveEthosEndpoint(base, {})).toEqual({ transport: "socket", socketPath: "/tmp/ethos.sock" });
    expect(resolveEthosEndpoint(base, { ETHOS_SOCKET: "/run/e.sock" })).toEqual({ transport: "socket", socketPath: "/run/e.sock" });
    const toml = path.join(tmp, "ethos.toml");
    fs.writeFileSync(toml, '[service]\nsocket_path = "/var/run/ethos.sock"\n\n[http]\nhost = "127.0.0.2"\nport = 9000\n\n[retrieval]\nconfidence_gate = 0.2\n\n[database]\nurl = "postgres://x"\n');
    const withToml = parseEthosContextConfig({ ethos: { configPath: toml } }).config;
    expect(resolveEthosEndpoint(withToml, { ETHOS_SOCKET: "/run/e.sock" })).toEqual({ transport: "socket", socketPath: "/var/run/ethos.sock" });
    expect(resolveConfidenceGate(withToml)).toBe(0.2);
    const httpToml = parseEthosContextConfig({ ethos: { configPath: toml, transport: "http" } }).config;
    expect(resolveEthosEndpoint(httpToml, {})).toEqual({ transport: "http", host: "127.0.0.2", port: 9000 });
    const explicit = parseEthosContextConfig({ ethos: { configPath: toml, socketPath: "/x.sock" } }).config;
    expect(resolveEthosEndpoint(explicit, {})).toEqual({ transport: "socket", socketPath: "/x.sock" });
    expect(resolveConfidenceGate(base)).toBe(0.12);
  });

  it("a broken ethos.toml logs an error and is ignored", () => {
    const toml = path.join(tmp, "broken.toml");
    fs.writeFileSync(toml, "[retrieval\nconfidence_gate = ");
    const config = parseEthosContextConfig({ ethos: { configPath: toml }, confidenceGate: 0.3 }).config;
    expect(resolveConfidenceGate(config)).toBe(0.3);
    expect(logs.some((l) => l.includes("ethos.toml unreadable"))).toBe(true);
  });
});
