#!/usr/bin/env -S npx tsx
// AC-6 check: TOOLS_COMPACT.md ≤ 300 tokens, the required lookup sections, no narrative prose.
import fs from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { CheckFailedError, UsageError, parseIntegerOption, printHelpAndExit, runScript } from "../src/ops/cli.ts";
import { resolveWorkspace } from "../src/ops/paths.ts";
import { DEFAULT_CHECK_OPTIONS, checkToolsCompact } from "../src/ops/tools-compact.ts";

const HELP = `Usage: npm run check-tools -- [--workspace <dir> | --file <TOOLS_COMPACT.md>] [--section <name>]...
                             [--max-tokens <n>] [--max-paragraph-words <n>] [--json]

Checks TOOLS_COMPACT.md against AC-6:
  - at most ${DEFAULT_CHECK_OPTIONS.maxTokens} tokens (estimateTokens = ceil(chars/4))
  - a heading for each required lookup section (default: ${DEFAULT_CHECK_OPTIONS.requiredSections.join(", ")})
  - no narrative prose: no line with ${DEFAULT_CHECK_OPTIONS.narrativeMarkers.map((m) => `"${m}"`).join(", ")} (outside \`code\`),
    no paragraph or entry over ${DEFAULT_CHECK_OPTIONS.maxParagraphWords} words

Options:
  --workspace <dir>            check <dir>/TOOLS_COMPACT.md (default: agents.defaults.workspace in openclaw.json, else ~/.openclaw/workspace)
  --file <path>                check this file instead (e.g. a draft)
  --section <name>             required section; repeat to replace the default list
  --max-tokens <n>             size limit (default ${DEFAULT_CHECK_OPTIONS.maxTokens})
  --max-paragraph-words <n>    long-paragraph limit (default ${DEFAULT_CHECK_OPTIONS.maxParagraphWords})
  --json                       machine-readable result
  -h, --help                   show this help

Exit codes: 0 pass, 1 fail, 2 bad usage. Reads only; changes no file.`;

await runScript("check-tools-compact", async () => {
  const { values } = parseArgs({
    options: {
      workspace: { type: "string" },
      file: { type: "string" },
      section: { type: "string", multiple: true },
      "max-tokens": { type: "string" },
      "max-paragraph-words": { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) printHelpAndExit(HELP);
  if (values.file && values.workspace) throw new UsageError("give either --file or --workspace, not both");
  const file = values.file ? path.resolve(values.file) : path.join(resolveWorkspace(values.workspace), "TOOLS_COMPACT.md");
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch {
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
  if (values.json) console.log(JSON.stringify({ file, ...result }, null, 2));
  else {
    console.log(`${file}: ${result.tokens} tokens; sections found: ${result.sectionsFound.join(", ") || "none"}`);
    for (const violation of result.violations) console.log(`  ${violation.rule}: ${violation.detail}`);
  }
  if (!result.ok) throw new CheckFailedError(`AC-6 check failed with ${result.violations.length} violation(s)`);
  if (!values.json) console.log("AC-6 check: PASS");
});
