// check-tools: the AC-6 check: TOOLS_COMPACT.md ≤ 300 tokens, the required lookup sections, no narrative prose.
import fs from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { CheckFailedError, UsageError, parseIntegerOption, printHelp } from "../cli.ts";
import { backupsDir, resolveWorkspace } from "../paths.ts";
import { DEFAULT_CHECK_OPTIONS, checkAgainstSource, checkToolsCompact } from "../tools-compact.ts";
import { usage } from "./command.ts";
import type { OperatorCommand } from "./command.ts";

export const checkToolsCommand: OperatorCommand = {
  name: "check-tools",
  messageName: "check-tools-compact",
  summary: "check TOOLS_COMPACT.md against the compact-tools rule (AC-6) and TOOLS.md",
  help: (invocation) => `${usage(invocation, "check-tools", "[--workspace <dir> | --file <TOOLS_COMPACT.md>] [--tools <TOOLS.md> | --no-source]", "[--section <name>]... [--max-tokens <n>] [--max-paragraph-words <n>] [--json]")}

Checks that TOOLS_COMPACT.md is a short lookup table (the compact-tools rule, AC-6):
  - at most ${DEFAULT_CHECK_OPTIONS.maxTokens} tokens (estimateTokens = ceil(chars/4))
  - a heading for each required lookup section (default: ${DEFAULT_CHECK_OPTIONS.requiredSections.join(", ")})
  - no narrative prose: no line with ${DEFAULT_CHECK_OPTIONS.narrativeMarkers.map((m) => `"${m}"`).join(", ")} (outside \`code\`),
    no paragraph or entry over ${DEFAULT_CHECK_OPTIONS.maxParagraphWords} words
  - against TOOLS.md (when there is one): every URL, port, path and command in it appears byte
    for byte in TOOLS.md (a damaged value, like "http: //host", fails the check); values of the
    matching TOOLS.md sections that the compact file leaves out are listed as warnings

Options:
  --workspace <dir>            check <dir>/TOOLS_COMPACT.md (default: agents.defaults.workspace in openclaw.json, else ~/.openclaw/workspace)
  --file <path>                check this file instead (e.g. a draft)
  --tools <path>               TOOLS.md to compare with (default <workspace>/TOOLS.md, else backups/TOOLS.md.bak)
  --no-source                  skip the comparison with TOOLS.md
  --section <name>             required section; repeat to replace the default list
  --max-tokens <n>             size limit (default ${DEFAULT_CHECK_OPTIONS.maxTokens})
  --max-paragraph-words <n>    long-paragraph limit (default ${DEFAULT_CHECK_OPTIONS.maxParagraphWords})
  --json                       machine-readable result
  -h, --help                   show this help

Exit codes: 0 pass, 1 fail, 2 bad usage. Reads only; changes no file.`,
  async main(argv, invocation) {
    const { values } = parseArgs({
      args: argv,
      options: {
        workspace: { type: "string" },
        file: { type: "string" },
        tools: { type: "string" },
        "no-source": { type: "boolean", default: false },
        section: { type: "string", multiple: true },
        "max-tokens": { type: "string" },
        "max-paragraph-words": { type: "string" },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    });
    if (values.help) return printHelp(checkToolsCommand.help(invocation));
    if (values.file && values.workspace) throw new UsageError("give either --file or --workspace, not both");
    let workspace: string | undefined;
    try {
      workspace = resolveWorkspace(values.workspace);
    } catch (error) {
      // With --file the workspace only supplies TOOLS.md for the comparison.
      if (!values.file) throw error;
    }
    const file = values.file ? path.resolve(values.file) : path.join(workspace!, "TOOLS_COMPACT.md");
    let text: string;
    try {
      text = await fs.readFile(file, "utf8");
    } catch {
      if (!values.file) throw new UsageError(`there is no ${file} yet: run \`${invocation.line("draft-tools")}\` first, review the draft it writes, then copy it to TOOLS_COMPACT.md`);
      throw new UsageError(`cannot read ${file}`);
    }
    const sections = values.section?.map((name) => name.trim()).filter(Boolean);
    if (values.section && (!sections || sections.length === 0)) throw new UsageError("--section needs a non-empty name");
    const result = checkToolsCompact(text, {
      ...DEFAULT_CHECK_OPTIONS,
      requiredSections: sections ?? DEFAULT_CHECK_OPTIONS.requiredSections,
      maxTokens: parseIntegerOption("max-tokens", values["max-tokens"], DEFAULT_CHECK_OPTIONS.maxTokens, 1),
      maxParagraphWords: parseIntegerOption("max-paragraph-words", values["max-paragraph-words"], DEFAULT_CHECK_OPTIONS.maxParagraphWords, 1),
    });
    // Compare with TOOLS.md: what the compact file damaged (fails) and left out (warnings).
    let source: { file: string; damaged: string[]; lost: string[] } | undefined;
    if (!values["no-source"]) {
      const candidates = values.tools ? [path.resolve(values.tools)] : workspace ? [path.join(workspace, "TOOLS.md"), path.join(backupsDir(workspace), "TOOLS.md.bak")] : [];
      for (const candidate of candidates) {
        const tools = await fs.readFile(candidate, "utf8").catch(() => undefined);
        if (tools === undefined) {
          if (values.tools) throw new UsageError(`cannot read --tools ${candidate}`);
          continue;
        }
        source = { file: candidate, ...checkAgainstSource(text, tools, sections ?? DEFAULT_CHECK_OPTIONS.requiredSections) };
        break;
      }
    }
    for (const token of source?.damaged ?? []) {
      result.violations.push({ rule: "damaged", detail: `${token} is not in ${source!.file} byte for byte (damaged by a draft, or new: fix it here or add it to TOOLS.md)` });
    }
    result.ok = result.violations.length === 0;
    if (values.json) console.log(JSON.stringify({ file, ...result, source }, null, 2));
    else {
      console.log(`${file}: ${result.tokens} tokens; sections found: ${result.sectionsFound.join(", ") || "none"}${source ? `; compared with ${source.file}` : ""}`);
      for (const violation of result.violations) console.log(`  ${violation.rule}: ${violation.detail}`);
      if (source && source.lost.length > 0) console.log(`  warning: left out of the compact file (in TOOLS.md): ${source.lost.join(", ")}`);
    }
    if (!result.ok) throw new CheckFailedError(`compact-tools check (AC-6) failed with ${result.violations.length} violation(s)`);
    if (!values.json) console.log("compact-tools check (AC-6): PASS");
  },
};
