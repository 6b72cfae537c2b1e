// LoCoMo evaluation: ranks, injected-context recall at token budgets and gate rates, for the
// bundle and the BM25 baseline in the same run, broken down by question category.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { estimateTokens } from "../../src/core/tokens.ts";
import { firstRelevantRank, hitAtK, mean, median, reciprocalRankAt } from "../lib/metrics.ts";
import type { IndexUnderTest, RetrieverUnderTest } from "../lib/retriever-under-test.ts";
import { Bm25Baseline } from "./bm25-baseline.ts";
import { CATEGORY_NAMES, HELD_OUT_CONVERSATIONS, goldTurnsOf, turnIdsIn } from "./data.ts";
import type { Conversation, Turn } from "./data.ts";

export const BUDGETS = [250, 500, 1000] as const;
/** Alternative confidence gates tried at the 1,000-token budget (the configured one is the main run). */
export const GATE_SWEEP = [0.12, 0.2, 0.25, 0.3] as const;
export type Budget = (typeof BUDGETS)[number];

export type NonMemoryPrompt = { kind: string; text: string };

export type QuestionResult = {
  conversation: string;
  category: number;
  question: string;
  bundleRank?: number;
  baselineRank?: number;
  /** Budget (tokens) → did a gold turn's full text reach the injected block. */
  bundleInContext: Record<string, boolean>;
  /** Same with story 007's layout injected instead of the compact one (what the layout costs). */
  bundleStory007InContext: Record<string, boolean>;
  baselineInContext: Record<string, boolean>;
  bundleInjected: boolean;
  bundleGate: string;
  bundleInjectedTokens: number;
  bundleMs: number;
  baselineMs: number;
  /** Gate threshold → injected / gold text in the 1,000-token block. */
  gateSweep: Record<string, { injected: boolean; inContext: boolean }>;
};

export type NonMemoryResult = { conversation: string; kind: string; injected: boolean; gate: string; gateSweep: Record<string, boolean> };

export type ConversationRun = {
  conversation: string;
  chunks: number;
  indexMs: number;
  questions: QuestionResult[];
  nonMemory: NonMemoryResult[];
};

/** Lowercase words only, so markdown escaping or neutralisation cannot hide a quoted turn. */
export function normaliseForContainment(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}

/** Did any gold turn's whole text reach the block the model sees? */
export function goldTextInBlock(block: string, goldTurns: readonly Turn[]): boolean {
  if (!block) return false;
  const haystack = ` ${normaliseForContainment(block)} `;
  return goldTurns.some((turn) => {
    const needle = normaliseForContainment(turn.text);
    return needle.length > 0 && haystack.includes(` ${needle} `);
  });
}

/**
 * The baseline's injected block at a budget: top-ranked turns, best first, as dated bullet lines,
 * skipping any turn that would overflow the budget. No gate: plain BM25 always injects.
 */
export function baselineBlock(ranked: readonly Turn[], budgetTokens: number): string {
  const lines: string[] = [];
  let used = 0;
  for (const turn of ranked) {
    const date = path.basename(turn.file, ".md");
    const line = `- [${date}] ${turn.text}\n`;
    const cost = estimateTokens(line);
    if (used + cost > budgetTokens) continue;
    lines.push(line);
    used += cost;
  }
  return lines.join("");
}

