// A mock model server for the e2e suite. It binds 127.0.0.1 on a free port, answers OpenAI's
// `/v1/chat/completions` and Anthropic's `/v1/messages`, both plain and `stream:true` (SSE),
// answers `/v1/models`, and records every request body so a test can read the exact system prompt
// OpenClaw sent (`messages[0]` with role "system", or Anthropic's top-level `system`).
import http from "node:http";
import type { AddressInfo } from "node:net";

export type ChatMessage = { role: string; content: unknown };

export type RecordedRequest = {
  /** Arrival order, starting at 1. */
  seq: number;
  url: string;
  body: Record<string, unknown>;
  receivedAt: number;
};

export type MockModel = {
  /** OpenAI-style base URL (`…/v1`). */
  baseUrl: string;
  /** Anthropic-style base URL (the SDK appends `/v1/messages`). */
  anthropicBaseUrl: string;
  port: number;
  requests: RecordedRequest[];
  /** Text of `messages[0]` when it is the system message. */
  systemPromptOf(request: RecordedRequest): string;
  /** Text of the last user message. */
  lastUserTextOf(request: RecordedRequest): string;
  /** All user messages' text, joined (OpenClaw appends internal-context user messages after the real one). */
  userTextOf(request: RecordedRequest): string;
  /** Newest chat request with a user message containing `needle` (only requests after number `afterSeq`, when given). */
  findByUserText(needle: string, afterSeq?: number): RecordedRequest | undefined;
  /** Newest chat request whose system prompt contains `needle`. */
  findBySystemPrompt(needle: string): RecordedRequest | undefined;
  /**
   * Waits (bounded) until a chat request with a user message containing `needle` arrives; with
   * `afterSeq`, one after request number `afterSeq` (an earlier turn may have sent the same words).
   */
  waitForUserText(needle: string, timeoutMs: number, afterSeq?: number): Promise<RecordedRequest>;
  stop(): Promise<void>;
};

export const MOCK_REPLY = "mock-model reply: ok";

/** Flattens OpenAI message content (string or array of parts) to plain text. */
export function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (part && typeof part === "object" && typeof (part as { text?: unknown }).text === "string" ? (part as { text: string }).text : ""))
      .join("");
  }
  return "";
}

/** The request's `messages` (OpenAI or Anthropic), or none. */
export function messagesOf(request: RecordedRequest): ChatMessage[] {
  const messages = request.body.messages;
  return Array.isArray(messages) ? (messages as ChatMessage[]) : [];
}

function plainCompletion(model: string): Record<string, unknown> {
  return {
    id: `chatcmpl-mock-${Date.now()}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: "assistant", content: MOCK_REPLY }, finish_reason: "stop" }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

function writeSse(res: http.ServerResponse, model: string): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const base = { id: `chatcmpl-mock-${Date.now()}`, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model };
  const chunks = [
    { ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: { content: MOCK_REPLY }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } },
  ];
  for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  res.write("data: [DONE]\n\n");
  res.end();
}

function anthropicMessage(model: string): Record<string, unknown> {
  return {
    id: `msg_mock_${Date.now()}`,
    type: "message",
    role: "assistant",
    model,
    content: [{ type: "text", text: MOCK_REPLY }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  };
}

/** Anthropic's streaming event sequence for one text block. */
function writeAnthropicSse(res: http.ServerResponse, model: string): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const { content: _content, ...start } = anthropicMessage(model);
  const events: [string, Record<string, unknown>][] = [
    ["message_start", { type: "message_start", message: { ...start, content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } }],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: MOCK_REPLY } }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 5 } }],
    ["message_stop", { type: "message_stop" }],
  ];
  for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  res.end();
}

export async function startMockModel(): Promise<MockModel> {
  const requests: RecordedRequest[] = [];
  const waiters = new Set<() => void>();

  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (chunk: Buffer) => parts.push(chunk));
    req.on("end", () => {
      const url = req.url ?? "/";
      if (req.method === "GET" && url.endsWith("/models")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [{ id: "mock-model", object: "model", owned_by: "e2e" }] }));
        return;
      }
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(parts).toString("utf8") || "{}") as Record<string, unknown>;
      } catch {
        res.writeHead(400).end("bad json");
        return;
      }
      requests.push({ seq: requests.length + 1, url, body, receivedAt: Date.now() });
      for (const wake of waiters) wake();
      const model = typeof body.model === "string" ? body.model : "mock-model";
      const anthropic = url.split("?")[0]!.endsWith("/messages");
      if (body.stream === true) (anthropic ? writeAnthropicSse : writeSse)(res, model);
      else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(anthropic ? anthropicMessage(model) : plainCompletion(model)));
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  const systemPromptOf = (request: RecordedRequest): string => {
    if (request.body.system !== undefined) return messageText(request.body.system);
    const first = messagesOf(request)[0];
    return first && (first.role === "system" || first.role === "developer") ? messageText(first.content) : "";
  };
  const lastUserTextOf = (request: RecordedRequest): string => {
    const users = messagesOf(request).filter((m) => m.role === "user");
    return users.length ? messageText(users[users.length - 1]!.content) : "";
  };
  const userTextOf = (request: RecordedRequest): string =>
    messagesOf(request)
      .filter((m) => m.role === "user")
      .map((m) => messageText(m.content))
      .join("\n");
  const newest = (predicate: (r: RecordedRequest) => boolean) => [...requests].reverse().find(predicate);
  const findByUserText = (needle: string, afterSeq = 0) => newest((r) => r.seq > afterSeq && userTextOf(r).includes(needle));

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    anthropicBaseUrl: `http://127.0.0.1:${port}`,
    port,
    requests,
    systemPromptOf,
    lastUserTextOf,
    userTextOf,
    findByUserText,
    findBySystemPrompt: (needle) => newest((r) => systemPromptOf(r).includes(needle)),
    waitForUserText(needle, timeoutMs, afterSeq = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = findByUserText(needle, afterSeq);
          if (!found) return false;
          cleanup();
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`mock model: no request with user text containing ${JSON.stringify(needle)} within ${timeoutMs}ms (${requests.length} requests seen)`));
        }, timeoutMs);
        const wake = () => void check();
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(wake);
        };
        waiters.add(wake);
        check();
      });
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
