// Heartbeat runs in a shared session. They use that session's own key (the main key by default), and
// `agent:bootstrap` carries no heartbeat flag (HOOK_ASSUMPTIONS `keyHeartbeat`,
// `bootstrapContextKeys`), so by the key alone a heartbeat is a main-session turn and gets the main
// set without HEARTBEAT.md. On 2026.3.13, which has no plugin path, the host says it one step
// earlier: every run that goes through its reply pipeline emits `message:preprocessed` before the
// agent starts, and a heartbeat run's context says `provider: "heartbeat"` ("exec-event" or
// "cron-event" when such an event woke it) (HOOK_ASSUMPTIONS `preprocessedHeartbeat`). The handler
// (subscribed to the `message` family, whose handlers run first) notes the key synchronously; the
// next `agent:bootstrap` of that key takes the note and gets the HEARTBEAT_CRON set. Any other run
// of the key through that pipeline clears the note. `from` is not used: it is the delivery target
// when one is configured. 2026.9.6 sets no provider on a heartbeat (its plugin path uses `trigger`).
import { isObject, sessionKeyOf } from "../host/events.ts";
import type { InternalHookEvent } from "../host/events.ts";
import type { SessionClassification } from "../session/types.ts";

/** `ctx.Provider` of the runs 2026.3.13's heartbeat runner starts (`runHeartbeatOnce`). */
export const HEARTBEAT_PROVIDERS: ReadonlySet<string> = new Set(["heartbeat", "exec-event", "cron-event"]);
/** A note older than this is not this run's (the run's bootstrap follows within the same turn). */
export const HEARTBEAT_MARK_TTL_MS = 120_000;
const MAX_MARKS = 256;

const marks = new Map<string, number>();

function isMessagePreprocessedEvent(event: unknown): event is InternalHookEvent {
  return isObject(event) && event.type === "message" && event.action === "preprocessed" && isObject(event.context);
}

/** message:preprocessed: note (or clear) whether the run about to start on this key is a heartbeat. Never throws. */
export function noteRunStart(event: unknown, now = Date.now()): void {
  try {
    if (!isMessagePreprocessedEvent(event)) return;
    const key = sessionKeyOf(event);
    if (!key) return;
    const provider = (event.context as { provider?: unknown }).provider;
    if (typeof provider === "string" && HEARTBEAT_PROVIDERS.has(provider.toLowerCase())) {
      if (marks.size >= MAX_MARKS) marks.clear();
      marks.set(key, now);
    } else marks.delete(key);
  } catch {
    // an event whose fields throw is not one we can read: no note
  }
}

/** Whether the run whose bootstrap this is was announced as a heartbeat; the note is used up. */
export function takeHeartbeatMark(sessionKey: string | undefined, now = Date.now()): boolean {
  if (!sessionKey) return false;
  const at = marks.get(sessionKey);
  if (at === undefined) return false;
  marks.delete(sessionKey);
  return now - at <= HEARTBEAT_MARK_TTL_MS;
}

/** A heartbeat run is automation: the HEARTBEAT_CRON set (SOUL.md, HEARTBEAT.md), whatever its key's type. */
export function asHeartbeatRun(classification: SessionClassification): SessionClassification {
  if (classification.type === "SUBAGENT" || classification.type === "HEARTBEAT_CRON") return classification;
  return { ...classification, type: "HEARTBEAT_CRON", rule: "heartbeat-run", baseType: classification.baseType ?? classification.type };
}

/** Tests only. */
export function resetHeartbeatMarks(): void {
  marks.clear();
}
