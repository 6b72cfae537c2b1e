// In-process timing of the ethos-context handlers on a copy of the sample workspace: the
// message:received handler (query extraction, skip rules, start of retrieval) and the
// agent:bootstrap handler (await the pending retrieval, gate, budget, inject, ETHOS_CONTEXT.md).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { HOOK_KEYS, RETRIEVED_MEMORY_RECORD_NAME } from "../../src/host/ids.ts";
import { estimateTokens } from "../../src/core/tokens.ts";
import { median, percentile } from "../lib/metrics.ts";
import { REPO_ROOT, SAMPLE_WORKSPACE } from "../lib/paths.ts";

type Handler = (event: unknown) => Promise<void> | void;

/** The files OpenClaw puts in context.bootstrapFiles by default (its bulk set). */
const BOOTSTRAP_NAMES = ["AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "MEMORY.md"];

/** Questions about facts in the sample workspace's memory (bench/hooks/memory-questions.json). */
export const MEMORY_MESSAGES: readonly string[] = (
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "bench", "hooks", "memory-questions.json"), "utf8")) as { questions: string[] }
).questions;
export const SKIP_MESSAGES = ["thanks!", "ok", "How do I reverse a list in Python?", "good morning", "TypeError: x is undefined"];

export type EventTiming = { event: string; messages: string; n: number; medianUs: number; p99Us: number };
export type MessageSetResult = { messages: string; injectedRate: number; injectedTokensMedian: number };
export type InProcessResult = { timings: EventTiming[]; sets: MessageSetResult[] };

function bootstrapFiles(workspaceDir: string): Record<string, unknown>[] {
  return BOOTSTRAP_NAMES.map((name) => {
    const file = path.join(workspaceDir, name);
    const exists = fs.existsSync(file);
    return exists ? { name, path: file, content: fs.readFileSync(file, "utf8"), missing: false } : { name, path: file, missing: true };
  });
}

function openClawConfig(workspaceDir: string): Record<string, unknown> {
  return {
    agents: { defaults: { workspace: workspaceDir } },
    hooks: { internal: { enabled: true, entries: { [HOOK_KEYS.ethosContext]: { enabled: true }, [HOOK_KEYS.aciBootstrap]: { enabled: true } } } },
  };
}

export async function loadEthosContextHandler(): Promise<Handler> {
  const module = (await import(path.join(REPO_ROOT, "hooks", "ethos-context", "handler.ts"))) as { default?: unknown };
  if (typeof module.default !== "function") throw new Error("hooks/ethos-context/handler.ts has no default export handler");
  return module.default as Handler;
}

/** Waits (bounded) until `file` has not changed for 250 ms. */
async function waitUntilQuiet(file: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const stamp = () => (fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0);
  let last = stamp();
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = stamp();
    if (now === last) return;
    last = now;
  }
}

/**
 * Times `iterations` turns per message set. Each turn uses a fresh main-session thread key, so
 * per-session de-duplication and debounce never turn a real retrieval into a no-op.
 */
export async function measureInProcess(options: { iterations: number }): Promise<InProcessResult> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "occ-bench-hooks-"));
  const workspaceDir = path.join(root, "workspace");
  fs.cpSync(SAMPLE_WORKSPACE, workspaceDir, { recursive: true });
  const cfg = openClawConfig(workspaceDir);
  // The hook reads openclaw.json from disk on message:received, as inside the gateway.
  const stateDir = path.join(root, "state");
  fs.mkdirSync(stateDir, { recursive: true });
  fs.writeFileSync(path.join(stateDir, "openclaw.json"), JSON.stringify(cfg, null, 2));
  const savedEnv = { ...process.env };
  process.env.OPENCLAW_STATE_DIR = stateDir;
  process.env.OPENCLAW_CONFIG_PATH = path.join(stateDir, "openclaw.json");
  process.env.OPENCLAW_CONTEXT_INDEX_CACHE_DIR = path.join(root, "index-cache");
  try {
    const handler = await loadEthosContextHandler();
    const timings: EventTiming[] = [];
    const sets: MessageSetResult[] = [];
    for (const [label, messages] of [
      ["memory questions", MEMORY_MESSAGES],
      ["chit-chat / technical (skipped)", SKIP_MESSAGES],
    ] as const) {
      const received: number[] = [];
      const bootstrap: number[] = [];
      const injected: number[] = [];
      // Warm-up turns build the shared index and JIT the path; they are not counted.
      for (let i = -5; i < options.iterations; i++) {
        const sessionKey = `agent:main:main:thread:bench-${label.length}-${i + 5}`;
        const content = messages[(i + 5) % messages.length];
        const messageEvent = {
          type: "message",
          action: "received",
          sessionKey,
          timestamp: new Date(),
          messages: [],
          context: { from: "owner", content, channelId: "webchat", conversationId: sessionKey, messageId: `m-${label.length}-${i + 5}` },
        };
        const files = bootstrapFiles(workspaceDir);
        const bootstrapEvent = {
          type: "agent",
          action: "bootstrap",
          sessionKey,
          timestamp: new Date(),
          messages: [],
          context: { workspaceDir, bootstrapFiles: files, cfg, sessionKey, agentId: "main" },
        };
        let start = performance.now();
        await handler(messageEvent);
        const receivedUs = (performance.now() - start) * 1000;
        start = performance.now();
        await handler(bootstrapEvent);
        const bootstrapUs = (performance.now() - start) * 1000;
        if (i < 0) continue;
        received.push(receivedUs);
        bootstrap.push(bootstrapUs);
        const after = bootstrapEvent.context.bootstrapFiles as { name?: string; content?: string }[];
        const record = Array.isArray(after) ? after.find((f) => f.name === RETRIEVED_MEMORY_RECORD_NAME) : undefined;
        if (record?.content) injected.push(estimateTokens(record.content));
      }
      const total = received.map((r, i) => r + bootstrap[i]);
      timings.push({ event: "message:received", messages: label, n: received.length, medianUs: median(received), p99Us: percentile(received, 99) });
      timings.push({ event: "agent:bootstrap", messages: label, n: bootstrap.length, medianUs: median(bootstrap), p99Us: percentile(bootstrap, 99) });
      timings.push({ event: "both (one turn)", messages: label, n: total.length, medianUs: median(total), p99Us: percentile(total, 99) });
      sets.push({ messages: label, injectedRate: injected.length / Math.max(1, received.length), injectedTokensMedian: injected.length ? median(injected) : 0 });
    }
    return { timings, sets };
  } finally {
    // ETHOS_CONTEXT.md is written in the background after each turn; let the queued writes land.
    await waitUntilQuiet(path.join(workspaceDir, RETRIEVED_MEMORY_RECORD_NAME), 5_000);
    process.env = savedEnv;
    fs.rmSync(root, { recursive: true, force: true });
  }
}
