// Test-only probe hook, loaded by the e2e harness into a real gateway. It records what the host
// really hands to hooks (no cfg secrets, no message bodies), and on chosen session keys mutates
// `bootstrapFiles` in one specific way so the tests can see which mutations the host honours.
// Self-contained on purpose (node: builtins only): it must load whether linked or copied.
import fs from "node:fs";
import path from "node:path";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type HookEvent = { type?: unknown; action?: unknown; sessionKey?: unknown; context?: Record<string, unknown>; timestamp?: unknown; messages?: unknown };
type Mutation = { keyContains: string; op: string };

// Ends-with match: `token`, `botToken`, `apiKey` are secrets; `maxTokens` is not.
const SECRET_KEY = /(token|api[-_]?key|secret|password|passwd|credentials?|cookie|authorization|private[-_]?key)$/i;
const BODY_KEY = /^(content|body|rawbody|bodyforagent|bodyforcommands|text|transcript|caption)$/i;
let seq = 0;
/** Names the "core-names" op adds; markers are `PROBE_NAME_<name>`. */
const PROBED_NAMES = ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "TOOLS.md"];

function logFile(): string | undefined {
  return process.env.OPENCLAW_E2E_PROBE_LOG || undefined;
}

function write(line: Record<string, Json>): void {
  const file = logFile();
  if (!file) return;
  seq += 1;
  fs.appendFileSync(file, `${JSON.stringify({ seq, t: Date.now(), pid: process.pid, ...line })}\n`);
}

/** JSON-safe deep copy with secrets replaced; bounded depth so a cyclic object cannot hang us. */
function redact(value: unknown, depth = 0): Json {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  if (value instanceof Date) return value.toISOString();
  if (depth > 12) return "[depth]";
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  if (typeof value === "object") {
    const out: Record<string, Json> = {};
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      out[key] = SECRET_KEY.test(key) && item !== undefined && typeof item !== "object" ? "[redacted]" : redact(item, depth + 1);
    }
    return out;
  }
  return `[${typeof value}]`;
}

/** Message context without bodies: each body-like string becomes its length. */
function withoutBodies(value: unknown, depth = 0): Json {
  if (depth > 6 || value === null || typeof value !== "object" || Array.isArray(value)) return redact(value, depth);
  const out: Record<string, Json> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (BODY_KEY.test(key) && typeof item === "string") out[key] = `[omitted: ${item.length} chars]`;
    else out[key] = withoutBodies(item, depth + 1);
  }
  return out;
}

function describeFiles(files: unknown): Json {
  if (!Array.isArray(files)) return null;
  return files.map((file) => {
    const record = (file ?? {}) as Record<string, unknown>;
    return {
      keys: Object.keys(record),
      name: redact(record.name),
      path: redact(record.path),
      missing: redact(record.missing),
      hasContent: typeof record.content === "string",
      contentChars: typeof record.content === "string" ? record.content.length : null,
      content: typeof record.content === "string" ? record.content : null,
      ...(record.personalUser !== undefined ? { personalUser: redact(record.personalUser) } : {}),
    };
  });
}

function probeMutations(cfg: unknown): Mutation[] {
  const entry = (cfg as { hooks?: { internal?: { entries?: Record<string, { mutations?: unknown }> } } } | undefined)?.hooks?.internal?.entries?.["e2e-probe"];
  return Array.isArray(entry?.mutations) ? (entry.mutations as Mutation[]).filter((m) => typeof m?.keyContains === "string" && typeof m?.op === "string") : [];
}

function record(name: string, workspaceDir: string, content: string): Record<string, unknown> {
  return { name, path: path.join(workspaceDir, name), content, missing: false };
}

/** One mutation per op; each leaves a marker the test can look for in the system prompt. */
function mutate(context: Record<string, unknown>, op: string): void {
  const workspaceDir = String(context.workspaceDir ?? "");
  const files = context.bootstrapFiles as Record<string, unknown>[];
  switch (op) {
    case "push":
      files.push(record("PROBE_PUSH.md", workspaceDir, "PROBE_PUSH_MARKER"));
      break;
    case "splice-soul": {
      const index = files.findIndex((f) => f.name === "SOUL.md");
      if (index >= 0) files.splice(index, 1);
      break;
    }
    case "reassign":
      context.bootstrapFiles = [...files.filter((f) => f.name !== "SOUL.md"), record("PROBE_REASSIGN.md", workspaceDir, "PROBE_REASSIGN_MARKER")];
      break;
    case "undefined":
      context.bootstrapFiles = undefined;
      break;
    case "custom-names":
      // A custom basename with inline content that differs from the file on disk, and one whose
      // path does not exist at all: is the content used as-is, and are custom names kept?
      files.push(record("ETHOS_CONTEXT.md", workspaceDir, "ETHOS_INLINE_MARKER"));
      files.push({ name: "TOOLS_COMPACT.md", path: path.join(workspaceDir, "nonexistent", "TOOLS_COMPACT.md"), content: "TOOLS_COMPACT_INLINE_MARKER", missing: false });
      break;
    case "core-names":
      // Names the host knows, added by a hook under a path of their own (the host de-duplicates
      // by path): which of them survive the host's post-hook session filter?
      for (const name of PROBED_NAMES) files.push({ name, path: path.join(workspaceDir, "probe-core", name), content: `PROBE_NAME_${name}`, missing: false });
      break;
    case "no-content":
      // A record without content whose file exists on disk: does the host re-read the path?
      files.push({ name: "PROBE_DISK.md", path: path.join(workspaceDir, "PROBE_DISK.md"), missing: false });
      break;
    case "throw":
      throw new Error("e2e-probe: deliberate failure");
    default:
      break;
  }
}

