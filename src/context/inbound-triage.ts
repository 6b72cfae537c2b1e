import { getLogger } from "../core/log.ts";
import { HOOK_KEYS } from "../host/ids.ts";
import { loadHygieneConfigCached } from "../memory/config-md.ts";
import { triageInboundMessage } from "../capture/triage.ts";
import type { MessageReceivedEvent } from "../host/events.ts";
import { sessionKeyOf } from "../host/events.ts";
import type { MessageTurn } from "./runtime.ts";

/**
 * Who says which workspace a message is triaged in (undefined: not the operator's, or triage off):
 * the hook's runtime, or the plugin package's own resolver (src/plugin-package/triage-hook.ts).
 */
export type OperatorWorkspaceResolver = { operatorWorkspaceForMessage(event: MessageReceivedEvent, turn?: MessageTurn): string | undefined };

/**
 * Triage the operator's inbound message (spec 004 §7) and capture what it asks to remember, in the
 * background. message:received is not awaited by the gateway, and lock contention can make the
 * writes wait for seconds, so this never holds anything up and never throws. Only the operator's
 * own sessions get here (the turn's one classification), so every capture is the operator's.
 */
export function startInboundTriage(event: MessageReceivedEvent, runtime: OperatorWorkspaceResolver, turn?: MessageTurn): Promise<void> {
  const workspaceDir = runtime.operatorWorkspaceForMessage(event, turn);
  if (!workspaceDir) return Promise.resolve();
  const messageId = typeof event.context.messageId === "string" ? event.context.messageId : undefined;
  const channelId = typeof event.context.channelId === "string" ? event.context.channelId : undefined;
  return loadHygieneConfigCached(workspaceDir)
    .then(({ config }) =>
      triageInboundMessage({ content: event.context.content, sessionKey: sessionKeyOf(event), messageId, channelId, workspaceDir, config, capture: true }),
    )
    .then((outcome) => {
      if (outcome.flagged) {
        getLogger(HOOK_KEYS.ethosContext).info(
          { classes: outcome.matches.map((m) => m.class), correction: outcome.correction?.id, capture: outcome.capture?.action },
          "message triaged",
        );
      }
    })
    .catch((error: unknown) => getLogger(HOOK_KEYS.ethosContext).warn({ err: (error as Error).message }, "triage failed"));
}
