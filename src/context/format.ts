// The ETHOS_CONTEXT.md / injected-record format of Ethos story 007, byte for byte:
//
//   <!-- ethos:context ts=2026-02-22T10:59:00Z query_score=0.87 -->
//   ## 🧠 Memory Context
//
//   Relevant memories retrieved from Ethos (top 3, similarity ≥ 0.75):
//
//   1. **[2026-02-22]** <text> *(score: 0.89)*
//
//   2. …
//
// Entry text must already be neutralised (src/memory/neutralise.ts); this module only lays out.

export type FormattedEntry = { date?: string; text: string; score: number };

export type ContextBlockInput = {
  entries: readonly FormattedEntry[];
  /** Turn time; rendered as ISO-8601 UTC without milliseconds. */
  ts: Date;
  /** Top score of the retrieval (story 007's `query_score`). */
  queryScore: number;
  /** Similarity threshold shown in the intro line (the gate that was applied). */
  threshold: number;
  /** "Ethos" for the Ethos backend, "workspace memory" for the embedded one. */
  sourceLabel: string;
};

/** Signature the context assembler can replace the default layout with. */
export type ContextBlockFormatter = (input: ContextBlockInput) => string;

function formatTimestamp(ts: Date): string {
  return ts.toISOString().replace(/\.\d{3}Z$/, "Z");
}

function formatScore(score: number): string {
  return (Math.round(Math.min(1, Math.max(0, score)) * 100) / 100).toFixed(2);
}

function formatEntry(index: number, entry: FormattedEntry): string {
  return `${index}. **[${entry.date ?? "undated"}]** ${entry.text} *(score: ${formatScore(entry.score)})*`;
}

function contextHeader(ts: Date, queryScore: number): string {
  return `<!-- ethos:context ts=${formatTimestamp(ts)} query_score=${formatScore(queryScore)} -->`;
}

/** The whole block; "" when there is nothing to inject. */
export const formatContextBlock: ContextBlockFormatter = (input) => {
  if (input.entries.length === 0) return "";
  const lines = [
    contextHeader(input.ts, input.queryScore),
    "## 🧠 Memory Context",
    "",
    `Relevant memories retrieved from ${input.sourceLabel} (top ${input.entries.length}, similarity ≥ ${formatScore(input.threshold)}):`,
  ];
  input.entries.forEach((entry, i) => lines.push("", formatEntry(i + 1, entry)));
  return `${lines.join("\n")}\n`;
};

// The compact layout of the block the model reads (hook and plugin path). Every element was
// measured against recall on LoCoMo (docs/retrieval.md, "Injected layout"): scores, numbering, the
// marker comment and blank lines bought nothing and cost about 9 tokens an entry, so they are gone;
// the date stays (the answer to "when" questions), written once per date group:
//
//   Relevant memories (workspace memory), by date:
//   - a memory without a date
//   [2023-05-08]
//   - Caroline: I went to a LGBTQ support group yesterday.
//
// Entries keep the order the budget chose within a date; dates run oldest first. Memories without a
// date come first, under no date line: an "[undated]" label is the bundle's filing, not the memory's.

export const formatCompactBlock: ContextBlockFormatter = (input) => {
  if (input.entries.length === 0) return "";
  const undated: string[] = [];
  const groups = new Map<string, string[]>();
  for (const entry of input.entries) {
    if (!entry.date) {
      undated.push(`- ${entry.text}`);
      continue;
    }
    const lines = groups.get(entry.date) ?? [];
    lines.push(`- ${entry.text}`);
    groups.set(entry.date, lines);
  }
  // Code-unit order (ISO dates sort as text); localeCompare's collation cost most of a turn's layout time.
  const dates = [...groups.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // The intro line is the same whatever the dates: adapters and operators find the block by it.
  const lines = [`Relevant memories (${input.sourceLabel}), by date:`, ...undated];
  for (const date of dates) lines.push(`[${date}]`, ...(groups.get(date) ?? []));
  return `${lines.join("\n")}\n`;
};
