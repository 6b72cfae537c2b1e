// Version support: which artifact this OpenClaw runs (the plugin from 2026.9 on, the hook pack on
// 2026.3), and whether that one is the one installed.
import { FIRST_PLUGIN_HOST, pluginServesHost, versionParts } from "../../host/version.ts";
import type { DoctorCheck, DoctorFinding } from "./check.ts";

/** Install and migration are a clone's script on both versions. */
const INSTALL = "npm run install-hooks (in the openclaw-context clone)";

/** The oldest line the hook pack is built and tested for. */
const FIRST_HOOK_PACK_HOST = [2026, 3, 0];

function olderThan(parts: number[], first: readonly number[]): boolean {
  for (let i = 0; i < 3; i += 1) if (parts[i] !== first[i]) return parts[i]! < first[i]!;
  return false;
}

export const versionCheck: DoctorCheck = {
  id: "version",
  run(ctx): DoctorFinding[] {
    const { installed } = ctx;
    const install = INSTALL;
    if (!ctx.hostVersion) {
      return [{ level: "info", message: "OpenClaw's version is unknown (no openclaw CLI to ask): the artifact could not be checked against it", fix: "put openclaw on PATH (or set $OPENCLAW_CLI) and run doctor again" }];
    }
    const parts = versionParts(ctx.hostVersion);
    if (!parts || olderThan(parts, FIRST_HOOK_PACK_HOST)) {
      return [{ level: "fail", message: `OpenClaw ${ctx.hostVersion} is not supported (2026.3 or later: the hook pack on 2026.3, the plugin from ${FIRST_PLUGIN_HOST.join(".")})`, fix: "openclaw update" }];
    }
    if (pluginServesHost(ctx.hostVersion)) {
      if (installed.plugin && installed.hookPack) return [{ level: "fail", message: `OpenClaw ${ctx.hostVersion} runs the plugin, and the retired hook pack is installed too: both would deliver memory and rewrite the bootstrap files`, fix: `${install} (it migrates the hook pack's settings into the plugin and removes the pack)` }];
      if (installed.plugin) return [{ level: "ok", message: `OpenClaw ${ctx.hostVersion}: served by the plugin${installed.pluginDir ? ` (${installed.pluginDir})` : ""}` }];
      if (installed.hookPack) return [{ level: "fail", message: `OpenClaw ${ctx.hostVersion} is served by the plugin, but the hook pack is installed (the hook pack's memory record changes the cached system prompt every memory turn)`, fix: `${install} (moves the hook pack's settings to the plugin)` }];
      return [{ level: "fail", message: `OpenClaw ${ctx.hostVersion}: nothing of openclaw-context is installed`, fix: install }];
    }
    if (installed.plugin && !installed.hookPack) return [{ level: "fail", message: `OpenClaw ${ctx.hostVersion} is served by the hook pack; the plugin stands aside on this version and changes no turn`, fix: install }];
    if (installed.hookPack) return [{ level: "ok", message: `OpenClaw ${ctx.hostVersion}: served by the hook pack${installed.hookPackDir ? ` (${installed.hookPackDir})` : ""}` }];
    return [{ level: "fail", message: `OpenClaw ${ctx.hostVersion}: nothing of openclaw-context is installed`, fix: install }];
  },
};
