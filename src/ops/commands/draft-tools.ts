// draft-tools: draft TOOLS_COMPACT.md from TOOLS.md (deterministic extraction, optional LLM pass). Never writes TOOLS_COMPACT.md.
import fs from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { UsageError, parseIntegerOption, withProgress, printHelp } from "../cli.ts";
import { chat } from "../llm.ts";
import { LLM_HELP, LLM_PARSE_OPTIONS, llmOptionsFrom } from "../llm-options.ts";
import { INITIATIVE_DIR, backupsDir, initiativeDir, resolveWorkspace } from "../paths.ts";
import { replaceFileWithBackup } from "../safe-write.ts";
import { DEFAULT_CHECK_OPTIONS, checkAgainstSource, checkToolsCompact, draftToolsCompact } from "../tools-compact.ts";
import { llmCompactPrompt } from "../tools-compact-llm.ts";
import { usage } from "./command.ts";
import type { OperatorCommand } from "./command.ts";

const MAX_TOOLS_BYTES = 4 * 1024 * 1024;

async function readTools(file: string): Promise<string> {
  try {
    const stat = await fs.stat(file);
    if (stat.size > MAX_TOOLS_BYTES) throw new UsageError(`${file} is ${stat.size} bytes; the draft generator reads at most ${MAX_TOOLS_BYTES}`);
    return await fs.readFile(file, "utf8");
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read ${file}`);
  }
}

export const draftToolsCommand: OperatorCommand = {
  name: "draft-tools",
  messageName: "draft-tools-compact",
  summary: "draft TOOLS_COMPACT.md from TOOLS.md (never writes TOOLS_COMPACT.md itself)",
  help: (invocation) => `${usage(invocation, "draft-tools", "[--workspace <dir>] [--tools <TOOLS.md>] [--out <file>] [--section <name>]...", "[--max-tokens <n>] [--llm [model options]]")}

Builds a TOOLS_COMPACT draft from TOOLS.md by deterministic extraction: table rows, "key: value"
lines, URLs, host:port, ports, paths, flags, ids and code spans (each copied byte for byte; the
draft is then compared with TOOLS.md and a damaged value fails it) under the headings that match each required section
(${DEFAULT_CHECK_OPTIONS.requiredSections.join(", ")}). Prose ("because", "we", ...) is reduced to its values
(code spans, URLs, ports, paths).
Items are trimmed from the longest section until the draft fits --max-tokens.

With --llm, the deterministic draft and the matching TOOLS.md sections go to a local model for a
tighter rewrite; the model's answer is kept only if it passes check-tools' rules (AC-6), else the
deterministic draft is written and the reasons are printed.

Writes <workspace>/${INITIATIVE_DIR}/TOOLS_COMPACT_DRAFT.md (or --out; an existing file is backed
up first). It never writes TOOLS_COMPACT.md: review the draft and copy it yourself.

Options:
  --workspace <dir>   workspace root (default: agents.defaults.workspace in openclaw.json, else ~/.openclaw/workspace)
  --tools <file>      source (default <workspace>/TOOLS.md, else backups/TOOLS.md.bak)
  --out <file>        draft path; a file named TOOLS_COMPACT.md is refused
  --section <name>    required section; repeat to replace the default list
  --max-tokens <n>    size target (default ${DEFAULT_CHECK_OPTIONS.maxTokens})
  --llm               add the optional LLM pass
  -h, --help          show this help

${LLM_HELP}`,
  async main(argv, invocation) {
    const { values } = parseArgs({
      args: argv,
      options: {
        workspace: { type: "string" },
        tools: { type: "string" },
        out: { type: "string" },
        section: { type: "string", multiple: true },
        "max-tokens": { type: "string" },
        llm: { type: "boolean", default: false },
        ...LLM_PARSE_OPTIONS,
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    });
    if (values.help) return printHelp(draftToolsCommand.help(invocation));
    const workspace = resolveWorkspace(values.workspace);
    const out = path.resolve(values.out ?? path.join(initiativeDir(workspace), "TOOLS_COMPACT_DRAFT.md"));
    if (path.basename(out) === "TOOLS_COMPACT.md") throw new UsageError("refusing to write TOOLS_COMPACT.md: the generator only writes drafts (pick another --out)");
    let toolsFile = values.tools ? path.resolve(values.tools) : path.join(workspace, "TOOLS.md");
    if (!values.tools) {
      try {
        await fs.access(toolsFile);
      } catch {
        // `openclaw doctor --fix` may have archived TOOLS.md; the Phase 0 backup is the next best source.
        toolsFile = path.join(backupsDir(workspace), "TOOLS.md.bak");
        process.stderr.write(`draft-tools-compact: warning: no TOOLS.md in the workspace, trying ${toolsFile}\n`);
      }
    }
    const tools = await readTools(toolsFile);
    const maxTokens = parseIntegerOption("max-tokens", values["max-tokens"], DEFAULT_CHECK_OPTIONS.maxTokens, 1);
    const requiredSections = values.section?.map((name) => name.trim()).filter(Boolean) ?? DEFAULT_CHECK_OPTIONS.requiredSections;
    const checkOptions = { ...DEFAULT_CHECK_OPTIONS, requiredSections, maxTokens };

    const draft = draftToolsCompact(tools, { requiredSections, maxTokens });
    for (const warning of draft.warnings) process.stderr.write(`draft-tools-compact: warning: ${warning}\n`);
    let text = draft.text;
    let origin = "deterministic extraction";

    if (values.llm) {
      const llm = llmOptionsFrom(values, (attempt, reason) => process.stderr.write(`draft-tools-compact: retry ${attempt}: ${reason}\n`));
      try {
        const answer = await withProgress(`asking ${llm.model}`, () => chat(llm, llmCompactPrompt(tools, draft.text, requiredSections, maxTokens)));
        const candidate = answer.replace(/^```\w*\n|\n```\s*$/g, "").trim() + "\n";
        const verdict = checkToolsCompact(candidate, checkOptions);
        if (verdict.ok) {
          text = candidate;
          origin = `LLM pass (${llm.model}) over the deterministic draft`;
        } else {
          process.stderr.write(`draft-tools-compact: warning: LLM draft rejected (${verdict.violations.map((v) => v.detail).join("; ")}); keeping the deterministic draft\n`);
        }
      } catch (error) {
        process.stderr.write(`draft-tools-compact: warning: LLM pass failed (${(error as Error).message}); keeping the deterministic draft\n`);
      }
    }

    const backup = await replaceFileWithBackup(out, text, backupsDir(workspace));
    const verdict = checkToolsCompact(text, checkOptions);
    // URLs, ports, paths and commands must come through byte for byte.
    const against = checkAgainstSource(text, tools, requiredSections);
    for (const token of against.damaged) verdict.violations.push({ rule: "damaged", detail: `${token} is not in ${toolsFile} byte for byte` });
    verdict.ok = verdict.violations.length === 0;
    process.stdout.write(text);
    console.log(`\nDraft (${origin}) written to ${out}${backup ? ` (previous draft: ${backup})` : ""}`);
    for (const section of draft.perSection) {
      console.log(`  ${section.section}: ${section.items} item(s) from ${section.sources.map((s) => `"${s}"`).join(", ") || "nothing"}${section.dropped ? `, ${section.dropped} dropped to fit` : ""}`);
    }
    console.log(`Compact-tools check (AC-6) of the draft: ${verdict.ok ? "PASS" : "FAIL"} (${verdict.tokens} tokens)${verdict.ok ? "" : `\n  ${verdict.violations.map((v) => `${v.rule}: ${v.detail}`).join("\n  ")}`}`);
    if (against.lost.length > 0) console.log(`  left out (in TOOLS.md, not in the draft): ${against.lost.join(", ")}`);
    console.log("Review it, then copy it to TOOLS_COMPACT.md yourself.");
    return verdict.ok ? 0 : 1;
  },
};
