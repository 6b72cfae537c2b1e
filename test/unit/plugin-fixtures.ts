// The plugin's turn adapter over a fake retriever, as its register() builds it: the one context
// service, the plugin's config read once, and the view of openclaw.json.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, vi } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
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

/**
 * For a test file that registers the plugin: openclaw.json points at a file that does not exist
 * (never the operator's own), and the bundle's log lines go nowhere. Call at the file's top level;
 * returns the folder that holds the absent file.
 */
export function isolateFromOperatorConfig(prefix: string): string {
  const noConfigDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  beforeAll(() => {
    vi.stubEnv("OPENCLAW_CONFIG_PATH", path.join(noConfigDir, "absent.json"));
    setLogDestination(new Writable({ write: (_chunk, _enc, done) => done() }));
  });
  afterAll(() => {
    setLogDestination(undefined);
    vi.unstubAllEnvs();
    fs.rmSync(noConfigDir, { recursive: true, force: true });
  });
  return noConfigDir;
}
