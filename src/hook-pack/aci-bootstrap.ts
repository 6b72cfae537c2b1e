// The aci-bootstrap hook (OpenClaw 2026.3): type guard, config, the turn's one classification, the
// file set from the core, and a catch that applies the fail-closed rule.
import { getLogger } from "../core/log.ts";
import { HOOK_KEYS } from "../host/ids.ts";
import { isAgentBootstrapEvent } from "../host/events.ts";
import { filesAfterFailure } from "../bootstrap/fail-closed.ts";
import { noteRunStart } from "../bootstrap/heartbeat-run.ts";
import { startupOpenClawConfig } from "../bootstrap/run.ts";
import { hookPack, startHookPackLog } from "./service.ts";

// Owner ids and the policy come from openclaw.json as it is when the hook loads; each event's
// `cfg` then refreshes them. Inside the gateway our records go to our own log file and OpenClaw's.
startHookPackLog();
startupOpenClawConfig();

export default async function aciBootstrapHandler(event: unknown): Promise<void> {
  // message:preprocessed announces the run about to start (a heartbeat or not, 2026.3.13): noted
  // synchronously, before the host goes on to that run's agent:bootstrap. Never throws.
  noteRunStart(event);
  let received: unknown;
  try {
    if (!isAgentBootstrapEvent(event)) return;
    received = event.context.bootstrapFiles;
  } catch {
    return; // an event whose fields throw is not one we can recognise
  }
  if (!Array.isArray(received)) {
    getLogger(HOOK_KEYS.aciBootstrap).warn({ receivedType: received === null ? "null" : typeof received }, "aci-bootstrap: context.bootstrapFiles is not an array; leaving it alone");
    return;
  }
  let sessionType: string | undefined;
  try {
    sessionType = hookPack.turnOfBootstrap(event).classification.type;
    const { files } = await hookPack.bootstrapFiles(event, received);
    event.context.bootstrapFiles = files;
  } catch (error) {
    // Never harm a turn, never leak: owner sessions keep the list as OpenClaw built it; every other
    // session (a non-owner sender in the main session included) loses USER.md and MEMORY.md.
    const outcome = filesAfterFailure(event, received, startupOpenClawConfig, sessionType);
    try {
      event.context.bootstrapFiles = outcome.files;
    } catch {
      // a frozen context: nothing more we can do
    }
    getLogger(HOOK_KEYS.aciBootstrap).warn(
      { err: error instanceof Error ? { name: error.name, message: error.message } : String(error), sessionType: outcome.sessionType, action: outcome.action },
      `aci-bootstrap: failed; ${outcome.action === "left-as-received" ? "bootstrap files left as received" : "USER.md and MEMORY.md removed (non-owner session)"}`,
    );
  }
}
