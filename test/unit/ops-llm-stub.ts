// Loopback stand-in for a local LLM: speaks Ollama's /api/chat and OpenAI's /v1/chat/completions.
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type StubReply = { answer: string } | { hang: true } | { status: number; body: string };
export type StubRequest = { path: string; body: { model?: string; messages?: { role: string; content: string }[] } };
export type LlmStub = { ollamaUrl: string; openaiUrl: string; requests: StubRequest[]; stop(): Promise<void> };

/** `replies[i]` answers the i-th request (the last one repeats). */
export async function startLlmStub(replies: StubReply[]): Promise<LlmStub> {
  const requests: StubRequest[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      const body = JSON.parse(raw || "{}");
      requests.push({ path: req.url ?? "", body });
      const reply = replies[Math.min(requests.length - 1, replies.length - 1)];
      if ("hang" in reply) return; // never answers: the client's timeout must fire
      if ("status" in reply) {
        res.writeHead(reply.status, { "content-type": "text/plain" }).end(reply.body);
        return;
      }
      const payload =
        req.url === "/api/chat"
          ? { model: body.model, message: { role: "assistant", content: reply.answer }, done: true }
          : req.url === "/v1/chat/completions"
            ? { id: "stub", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: reply.answer }, finish_reason: "stop" }] }
            : undefined;
      if (!payload) {
        res.writeHead(404).end("not found");
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(payload));
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ollamaUrl: `http://127.0.0.1:${port}`,
    openaiUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
