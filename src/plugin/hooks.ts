// The plugin's internal hooks (api.registerHook), as the hook pack's handlers do it: agent:bootstrap
// gets the session-aware file set (fail-closed on failure), message:received notes the sender and
// triages the operator's message in the background. Each never throws.
import { getLogger } from "../core/log.ts";
import { isAgentBootstrapEvent, isMessageReceivedEvent, sessionKeyOf } from "../host/events.ts";
import type { AgentBootstrapEvent, OpenClawConfig } from "../host/events.ts";
import { hookEnabled } from "../host/hook-config.ts";
import { HOOK_KEYS, PLUGIN_ID } from "../host/ids.ts";
import { filesAfterFailure } from "../bootstrap/fail-closed.ts";
import type { ContextService } from "../context/turn-service.ts";

export function createPluginHooks(input: { context: ContextService; cfg: (hostCfg?: OpenClawConfig) => OpenClawConfig }) {
  const { context, cfg } = input;
  return {
    /** agent:bootstrap: the file set of the turn's one classification. */
    async onAgentBootstrap(event: unknown): Promise<void> {
      let host: AgentBootstrapEvent;
      let received: unknown[];
      let view: OpenClawConfig;
      try {
        if (!isAgentBootstrapEvent(event) || !Array.isArray(event.context.bootstrapFiles)) return; // the host keeps its own list
        host = event;
        received = event.context.bootstrapFiles;
        view = cfg(event.context.cfg);
      } catch {
        return; // an event whose fields throw is not one we can recognise
      }
      let sessionType: string | undefined;
      try {
        const turn = context.turns.turn(sessionKeyOf(host), view);
        sessionType = turn.classification.type;
        context.learnWorkspace(host, turn);
        if (!hookEnabled(view, HOOK_KEYS.aciBootstrap)) return;
        // The services read the policy from the view; the event itself is left as the host sent it.
        const { files } = await context.bootstrapFiles({ ...host, context: { ...host.context, cfg: view } }, received, view, turn);
        host.context.bootstrapFiles = files;
      } catch (error) {
        const outcome = filesAfterFailure(host, received, () => view, sessionType);
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
    },
    /**
     * message:received: the sender noted for the run, then triage and capture in the background.
     * Returns that background work (it never rejects); the registration does not wait for it.
     */
    onMessageReceived(event: unknown): Promise<void> {
      try {
        if (!isMessageReceivedEvent(event)) return Promise.resolve();
        const view = cfg();
        const turn = context.messageTurn(event, view);
        return hookEnabled(view, HOOK_KEYS.ethosContext) ? context.triage(event, turn, view) : Promise.resolve();
      } catch (error) {
        getLogger(PLUGIN_ID).warn({ err: error instanceof Error ? error.message : String(error) }, "message:received (plugin): failed; turn continues");
        return Promise.resolve();
      }
    },
  };
}