export async function evaluateConversation(
  conversation: Conversation,
  bundle: RetrieverUnderTest,
  nonMemoryPrompts: readonly NonMemoryPrompt[],
  options: { questionStride?: number } = {},
): Promise<ConversationRun> {
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), `occ-bench-${conversation.name}-`));
  try {
    const indexStart = performance.now();
    const index: IndexUnderTest = await bundle.openIndex(conversation.dir, { cacheDir });
    const indexMs = performance.now() - indexStart;
    const baseline = new Bm25Baseline(conversation.turns.map((turn) => ({ item: turn, text: turn.text })));
    const questions: QuestionResult[] = [];
    const stride = options.questionStride ?? 1;
    const queries = conversation.queries.filter((_, i) => i % stride === 0);
    for (const query of queries) {
      const gold = new Set(query.evidence);
      const goldTurns = goldTurnsOf(conversation, query.evidence);

      const bundleStart = performance.now();
      const ranked = await index.rank(query.q, 10);
      const bundleMs = performance.now() - bundleStart;
      const bundleRank = firstRelevantRank(ranked, (chunk) => turnIdsIn(chunk.text).some((id) => gold.has(id)));

      const bundleInContext: Record<string, boolean> = {};
      const bundleStory007InContext: Record<string, boolean> = {};
      let bundleInjected = false;
      let bundleGate = "";
      let bundleInjectedTokens = 0;
      for (const budget of BUDGETS) {
        const outcome = await index.runTurn(query.q, budget);
        bundleInContext[budget] = outcome.injected && goldTextInBlock(outcome.block, goldTurns);
        const variant = await index.runTurn(query.q, budget, { layout: "story-007" });
        bundleStory007InContext[budget] = variant.injected && goldTextInBlock(variant.block, goldTurns);
        if (budget === 1000) {
          bundleInjected = outcome.injected;
          bundleGate = outcome.gate;
          bundleInjectedTokens = estimateTokens(outcome.block);
        }
      }

      const gateSweep: QuestionResult["gateSweep"] = {};
      for (const confidenceGate of GATE_SWEEP) {
        const outcome = await index.runTurn(query.q, 1000, { confidenceGate });
        gateSweep[confidenceGate] = { injected: outcome.injected, inContext: outcome.injected && goldTextInBlock(outcome.block, goldTurns) };
      }

      const baselineStart = performance.now();
      const baselineHits = baseline.search(query.q, 50);
      const baselineMs = performance.now() - baselineStart;
      const baselineTurns = baselineHits.map((hit) => hit.item);
      const baselineRank = firstRelevantRank(baselineTurns.slice(0, 10), (turn) => gold.has(turn.id));
      const baselineInContext: Record<string, boolean> = {};
      for (const budget of BUDGETS) baselineInContext[budget] = goldTextInBlock(baselineBlock(baselineTurns, budget), goldTurns);

      questions.push({
        conversation: conversation.name,
        category: query.category,
        question: query.q,
        bundleRank,
        baselineRank,
        bundleInContext,
        bundleStory007InContext,
        baselineInContext,
        bundleInjected,
        bundleGate,
        bundleInjectedTokens,
        bundleMs,
        baselineMs,
        gateSweep,
      });
    }
    const nonMemory: NonMemoryResult[] = [];
    for (const prompt of nonMemoryPrompts) {
      const outcome = await index.runTurn(prompt.text, 1000);
      const gateSweep: Record<string, boolean> = {};
      for (const confidenceGate of GATE_SWEEP) gateSweep[confidenceGate] = (await index.runTurn(prompt.text, 1000, { confidenceGate })).injected;
      nonMemory.push({ conversation: conversation.name, kind: prompt.kind, injected: outcome.injected, gate: outcome.gate, gateSweep });
    }
    await index.flush(); // the background cache write must land before the folder goes
    return { conversation: conversation.name, chunks: index.chunkCount, indexMs, questions, nonMemory };
  } finally {
    fs.rmSync(cacheDir, { recursive: true, force: true });
  }
}

export type QualityRow = {
  group: string;
  questions: number;
  r1: number;
  r3: number;
  r5: number;
  mrr10: number;
  inContext: Record<string, number>;
  injectedRate: number;
};

function qualityRow(group: string, results: readonly QuestionResult[], who: "bundle" | "bundleStory007" | "baseline"): QualityRow {
  const rankOf = (r: QuestionResult) => (who === "baseline" ? r.baselineRank : r.bundleRank);
  const inContextOf = (r: QuestionResult) =>
    who === "bundle" ? r.bundleInContext : who === "bundleStory007" ? r.bundleStory007InContext : r.baselineInContext;
  const inContext: Record<string, number> = {};
  for (const budget of BUDGETS) inContext[budget] = mean(results.map((r) => (inContextOf(r)[budget] ? 1 : 0)));
  return {
    group,
    questions: results.length,
    r1: mean(results.map((r) => (hitAtK(rankOf(r), 1) ? 1 : 0))),
    r3: mean(results.map((r) => (hitAtK(rankOf(r), 3) ? 1 : 0))),
    r5: mean(results.map((r) => (hitAtK(rankOf(r), 5) ? 1 : 0))),
    mrr10: mean(results.map((r) => reciprocalRankAt(rankOf(r), 10))),
    inContext,
    injectedRate: who === "baseline" ? 1 : mean(results.map((r) => (r.bundleInjected ? 1 : 0))),
  };
}

export type LocomoSummary = {
  conversations: string[];
  questions: number;
  chunks: number;
  bundle: QualityRow[];
  bundleStory007: QualityRow[];
  baseline: QualityRow[];
  /** Per kind ("all" first): the share of runs that injected anything, over all conversations and per part. */
  nonMemory: { kind: string; prompts: number; runs: number; injectedRate: number; tuningRate: number; heldOutRate: number }[];
  /** One row per gate threshold (the configured one first): questions injected, ctx@1000, non-memory injected. */
  gateSweep: { gate: string; questionsInjected: number; inContext1000: number; nonMemoryInjected: number }[];
  latency: { bundleMedianMs: number; baselineMedianMs: number; indexMedianMs: number };
  bundleInjectedTokensMedian: number;
  /** The same headline for the conversations tuned on and for the held-out ones (data.ts). */
  parts: { part: "tuning" | "held-out"; conversations: string[]; bundle: QualityRow; baseline: QualityRow; byCategory: { bundle: QualityRow; baseline: QualityRow }[] }[];
};

