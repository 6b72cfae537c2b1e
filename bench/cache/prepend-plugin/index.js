// Benchmark only (bench/cache, arm "persisted-prepend"): the plugin's memory block, forced as
// prependContext on OpenClaw 2026.3.13, where the plugin stands aside because the host writes
// prependContext into the transcript. It runs the installed hook pack's own src/plugin/turns.ts
// (the same turn adapter the plugin compiles in), so the block is exactly the plugin's. The arm
// switches the ethos-context hook off: its record would deliver the same memory a second time.
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const ID = "openclaw-context-bench-prepend";

export default {
  id: ID,
  name: "openclaw-context bench: persisted prependContext",
  register(api) {
    const stateDir = process.env.OPENCLAW_STATE_DIR ? path.resolve(process.env.OPENCLAW_STATE_DIR) : path.join(os.homedir(), ".openclaw");
    const src = path.join(stateDir, "hooks", "openclaw-context", "src");
    const load = (rel) => import(pathToFileURL(path.join(src, rel)).href);
    const turns = Promise.all([load("context/turn-service.ts"), load("context/plugin-config.ts"), load("plugin/turns.ts")]).then(([service, settings, adapter]) => {
      const { config } = settings.parsePluginConfig({});
      const views = settings.createConfigViews(config);
      return adapter.createPluginTurns({ context: service.createContextService(), config, cfg: (hostCfg) => views(hostCfg ?? api.config) });
    });
    api.on("before_prompt_build", async (event, ctx) => (await turns).beforePromptBuild(event, ctx));
  },
};
