// Fast checks of the e2e harness pieces that need no gateway: the mock model and the prompt parser.
import { afterEach, describe, expect, it } from "vitest";
import { MOCK_REPLY, startMockModel } from "./mock-model.ts";
import type { MockModel } from "./mock-model.ts";
import { injectedChars, injectedNames, parseInjectedFiles } from "./prompt.ts";
import { readAssumptionsDoc } from "./assumptions.ts";
import { MOCK_BOT_TOKEN, pairingCode, startMockTelegram } from "./telegram-mock.ts";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

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
