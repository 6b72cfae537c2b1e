// The ethos-context hook (OpenClaw 2026.3): message:received captures the query synchronously (the
// gateway does not await this event) and triages the operator's message in the background;
// agent:bootstrap injects this turn's memories as one inline record, within a bounded wait;
// gateway:startup starts the maintenance schedule (maintenance.ts).
import { getLogger } from "../core/log.ts";
import { HOOK_KEYS } from "../host/ids.ts";
import { isAgentBootstrapEvent, isGatewayStartupEvent, isMessageReceivedEvent } from "../host/events.ts";
import { startMaintenanceOnGatewayStartup } from "./maintenance.ts";
import { hookPack, startHookPackLog } from "./service.ts";

startHookPackLog();

function warn(error: unknown, event: string): void {
  getLogger(HOOK_KEYS.ethosContext).warn(
    { event, err: error instanceof Error ? { name: error.name, message: error.message } : String(error) },
    "ethos-context: failed; turn continues without memory context",
  );
}

export default async function ethosContextHandler(event: unknown): Promise<void> {
  if (isGatewayStartupEvent(event)) {
    try {
      // Arms the maintenance schedule's timer and returns; the passes run in the background.
      startMaintenanceOnGatewayStartup(event);
    } catch (error) {
      warn(error, "gateway:startup");
    }
    return;
  }
  if (isMessageReceivedEvent(event)) {
    try {
      hookPack.onMessageReceived(event);
    } catch (error) {
      warn(error, "message:received");
    }
    return;
  }
  if (!isAgentBootstrapEvent(event)) return;
  const received = event.context.bootstrapFiles;
  try {
    const files = await hookPack.onAgentBootstrap(event);
    if (files) event.context.bootstrapFiles = files;
  } catch (error) {
    event.context.bootstrapFiles = received; // never harm a turn: the list stays as received
    warn(error, "agent:bootstrap");
  }
}
