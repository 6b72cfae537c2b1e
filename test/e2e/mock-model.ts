// A mock OpenAI-compatible model server for the e2e suite. It binds 127.0.0.1 on a free port,
// answers `/v1/chat/completions` both plain and `stream:true` (SSE), answers `/v1/models`, and
// records every request body so a test can read the exact system prompt OpenClaw sent
// (`messages[0]`, role "system").
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
  baseUrl: string;
  port: number;
  requests: RecordedRequest[];
  /** Text of `messages[0]` when it is the system message. */
  systemPromptOf(request: RecordedRequest): string;
  /** Text of the last user message. */
  lastUserTextOf(request: RecordedRequest): string;
  /** All user messages' text, joined (OpenClaw appends internal-context user messages after the real one). */
  userTextOf(request: RecordedRequest): string;
  /** Newest chat request with a user message containing `needle`. */
  findByUserText(needle: string): RecordedRequest | undefined;
  /** Newest chat request whose system prompt contains `needle`. */
  findBySystemPrompt(needle: string): RecordedRequest | undefined;
  /** Waits (bounded) until a chat request with a user message containing `needle` arrives. */
  waitForUserText(needle: string, timeoutMs: number): Promise<RecordedRequest>;
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

function messagesOf(request: RecordedRequest): ChatMessage[] {
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
      if (body.stream === true) writeSse(res, model);
      else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(plainCompletion(model)));
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  const systemPromptOf = (request: RecordedRequest): string => {
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
  const findByUserText = (needle: string) => newest((r) => userTextOf(r).includes(needle));

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    systemPromptOf,
    lastUserTextOf,
    userTextOf,
    findByUserText,
    findBySystemPrompt: (needle) => newest((r) => systemPromptOf(r).includes(needle)),
    waitForUserText(needle, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = findByUserText(needle);
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
