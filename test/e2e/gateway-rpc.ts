// A small client for the OpenClaw gateway's WebSocket protocol, so the harness can call gateway
// methods (chat.send, agent, health, cron.*, wake) from the test process instead of starting an
// `openclaw gateway call …` process per call (2026.3.13's CLI alone burns about 9 s of CPU per
// call). It speaks what OpenClaw's own CLI speaks (read from its dist for 2026.3.13 and 2026.9.6,
// see docs/ground-truth.md, "Gateway RPC"):
//   server → {type:"event", event:"connect.challenge", payload:{nonce}}
//   client → {type:"req", id, method:"connect", params:{minProtocol, maxProtocol, client, role,
//             scopes, auth:{token}, device?}}
//   server → {type:"res", id, ok:true, payload:{type:"hello-ok", …}}
//   then one {type:"req"} per call, answered by {type:"res", id, ok, payload | error}; a method
//   that runs in the background (`agent`) first answers {status:"accepted"} and later, on the same
//   id, its final result: `expectFinal` skips the first.
import crypto from "node:crypto";
import WebSocket from "ws";

/** 2026.3.13 speaks protocol 3 only, 2026.9.6 protocol 4 (3 only for probes and nodes). */
const MIN_PROTOCOL = 3;
const MAX_PROTOCOL = 4;
/** What `openclaw gateway call` asks for (CLI_DEFAULT_OPERATOR_SCOPES in both versions). */
const OPERATOR_SCOPES = ["operator.admin", "operator.read", "operator.write", "operator.approvals", "operator.pairing"];
/** OpenClaw's own client limit for one frame. */
const MAX_PAYLOAD_BYTES = 25 * 1024 * 1024;

export type RpcErrorShape = { code?: string; message?: string; details?: unknown; retryable?: boolean; retryAfterMs?: number };

/** The gateway answered a request with ok:false; `gatewayError` is its error object as sent. */
export class GatewayRpcError extends Error {
  readonly gatewayError: RpcErrorShape;
  constructor(method: string, error: RpcErrorShape) {
    super(`gateway ${method} failed: ${JSON.stringify(error)}`);
    this.gatewayError = error;
  }
}

export type CallOptions = {
  /** Wait for the final answer of a method that first answers {status:"accepted"} (`agent`). */
  expectFinal?: boolean;
  timeoutMs: number;
};

export type GatewayRpc = {
  call<T = unknown>(method: string, params: unknown, options: CallOptions): Promise<T>;
  /** The hello-ok payload of the handshake. */
  hello: Record<string, unknown>;
  /** Resolves once the socket is closed (a close never throws). */
  close(): Promise<void>;
  readonly closed: boolean;
};

/**
 * An ed25519 device identity, signed into the connect request the way 2026.3.13's CLI does: that
 * version clears the scopes of an operator without one, even on loopback with the gateway token.
 */
export type DeviceIdentity = { deviceId: string; publicKeyRaw: Buffer; privateKey: crypto.KeyObject };

export function createDeviceIdentity(): DeviceIdentity {
  const { publicKey, privateKey } = crypto.generateKeyPairSync("ed25519");
  // The raw 32-byte key is the SPKI DER minus its fixed 12-byte ed25519 prefix.
  const publicKeyRaw = publicKey.export({ type: "spki", format: "der" }).subarray(12);
  return { deviceId: crypto.createHash("sha256").update(publicKeyRaw).digest("hex"), publicKeyRaw, privateKey };
}

export type ConnectOptions = {
  port: number;
  token: string;
  /** Reported as client.version (OpenClaw's CLI sends its own version). */
  clientVersion: string;
  /** Sign the connect request with this identity (2026.3.13); without it the connect carries the token only (2026.9.6's CLI on loopback). */
  device?: DeviceIdentity;
  /** Bound for the socket to open and the handshake to answer. */
  timeoutMs: number;
};

type Pending = { method: string; expectFinal: boolean; resolve: (value: unknown) => void; reject: (error: Error) => void; timer: NodeJS.Timeout };
type Frame = { type?: string; id?: string; ok?: boolean; payload?: Record<string, unknown>; error?: RpcErrorShape; event?: string };

function parseFrame(raw: WebSocket.RawData): Frame | undefined {
  try {
    return JSON.parse(raw.toString()) as Frame;
  } catch {
    return undefined;
  }
}

