// Fast checks of the e2e harness pieces that need no gateway: the mock model and the prompt parser.
import { afterEach, describe, expect, it } from "vitest";
import { MOCK_REPLY, startMockModel } from "./mock-model.ts";
import type { MockModel } from "./mock-model.ts";
import { injectedChars, injectedNames, parseInjectedFiles } from "./prompt.ts";
import { readAssumptionsDoc } from "./assumptions.ts";
import crypto from "node:crypto";
import { MOCK_BOT_TOKEN, pairingCode, startMockTelegram } from "./telegram-mock.ts";
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { WebSocketServer } from "ws";
import type { WebSocket } from "ws";
import { connectGateway, createDeviceIdentity, GatewayRpcError } from "./gateway-rpc.ts";

let model: MockModel | undefined;
afterEach(async () => {
  await model?.stop();
  model = undefined;
});

async function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

describe("mock model", () => {
  it("answers plain requests and records the body; messages[0] is the system prompt", async () => {
    model = await startMockModel();
    expect(model.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const response = await post(`${model.baseUrl}/chat/completions`, {
      model: "mock-model",
      messages: [
        { role: "system", content: "SYSTEM PROMPT A" },
        { role: "user", content: "hello plain" },
      ],
    });
    const json = (await response.json()) as { choices: { message: { content: string } }[] };
    expect(json.choices[0]!.message.content).toBe(MOCK_REPLY);
    const request = model.findByUserText("hello plain")!;
    expect(model.systemPromptOf(request)).toBe("SYSTEM PROMPT A");
    expect(model.findBySystemPrompt("PROMPT A")).toBe(request);
  });

  it("streams SSE for stream:true, and matches a turn on any user message (text parts too)", async () => {
    model = await startMockModel();
    const response = await post(`${model.baseUrl}/chat/completions`, {
      model: "mock-model",
      stream: true,
      messages: [
        { role: "system", content: [{ type: "text", text: "SYS" }] },
        { role: "user", content: "[Sun] unique-turn-42" },
        { role: "user", content: [{ type: "text", text: "internal context" }] },
      ],
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const text = await response.text();
    expect(text).toContain(MOCK_REPLY);
    expect(text.trim().endsWith("data: [DONE]")).toBe(true);
    const request = await model.waitForUserText("unique-turn-42", 1000);
    expect(model.systemPromptOf(request)).toBe("SYS");
    expect(model.lastUserTextOf(request)).toBe("internal context");
  });

  it("waitForUserText rejects after its bound when no such request arrives", async () => {
    model = await startMockModel();
    await expect(model.waitForUserText("never-sent", 50)).rejects.toThrow(/no request with user text/);
  });
});

describe("prompt parser", () => {
  it("splits # Project Context into file sections, keeping headings inside files, stopping at the cache marker", () => {
    const prompt = [
      "## Tooling",
      "tools",
      "# Project Context",
      "Loaded project context:",
      "## /ws/SOUL.md",
      "# SOUL",
      "## Wisdom",
      "be kind",
      "## /ws/BOOTSTRAP.md",
      "[MISSING] Expected at: /ws/BOOTSTRAP.md",
      "## /ws/nonexistent/TOOLS_COMPACT.md",
      "ports: 3100",
      "<!-- /openclaw:attempt:STABLE -->",
      "## Temporal Context",
    ].join("\n");
    const files = parseInjectedFiles(prompt);
    expect(files.map((f) => f.name)).toEqual(["SOUL.md", "BOOTSTRAP.md", "TOOLS_COMPACT.md"]);
    expect(files[0]!.content).toBe("# SOUL\n## Wisdom\nbe kind");
    expect(files[1]!.missingMarker).toBe(true);
    expect(files[2]!.content).toBe("ports: 3100");
    expect(injectedNames(prompt)).toEqual(["SOUL.md", "TOOLS_COMPACT.md"]);
    expect(injectedChars(prompt)).toBe(files.reduce((sum, f) => sum + f.content.length, 0));
  });

  it("ends the last section at the first heading that is not in the file on disk", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "e2e-prompt-"));
    const file = path.join(dir, "USER.md");
    fs.writeFileSync(file, "# USER\n## Prefs\n- metric\n");
    const prompt = ["# Project Context", `## ${file}`, "# USER", "## Prefs", "- metric", "## Silent Replies", "reply NO_REPLY"].join("\n");
    expect(parseInjectedFiles(prompt)[0]!.content).toBe("# USER\n## Prefs\n- metric");
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("returns no files for a prompt without a Project Context section", () => {
    expect(parseInjectedFiles("## Tooling\nnothing injected")).toEqual([]);
  });
});

describe("mock Telegram Bot API", () => {
  const call = async (apiRoot: string, method: string, body: unknown) => {
    const response = await fetch(`${apiRoot}/bot${MOCK_BOT_TOKEN}/${method}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return ((await response.json()) as { ok: boolean; result: unknown }).result;
  };

  it("hands a pushed DM to the polling bot, records its replies, and wakes a waiter on the matching one", async () => {
    const tg = await startMockTelegram();
    try {
      expect(await call(tg.apiRoot, "getMe", {})).toMatchObject({ is_bot: true });
      tg.pushDm({ id: 777001, firstName: "Friend", username: "friend" }, "hello bot");
      const updates = (await call(tg.apiRoot, "getUpdates", { offset: 0, timeout: 30 })) as { update_id: number; message: { text: string; from: { id: number }; chat: { type: string } } }[];
      expect(updates.map((u) => [u.message.text, u.message.from.id, u.message.chat.type])).toEqual([["hello bot", 777001, "private"]]);
      // Polling past the last update returns once nothing is pending (bounded long poll).
      expect(await call(tg.apiRoot, "getUpdates", { offset: updates[0]!.update_id + 1, timeout: 1 })).toEqual([]);
      const waiting = tg.waitForMessage(777001, (text) => text.includes("approve"), 5_000);
      await call(tg.apiRoot, "sendMessage", { chat_id: 424242, text: "not for the friend: openclaw pairing approve telegram WRONG" });
      await call(tg.apiRoot, "sendMessage", { chat_id: "777001", text: "Pairing code:\n\nopenclaw pairing approve telegram 8BS4R5SK" });
      expect(pairingCode(await waiting)).toBe("8BS4R5SK");
      await expect(tg.waitForMessage(777001, (text) => text.includes("never"), 50)).rejects.toThrow(/no sendMessage to 777001/);
    } finally {
      await tg.stop();
    }
  });
});

describe("HOOK_ASSUMPTIONS.md", () => {
  it("has one row per observation id with a cell for each pinned version", () => {
    const rows = readAssumptionsDoc();
    expect(rows.size).toBeGreaterThan(30);
    for (const [id, cells] of rows) {
      expect(Object.keys(cells).sort(), id).toEqual(["2026.3.13", "2026.9.6"]);
      for (const cell of Object.values(cells)) expect(cell.length, id).toBeGreaterThan(0);
    }
  });
});

describe("gateway RPC client", () => {
  type Req = { type: string; id: string; method: string; params: Record<string, unknown> };
  let server: WebSocketServer | undefined;
  afterEach(async () => {
    for (const client of server?.clients ?? []) client.terminate();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  /** A stand-in gateway: sends the challenge, answers connect with hello-ok, other methods with `answer`. */
  async function fakeGateway(answer: (req: Req, socket: WebSocket) => void): Promise<{ port: number; connects: Req[] }> {
    const connects: Req[] = [];
    server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    await new Promise<void>((resolve) => server!.once("listening", () => resolve()));
    server.on("connection", (socket) => {
      socket.send(JSON.stringify({ type: "event", event: "connect.challenge", payload: { nonce: "nonce-1", ts: Date.now() } }));
      socket.on("message", (raw) => {
        const req = JSON.parse(raw.toString()) as Req;
        if (req.method === "connect") {
          connects.push(req);
          socket.send(JSON.stringify({ type: "res", id: req.id, ok: true, payload: { type: "hello-ok", protocol: 3 } }));
        } else answer(req, socket);
      });
    });
    return { port: (server.address() as AddressInfo).port, connects };
  }
  const reply = (socket: WebSocket, req: Req, frame: Record<string, unknown>) => socket.send(JSON.stringify({ type: "res", id: req.id, ...frame }));

  it("connects with the token and the CLI's client and scopes, and returns each method's answer", async () => {
    const gw = await fakeGateway((req, socket) => reply(socket, req, { ok: true, payload: { method: req.method, params: req.params } }));
    const rpc = await connectGateway({ port: gw.port, token: "tok", clientVersion: "2026.9.6", timeoutMs: 5000 });
    expect(rpc.hello.type).toBe("hello-ok");
    const connect = gw.connects[0]!.params;
    expect(connect).toMatchObject({ minProtocol: 3, maxProtocol: 4, role: "operator", auth: { token: "tok" }, client: { id: "cli", mode: "cli", version: "2026.9.6" } });
    expect(connect.scopes).toContain("operator.write");
    expect(connect.device).toBeUndefined();
    expect(await rpc.call("health", {}, { timeoutMs: 5000 })).toEqual({ method: "health", params: {} });
    await rpc.close();
    expect(rpc.closed).toBe(true);
  });

  it("signs the connect with a device identity the gateway can verify (v3 payload over the challenge nonce)", async () => {
    const gw = await fakeGateway(() => {});
    const device = createDeviceIdentity();
    const rpc = await connectGateway({ port: gw.port, token: "tok", clientVersion: "2026.3.13", device, timeoutMs: 5000 });
    const params = gw.connects[0]!.params as { device: { id: string; publicKey: string; signature: string; signedAt: number; nonce: string }; scopes: string[] };
    expect(params.device.nonce).toBe("nonce-1");
    const raw = Buffer.from(params.device.publicKey, "base64url");
    expect(crypto.createHash("sha256").update(raw).digest("hex")).toBe(params.device.id);
    const publicKey = crypto.createPublicKey({ key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), raw]), format: "der", type: "spki" });
    const payload = ["v3", params.device.id, "cli", "cli", "operator", params.scopes.join(","), String(params.device.signedAt), "tok", "nonce-1", process.platform, ""].join("|");
    expect(crypto.verify(null, Buffer.from(payload), publicKey, Buffer.from(params.device.signature, "base64url"))).toBe(true);
    await rpc.close();
  });

  it("expectFinal skips the {status:'accepted'} answer and resolves with the final one", async () => {
    const gw = await fakeGateway((req, socket) => {
      reply(socket, req, { ok: true, payload: { status: "accepted", runId: "r1" } });
      setImmediate(() => reply(socket, req, { ok: true, payload: { status: "ok", runId: "r1", result: { meta: {} } } }));
    });
    const rpc = await connectGateway({ port: gw.port, token: "tok", clientVersion: "x", timeoutMs: 5000 });
    expect(await rpc.call("agent", {}, { expectFinal: true, timeoutMs: 5000 })).toEqual({ status: "ok", runId: "r1", result: { meta: {} } });
    expect(await rpc.call("agent", {}, { timeoutMs: 5000 })).toEqual({ status: "accepted", runId: "r1" });
    await rpc.close();
  });

  it("rejects with the gateway's error object, a bound that names the method, and a close that names it", async () => {
    const gw = await fakeGateway((req, socket) => {
      if (req.method === "chat.send") reply(socket, req, { ok: false, error: { code: "INVALID_REQUEST", message: "missing scope: operator.write" } });
      if (req.method === "hang-up") socket.close(1011, "bye");
    });
    const rpc = await connectGateway({ port: gw.port, token: "tok", clientVersion: "x", timeoutMs: 5000 });
    const refused = await rpc.call("chat.send", {}, { timeoutMs: 5000 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GatewayRpcError);
    expect((refused as GatewayRpcError).gatewayError).toEqual({ code: "INVALID_REQUEST", message: "missing scope: operator.write" });
    expect((refused as Error).message).toContain("missing scope: operator.write");
    await expect(rpc.call("never-answered", {}, { timeoutMs: 50 })).rejects.toThrow(/never-answered: no answer .* within 50ms/);
    await expect(rpc.call("hang-up", {}, { timeoutMs: 5000 })).rejects.toThrow(/hang-up: connection .* closed \(1011 bye/);
    expect(rpc.closed).toBe(true);
  });

  it("fails the connect with the gateway's refusal, and when nothing listens", async () => {
    server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    await new Promise<void>((resolve) => server!.once("listening", () => resolve()));
    server.on("connection", (socket) => {
      socket.send(JSON.stringify({ type: "event", event: "connect.challenge", payload: { nonce: "n" } }));
      socket.on("message", (raw) => {
        const req = JSON.parse(raw.toString()) as Req;
        socket.send(JSON.stringify({ type: "res", id: req.id, ok: false, error: { code: "UNAVAILABLE", message: "gateway starting; retry shortly", retryable: true, retryAfterMs: 500 } }));
      });
    });
    const port = (server.address() as AddressInfo).port;
    const refused = await connectGateway({ port, token: "tok", clientVersion: "x", timeoutMs: 5000 }).catch((error: unknown) => error);
    expect((refused as GatewayRpcError).gatewayError).toMatchObject({ retryable: true, retryAfterMs: 500 });
    const closedPort = port;
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    await expect(connectGateway({ port: closedPort, token: "tok", clientVersion: "x", timeoutMs: 5000 })).rejects.toThrow(/before the connect handshake/);
  });
});
