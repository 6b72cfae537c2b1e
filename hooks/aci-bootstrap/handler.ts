// aci-bootstrap: thin entry point. Type guard → config → src/bootstrap → catch everything.
import { getLogger, logToGatewayFile } from "../../src/core/log.ts";
import { HOOK_KEYS } from "../../src/core/records.ts";
import { isAgentBootstrapEvent } from "../../src/openclaw/events.ts";
import { runAciBootstrap, startupOpenClawConfig } from "../../src/bootstrap/run.ts";

// Owner ids and the policy come from openclaw.json as it is when the hook loads; each event's
// `cfg` then refreshes them.
// Inside the gateway our records also go to <stateDir>/openclaw-context/logs/ (where status reads them).
logToGatewayFile();
startupOpenClawConfig();

export default async function aciBootstrapHandler(event: unknown): Promise<void> {
  if (!isAgentBootstrapEvent(event)) return;
  const received = event.context.bootstrapFiles;
  if (!Array.isArray(received)) {
    getLogger(HOOK_KEYS.aciBootstrap).warn(
      { receivedType: received === null ? "null" : typeof received },
      "aci-bootstrap: context.bootstrapFiles is not an array; leaving it alone",
    );
    return;
  }
  try {
    const { files } = await runAciBootstrap(event, received);
    event.context.bootstrapFiles = files;
  } catch (error) {
    // Never harm a turn: the list stays exactly as OpenClaw built it.
    event.context.bootstrapFiles = received;
    getLogger(HOOK_KEYS.aciBootstrap).warn(
      { err: error instanceof Error ? { name: error.name, message: error.message } : String(error) },
      "aci-bootstrap: failed; bootstrap files left as received",
    );
  }
}
