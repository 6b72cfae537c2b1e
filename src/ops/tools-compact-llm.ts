import type { ChatMessage } from "./llm.ts";

/** Prompt for the optional LLM pass of the TOOLS_COMPACT draft (spec §11: extraction task, local model). */
export function llmCompactPrompt(toolsMd: string, draft: string, sections: string[], maxTokens: number): ChatMessage[] {
  const source = toolsMd.length > 40_000 ? `${toolsMd.slice(0, 40_000)}\n[...TOOLS.md truncated...]` : toolsMd;
  return [
    {
      role: "system",
      content:
        "You turn tool documentation into a compact lookup table. Output Markdown only, no commentary, no code fences around the whole answer.",
    },
    {
      role: "user",
      content: [
        `Rewrite the DRAFT below into TOOLS_COMPACT.md: one "## <name>" heading for each of: ${sections.join(", ")}.`,
        "Under each heading keep only lookup data: aliases, ports, URLs, CLI flags, ids, names. One or two short lines per section, items separated by ' · '.",
        "No explanations, no sentences with 'because', 'so that' or 'we'. Do not invent values: use only what appears in TOOLS.md.",
        `Stay under ${maxTokens * 4} characters in total. Start with '# TOOLS_COMPACT'.`,
        "",
        "DRAFT:",
        draft,
        "",
        "TOOLS.md:",
        source,
      ].join("\n"),
    },
  ];
}
