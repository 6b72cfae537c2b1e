// maintain: the maintenance pass (persistent memory spec §5.2-§5.5): corrections mature, conflicts
// are found, old memory is archived, SOUL.md proposals pass the Soul Keeper's gate; --undo reverts a run.
import { parseArgs } from "node:util";
import { loadHygieneConfig } from "../../memory/config-md.ts";
import { promoteSoulProposal, runMaintenancePass, undoMaintenanceRun } from "../../lifecycle/pass.ts";
import { listRuns, MAINTENANCE_DIR, planUndo, RUNS_FILE } from "../../lifecycle/run-log.ts";
import type { FileChange, RunRecord, RunSummary } from "../../lifecycle/run-log.ts";
import { SOUL_DRAFT } from "../../lifecycle/soul-keeper.ts";
import { STEP_NAMES } from "../../lifecycle/step.ts";
import type { StepName } from "../../lifecycle/step.ts";
import { lineDiff } from "../line-diff.ts";
import { CheckFailedError, UsageError, parseIntegerOption, printHelp } from "../cli.ts";
import { resolveWorkspace } from "../paths.ts";
import { usage } from "./command.ts";
import type { Invocation, OperatorCommand } from "./command.ts";

function parseClock(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new UsageError(`--now must be an ISO date or date-time, got "${value}"`);
  return date;
}

function parseSteps(value: string | undefined): StepName[] | undefined {
  if (value === undefined) return undefined;
  const steps = value.split(",").map((step) => step.trim()).filter(Boolean);
  const unknown = steps.filter((step) => !STEP_NAMES.includes(step as StepName));
  if (unknown.length > 0 || steps.length === 0) throw new UsageError(`--only takes steps from ${STEP_NAMES.join(", ")}; got "${value}"`);
  return steps as StepName[];
}

const KIND_WORD: Record<FileChange["kind"], string> = { create: "create", rewrite: "edit", append: "append", delete: "remove" };

/** The changes of a run (or a plan), one line each. */
function formatChanges(changes: readonly FileChange[]): string[] {
  if (changes.length === 0) return ["  nothing to change"];
  return changes.map((change) => `  ${change.step.padEnd(13)} ${KIND_WORD[change.kind].padEnd(7)} ${change.file}: ${change.what}`);
}

function formatRun(record: RunRecord, dryRun: boolean, invocation: Invocation): string {
  const head = dryRun
    ? `Plan of a maintenance pass at ${record.clock} (dry run: nothing was written):`
    : `Maintenance pass ${record.run} (${record.trigger}, clock ${record.clock}): ${record.changes.length} change(s)`;
  const out = [head, ...formatChanges(record.changes)];
  for (const note of record.notes) out.push(`  note: ${note}`);
  if (!dryRun && record.changes.length > 0) out.push(`Undo with: ${invocation.line("maintain", `--undo ${record.run}`)}`);
  return out.join("\n");
}

function formatList(runs: readonly RunSummary[]): string {
  if (runs.length === 0) return `No maintenance runs yet (${MAINTENANCE_DIR}/${RUNS_FILE}).`;
  return runs
    .map((run) => `${run.run}  ${run.trigger.padEnd(22)} ${String(run.changes.length).padStart(4)} change(s)  steps: ${run.steps.join(", ") || "-"}${run.undone ? `  (undone ${run.undone})` : ""}`)
    .join("\n");
}

