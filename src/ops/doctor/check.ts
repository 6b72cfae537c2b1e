// `doctor`: one command that checks what an operator would otherwise piece together from status,
// `openclaw logs`, openclaw.json and the workspace. Each check is one small function in a file of
// its own under src/ops/doctor/ (the list is checks.ts): it reads the shared context and returns
// findings, each problem with the command that fixes it. Adding a check is one file and one row.
import type { OpenClawConfig } from "../../host/events.ts";
import type { Invocation } from "../commands/command.ts";
import type { CliResult } from "../openclaw-cli.ts";
import type { LogRecord } from "../turn-log.ts";

/**
 * ok: nothing to do. info: a chore that is due (shown with its command; the exit code stays 0).
 * warn: it works, but costs more or risks more than it should. fail: something the operator set up
 * or relies on does not work (a setting ignored, memory not delivered, hooks not loaded).
 */
type DoctorLevel = "ok" | "info" | "warn" | "fail";

export type DoctorFinding = {
  level: DoctorLevel;
  message: string;
  /** The command (or the one edit) that fixes it; for info, the command that does the chore. */
  fix?: string;
  /** More lines under the message (a list of keys, a trade-off explained). */
  detail?: string[];
};

/** What is installed, as far as openclaw.json, the install record and the state dir tell. */
export type Installed = { plugin: boolean; hookPack: boolean; pluginDir?: string; hookPackDir?: string };

export type DoctorContext = {
  configPath: string;
  /** openclaw.json, parsed; undefined when absent or unparsable (configError says which). */
  cfg: OpenClawConfig | undefined;
  configError?: string;
  /** The agent workspace, when it exists. */
  workspace?: string;
  env: NodeJS.ProcessEnv;
  now: Date;
  /** The running OpenClaw (`openclaw context doctor`) or `openclaw --version`; undefined when unknown. */
  hostVersion?: string;
  installed: Installed;
  /** How the operator runs commands: fixes are written in that form. */
  invocation: Invocation;
  /** True inside `openclaw context doctor`: OpenClaw accepted openclaw.json, or this would not run. */
  insideOpenClaw: boolean;
  /** Runs the openclaw CLI against this config; undefined without one (--no-cli). */
  openclaw?: (args: string[], timeoutMs?: number) => Promise<CliResult>;
  /** Our log's records (read once, on first use). */
  records(): LogRecord[];
  /** OpenClaw's own log file's last lines (read once, on first use; empty when not found). */
  hostLogLines(): string[];
};

export type DoctorCheck = {
  /** Short name printed before each finding. */
  id: string;
  run(ctx: DoctorContext): Promise<DoctorFinding[]> | DoctorFinding[];
};

export type DoctorResult = { check: string; findings: DoctorFinding[] }[];

/** Every check in order; a check that throws is reported as its own failure, never ends the run. */
export async function runChecks(checks: readonly DoctorCheck[], ctx: DoctorContext): Promise<DoctorResult> {
  const results: DoctorResult = [];
  for (const check of checks) {
    try {
      results.push({ check: check.id, findings: await check.run(ctx) });
    } catch (error) {
      results.push({ check: check.id, findings: [{ level: "fail", message: `the check itself failed: ${error instanceof Error ? error.message : String(error)}` }] });
    }
  }
  return results;
}

/** 0 nothing to do (info aside), 1 at least one failure, 3 warnings only (2 is bad usage, as for every command). */
export function doctorExitCode(results: DoctorResult): 0 | 1 | 3 {
  const levels = results.flatMap((result) => result.findings.map((finding) => finding.level));
  if (levels.includes("fail")) return 1;
  return levels.includes("warn") ? 3 : 0;
}

const LABELS: Record<DoctorLevel, string> = { ok: "ok  ", info: "info", warn: "WARN", fail: "FAIL" };

export function formatDoctor(results: DoctorResult, header: string[]): string {
  const out = [...header, ""];
  for (const { check, findings } of results) {
    for (const finding of findings) {
      out.push(`${LABELS[finding.level]}  ${check}: ${finding.message}`);
      for (const line of finding.detail ?? []) out.push(`        ${line}`);
      if (finding.fix) out.push(`        ${finding.level === "info" ? "run" : "fix"}: ${finding.fix}`);
    }
  }
  const count = (level: DoctorLevel) => results.reduce((n, result) => n + result.findings.filter((finding) => finding.level === level).length, 0);
  const code = doctorExitCode(results);
  out.push("", `${count("fail")} problem(s), ${count("warn")} warning(s), ${count("info")} chore(s) due; exit ${code}`);
  return out.join("\n");
}
