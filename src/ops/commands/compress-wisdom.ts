// compress-wisdom: Spec §5: wisdom compression with a review gate. `run` (default) writes a draft; `promote` puts it into SOUL.md.
import path from "node:path";
import { parseArgs } from "node:util";
import { CheckFailedError, UsageError, parseIntegerOption, withProgress, printHelp } from "../cli.ts";
import { LLM_HELP, LLM_PARSE_OPTIONS, llmOptionsFrom } from "../llm-options.ts";
import { INITIATIVE_DIR, resolveWorkspace } from "../paths.ts";
import { DRAFT_NAME, distilWisdom, isoDate, sourceSummary, writeDraftAndFlag } from "../wisdom/pipeline.ts";
import { MAX_SOUL_TOKENS, applyPromotion, planPromotion } from "../wisdom/promote.ts";
import { buildWisdomPrompt } from "../wisdom/prompt.ts";
import { DEFAULT_COLLECT_OPTIONS, NoSourcesError, collectLessons } from "../wisdom/sources.ts";
import { usage } from "./command.ts";
import type { OperatorCommand } from "./command.ts";

function parseDate(value: string | undefined): Date {
  if (value === undefined) return new Date();
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) throw new UsageError(`--date must be YYYY-MM-DD, got "${value}"`);
  return new Date(`${value}T00:00:00Z`);
}

