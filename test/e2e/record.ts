// Writes the real events the probe hook saw into fixtures/events/<version>/ (only when
// OPENCLAW_CONTEXT_RECORD=1): unit tests replay them. The probe already dropped cfg secrets and
// message bodies; here the throwaway workspace path becomes a stable placeholder.
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "./gateway.ts";
import type { ProbeEvent } from "./gateway.ts";

export const RECORDED_WORKSPACE = "/e2e/workspace";
const VOLATILE_KEYS = new Set(["seq", "t", "pid"]);

function normalise(value: unknown, workspaceDir: string, root: string): unknown {
  if (typeof value === "string") return value.split(workspaceDir).join(RECORDED_WORKSPACE).split(root).join("/e2e");
  if (Array.isArray(value)) return value.map((item) => normalise(item, workspaceDir, root));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).filter(([key]) => !VOLATILE_KEYS.has(key)).map(([key, item]) => [key, normalise(item, workspaceDir, root)]));
  }
  return value;
}

/** One file per session type and event: `agent-bootstrap.<session>.json`, `message-received.<session>.json`. */
export function recordFixtures(version: string, workspaceDir: string, events: ProbeEvent[], sessionKeys: Record<string, string | undefined>): string[] {
  const dir = path.join(REPO_ROOT, "fixtures", "events", version);
  fs.mkdirSync(dir, { recursive: true });
  const root = path.dirname(workspaceDir);
  const written: string[] = [];
  for (const [session, key] of Object.entries(sessionKeys)) {
    if (!key) continue;
    for (const kind of ["agent:bootstrap", "message:received"]) {
      const matches = events.filter((e) => e.event === kind && e.sessionKey === key && (kind !== "message:received" || e.phase === "start"));
      // A heartbeat runs in the main session: its event is the last one with the main key.
      // (Heartbeat runs emit no message:received, so a single main-key match is not the heartbeat's.)
      const event = session === "heartbeat" ? (matches.length >= 2 ? matches.at(-1) : undefined) : matches[0];
      if (!event) continue;
      const file = path.join(dir, `${kind.replace(":", "-")}.${session}.json`);
      fs.writeFileSync(file, `${JSON.stringify({ recordedFrom: `openclaw ${version}`, session, ...(normalise(event, workspaceDir, root) as object) }, null, 2)}\n`);
      written.push(file);
    }
  }
  return written;
}