export const maintainCommand: OperatorCommand = {
  name: "maintain",
  messageName: "maintain",
  summary: "the maintenance pass: corrections mature, conflicts, archive, SOUL.md proposals; --undo <run>",
  help: (invocation) => `${usage(invocation, "maintain", "[--workspace <dir>] [--dry-run] [--only <steps>] [--now <ISO date>] [--json]")}
       ${invocation.prefix("maintain")} --undo <run> [--dry-run] [--workspace <dir>]
       ${invocation.prefix("maintain")} --list [--last <n>] [--json] [--workspace <dir>]
       ${invocation.prefix("maintain")} promote [--approve] [--workspace <dir>]

One deterministic pass over the workspace's memory files (persistent memory spec §5.2-§5.5, no LLM).
Running it twice at the same clock changes nothing the second time. Steps, in order:
  soul-history  copy SOUL.md into SOUL_HISTORY/ when it changed; copies older than
                soul_history_retention_days thin out to one per month
  corrections   CORRECTIONS.md: past the cool-down -> verified: true; a non-operator correction
                below correction_retraction_confidence -> status: retracted (logged in CONFLICTS.md);
                older than correction_archive_days -> Archive/Corrections/YYYY-MM.md
  conflicts     facts of the last 24 hours against MEMORY.md and the day files: an operator
                correction wins; a direct statement 30+ days newer wins; else flagged in CONFLICTS.md.
                The losing fact is marked status: superseded, never deleted
  compaction    memory/YYYY-MM-DD.md older than compaction_age_days -> Archive/Chronicles/YYYY-Month.md
                (verbatim, under its date and path); MEMORY.md entries under 0.3 confidence and
                unmentioned for 60 days (or superseded longer than corrected_embedding_grace_days)
                -> Archive/Memory/; near-duplicates merged. Never a #correction. Every removal is
                in COMPACTION_LOG.md
  soul-keeper   verified corrections past the cool-down, seen soul_encoding_min_occurrences times:
                a SOUL.md proposal in ${SOUL_DRAFT} and REVIEW NEEDED in
                DAILY_EXECUTION_QUEUE.md
Every write takes the file's lock. Each run is one line of ${MAINTENANCE_DIR}/${RUNS_FILE},
with the bytes it replaced: --undo <run> puts every file it changed back, byte for byte (refused
for a file changed since; undo the later runs first). Archive/ is searched by the memory index.

promote     shows the proposal's change to SOUL.md and its checks (gate again, soul_max_tokens);
            with --approve it snapshots SOUL.md, adds the principles to its
            "## Learned from corrections" section, writes the CHANGELOG.md entry citing every
            occurrence and ticks the review item: a run of its own, so --undo takes it back.

Options:
  --workspace <dir>  workspace (default: agents.defaults.workspace in openclaw.json, else ~/.openclaw/workspace)
  --dry-run          print the plan; write nothing
  --only <steps>     comma-separated steps (default: all)
  --now <ISO date>   the pass's clock (default: now)
  --undo <run>       undo that run (ids: --list)
  --list             the runs, oldest first (--last <n>: the newest n, default 20)
  --approve          promote: apply
  --json             print the run's record as JSON
  -h, --help         show this help

Exit codes: 0 done, 1 failed (a refused undo or promote included), 2 bad usage.`,
  async main(argv, invocation) {
    const { values, positionals } = parseArgs({
      args: argv,
      options: {
        workspace: { type: "string" },
        "dry-run": { type: "boolean", default: false },
        only: { type: "string" },
        now: { type: "string" },
        undo: { type: "string" },
        list: { type: "boolean", default: false },
        last: { type: "string" },
        approve: { type: "boolean", default: false },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    });
    if (values.help) return printHelp(maintainCommand.help(invocation));
    if (positionals.length > 1 || (positionals[0] !== undefined && positionals[0] !== "promote")) throw new UsageError(`unknown argument(s): ${positionals.join(" ")} (the only subcommand is promote)`);
    const workspace = resolveWorkspace(values.workspace);
    const now = parseClock(values.now);

    if (positionals[0] === "promote") {
      const { plan, record } = await promoteSoulProposal({ workspaceDir: workspace, approve: values.approve, now }).catch((error: Error) => {
        throw new CheckFailedError(error.message);
      });
      process.stdout.write(lineDiff(plan.before, plan.after, { before: "SOUL.md", after: "SOUL.md (promoted)" }));
      if (plan.problems.length > 0) throw new CheckFailedError(`promotion refused, SOUL.md unchanged:\n  - ${plan.problems.join("\n  - ")}`);
      if (!record) {
        console.log(`CHANGELOG.md entry it would write:\n${plan.changelog}\nChecks pass. Nothing changed: re-run with --approve to apply.`);
        return 0;
      }
      console.log(formatRun(record, false, invocation));
      return 0;
    }
    if (values.approve) throw new UsageError("--approve belongs to the promote subcommand");

    if (values.list) {
      const runs = await listRuns(workspace);
      const last = parseIntegerOption("last", values.last, 20, 1);
      console.log(values.json ? JSON.stringify(runs.slice(-last), null, 2) : formatList(runs.slice(-last)));
      return 0;
    }

    if (values.undo !== undefined) {
      if (values["dry-run"]) {
        const plan = await planUndo(workspace, values.undo);
        console.log([`Undo of run ${values.undo} would:`, ...plan.steps.map((s) => `  ${s.action.padEnd(10)} ${s.file} (${s.what})`), ...plan.blocked.map((b) => `  BLOCKED: ${b.file} ${b.why}`)].join("\n"));
        return plan.blocked.length > 0 ? 1 : 0;
      }
      const record = await undoMaintenanceRun({ workspaceDir: workspace, run: values.undo }).catch((error: Error) => {
        throw new CheckFailedError(error.message);
      });
      console.log(`Run ${values.undo} undone: ${record.restored.length} file(s) back to their bytes before it:\n${record.restored.map((file) => `  ${file}`).join("\n")}`);
      return 0;
    }

    const { config, warnings } = await loadHygieneConfig(workspace);
    for (const warning of warnings) process.stderr.write(`maintain: warning: ${warning}\n`);
    const result = await runMaintenancePass({ workspaceDir: workspace, now, dryRun: values["dry-run"], trigger: "manual", steps: parseSteps(values.only), config });
    console.log(values.json ? JSON.stringify(result.record, null, 2) : formatRun(result.record, result.dryRun, invocation));
    return 0;
  },
};