export const compressWisdomCommand: OperatorCommand = {
  name: "compress-wisdom",
  messageName: "compress-wisdom",
  summary: "distil lessons into a reviewed Wisdom section for SOUL.md (run, then promote)",
  help: (invocation) => `${usage(invocation, "compress-wisdom", "[run] [--workspace <dir>] [--dry-run] [--days <n>] [--date YYYY-MM-DD] [model options]")}
       ${invocation.prefix("compress-wisdom")} promote [--approve] [--workspace <dir>] [--max-soul-tokens <n>]

run (default)
  1. Collects lessons: AGENTS.md "Operational Lessons" section, LESSONS_LEARNED.md, the lessons/decisions
     sections of MEMORY.md, memory/YYYY-MM-DD*.md of the last --days days (default 30). A missing
     source is a warning; no source at all is an error. Each lesson gets an id (L1, L2, ...).
  2. Asks the local model (spec prompt) for 12-15 entries "**<Pattern name.>** <wisdom> [ids]".
  3. Validates: format, 12-15 entries, <= 15 words each, section <= 150 tokens, no ports / model names /
     paths / hostnames, >= 3 existing lesson ids cited per entry (with word overlap), and the required
     memory entry verbatim. On violations it re-prompts once with the list, then fails.
  4. Writes ${INITIATIVE_DIR}/${DRAFT_NAME} (the "## Wisdom" section), SOUL_WISDOM_TRACE.md (entries
     with their cited lessons) and a REVIEW NEEDED line in DAILY_EXECUTION_QUEUE.md. Never touches SOUL.md.
  --dry-run prints the source statistics and the prompt; no model call, no file written.

promote
  Shows the diff of SOUL.md with its "## Wisdom" section replaced by the draft (appended if absent;
  refused if there are two) and the checks: SOUL.md <= ${MAX_SOUL_TOKENS} tokens, required entry present,
  no WISDOM.md. Changes nothing unless --approve is given and every check passes; then SOUL.md is
  backed up to backups/SOUL.md.bak (an existing different .bak is kept and a timestamped copy is
  written instead) and only the Wisdom section changes.

Options:
  --workspace <dir>       workspace root (default: agents.defaults.workspace in openclaw.json, else ~/.openclaw/workspace)
  --dry-run               run: print prompt + source stats only
  --days <n>              run: daily notes window (default ${DEFAULT_COLLECT_OPTIONS.days})
  --date <YYYY-MM-DD>     run: "today" for the window and the _Last compressed_ line (default: today, UTC)
  --max-prompt-chars <n>  run: lesson characters sent to the model (default ${DEFAULT_COLLECT_OPTIONS.maxPromptLessonChars})
  --approve               promote: apply the change
  --max-soul-tokens <n>   promote: SOUL.md limit (default ${MAX_SOUL_TOKENS})
  -h, --help              show this help

${LLM_HELP}

Exit codes: 0 done, 1 validation or check failed / model unreachable, 2 bad usage.`,
  async main(argv, invocation) {
    const { values, positionals } = parseArgs({
      args: argv,
      options: {
        workspace: { type: "string" },
        "dry-run": { type: "boolean", default: false },
        days: { type: "string" },
        date: { type: "string" },
        "max-prompt-chars": { type: "string" },
        approve: { type: "boolean", default: false },
        "max-soul-tokens": { type: "string" },
        ...LLM_PARSE_OPTIONS,
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    });
    if (values.help) return printHelp(compressWisdomCommand.help(invocation));
    if (positionals.length > 1) throw new UsageError(`one subcommand at most, got: ${positionals.join(" ")}`);
    const command = positionals[0] ?? "run";
    if (command !== "run" && command !== "promote") throw new UsageError(`unknown subcommand "${command}" (expected run or promote)`);
    const workspace = resolveWorkspace(values.workspace);

    if (command === "promote") {
      if (values["dry-run"]) throw new UsageError("promote has no --dry-run: without --approve it only shows the diff");
      const maxSoulTokens = parseIntegerOption("max-soul-tokens", values["max-soul-tokens"], MAX_SOUL_TOKENS, 1);
      let plan;
      try {
        plan = await planPromotion(workspace, { maxSoulTokens });
      } catch (error) {
        throw new CheckFailedError((error as Error).message);
      }
      process.stdout.write(plan.diff);
      for (const note of plan.notes) console.log(`note: ${note}`);
      if (plan.problems.length > 0) {
        throw new CheckFailedError(`promotion refused, SOUL.md unchanged:\n  - ${plan.problems.join("\n  - ")}`);
      }
      if (!values.approve) {
        console.log("Checks pass. Nothing changed: re-run with --approve to apply this diff.");
        return 0;
      }
      const result = await applyPromotion(workspace, plan, isoDate(new Date()));
      console.log(`SOUL.md updated (Wisdom section only). ${result.backupNote}.`);
      if (result.queueBackup) console.log(`DAILY_EXECUTION_QUEUE.md: review item ticked (previous version: ${path.relative(workspace, result.queueBackup)}).`);
      return 0;
    }

    if (values.approve) throw new UsageError("--approve belongs to the promote subcommand");
    const today = parseDate(values.date);
    const collectOptions = {
      ...DEFAULT_COLLECT_OPTIONS,
      today,
      days: parseIntegerOption("days", values.days, DEFAULT_COLLECT_OPTIONS.days, 1),
      maxPromptLessonChars: parseIntegerOption("max-prompt-chars", values["max-prompt-chars"], DEFAULT_COLLECT_OPTIONS.maxPromptLessonChars, 100),
    };
    let collected;
    try {
      collected = await collectLessons(workspace, collectOptions);
    } catch (error) {
      if (error instanceof NoSourcesError) throw new CheckFailedError(error.message);
      throw error;
    }
    for (const warning of collected.warnings) process.stderr.write(`compress-wisdom: warning: ${warning}\n`);
    console.log("Sources:");
    for (const line of sourceSummary(collected)) console.log(`  ${line}`);
    console.log(`Lessons sent to the model: ${collected.lessons.length}${collected.omitted ? ` (${collected.omitted} omitted)` : ""}`);

    if (values["dry-run"]) {
      console.log("\n--- prompt ---");
      for (const message of buildWisdomPrompt(collected.lessons)) console.log(`[${message.role}]\n${message.content}\n`);
      console.log("Dry run: no model call, no file written.");
      return 0;
    }

    const llm = llmOptionsFrom(values, (attempt, reason) => process.stderr.write(`compress-wisdom: retry ${attempt}: ${reason}\n`));
    const date = isoDate(today);
    const result = await withProgress(`distilling with ${llm.model} (${llm.provider})`, () => distilWisdom({ lessons: collected.lessons, llm, date }));
    if (!result.ok) {
      process.stderr.write(`compress-wisdom: last model answer:\n${result.lastAnswer.slice(0, 2000)}\n`);
      throw new CheckFailedError(`the model's answer still breaks the rules after one repair round; no draft written:\n  - ${result.violations.join("\n  - ")}`);
    }
    const written = await writeDraftAndFlag({ workspace, section: result.section, entries: result.entries, lessons: collected.lessons, date });
    process.stdout.write(`\n${result.section}\n`);
    console.log(`Draft: ${written.draft}${result.repaired ? " (after one repair round)" : ""}`);
    console.log(`Trace: ${written.trace}`);
    console.log(`Flagged REVIEW NEEDED in ${written.queue}`);
    if (written.backups.length) console.log(`Previous versions backed up: ${written.backups.map((file) => path.relative(workspace, file)).join(", ")}`);
    console.log(`SOUL.md was not touched. Review, then: ${invocation.line("compress-wisdom", "promote --approve")}`);
    return 0;
  },
};
