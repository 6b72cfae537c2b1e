// Stale TOOLS_COMPACT.md: the file sets give most sessions TOOLS_COMPACT.md instead of TOOLS.md, so
// a TOOLS.md changed after it (or a value in it that TOOLS.md no longer has) means the agent works
// from an old tools table. Missing while a set asks for it: those sessions get no tools table.
import fs from "node:fs";
import path from "node:path";
import { sessionContextFor } from "../../bootstrap/run.ts";
import { pluginEntry } from "../../context/delivery.ts";
import { configView, parsePluginConfig } from "../../context/plugin-config.ts";
import { checkAgainstSource } from "../tools-compact.ts";
import type { DoctorCheck, DoctorFinding } from "./check.ts";

const COMPACT = "TOOLS_COMPACT.md";
/** Files copied or checked out together get mtimes a moment apart: an edit counts only past this. */
const SAME_WRITE_MS = 60_000;

function mtime(file: string): number | undefined {
  try {
    const stat = fs.statSync(file);
    return stat.isFile() ? stat.mtimeMs : undefined;
  } catch {
    return undefined;
  }
}

export const toolsCompactCheck: DoctorCheck = {
  id: "TOOLS_COMPACT.md",
  run(ctx): DoctorFinding[] {
    if (!ctx.workspace) return [];
    const plugin = pluginEntry(ctx.cfg);
    const view = plugin ? configView(ctx.cfg, parsePluginConfig(plugin.config, { report: false }).config) : ctx.cfg;
    const asking = Object.entries(sessionContextFor(view).policy.sets).filter(([, files]) => files.includes(COMPACT)).map(([type]) => type);
    if (asking.length === 0) return [];
    const compact = path.join(ctx.workspace, COMPACT);
    const tools = path.join(ctx.workspace, "TOOLS.md");
    const draft = ctx.invocation.line("draft-tools");
    const compactTime = mtime(compact);
    if (compactTime === undefined) {
      return [{ level: "warn", message: `${compact} is missing: ${asking.join(", ")} sessions get no tools table`, fix: `${draft}, review the draft, copy it to ${COMPACT}, then ${ctx.invocation.line("check-tools")}` }];
    }
    const toolsTime = mtime(tools);
    if (toolsTime === undefined) return [{ level: "ok", message: `${COMPACT} present (no TOOLS.md to compare it with)` }];
    const findings: DoctorFinding[] = [];
    if (toolsTime - compactTime > SAME_WRITE_MS) {
      const days = Math.max(0, Math.round((toolsTime - compactTime) / 86_400_000));
      findings.push({ level: "warn", message: `TOOLS.md changed after ${COMPACT} (${days === 0 ? "the same day" : `${days} day(s) later`}): the compact table may be stale`, fix: `${draft} (a new draft from TOOLS.md), review, copy, then ${ctx.invocation.line("check-tools")}` });
    }
    const damaged = checkAgainstSource(fs.readFileSync(compact, "utf8"), fs.readFileSync(tools, "utf8")).damaged;
    if (damaged.length > 0) {
      findings.push({ level: "warn", message: `${COMPACT} has ${damaged.length} value(s) that TOOLS.md no longer has`, detail: damaged.slice(0, 10), fix: ctx.invocation.line("check-tools") });
    }
    if (findings.length === 0) findings.push({ level: "ok", message: `${COMPACT} is up to date with TOOLS.md` });
    return findings;
  },
};
