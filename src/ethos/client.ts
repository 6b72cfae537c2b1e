import http from "node:http";
import net from "node:net";
import { decode, encode } from "@msgpack/msgpack";
import { z } from "zod";

// Client for the Ethos memory server's search (protocol facts: shared/reference/ethos-protocol.md).
//  - Unix socket: each frame is a 4-byte little-endian length, then a MessagePack map. The request
//    is the serde-tagged enum `{action:"search", query, limit, agent_id?, thread_id?}` with its
//    fields at the top level (story 007's `payload:{…}` wrapper is wrong for search).
//  - HTTP: `POST /search` with a JSON body; the answer is the `data` object plus `took_ms`.
// Every call is bounded: a deadline, a maximum frame/body size, and one connection per call.

export type EthosEndpoint = { transport: "socket"; socketPath: string } | { transport: "http"; host: string; port: number };

export type EthosCallOptions = { timeoutMs: number; maxFrameBytes: number };

export type EthosSearchRequest = { query: string; limit: number; agentId?: string; threadId?: string };

export type EthosSearchHit = {
  id: string;
  content: string;
  score: number;
  source?: string;
  createdAt?: string;
  metadata?: Record<string, unknown>;
};

export type EthosErrorKind = "connect" | "timeout" | "closed" | "oversized" | "decode" | "status" | "shape";

export class EthosError extends Error {
  readonly kind: EthosErrorKind;
  constructor(kind: EthosErrorKind, message: string) {
    super(message);
    this.kind = kind;
    this.name = "EthosError";
  }
}

const hitSchema = z.looseObject({
  id: z.union([z.string(), z.number()]).transform(String),
  content: z.string(),
  score: z.number(),
  source: z.string().optional().nullable(),
  created_at: z.string().optional().nullable(),
  metadata: z.record(z.string(), z.unknown()).optional().nullable(),
});
const searchDataSchema = z.looseObject({ results: z.array(hitSchema) });
const envelopeSchema = z.looseObject({
  status: z.string(),
  data: z.unknown().optional(),
  error: z.string().optional().nullable(),
});

function toHits(data: unknown): EthosSearchHit[] {
  const parsed = searchDataSchema.safeParse(data);
  if (!parsed.success) throw new EthosError("shape", "search response has no valid results list");
  return parsed.data.results.map((hit) => {
    const out: EthosSearchHit = { id: hit.id, content: hit.content, score: hit.score };
    if (hit.source) out.source = hit.source;
    if (hit.created_at) out.createdAt = hit.created_at;
    if (hit.metadata) out.metadata = hit.metadata;
    return out;
  });
}

function searchRequestBody(request: EthosSearchRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { action: "search", query: request.query, limit: request.limit, use_spreading: false };
  if (request.agentId) body.agent_id = request.agentId;
  if (request.threadId) body.thread_id = request.threadId;
  return body;
}

/** One length-prefixed MessagePack frame. */
function encodeFrame(message: unknown): Buffer {
  const payload = encode(message);
  const frame = Buffer.alloc(4 + payload.byteLength);
  frame.writeUInt32LE(payload.byteLength, 0);
  Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).copy(frame, 4);
  return frame;
}

/** Send one request over the Unix socket and decode the first response frame. */
function socketRequest(socketPath: string, message: unknown, options: EthosCallOptions): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let buffered = Buffer.alloc(0);
    let expected: number | undefined;
    const socket = net.createConnection({ path: socketPath });
    const finish = (error: EthosError | undefined, value?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(value);
    };
    const timer = setTimeout(() => finish(new EthosError("timeout", `no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    socket.on("connect", () => socket.write(encodeFrame(message)));
    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (expected === undefined && buffered.length >= 4) {
        expected = buffered.readUInt32LE(0);
        if (expected > options.maxFrameBytes) {
          finish(new EthosError("oversized", `frame of ${expected} bytes exceeds ${options.maxFrameBytes}`));
          return;
        }
      }
      if (expected !== undefined && buffered.length >= 4 + expected) {
        try {
          finish(undefined, decode(buffered.subarray(4, 4 + expected)));
        } catch (error) {
          finish(new EthosError("decode", `undecodable frame: ${(error as Error).message}`));
        }
      }
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      const connectCodes = ["ENOENT", "ECONNREFUSED", "EACCES", "ENOTSOCK"];
      finish(new EthosError(connectCodes.includes(error.code ?? "") ? "connect" : "closed", `${error.code ?? "socket error"}: ${error.message}`));
    });
    socket.on("close", () => finish(new EthosError("closed", expected === undefined ? "connection closed before a frame" : "connection closed mid-frame")));
  });
}

/** POST a JSON body and parse the JSON answer, bounded in time and size. */
function httpJsonRequest(host: string, port: number, pathName: string, body: unknown, options: EthosCallOptions): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const payload = JSON.stringify(body);
    const finish = (error: EthosError | undefined, value?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      if (error) reject(error);
      else resolve(value);
    };
    const request = http.request(
      { host, port, path: pathName, method: "POST", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxFrameBytes) {
            finish(new EthosError("oversized", `body exceeds ${options.maxFrameBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on("end", () => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
          } catch {
            finish(new EthosError("decode", `HTTP ${response.statusCode}: body is not JSON`));
            return;
          }
          const status = response.statusCode ?? 0;
          if (status < 200 || status >= 300) {
            const message = typeof (parsed as { error?: unknown })?.error === "string" ? (parsed as { error: string }).error : "";
            finish(new EthosError("status", `HTTP ${status} ${message}`.trim()));
            return;
          }
          finish(undefined, parsed);
        });
        response.on("error", (error) => finish(new EthosError("closed", error.message)));
        response.on("aborted", () => finish(new EthosError("closed", "response aborted")));
      },
    );
    const timer = setTimeout(() => finish(new EthosError("timeout", `no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    request.on("error", (error: NodeJS.ErrnoException) => {
      finish(new EthosError(error.code === "ECONNREFUSED" || error.code === "ENOTFOUND" ? "connect" : "closed", `${error.code ?? "http error"}: ${error.message}`));
    });
    request.end(payload);
  });
}

/** Search the Ethos server; throws EthosError on any failure. */
export async function ethosSearch(endpoint: EthosEndpoint, request: EthosSearchRequest, options: EthosCallOptions): Promise<EthosSearchHit[]> {
  if (endpoint.transport === "socket") {
    const answer = envelopeSchema.safeParse(await socketRequest(endpoint.socketPath, searchRequestBody(request), options));
    if (!answer.success) throw new EthosError("shape", "response is not an Ethos envelope");
    if (answer.data.status !== "ok") throw new EthosError("status", `status ${answer.data.status}: ${answer.data.error ?? "no error text"}`);
    return toHits(answer.data.data);
  }
  const body: Record<string, unknown> = { query: request.query, limit: request.limit, use_spreading: false };
  const answer = await httpJsonRequest(endpoint.host, endpoint.port, "/search", body, options);
  const envelope = envelopeSchema.safeParse(answer);
  if (envelope.success && envelope.data.status === "error") throw new EthosError("status", `status error: ${envelope.data.error ?? "no error text"}`);
  return toHits(answer);
}
