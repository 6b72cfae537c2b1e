// The last turn actually delivered: what our log says the newest turn got (files, memory, captures)
// and whether anything failed on it. No turn since the log began is not a failure: say how to get one.
import { pluginEntry } from "../../context/delivery.ts";
import { parsePluginConfig } from "../../context/plugin-config.ts";
import { hookLogFile } from "../../core/log.ts";
import { hookEnabled } from "../../host/hook-config.ts";
import { HOOK_KEYS } from "../../host/ids.ts";
import { describeMemory, recentTurns } from "../turn-log.ts";
import type { DoctorCheck, DoctorContext, DoctorFinding } from "./check.ts";

/** Is memory switched on for the installed artifact? */
function memoryOn(ctx: DoctorContext): boolean {
  if (ctx.installed.plugin) {
    const { config } = parsePluginConfig(pluginEntry(ctx.cfg)?.config, { report: false });
    return config.enabled && config.memory;
  }
  return hookEnabled(ctx.cfg, HOOK_KEYS.ethosContext);
}

/** Operator sessions: the ones that get memory by default. */
const OPERATOR_TYPES = new Set(["MAIN_SESSION", "PRIVATE_DM"]);

export const lastTurnCheck: DoctorCheck = {
  id: "last turn",
  run(ctx): DoctorFinding[] {
    if (!ctx.installed.plugin && !ctx.installed.hookPack) return [];
    const file = hookLogFile(ctx.env);
    if (!file) return [{ level: "info", message: "our log file is off (OPENCLAW_CONTEXT_LOG_FILE=off): the last turn cannot be read; openclaw logs still has every line" }];
    const [turn] = recentTurns(ctx.records(), 1);
    if (!turn) return [{ level: "info", message: `no turn logged yet in ${file}`, fix: "send the agent a message (after openclaw gateway restart if you just installed), then run doctor again" }];
    const when = new Date(turn.time).toISOString().replace("T", " ").slice(0, 19);
    const files = turn.files ? `files ${turn.files.files.join(", ") || "(none)"}` : "no bootstrap decision";
    const summary = `${turn.sessionType} at ${when} UTC: ${files}; ${describeMemory(turn.memory)}${turn.captures.length ? `; ${turn.captures.length} capture(s)` : ""}`;
    const memoryFailed = turn.memory && (turn.memory.status === "error" || turn.memory.status === "timeout");
    if (turn.problems.length > 0 || memoryFailed) {
      return [{ level: "warn", message: summary, detail: turn.problems, fix: `${ctx.invocation.line("status", "--last 10")} (the turns before it), openclaw logs (every line)` }];
    }
    if (OPERATOR_TYPES.has(turn.sessionType) && turn.files && !turn.memory && memoryOn(ctx)) {
      return [{ level: "warn", message: `${summary}: memory is on, but this operator turn logged no memory line (the gateway may run an older load: restart it)`, fix: "openclaw gateway restart" }];
    }
    return [{ level: "ok", message: summary }];
  },
};
