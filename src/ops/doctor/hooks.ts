// The hook pack's two hooks (OpenClaw 2026.3): enabled in openclaw.json, and listed by the gateway
// as eligible (`openclaw hooks list --json`). The plugin registers its hooks itself: nothing to check.
import { hookEnabled } from "../../host/hook-config.ts";
import { HOOK_NAMES, hookEligibility } from "../hook-pack-install.ts";
import type { DoctorCheck, DoctorFinding } from "./check.ts";

export const hooksCheck: DoctorCheck = {
  id: "hooks",
  async run(ctx): Promise<DoctorFinding[]> {
    if (!ctx.installed.hookPack) return [];
    const findings: DoctorFinding[] = [];
    for (const name of HOOK_NAMES) {
      if (!hookEnabled(ctx.cfg, name)) findings.push({ level: "fail", message: `${name} is not enabled in openclaw.json: the gateway does not run it`, fix: `openclaw hooks enable ${name}, then openclaw gateway restart` });
    }
    if (!ctx.openclaw) {
      findings.push({ level: "info", message: "eligibility not checked: no openclaw CLI to ask (openclaw hooks list)", fix: "put openclaw on PATH and run doctor again" });
      return findings;
    }
    const cli = ctx.openclaw;
    // hookEligibility takes a CLI path; the context's runner is already bound to this config.
    for (const hook of await hookEligibility("", ctx.configPath, { attempts: 1, run: (args) => cli(args, 180_000) })) {
      if (!hook.found) findings.push({ level: "fail", message: `openclaw hooks list does not show ${hook.name}${hook.blockedReason ? ` (${hook.blockedReason})` : ""}`, fix: "npm run install-hooks (in the openclaw-context clone), then openclaw gateway restart" });
      else if (!hook.eligible) findings.push({ level: "fail", message: `${hook.name} is not eligible: ${hook.blockedReason ?? "no reason given"}`, fix: "npm run install-hooks (in the openclaw-context clone) repairs the pack" });
      else findings.push({ level: "ok", message: `${hook.name}: eligible (${hook.source ?? "?"})` });
    }
    return findings;
  },
};