/** Opens a connection and completes the connect handshake; rejects with the gateway's answer when it refuses. */
export function connectGateway(options: ConnectOptions): Promise<GatewayRpc> {
  const url = `ws://127.0.0.1:${options.port}`;
  const socket = new WebSocket(url, { maxPayload: MAX_PAYLOAD_BYTES, handshakeTimeout: options.timeoutMs });
  const pending = new Map<string, Pending>();
  let closeReason = "";
  let lastError = "";
  // An 'error' is always followed by 'close', which settles everything still pending.
  socket.on("error", (error) => {
    lastError = error.message;
  });
  const closed = new Promise<void>((resolve) =>
    socket.once("close", (code, reason) => {
      closeReason = `closed (${code}${reason.length ? ` ${reason.toString()}` : ""}${lastError ? `, ${lastError}` : ""})`;
      for (const [id, entry] of pending) {
        pending.delete(id);
        clearTimeout(entry.timer);
        entry.reject(new Error(`gateway ${entry.method}: connection to ${url} ${closeReason} before the answer`));
      }
      resolve();
    }),
  );
  const close = async () => {
    if (socket.readyState !== WebSocket.CLOSED) socket.terminate();
    await closed;
  };

  const request = (method: string, params: unknown, callOptions: CallOptions): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (socket.readyState !== WebSocket.OPEN) {
        reject(new Error(`gateway ${method}: connection to ${url} is ${closeReason || "not open"}`));
        return;
      }
      const id = crypto.randomUUID();
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`gateway ${method}: no ${callOptions.expectFinal ? "final " : ""}answer from ${url} within ${callOptions.timeoutMs}ms`));
      }, callOptions.timeoutMs);
      pending.set(id, { method, expectFinal: callOptions.expectFinal === true, resolve, reject, timer });
      socket.send(JSON.stringify({ type: "req", id, method, params }));
    });

  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | undefined, hello?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(bound);
      if (error) {
        void close();
        reject(error);
        return;
      }
      resolve({
        call: <T>(method: string, params: unknown, callOptions: CallOptions) => request(method, params, callOptions) as Promise<T>,
        hello: hello as Record<string, unknown>,
        close,
        get closed() {
          return socket.readyState !== WebSocket.OPEN;
        },
      });
    };
    const bound = setTimeout(() => finish(new Error(`gateway ${url}: no connect handshake within ${options.timeoutMs}ms`)), options.timeoutMs);
    void closed.then(() => finish(new Error(`gateway ${url}: connection ${closeReason} before the connect handshake`)));

    socket.on("message", (raw) => {
      const frame = parseFrame(raw);
      if (frame?.type === "event" && frame.event === "connect.challenge") {
        const nonce = frame.payload?.nonce;
        if (typeof nonce !== "string" || !nonce) return finish(new Error(`gateway ${url}: connect challenge without a nonce`));
        request("connect", connectParams(options, nonce), { timeoutMs: options.timeoutMs }).then(
          (hello) => finish(undefined, hello),
          (error: Error) => finish(error),
        );
        return;
      }
      // Other events (ticks, chat and agent streams): none of the harness's calls needs them.
      if (frame?.type !== "res" || typeof frame.id !== "string") return;
      const entry = pending.get(frame.id);
      if (!entry) return;
      if (frame.ok && entry.expectFinal && frame.payload?.status === "accepted") return;
      pending.delete(frame.id);
      clearTimeout(entry.timer);
      if (frame.ok) entry.resolve(frame.payload);
      else entry.reject(new GatewayRpcError(entry.method, frame.error ?? { message: "no error object" }));
    });
  });
}

function connectParams(options: ConnectOptions, nonce: string): Record<string, unknown> {
  const client = { id: "cli", version: options.clientVersion, platform: process.platform, mode: "cli", instanceId: crypto.randomUUID() };
  const role = "operator";
  const params: Record<string, unknown> = { minProtocol: MIN_PROTOCOL, maxProtocol: MAX_PROTOCOL, client, caps: [], auth: { token: options.token }, role, scopes: OPERATOR_SCOPES };
  if (options.device) {
    const signedAt = Date.now();
    // buildDeviceAuthPayloadV3: v3|device|client id|client mode|role|scopes|signedAt|token|nonce|platform|device family
    const payload = ["v3", options.device.deviceId, client.id, client.mode, role, OPERATOR_SCOPES.join(","), String(signedAt), options.token, nonce, process.platform.toLowerCase(), ""].join("|");
    const signature = crypto.sign(null, Buffer.from(payload, "utf8"), options.device.privateKey);
    params.device = { id: options.device.deviceId, publicKey: options.device.publicKeyRaw.toString("base64url"), signature: signature.toString("base64url"), signedAt, nonce };
  }
  return params;
}
