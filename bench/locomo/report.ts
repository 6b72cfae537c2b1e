// Markdown tables for the LoCoMo summary.
import { pct, ratio } from "../lib/metrics.ts";
import { markdownTable } from "../lib/table.ts";
import { formatCompactBlock, formatContextBlock } from "../../src/context/format.ts";
import type { ContextBlockFormatter } from "../../src/context/format.ts";
import { BENCH_DIFFERENCES } from "../lib/bundle.ts";
import { BUDGETS } from "./evaluate.ts";
import type { LocomoSummary, QualityRow } from "./evaluate.ts";

const REFERENCE_BM25_ALL10 = { r1: 0.322, r3: 0.5, r5: 0.564, mrr10: 0.425 };

function qualityCells(row: QualityRow): string[] {
  return [pct(row.r1), pct(row.r3), pct(row.r5), pct(row.mrr10), ...BUDGETS.map((b) => pct(row.inContext[b]))];
}

/**
 * What each element of the two layouts costs, in tokens (4 characters each, as the budget counts):
 * measured by formatting blocks that differ in one element.
 */
export function layoutCosts(): string[][] {
  const frame = { ts: new Date("2023-05-08T13:56:00Z"), queryScore: 0.87, threshold: 0.15, sourceLabel: "workspace memory" };
  const text = "x".repeat(40);
  const entry = (date: string) => ({ date, text, score: 0.87 });
  const size = (format: ContextBlockFormatter, dates: string[]) => format({ ...frame, entries: dates.map(entry) }).length;
  const cost = (chars: number) => (chars / 4).toFixed(2);
  const rows: string[][] = [];
  for (const [name, format] of [["compact (injected)", formatCompactBlock], ["story 007 (ETHOS_CONTEXT.md)", formatContextBlock]] as const) {
    const one = size(format, ["2023-05-08"]);
    const sameDate = size(format, ["2023-05-08", "2023-05-08"]) - one;
    const newDate = size(format, ["2023-05-08", "2023-06-09"]) - one;
    const perEntry = sameDate - text.length;
    const perNewDate = newDate - sameDate;
    rows.push([name, cost(one - text.length - perEntry - perNewDate), cost(perEntry), cost(perNewDate)]);
  }
  return rows;
}

/** The two LoCoMo sets: the conversations as dialog transcripts, and as curated daily notes. */
export type LocomoSetName = "dialog" | "notes";
const SET_TITLES: Record<LocomoSetName, string> = {
  dialog: "LoCoMo retrieval quality, dialog set (one turn a paragraph, `Speaker: …`)",
  notes: "LoCoMo retrieval quality, notes set (curated daily notes: `## Name` and one fact a bullet)",
};