export function summarise(runs: readonly ConversationRun[], configuredGate: number): LocomoSummary {
  const all = runs.flatMap((run) => run.questions);
  const byCategory = (rows: readonly QuestionResult[]) =>
    Object.entries(CATEGORY_NAMES)
      .map(([category, name]): [string, QuestionResult[]] => [`${category} ${name}`, rows.filter((r) => r.category === Number(category))])
      .filter(([, chosen]) => chosen.length > 0);
  const groups: [string, QuestionResult[]][] = [["all", all], ...byCategory(all)];
  const nonMemoryAll = runs.flatMap((run) => run.nonMemory);
  const kinds = [...new Set(nonMemoryAll.map((r) => r.kind))];
  const nonMemory = [["all", nonMemoryAll] as const, ...kinds.map((kind) => [kind, nonMemoryAll.filter((r) => r.kind === kind)] as const)].map(
    ([kind, rows]) => {
      // A part without conversations has no rate (NaN: printed "n/a").
      const rate = (chosen: readonly NonMemoryResult[]) => (chosen.length ? mean(chosen.map((r) => (r.injected ? 1 : 0))) : Number.NaN);
      return {
        kind,
        prompts: runs.length ? rows.length / runs.length : 0,
        runs: rows.length,
        injectedRate: rate(rows),
        tuningRate: rate(rows.filter((r) => !HELD_OUT_CONVERSATIONS.has(r.conversation))),
        heldOutRate: rate(rows.filter((r) => HELD_OUT_CONVERSATIONS.has(r.conversation))),
      };
    },
  );
  const injectedTokens = all.filter((r) => r.bundleInjected).map((r) => r.bundleInjectedTokens);
  return {
    conversations: runs.map((run) => run.conversation),
    questions: all.length,
    chunks: runs.reduce((sum, run) => sum + run.chunks, 0),
    bundle: groups.filter(([, rows]) => rows.length > 0).map(([group, rows]) => qualityRow(group, rows, "bundle")),
    bundleStory007: groups.filter(([, rows]) => rows.length > 0).map(([group, rows]) => qualityRow(group, rows, "bundleStory007")),
    baseline: groups.filter(([, rows]) => rows.length > 0).map(([group, rows]) => qualityRow(group, rows, "baseline")),
    nonMemory,
    gateSweep: [
      {
        gate: `${configuredGate} (configured)`,
        questionsInjected: mean(all.map((r) => (r.bundleInjected ? 1 : 0))),
        inContext1000: mean(all.map((r) => (r.bundleInContext["1000"] ? 1 : 0))),
        nonMemoryInjected: mean(nonMemoryAll.map((r) => (r.injected ? 1 : 0))),
      },
      ...GATE_SWEEP.map((gate) => ({
        gate: String(gate),
        questionsInjected: mean(all.map((r) => (r.gateSweep[gate]?.injected ? 1 : 0))),
        inContext1000: mean(all.map((r) => (r.gateSweep[gate]?.inContext ? 1 : 0))),
        nonMemoryInjected: mean(nonMemoryAll.map((r) => (r.gateSweep[gate] ? 1 : 0))),
      })),
    ],
    latency: {
      bundleMedianMs: median(all.map((r) => r.bundleMs)),
      baselineMedianMs: median(all.map((r) => r.baselineMs)),
      indexMedianMs: median(runs.map((run) => run.indexMs)),
    },
    bundleInjectedTokensMedian: injectedTokens.length ? median(injectedTokens) : 0,
    parts: (["tuning", "held-out"] as const)
      .map((part) => {
        const chosen = runs.filter((run) => HELD_OUT_CONVERSATIONS.has(run.conversation) === (part === "held-out"));
        const rows = chosen.flatMap((run) => run.questions);
        return {
          part,
          conversations: chosen.map((run) => run.conversation),
          bundle: qualityRow(part, rows, "bundle"),
          baseline: qualityRow(part, rows, "baseline"),
          byCategory: byCategory(rows).map(([group, chosenRows]) => ({ bundle: qualityRow(group, chosenRows, "bundle"), baseline: qualityRow(group, chosenRows, "baseline") })),
        };
      })
      .filter((entry) => entry.conversations.length > 0),
  };
}
