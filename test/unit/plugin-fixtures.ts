// The plugin's turn adapter over a fake retriever, as its register() builds it: the one context
// service, the plugin's config read once, and the view of openclaw.json.
import { createConfigViews, parsePluginConfig } from "../../src/context/plugin-config.ts";
import type { RetrieverFactory } from "../../src/context/service.ts";
import { createContextService } from "../../src/context/turn-service.ts";
import type { OpenClawConfig } from "../../src/host/events.ts";
import { PLUGIN_ID } from "../../src/host/ids.ts";
import { createPluginTurns } from "../../src/plugin/turns.ts";

export const ENGINE_SELECTED = { plugins: { slots: { contextEngine: PLUGIN_ID } } };

export function pluginTurns(openclawCfg: OpenClawConfig = ENGINE_SELECTED, pluginConfig: Record<string, unknown> = {}, deps: { createRetriever: RetrieverFactory; classify?: Parameters<typeof createContextService>[0] extends infer D ? D extends { classify?: infer C } ? C : never : never }) {
  const context = createContextService({ createRetriever: deps.createRetriever, composeBlock: null, classify: deps.classify });
  const { config } = parsePluginConfig(pluginConfig);
  const views = createConfigViews(config);
  const cfg = (hostCfg?: OpenClawConfig) => views(hostCfg ?? openclawCfg);
  const turns = createPluginTurns({ context, config, cfg });
  return Object.assign(turns, { context, cfg });
}