export function renderLocomo(summary: LocomoSummary, set: LocomoSetName = "dialog"): string {
  const out: string[] = [];
  const bundleAll = summary.bundle[0];
  const baselineAll = summary.baseline[0];
  const variantAll = summary.bundleStory007[0];
  out.push(`### ${SET_TITLES[set]} (${summary.conversations.length} conversations, ${summary.questions} questions)`);
  out.push("");
  out.push(
    set === "dialog"
      ? "Percentages. `ctx@N` = the gold turn's full text reached the block injected at a budget of N tokens (headline)."
      : "Percentages. `ctx@N` = the full text of a fact drawn from a gold turn reached the block injected at a budget of N tokens (headline); same questions, same scoring as the dialog set.",
  );
  out.push("");
  out.push(
    markdownTable(
      ["retriever", "R@1", "R@3", "R@5", "MRR@10", ...BUDGETS.map((b) => `ctx@${b}`), "questions injected"],
      [
        ["bundle (hook/plugin service, defaults)", ...qualityCells(bundleAll), pct(bundleAll.injectedRate)],
        ["bundle, story-007 layout injected (not the default)", "", "", "", "", ...BUDGETS.map((b) => pct(variantAll.inContext[b])), pct(variantAll.injectedRate)],
        ["BM25 baseline", ...qualityCells(baselineAll), pct(baselineAll.injectedRate)],
        [
          "ratio bundle / baseline",
          ratio(bundleAll.r1, baselineAll.r1),
          ratio(bundleAll.r3, baselineAll.r3),
          ratio(bundleAll.r5, baselineAll.r5),
          ratio(bundleAll.mrr10, baselineAll.mrr10),
          ...BUDGETS.map((b) => ratio(bundleAll.inContext[b], baselineAll.inContext[b])),
          "",
        ],
        [
          "ratio bundle story-007 layout / baseline",
          "",
          "",
          "",
          "",
          ...BUDGETS.map((b) => ratio(variantAll.inContext[b], baselineAll.inContext[b])),
          "",
        ],
        ...(set === "dialog"
          ? [["README reference BM25 (10 conversations)", pct(REFERENCE_BM25_ALL10.r1), pct(REFERENCE_BM25_ALL10.r3), pct(REFERENCE_BM25_ALL10.r5), pct(REFERENCE_BM25_ALL10.mrr10), "", "", "", ""]]
          : []),
      ],
    ),
  );
  out.push("");
  if (summary.parts.length > 0) {
    out.push("#### Tuning part and held-out part (ranking and gate were chosen on the tuning part only)");
    out.push("");
    out.push(
      markdownTable(
        ["part", "conversations", "questions", ...BUDGETS.map((b) => `ctx@${b} bundle / BM25`), ...BUDGETS.map((b) => `ratio @${b}`), "questions injected"],
        summary.parts.map(({ part, conversations, bundle, baseline }) => [
          part,
          conversations.join(", "),
          String(bundle.questions),
          ...BUDGETS.map((b) => `${pct(bundle.inContext[b])} / ${pct(baseline.inContext[b])}`),
          ...BUDGETS.map((b) => ratio(bundle.inContext[b], baseline.inContext[b])),
          pct(bundle.injectedRate),
        ]),
      ),
    );
    out.push("");
    out.push("By category and part, ctx@1000 bundle / BM25 (ratio):");
    out.push("");
    const groups = summary.parts[0].byCategory.map((row) => row.bundle.group);
    out.push(
      markdownTable(
        ["category", ...summary.parts.map(({ part }) => part)],
        groups.map((group) => [
          group,
          ...summary.parts.map(({ byCategory }) => {
            const row = byCategory.find((entry) => entry.bundle.group === group);
            return row ? `${pct(row.bundle.inContext[1000])} / ${pct(row.baseline.inContext[1000])} (${ratio(row.bundle.inContext[1000], row.baseline.inContext[1000])})` : "";
          }),
        ]),
      ),
    );
    out.push("");
  }
  out.push("#### By category");
  out.push("");
  const categoryRows: string[][] = [];
  for (let i = 1; i < summary.bundle.length; i++) {
    const b = summary.bundle[i];
    const base = summary.baseline[i];
    categoryRows.push([b.group, String(b.questions), `${pct(b.r5)} / ${pct(base.r5)}`, `${pct(b.mrr10)} / ${pct(base.mrr10)}`, ...BUDGETS.map((budget) => `${pct(b.inContext[budget])} / ${pct(base.inContext[budget])}`), pct(1 - b.injectedRate)]);
  }
  out.push(markdownTable(["category", "n", "R@5 bundle / BM25", "MRR@10 bundle / BM25", ...BUDGETS.map((b) => `ctx@${b} bundle / BM25`), "got nothing"], categoryRows));
  out.push("");
  out.push("#### Gate on non-memory prompts (each prompt run against every conversation's index)");
  out.push("");
  out.push(
    markdownTable(
      ["kind", "prompts", "runs", "injected anything", "tuning part", "held-out part"],
      summary.nonMemory.map((r) => [r.kind, r.prompts, r.runs, pct(r.injectedRate), pct(r.tuningRate), pct(r.heldOutRate)]),
    ),
  );
  out.push("");
  out.push("#### Confidence gate sweep (1,000-token budget)");
  out.push("");
  out.push(
    markdownTable(
      ["gate", "LoCoMo questions injected", "ctx@1000", "non-memory prompts injected"],
      summary.gateSweep.map((r) => [r.gate, pct(r.questionsInjected), pct(r.inContext1000), pct(r.nonMemoryInjected)]),
    ),
  );
  out.push("");
  out.push(
    `Median per question: bundle rank ${summary.latency.bundleMedianMs.toFixed(2)} ms, BM25 baseline ${summary.latency.baselineMedianMs.toFixed(2)} ms; ` +
      `median index build per conversation ${summary.latency.indexMedianMs.toFixed(0)} ms; ${summary.chunks} bundle chunks in all; ` +
      `median injected block ${summary.bundleInjectedTokensMedian} tokens when injecting at the 1,000-token budget.`,
  );
  if (set !== "dialog") return out.join("\n");
  out.push("");
  out.push("#### Injected layout: what each element costs (tokens; recall of each layout in the table above)");
  out.push("");
  out.push(markdownTable(["layout", "fixed per block", "per entry (without its text)", "per new date"], layoutCosts()));
  out.push("");
  out.push(BENCH_DIFFERENCES);
  return out.join("\n");
}

