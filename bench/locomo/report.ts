// Markdown tables for the LoCoMo summary.
import { pct, ratio } from "../lib/metrics.ts";
import { markdownTable } from "../lib/table.ts";
import { BUDGETS, VARIANT_TOP_K } from "./evaluate.ts";
import type { LocomoSummary, QualityRow } from "./evaluate.ts";

const REFERENCE_BM25_ALL10 = { r1: 0.322, r3: 0.5, r5: 0.564, mrr10: 0.425 };

function qualityCells(row: QualityRow): string[] {
  return [pct(row.r1), pct(row.r3), pct(row.r5), pct(row.mrr10), ...BUDGETS.map((b) => pct(row.inContext[b]))];
}

export function renderLocomo(summary: LocomoSummary): string {
  const out: string[] = [];
  const bundleAll = summary.bundle[0];
  const baselineAll = summary.baseline[0];
  const variantAll = summary.bundleTopKVariant[0];
  out.push(`### LoCoMo retrieval quality (${summary.conversations.length} conversations, ${summary.questions} questions)`);
  out.push("");
  out.push("Percentages. `ctx@N` = the gold turn's full text reached the block injected at a budget of N tokens (headline).");
  out.push("");
  out.push(
    markdownTable(
      ["retriever", "R@1", "R@3", "R@5", "MRR@10", ...BUDGETS.map((b) => `ctx@${b}`), "questions injected"],
      [
        ["bundle (hook path)", ...qualityCells(bundleAll), pct(bundleAll.injectedRate)],
        [`bundle, searchTopK ${VARIANT_TOP_K} (not the default)`, "", "", "", "", ...BUDGETS.map((b) => pct(variantAll.inContext[b])), pct(variantAll.injectedRate)],
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
          `ratio bundle topK ${VARIANT_TOP_K} / baseline`,
          "",
          "",
          "",
          "",
          ...BUDGETS.map((b) => ratio(variantAll.inContext[b], baselineAll.inContext[b])),
          "",
        ],
        [
          "README reference BM25 (10 conversations)",
          pct(REFERENCE_BM25_ALL10.r1),
          pct(REFERENCE_BM25_ALL10.r3),
          pct(REFERENCE_BM25_ALL10.r5),
          pct(REFERENCE_BM25_ALL10.mrr10),
          "",
          "",
          "",
          "",
        ],
      ],
    ),
  );
  out.push("");
  out.push("#### By category");
  out.push("");
  const categoryRows: string[][] = [];
  for (let i = 1; i < summary.bundle.length; i++) {
    const b = summary.bundle[i];
    const base = summary.baseline[i];
    categoryRows.push([b.group, String(b.questions), `${pct(b.r5)} / ${pct(base.r5)}`, `${pct(b.mrr10)} / ${pct(base.mrr10)}`, ...BUDGETS.map((budget) => `${pct(b.inContext[budget])} / ${pct(base.inContext[budget])}`), pct(b.injectedRate)]);
  }
  out.push(markdownTable(["category", "n", "R@5 bundle / BM25", "MRR@10 bundle / BM25", ...BUDGETS.map((b) => `ctx@${b} bundle / BM25`), "injected"], categoryRows));
  out.push("");
  out.push("#### Gate on non-memory prompts (each prompt run against every conversation's index)");
  out.push("");
  out.push(markdownTable(["kind", "prompts", "runs", "injected anything"], summary.nonMemory.map((r) => [r.kind, r.prompts, r.runs, pct(r.injectedRate)])));
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
  return out.join("\n");
}
