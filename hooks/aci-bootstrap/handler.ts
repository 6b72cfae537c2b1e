// aci-bootstrap: thin entry point. Type guard → config → src/bootstrap → catch everything.
import { getLogger, logToGatewayFile } from "../../src/core/log.ts";
import { HOOK_KEYS } from "../../src/host/ids.ts";
import { isAgentBootstrapEvent } from "../../src/host/events.ts";
import { filesAfterFailure } from "../../src/bootstrap/fail-closed.ts";
import { noteRunStart } from "../../src/bootstrap/heartbeat-run.ts";
import { runAciBootstrap, startupOpenClawConfig } from "../../src/bootstrap/run.ts";

// Owner ids and the policy come from openclaw.json as it is when the hook loads; each event's
// `cfg` then refreshes them.
// Inside the gateway our records also go to <stateDir>/openclaw-context/logs/ (where status reads them).
logToGatewayFile();
startupOpenClawConfig();

export default async function aciBootstrapHandler(event: unknown): Promise<void> {
  // message:preprocessed announces the run about to start (a heartbeat or not): noted synchronously,
  // before the host goes on to that run's agent:bootstrap. noteRunStart never throws.
  noteRunStart(event);
  try {
    if (!isAgentBootstrapEvent(event)) return;
  } catch {
    return; // an event whose fields throw is not one we can recognise
  }
  let received: unknown;
  try {
    received = event.context.bootstrapFiles;
  } catch {
    return;
  }
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
    // Never harm a turn, never leak: owner sessions keep the list as OpenClaw built it; every other
    // session loses USER.md and MEMORY.md (src/bootstrap/fail-closed.ts).
    const outcome = filesAfterFailure(event, received, startupOpenClawConfig);
    try {
      event.context.bootstrapFiles = outcome.files;
    } catch {
      // a frozen context: nothing more we can do
    }
    getLogger(HOOK_KEYS.aciBootstrap).warn(
      {
        err: describeError(error),
        sessionType: outcome.sessionType,
        action: outcome.action,
      },
      `aci-bootstrap: failed; ${outcome.action === "left-as-received" ? "bootstrap files left as received" : "USER.md and MEMORY.md removed (non-owner session)"}`,
    );
  }
}

function describeError(error: unknown): unknown {
  try {
    return error instanceof Error ? { name: error.name, message: error.message } : String(error);
  } catch {
    return "unprintable error";
  }
}
