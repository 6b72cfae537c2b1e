import crypto from "node:crypto";
import { parseCliJson, runOpenClaw } from "./openclaw-cli.ts";

// Live mode of capture-baseline: ask a running gateway for its own `/context json` report
// (internals §8: chat.send with the slash command, then read the reply from chat.history).

export type HostFileReport = { name: string; path?: string; missing?: boolean; rawChars?: number; injectedChars?: number; truncated?: boolean };
export type LiveContextReport = { sessionKey: string; files: HostFileReport[]; raw: unknown };

/** chat.history truncates message text at 8,000 chars by default; the /context json reply is longer. 500,000 is the schema's maximum. */
const HISTORY_MAX_CHARS = 500_000;

export type GatewayTarget = { cli: string; url?: string; token?: string; env?: NodeJS.ProcessEnv };

function targetArgs(target: GatewayTarget): string[] {
  const args: string[] = [];
  if (target.url) args.push("--url", target.url);
  if (target.token) args.push("--token", target.token);
  return args;
}

/** Every string anywhere inside a JSON value (chat.history message shapes vary by channel). */
function collectStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, out);
  else if (value && typeof value === "object") for (const item of Object.values(value)) collectStrings(item, out);
  return out;
}

/** The newest `/context json` reply in a chat.history payload, if any. */
export function findContextReport(history: unknown): { files: HostFileReport[]; raw: unknown } | undefined {
  const strings = collectStrings(history).filter((text) => text.includes("injectedWorkspaceFiles"));
  for (const text of strings.reverse()) {
    const parsed = parseCliJson(text) as { report?: { injectedWorkspaceFiles?: unknown } } | undefined;
    const files = parsed?.report?.injectedWorkspaceFiles;
    if (Array.isArray(files)) return { files: files as HostFileReport[], raw: parsed };
  }
  return undefined;
}

export async function captureLiveContext(target: GatewayTarget, sessionKey: string, options: { timeoutMs?: number; pollMs?: number } = {}): Promise<LiveContextReport> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const send = await runOpenClaw(
    target.cli,
    ["gateway", "call", "chat.send", "--json", "--params", JSON.stringify({ sessionKey, message: "/context json", idempotencyKey: `aci-baseline-${crypto.randomUUID()}` }), ...targetArgs(target)],
    { env: target.env, timeoutMs },
  );
  if (send.code !== 0) throw new Error(`gateway not reachable: openclaw gateway call chat.send exited ${send.code}: ${(send.stderr || send.stdout).trim().split("\n")[0]}`);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const history = await runOpenClaw(target.cli, ["gateway", "call", "chat.history", "--json", "--params", JSON.stringify({ sessionKey, limit: 20, maxChars: HISTORY_MAX_CHARS }), ...targetArgs(target)], {
      env: target.env,
      timeoutMs,
    });
    if (history.code === 0) {
      const found = findContextReport(parseCliJson(history.stdout));
      if (found) return { sessionKey, ...found };
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 1000));
  }
  throw new Error(`no /context json reply in chat.history for ${sessionKey} within ${timeoutMs} ms`);
}