/**
 * The injected block against plain BM25 on both sets: the ratio at each budget (all questions, and
 * the held-out part), the weakest category, multi-hop and open-domain at 1,000 tokens, and the
 * gate's two sides (memory questions that get nothing, non-memory and coding prompts that inject).
 */
export function renderBothSets(sets: readonly [LocomoSetName, LocomoSummary][]): string {
  const times = (a: number, b: number) => `×${(a / Math.max(1e-9, b)).toFixed(2)}`;
  const row = (name: LocomoSetName, s: LocomoSummary) => {
    const all = s.bundle[0];
    const base = s.baseline[0];
    const heldOut = s.parts.find((p) => p.part === "held-out");
    const category = (wanted: string) => {
      const i = s.bundle.findIndex((r) => r.group.endsWith(wanted));
      return i > 0 ? times(s.bundle[i].inContext[1000], s.baseline[i].inContext[1000]) : "";
    };
    const weakest = BUDGETS.map((b) => {
      let worst = { group: "", ratio: Number.POSITIVE_INFINITY };
      for (let i = 1; i < s.bundle.length; i++) {
        const r = s.bundle[i].inContext[b] / Math.max(1e-9, s.baseline[i].inContext[b]);
        if (r < worst.ratio) worst = { group: s.bundle[i].group.replace(/^\d+ /, ""), ratio: r };
      }
      return `×${worst.ratio.toFixed(2)} ${worst.group}`;
    });
    const nonMemory = (kind: string) => pct(s.nonMemory.find((r) => r.kind === kind)?.injectedRate ?? Number.NaN);
    return [
      name,
      ...BUDGETS.map((b) => times(all.inContext[b], base.inContext[b])),
      ...BUDGETS.map((b) => (heldOut ? times(heldOut.bundle.inContext[b], heldOut.baseline.inContext[b]) : "")),
      ...weakest,
      category("multi-hop"),
      category("open-domain"),
      pct(1 - all.injectedRate),
      nonMemory("all"),
      nonMemory("coding-question"),
    ];
  };
  return [
    "#### LoCoMo, both sets: the injected block against plain BM25",
    "",
    markdownTable(
      [
        "set",
        ...BUDGETS.map((b) => `ctx@${b} ratio`),
        ...BUDGETS.map((b) => `held-out ctx@${b} ratio`),
        ...BUDGETS.map((b) => `weakest category @${b}`),
        "multi-hop @1000",
        "open-domain @1000",
        "memory questions that get nothing %",
        "non-memory prompts injected %",
        "coding questions injected %",
      ],
      sets.map(([name, summary]) => row(name, summary)),
    ),
  ].join("\n");
}
