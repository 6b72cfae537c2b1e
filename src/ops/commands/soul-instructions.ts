// soul-instructions: the ACI spec's on-demand instructions in SOUL.md (Phase 1 memory entry, Phase 3
// shedding, Phase 4 "read TOOLS.md"): shows what is missing and the diff; --apply writes it after a backup.
import path from "node:path";
import { parseArgs } from "node:util";
import { CheckFailedError, UsageError, printHelp } from "../cli.ts";
import { resolveWorkspace } from "../paths.ts";
import { SOUL_INSTRUCTION_PARTS, applySoulInstructions, checkSoulInstructions, planSoulInstructions } from "../soul-instructions.ts";
import type { SoulInstructionPart } from "../soul-instructions.ts";
import { usage } from "./command.ts";
import type { OperatorCommand } from "./command.ts";

function parseParts(value: string | undefined): SoulInstructionPart[] {
  if (value === undefined) return [...SOUL_INSTRUCTION_PARTS];
  const parts = value.split(",").map((part) => part.trim()).filter(Boolean);
  const unknown = parts.filter((part) => !(SOUL_INSTRUCTION_PARTS as readonly string[]).includes(part));
  if (unknown.length > 0 || parts.length === 0) throw new UsageError(`--only takes a comma list of ${SOUL_INSTRUCTION_PARTS.join(", ")}; got "${value}"`);
  return parts as SoulInstructionPart[];
}

export const soulInstructionsCommand: OperatorCommand = {
  name: "soul-instructions",
  messageName: "soul-instructions",
  summary: "check SOUL.md for the spec's on-demand instructions (memory entry, read TOOLS.md, shedding); --apply adds the missing ones",
  help: (invocation) => `${usage(invocation, "soul-instructions", "[--workspace <dir>] [--only memory,tools,shedding] [--apply]")}

Checks SOUL.md for the ACI spec's on-demand instructions and shows the diff that adds the missing
ones. Nothing changes without --apply.
  memory    Phase 1 / spec section 5: the required wisdom entry, inside "## Wisdom" (the section is
            created at the end when there is none):
            "When context feels incomplete, check your memory. Read memory/YYYY-MM-DD.md and MEMORY.md ..."
  tools     Phase 4: "For full tool details, read TOOLS.md explicitly when needed." in "## On demand"
  shedding  Phase 3: a "## Context shedding" section with the three behavioural shedding lines
The session-aware bootstrap stops naming MEMORY.md / TOOLS.md in its on-demand line once SOUL.md
carries these (docs/session-aware-bootstrap.md).

With --apply, SOUL.md is copied to initiatives/adaptive-context-injection/backups/SOUL.md.<timestamp>.bak
first, then replaced under its lock. Undo: rollback --phase 3 (shedding), rollback --phase 4
(the TOOLS.md line), or restore the backup.

Options:
  --workspace <dir>  workspace root (default: agents.defaults.workspace in openclaw.json, else ~/.openclaw/workspace)
  --only <parts>     comma list of memory, tools, shedding (default: all three)
  --apply            write the change
  -h, --help         show this help

Exit codes: 0 shown or applied, 1 failed (no SOUL.md, or it changed meanwhile), 2 bad usage.`,
  async main(argv, invocation) {
    const { values } = parseArgs({
      args: argv,
      options: { workspace: { type: "string" }, only: { type: "string" }, apply: { type: "boolean", default: false }, help: { type: "boolean", short: "h" } },
      strict: true,
    });
    if (values.help) return printHelp(soulInstructionsCommand.help(invocation));
    const parts = parseParts(values.only);
    const workspace = resolveWorkspace(values.workspace);
    const check = await checkSoulInstructions(workspace);
    if (!check.exists) throw new CheckFailedError(`no SOUL.md at ${check.soulPath}`);
    for (const item of check.items) console.log(`${item.present ? "ok     " : "missing"} phase ${item.phase} ${item.part}: ${item.detail}`);
    const plan = await planSoulInstructions(workspace, parts);
    for (const note of plan.notes) console.log(`note: ${note}`);
    if (plan.added.length === 0) {
      console.log("Nothing to add: SOUL.md already holds the instructions asked for.");
      return 0;
    }
    process.stdout.write(plan.diff);
    if (!values.apply) {
      console.log(`Nothing changed: re-run with --apply to add ${plan.added.join(", ")} (${invocation.line("soul-instructions", values.only ? `--only ${values.only} --apply` : "--apply")}).`);
      return 0;
    }
    const { backup } = await applySoulInstructions(workspace, plan);
    console.log(`SOUL.md updated: added ${plan.added.join(", ")}. Previous version: ${backup ? path.relative(workspace, backup) : "(none)"}.`);
    return 0;
  },
};
