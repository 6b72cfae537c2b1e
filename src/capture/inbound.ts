import { sessionTag } from "../core/bounded-id.ts";
import { getLogger } from "../core/log.ts";
import { HOOK_KEYS } from "../host/ids.ts";
import type { MessageReceivedEvent } from "../host/events.ts";
import { sessionKeyOf } from "../host/events.ts";
import { loadHygieneConfigCached } from "../memory/config-md.ts";
import { triageInboundMessage } from "./triage.ts";
import { MAX_PENDING_TRIAGES, TriageQueue } from "./triage-queue.ts";

/** The `event` of the line a triaged message logs (status --last shows its capture). */
export const TRIAGE_EVENT = "capture.triaged";

/** One queue for the process: the thread pool and the event loop a burst would flood are the process's. */
const queue = new TriageQueue();

/**
 * Triage the operator's inbound message (spec 004 §7) and capture what it asks to remember, in the
 * background (triage-queue.ts: a few messages at a time, in arrival order). message:received is not
 * awaited by the gateway, and lock contention can make the writes wait for seconds, so this never
 * holds anything up and never throws; the promise settles when the message has been triaged. The caller decides
 * that the message is the operator's (the turn's one classification, sender included) and in which
 * workspace (src/context/turn-service.ts): every capture that gets here is the operator's.
 */
export function startInboundTriage(event: MessageReceivedEvent, workspaceDir: string): Promise<void> {
  const messageId = typeof event.context.messageId === "string" ? event.context.messageId : undefined;
  const channelId = typeof event.context.channelId === "string" ? event.context.channelId : undefined;
  const queued = queue.push(() =>
    loadHygieneConfigCached(workspaceDir)
      .then(({ config }) =>
        triageInboundMessage({ content: event.context.content, sessionKey: sessionKeyOf(event), messageId, channelId, workspaceDir, config, capture: true }),
      )
      .then((outcome) => {
        if (outcome.flagged) {
          getLogger(HOOK_KEYS.ethosContext).info(
            {
              event: TRIAGE_EVENT,
              session: sessionTag(sessionKeyOf(event)),
              classes: outcome.matches.map((m) => m.class),
              correction: outcome.correction?.id,
              // The first fact's, and every fact's when the message had several (status --last lists each).
              capture: outcome.capture?.action,
              ...((outcome.captures?.length ?? 0) > 1 ? { captures: outcome.captures!.map((c) => c.action) } : {}),
            },
            "message triaged",
          );
        }
      })
      .catch((error: unknown) => getLogger(HOOK_KEYS.ethosContext).warn({ err: (error as Error).message }, "triage failed")),
  );
  if (queued) return queued;
  getLogger(HOOK_KEYS.ethosContext).warn({ event: TRIAGE_EVENT, session: sessionTag(sessionKeyOf(event)), pending: MAX_PENDING_TRIAGES }, "triage queue full: message not triaged");
  return Promise.resolve();
}
