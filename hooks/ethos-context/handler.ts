// ethos-context: thin entry point. Type guard → src/context runtime → catch everything.
// message:received captures the query synchronously (the gateway does not await this event);
// agent:bootstrap injects this turn's memories as one inline record, within a bounded wait.
// gateway:startup starts the maintenance schedule (src/context/maintenance-start.ts).
import { getLogger, logToGatewayFile } from "../../src/core/log.ts";
import { HOOK_KEYS } from "../../src/host/ids.ts";
import { isAgentBootstrapEvent, isGatewayStartupEvent, isMessageReceivedEvent } from "../../src/host/events.ts";
import { startMaintenanceOnGatewayStartup } from "../../src/context/maintenance-start.ts";
import { ethosContextRuntime } from "../../src/context/runtime.ts";
import { startInboundTriage } from "../../src/context/inbound-triage.ts";

// Inside the gateway our records also go to <stateDir>/openclaw-context/logs/ (where status reads them).
logToGatewayFile();

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
      // One classification of the turn, for the query capture and for triage.
      const turn = ethosContextRuntime.classifyMessage(event);
      ethosContextRuntime.onMessageReceived(event, turn);
      void startInboundTriage(event, ethosContextRuntime, turn);
    } catch (error) {
      warn(error, "message:received");
    }
    return;
  }
  if (!isAgentBootstrapEvent(event)) return;
  const received = event.context.bootstrapFiles;
  try {
    const files = await ethosContextRuntime.onAgentBootstrap(event);
    if (files) event.context.bootstrapFiles = files;
  } catch (error) {
    event.context.bootstrapFiles = received; // never harm a turn: the list stays as received
    warn(error, "agent:bootstrap");
  }
}
