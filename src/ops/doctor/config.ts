// Config validity: every key of ours that the code ignores (unknown, with "did you mean", or of the
// wrong type), by the path the operator wrote; and, from a clone with the openclaw CLI, whether
// OpenClaw itself accepts openclaw.json (when it does not, `openclaw context …` cannot run at all).
import { PLUGIN_CONFIG_PATH } from "../../context/plugin-config.ts";
import type { ConfigIssue } from "../../core/config.ts";
import { openClawConfigIssues } from "../openclaw-cli.ts";
import { configIssuesNow } from "../config-issues.ts";
import type { DoctorCheck, DoctorContext, DoctorFinding } from "./check.ts";

/** The fix for the keys one entry ignores: unset each (a bad list element: set the list again). */
function fixFor(entry: string, issues: readonly ConfigIssue[]): string {
  const commands = [...new Set(issues.map((issue) => {
    const list = /^(.*)\.\d+$/.exec(issue.key)?.[1];
    return list ? `openclaw config set ${list} '<the list without that element>' --strict-json` : `openclaw config unset ${issue.key}`;
  }))];
  // The plugin's doctor contract lets OpenClaw's own doctor remove exactly these keys too.
  return entry === PLUGIN_CONFIG_PATH ? `${commands.join("; ")} (or openclaw doctor --fix, which removes exactly these keys of ours along with its own repairs)` : commands.join("; ");
}

/** OpenClaw's own verdict on openclaw.json, when a CLI can be asked from outside it. */
async function openClawVerdict(ctx: DoctorContext): Promise<DoctorFinding | undefined> {
  const openclaw = ctx.openclaw;
  if (ctx.insideOpenClaw || !openclaw) return undefined;
  const issues = await openClawConfigIssues((args) => openclaw(args, 180_000));
  if (!issues || issues.length === 0) return undefined;
  return {
    level: "fail",
    message: "OpenClaw rejects openclaw.json: the gateway will not start, and no `openclaw <plugin> …` command runs until it is fixed",
    detail: issues,
    fix: "fix or remove these keys (openclaw config unset <path>), then openclaw config validate",
  };
}

export const configCheck: DoctorCheck = {
  id: "config",
  async run(ctx): Promise<DoctorFinding[]> {
    if (ctx.configError) return [{ level: "fail", message: `${ctx.configPath} cannot be read: ${ctx.configError}`, fix: "openclaw config validate" }];
    const findings: DoctorFinding[] = [];
    const verdict = await openClawVerdict(ctx);
    if (verdict) findings.push(verdict);
    for (const [entry, issues] of Object.entries(configIssuesNow(ctx.cfg))) {
      if (issues.length === 0) findings.push({ level: "ok", message: `${entry}: every key is valid` });
      else findings.push({ level: "fail", message: `${entry}: ${issues.length} key(s) ignored (every other setting applies)`, detail: issues.map((issue) => `${issue.key}: ${issue.reason}`), fix: fixFor(entry, issues) });
    }
    if (findings.length === 0) findings.push({ level: "ok", message: "openclaw.json has no settings of ours (every option is optional)" });
    return findings;
  },
};