/** message:received handlers waiting for their session's next agent:bootstrap (see onMessageReceived). */
const bootstrapWaiters = new Map<string, (() => void)[]>();
/** Long enough that only a host which awaits message:received before bootstrap can reach it. */
const DELAY_PROBE_TIMEOUT_MS = 30_000;

function bootstrapSeen(sessionKey: string): void {
  const waiters = bootstrapWaiters.get(sessionKey) ?? [];
  bootstrapWaiters.delete(sessionKey);
  for (const wake of waiters) wake();
}

/** Resolves with "bootstrap" when this session's agent:bootstrap is logged, or "timeout". */
function nextBootstrapOf(sessionKey: string): Promise<"bootstrap" | "timeout"> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve("timeout"), DELAY_PROBE_TIMEOUT_MS);
    const waiters = bootstrapWaiters.get(sessionKey) ?? [];
    waiters.push(() => {
      clearTimeout(timer);
      resolve("bootstrap");
    });
    bootstrapWaiters.set(sessionKey, waiters);
  });
}

async function onBootstrap(event: HookEvent): Promise<void> {
  const context = event.context ?? {};
  const summary = {
    event: "agent:bootstrap",
    topKeys: Object.keys(event),
    type: redact(event.type),
    action: redact(event.action),
    sessionKey: redact(event.sessionKey),
    timestamp: redact(event.timestamp),
    timestampIsDate: event.timestamp instanceof Date,
    messagesLength: Array.isArray(event.messages) ? event.messages.length : null,
    contextKeys: Object.keys(context),
    context: {
      workspaceDir: redact(context.workspaceDir),
      sessionKey: redact(context.sessionKey),
      sessionId: redact(context.sessionId),
      agentId: redact(context.agentId),
      cfg: redact(context.cfg),
      bootstrapFilesType: Array.isArray(context.bootstrapFiles) ? "array" : context.bootstrapFiles === undefined ? "undefined" : typeof context.bootstrapFiles,
      bootstrapFiles: describeFiles(context.bootstrapFiles),
    },
  };
  write(summary);
  const key = typeof event.sessionKey === "string" ? event.sessionKey : "";
  bootstrapSeen(key);
  for (const mutation of probeMutations(context.cfg)) {
    if (!key.includes(mutation.keyContains) || !Array.isArray(context.bootstrapFiles)) continue;
    mutate(context, mutation.op);
    write({ event: "probe:mutated", sessionKey: key, op: mutation.op, bootstrapFilesAfter: describeFiles(context.bootstrapFiles) });
  }
}

async function onMessageReceived(event: HookEvent): Promise<void> {
  const context = event.context ?? {};
  const key = redact(event.sessionKey);
  write({ event: "message:received", phase: "start", topKeys: Object.keys(event), sessionKey: key, contextKeys: Object.keys(context), context: withoutBodies(context) });
  // A message containing this tag keeps the handler running until the same session's
  // agent:bootstrap has been logged (or a long timeout), so the test can see whether the host awaits
  // message:received before it builds the bootstrap list: the order of "end" and that bootstrap in
  // the log answers it, whatever the machine's speed. A host that awaits would never let the
  // bootstrap happen first, so the handler ends by timeout, before the bootstrap.
  if (typeof context.content === "string" && context.content.includes("[probe-delay]") && typeof event.sessionKey === "string") {
    const endedBy = await nextBootstrapOf(event.sessionKey);
    write({ event: "message:received", phase: "end", sessionKey: key, endedBy });
  }
}

/** message:preprocessed announces a run of the reply pipeline (heartbeats included); no bodies are logged. */
function onMessagePreprocessed(event: HookEvent): void {
  const context = event.context ?? {};
  write({ event: "message:preprocessed", sessionKey: redact(event.sessionKey), contextKeys: Object.keys(context), provider: redact(context.provider), surface: redact(context.surface), from: redact(context.from) });
}

export default async function e2eProbe(event: HookEvent): Promise<void> {
  if (event?.type === "agent" && event.action === "bootstrap") return onBootstrap(event);
  if (event?.type === "message" && event.action === "received") return onMessageReceived(event);
  if (event?.type === "message" && event.action === "preprocessed") return onMessagePreprocessed(event);
}
