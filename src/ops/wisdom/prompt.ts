import type { ChatMessage } from "../llm.ts";
import type { Lesson } from "./sources.ts";
import { DEFAULT_WISDOM_LIMITS, REQUIRED_ENTRY } from "./validate.ts";
import type { WisdomLimits } from "./validate.ts";

// Step 2: the spec's distillation prompt, plus the output contract the validator checks.
const SPEC_PROMPT =
  "Group these lessons by theme. For each theme, write one compressed wisdom pattern: broader applicability, no implementation-specific details, maximum 15 words.";

export function buildWisdomPrompt(lessons: readonly Lesson[], limits: WisdomLimits = DEFAULT_WISDOM_LIMITS): ChatMessage[] {
  const budgetChars = limits.maxSectionTokens * 4;
  return [
    { role: "system", content: "You compress operational lessons into short, general wisdom patterns. Answer with the entries only." },
    {
      role: "user",
      content: [
        SPEC_PROMPT,
        "",
        "Output rules:",
        `- ${limits.minEntries} to ${limits.maxEntries} lines, one entry per line, nothing else.`,
        "- Each line: **<Pattern name.>** <wisdom> [<ids>]  e.g. **Verify first.** Names and ports drift; check. [L2, L5, L9]",
        `- The pattern name ends with a period. The wisdom has at most ${limits.maxWords} words; terse is better.`,
        `- [<ids>] lists the ids of at least ${limits.minCitations} lessons below that the entry compresses.`,
        "- No port numbers, model names, file paths, hostnames or other implementation details.",
        `- All entries together must stay under about ${budgetChars - 200} characters.`,
        `- Include this entry exactly as written (no ids needed): ${REQUIRED_ENTRY}`,
        "",
        `Lessons (${lessons.length}):`,
        ...lessons.map((lesson) => `[${lesson.id}] ${lesson.text}`),
      ].join("\n"),
    },
  ];
}

/** The single repair round: the previous answer and exactly what was wrong with it. */
export function buildRepairMessages(original: ChatMessage[], answer: string, violations: readonly string[]): ChatMessage[] {
  return [
    ...original,
    { role: "assistant", content: answer },
    {
      role: "user",
      content: ["Your answer breaks these rules:", ...violations.map((violation) => `- ${violation}`), "", "Answer again with the corrected full list of entries only."].join("\n"),
    },
  ];
}
