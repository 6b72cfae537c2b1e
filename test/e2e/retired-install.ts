// The retired OpenClaw 2026.9 setup, put into a running gateway's state the way the old
// `npm run install-hooks` left it (before issue 25): the hook pack installed with
// `openclaw plugins install <clean copy> --force` (copied to <state>/hooks/openclaw-context), both
// hooks enabled with the operator's options, the companion plugin's keys (linked from the pack's
// plugin/ folder: a plugins.load.paths entry, its entry with hooks.allowConversationAccess and a
// config, the context-engine slot), and the install record with openclaw.json as it was before.
// The companion's code is gone from the repository, so its folder is not recreated: nothing here
// restarts the gateway on this state; `npm run install-hooks` migrates it first.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { COMPANION_PLUGIN_ID, HOOK_KEYS, HOOK_PACK_ID } from "../../src/host/ids.ts";
import { installRecordPath } from "../../src/ops/install.ts";
import { HOOK_NAMES, stageCleanCopy } from "../../src/ops/hook-pack-install.ts";
import type { InstallRecord } from "../../src/ops/install.ts";
import { captureHookState, childObject, editOpenClawJson, setHookEntries } from "../../src/ops/openclaw-json.ts";
import { REPO_ROOT } from "./gateway.ts";
import type { Gateway } from "./gateway.ts";

export type RetiredSettings = {
  /** hooks.internal.entries.aci-bootstrap options (besides `enabled`). */
  aciBootstrap?: Record<string, unknown>;
  /** hooks.internal.entries.ethos-context options (besides `enabled`). */
  ethosContext?: Record<string, unknown>;
  /** plugins.entries.openclaw-context-companion.config. */
  companion?: Record<string, unknown>;
};

/** Where the old install put the pack and the companion it linked. */
export function retiredPaths(gw: Gateway): { packDir: string; companionDir: string } {
  const packDir = path.join(gw.stateDir, "hooks", HOOK_PACK_ID);
  return { packDir, companionDir: path.join(packDir, "plugin") };
}

const sha256 = (text: string) => crypto.createHash("sha256").update(text).digest("hex");

/** Installs the retired pair into `gw`'s state as the old install-hooks did; returns openclaw.json as it was before. */
export async function installRetiredPair(gw: Gateway, settings: RetiredSettings): Promise<string> {
  const configBefore = fs.readFileSync(gw.configPath, "utf8");
  const hookStateBefore = await captureHookState(gw.configPath, HOOK_NAMES);
  const { packDir, companionDir } = retiredPaths(gw);

  // The old pack mode on 2026.9: a clean copy, installed by OpenClaw's CLI.
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "openclaw-context-retired-"));
  try {
    const staged = path.join(staging, HOOK_PACK_ID);
    await stageCleanCopy(REPO_ROOT, staged);
    await gw.cli(["plugins", "install", staged, "--force"], 600_000);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  await setHookEntries(gw.configPath, HOOK_NAMES.map((hookKey) => ({ hookKey, enabled: true })));
  await editOpenClawJson(gw.configPath, (config) => {
    const entries = childObject(childObject(childObject(config, "hooks"), "internal"), "entries");
    Object.assign(childObject(entries, HOOK_KEYS.aciBootstrap), settings.aciBootstrap ?? {});
    Object.assign(childObject(entries, HOOK_KEYS.ethosContext), settings.ethosContext ?? {});
    const plugins = childObject(config, "plugins");
    const load = childObject(plugins, "load");
    load.paths = [...(Array.isArray(load.paths) ? load.paths : []), companionDir];
    const companion = childObject(childObject(plugins, "entries"), COMPANION_PLUGIN_ID);
    companion.enabled = true;
    companion.hooks = { allowConversationAccess: true };
    if (settings.companion) companion.config = settings.companion;
    childObject(plugins, "slots").contextEngine = COMPANION_PLUGIN_ID;
    return true;
  });

  const configAfter = fs.readFileSync(gw.configPath, "utf8");
  const record: InstallRecord = {
    pack: HOOK_PACK_ID,
    version: 2,
    mode: "pack",
    configBefore: { existed: true, text: configBefore },
    configAfterSha256: sha256(configAfter),
    configAfterText: configAfter,
    hookStateBefore,
    units: {
      "hook-pack": { mode: "pack", path: packDir, command: "plugins install <dir> --force" },
      "companion-plugin": { installed: true, hostVersion: gw.version, pluginDir: companionDir },
    },
  };
  fs.writeFileSync(installRecordPath(gw.configPath), `${JSON.stringify(record, null, 2)}\n`);
  return configBefore;
}
