// agent:bootstrap for the packaged plugin (api.registerHook): what hooks/aci-bootstrap/handler.ts
// does, with the policy from the plugin's config (through a view of openclaw.json) instead of the
// hook's entry. Never throws; on failure the fail-closed rule of src/bootstrap/fail-closed.ts applies.
import { getLogger } from "../core/log.ts";
import { HOOK_KEYS } from "../host/ids.ts";
import { filesAfterFailure } from "../bootstrap/fail-closed.ts";
import { runAciBootstrap, startupOpenClawConfig } from "../bootstrap/run.ts";
import { isAgentBootstrapEvent } from "../host/events.ts";
import type { AgentBootstrapEvent, OpenClawConfig } from "../host/events.ts";

export async function runBootstrapHook(event: unknown, view: (cfg: OpenClawConfig | undefined) => OpenClawConfig): Promise<void> {
  let host: AgentBootstrapEvent;
  let viewed: AgentBootstrapEvent & { context: { cfg: OpenClawConfig } };
  let received: unknown;
  try {
    if (!isAgentBootstrapEvent(event)) return;
    host = event;
    received = event.context.bootstrapFiles;
    if (!Array.isArray(received)) return; // the host keeps its own list (HOOK_ASSUMPTIONS.md `undefinedBootstrapFiles`)
    const cfg = view(event.context.cfg ?? startupOpenClawConfig());
    // The services read the policy from cfg; the event itself is left as the host sent it.
    viewed = { ...event, context: { ...event.context, cfg } };
  } catch {
    return; // an event whose fields throw is not one we can recognise
  }
  try {
    // The view switches aci-bootstrap off when the plugin's `bootstrap` or `enabled` is false.
    const entry = (viewed.context.cfg.hooks as { internal: { entries: Record<string, { enabled?: boolean }> } }).internal.entries[HOOK_KEYS.aciBootstrap];
    if (entry?.enabled === false) return;
    const { files } = await runAciBootstrap(viewed, received as unknown[]);
    host.context.bootstrapFiles = files;
  } catch (error) {
    const outcome = filesAfterFailure(viewed, received as unknown[], startupOpenClawConfig);
    try {
      host.context.bootstrapFiles = outcome.files;
    } catch {
      // a frozen context: nothing more we can do
    }
    getLogger(HOOK_KEYS.aciBootstrap).warn(
      { err: error instanceof Error ? error.message : String(error), sessionType: outcome.sessionType, action: outcome.action },
      "aci-bootstrap (plugin): failed; fail-closed rule applied",
    );
  }
}
