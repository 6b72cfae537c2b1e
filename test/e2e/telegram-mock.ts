// A loopback mock of the Telegram Bot API, for the one channel through which a test can put a
// second person into the owner's main session: OpenClaw 2026.9's bundled Telegram channel takes
// `channels.telegram.apiRoot`, long-polls getUpdates here and answers with sendMessage. chat.send
// and the agent RPC cannot set a sender (webchat is always the operator). Only what a polling bot
// calls is served; every other method answers `true`. No timer decides anything: a test waits for
// the bot's calls (waitForMessage), each wait bounded.
import http from "node:http";
import type { AddressInfo } from "node:net";

export type TelegramCall = { method: string; body: Record<string, unknown> };
export type TelegramPerson = { id: number; firstName: string; username: string };

export type MockTelegram = {
  apiRoot: string;
  /** Every call but getUpdates, in arrival order. */
  calls: TelegramCall[];
  /** A private-chat message from `from` to the bot (delivered on the next getUpdates). */
  pushDm(from: TelegramPerson, text: string): void;
  /** Waits (bounded) for a sendMessage to `chatId` whose text matches, sent after call number `after`. */
  waitForMessage(chatId: number, matches: (text: string) => boolean, timeoutMs: number, after?: number): Promise<string>;
  stop(): Promise<void>;
};

/** Long polls end after at most this long (the bot asks again): a stopping gateway never waits longer. */
const MAX_POLL_MS = 2_000;

/** A token in the shape Telegram issues (`<bot id>:<35 characters>`); the mock accepts any. */
export const MOCK_BOT_TOKEN = "123456789:AAE0123456789abcdefghijklmnopqrstuv";

/**
 * The openclaw.json keys for a Telegram channel against `mock` (2026.9): DMs from `ownerId` are
 * admitted, anyone else is offered a pairing code. Owners come from `commands.ownerAllowFrom`,
 * set here BEFORE any pairing is approved: approving with an empty list makes the approved sender
 * the command owner (OpenClaw's bootstrapCommandOwnerFromPairing).
 */
export function telegramChannelConfig(mock: MockTelegram, ownerId: number): Record<string, unknown> {
  return {
    session: { dmScope: "main" },
    commands: { ownerAllowFrom: [`telegram:${ownerId}`] },
    channels: { telegram: { enabled: true, botToken: MOCK_BOT_TOKEN, apiRoot: mock.apiRoot, dmPolicy: "pairing", allowFrom: [String(ownerId)] } },
  };
}

/** The code in the bot's pairing reply ("… openclaw pairing approve telegram <CODE>"). */
export function pairingCode(text: string): string | undefined {
  return /openclaw pairing approve telegram ([A-Z0-9]+)/.exec(text)?.[1];
}

export async function startMockTelegram(): Promise<MockTelegram> {
  const calls: TelegramCall[] = [];
  const updates: { update_id: number; message: Record<string, unknown> }[] = [];
  const wakers = new Set<() => void>();
  const wakeAll = () => {
    for (const wake of wakers) wake();
  };
  let nextUpdate = 1000;
  let nextMessage = 500;
  const bot = { id: 123456789, is_bot: true, first_name: "E2E Bot", username: "e2e_test_bot", can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false };

  /** Resolves on the next wake-up or after `ms`, whichever comes first. */
  const nap = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      wakers.add(wake);
    });

  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (chunk: Buffer) => parts.push(chunk));
    req.on("end", async () => {
      const method = /\/bot[^/]+\/([A-Za-z]+)/.exec(req.url ?? "")?.[1] ?? "";
      const raw = Buffer.concat(parts).toString("utf8");
      let body: Record<string, unknown> = {};
      try {
        body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      } catch {
        body = Object.fromEntries(new URLSearchParams(raw));
      }
      const reply = (result: unknown) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ ok: true, result }));
      };
      if (method === "getUpdates") {
        const offset = Number(body.offset ?? 0);
        const pending = () => updates.filter((update) => update.update_id >= offset);
        if (pending().length === 0) await nap(Math.min(Number(body.timeout ?? 1) * 1000, MAX_POLL_MS));
        reply(pending());
        return;
      }
      calls.push({ method, body });
      wakeAll();
      switch (method) {
        case "getMe":
          return reply(bot);
        case "sendMessage":
        case "editMessageText":
          return reply({ message_id: nextMessage++, date: Math.floor(Date.now() / 1000), chat: { id: Number(body.chat_id), type: "private" }, from: bot, text: body.text ?? "" });
        case "getWebhookInfo":
          return reply({ url: "", has_custom_certificate: false, pending_update_count: 0 });
        case "getMyCommands":
          return reply([]);
        case "getChat":
          return reply({ id: Number(body.chat_id), type: "private" });
        default:
          return reply(true);
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  const sentTo = (chatId: number, matches: (text: string) => boolean, after: number) =>
    calls.slice(after).find((call) => call.method === "sendMessage" && String(call.body.chat_id) === String(chatId) && matches(String(call.body.text ?? "")));

  return {
    apiRoot: `http://127.0.0.1:${port}`,
    calls,
    pushDm(from, text) {
      const chat = { id: from.id, type: "private", first_name: from.firstName, username: from.username };
      const sender = { id: from.id, is_bot: false, first_name: from.firstName, username: from.username, language_code: "en" };
      updates.push({ update_id: nextUpdate++, message: { message_id: nextMessage++, date: Math.floor(Date.now() / 1000), chat, from: sender, text } });
      wakeAll();
    },
    async waitForMessage(chatId, matches, timeoutMs, after = 0) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = sentTo(chatId, matches, after);
        if (found) return String(found.body.text ?? "");
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`mock Telegram: no sendMessage to ${chatId} matching within ${timeoutMs} ms (calls: ${calls.map((c) => c.method).join(", ")})`);
        await nap(left);
      }
    },
    stop: () =>
      new Promise<void>((resolve) => {
        wakeAll();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
