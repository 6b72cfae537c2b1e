// Benchmark only (bench/cache, arm "persisted-prepend"): the companion plugin's adapter, forced to
// serve memory as prependContext on OpenClaw 2026.3.13, where the companion plugin stands aside
// because the host writes prependContext into the transcript. It runs the installed hook pack's
// src/plugin/turns.ts, so the block is exactly the companion plugin's.
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const ID = "openclaw-context-bench-prepend";
const DELIVERY_CLAIM = Symbol.for("openclaw-context.memory-delivery");

export default {
  id: ID,
  name: "openclaw-context bench: persisted prependContext",
  register(api) {
    const stateDir = process.env.OPENCLAW_STATE_DIR ? path.resolve(process.env.OPENCLAW_STATE_DIR) : path.join(os.homedir(), ".openclaw");
    const root = path.join(stateDir, "hooks", "openclaw-context");
    const hostVersion = api?.runtime?.version;
    // The ethos-context hook adds no record while a plugin claims delivery (src/context/delivery.ts).
    globalThis[DELIVERY_CLAIM] = { owner: "plugin", pluginId: ID, hostVersion, since: Date.now() };
    const adapter = import(pathToFileURL(path.join(root, "plugin", "adapter.ts")).href).then((module) =>
      module.createPluginAdapter({ api: { id: ID, logger: api.logger, pluginConfig: {}, get config() { return api.config; } }, hostVersion }),
    );
    api.on("before_prompt_build", async (event, ctx) => (await adapter).beforePromptBuild(event, ctx));
  },
};
