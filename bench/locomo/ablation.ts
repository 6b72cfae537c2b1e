// Ranking-signal ablation on LoCoMo, on both sets (dialog and curated notes): every signal of
// src/memory/rerank.ts alone and all together, against none, and the defaults without the budget
// fill or without the name gate, through the pipeline (query rules, ranking, gate, budget, compact
// layout) without the composer, which is what docs/retrieval.md's per-signal tables report. Plain
// BM25 of the same questions is printed alongside; "held-out" columns are the conversations kept
// apart from tuning (bench/locomo/data.ts).
//   npx tsx bench/locomo/ablation.ts [dialog|notes]   (both when omitted; data from ../shared/bench)
import { defaultEthosContextConfig } from "../../src/context/config.ts";
import { candidateLimit, prepareQuery, selectAndFormat } from "../../src/context/pipeline.ts";
import { buildMemoryIndex, workspaceMemorySources } from "../../src/memory/index.ts";
import { DEFAULT_RERANK_WEIGHTS } from "../../src/memory/rerank.ts";
import type { RerankWeights } from "../../src/memory/rerank.ts";
import type { RetrievedMemory } from "../../src/memory/types.ts";
import { pct } from "../lib/metrics.ts";
import { markdownTable } from "../lib/table.ts";
import { Bm25Baseline } from "./bm25-baseline.ts";
import { CATEGORY_NAMES, HELD_OUT_CONVERSATIONS, goldTurnsOf, listConversations, loadConversation, turnIdsIn } from "./data.ts";
import { baselineBlock, goldTextInBlock } from "./evaluate.ts";
import type { LocomoSetName } from "./report.ts";
import { locomoSetDir } from "./run.ts";

const BUDGETS = [250, 500, 1000] as const;
const DEFAULTS: RerankWeights = { ...DEFAULT_RERANK_WEIGHTS };
const OFF: RerankWeights = { ...DEFAULTS, speaker: 0, date: 0, answer: 0, prf: 0 };
type Variant = { name: string; weights: RerankWeights; fillFloor?: number; nameGate?: false };
const VARIANTS: Variant[] = [
  { name: "none", weights: OFF },
  { name: "speaker / name heading alone", weights: { ...OFF, speaker: DEFAULTS.speaker } },
  { name: "date alone", weights: { ...OFF, date: DEFAULTS.date } },
  { name: "reply alone", weights: { ...OFF, answer: DEFAULTS.answer } },
  { name: "feedback alone", weights: { ...OFF, prf: DEFAULTS.prf } },
  // A floor of 1 × the top score: only what clears the gate fills the block (the old behaviour).
  { name: "all, no budget fill", weights: DEFAULTS, fillFloor: 1 },
  { name: "all, no name gate", weights: DEFAULTS, nameGate: false },
  { name: "all (default)", weights: DEFAULTS },
];

type Hit = { category: number; heldOut: boolean; r5: boolean; ctx: Record<number, boolean>; injected: boolean };

const withoutNames = (results: readonly RetrievedMemory[]) => results.map(({ named: _named, ...memory }) => memory);

async function ablate(set: LocomoSetName): Promise<void> {
  const config = defaultEthosContextConfig();
  const root = locomoSetDir(set);
  const names = listConversations(root);
  if (names.length === 0) throw new Error(`LoCoMo ${set} data not found at ${root}`);
  const hits = new Map<string, Hit[]>(VARIANTS.map(({ name }) => [name, []]));
  const baseline: Hit[] = [];
  for (const name of names) {
    const conversation = loadConversation(root, name);
    const heldOut = HELD_OUT_CONVERSATIONS.has(name);
    const index = await buildMemoryIndex(workspaceMemorySources(conversation.dir), { cacheDir: false, maxChunkChars: config.memory.maxChunkChars });
    const bm25 = new Bm25Baseline(conversation.turns.map((turn) => ({ item: turn, text: turn.text })));
    for (const query of conversation.queries) {
      const gold = new Set(query.evidence);
      const goldTurns = goldTurnsOf(conversation, query.evidence);
      const prepared = prepareQuery(query.q, config);
      for (const variant of VARIANTS) {
        Object.assign(DEFAULT_RERANK_WEIGHTS, variant.weights);
        const ranked = prepared.skip ? [] : index.search(prepared.query, candidateLimit(config));
        const results = variant.nameGate === false ? withoutNames(ranked) : ranked;
        const rank = results.slice(0, 5).findIndex((m) => turnIdsIn(m.text).some((id) => gold.has(id)));
        const ctx: Record<number, boolean> = {};
        let injected = false;
        for (const budget of BUDGETS) {
          const selection = selectAndFormat(results, { config, sessionType: "MAIN_SESSION", sourceLabel: "workspace memory", maxTokens: budget, fillFloor: variant.fillFloor });
          ctx[budget] = goldTextInBlock(selection.block, goldTurns);
          injected = selection.block.length > 0;
        }
        hits.get(variant.name)?.push({ category: query.category, heldOut, r5: rank >= 0, ctx, injected });
      }
      const turns = bm25.search(query.q, 60).map((hit) => hit.item);
      const ctx: Record<number, boolean> = {};
      for (const budget of BUDGETS) ctx[budget] = goldTextInBlock(baselineBlock(turns, budget), goldTurns);
      baseline.push({ category: query.category, heldOut, r5: turns.slice(0, 5).some((t) => gold.has(t.id)), ctx, injected: true });
    }
    process.stderr.write(`ablation ${set}: ${name} done\n`);
  }
  Object.assign(DEFAULT_RERANK_WEIGHTS, DEFAULTS);
  const rate = (rows: Hit[], pick: (h: Hit) => boolean) => pct(rows.filter(pick).length / Math.max(1, rows.length));
  const cells = (rows: Hit[]) => [
    rate(rows, (h) => h.r5),
    ...BUDGETS.map((b) => rate(rows, (h) => h.ctx[b])),
    ...BUDGETS.map((b) => rate(rows.filter((h) => h.heldOut), (h) => h.ctx[b])),
    rate(rows, (h) => h.injected),
  ];
  const all: [string, Hit[]][] = [...VARIANTS.map(({ name }) => [name, hits.get(name) ?? []] as [string, Hit[]]), ["plain BM25", baseline]];
  process.stdout.write(`### ${set} set\n\n`);
  process.stdout.write(
    `${markdownTable(["signals", "R@5", ...BUDGETS.map((b) => `ctx@${b}`), ...BUDGETS.map((b) => `held-out ctx@${b}`), "injected"], all.map(([name, rows]) => [name, ...cells(rows)]))}\n\n`,
  );
  for (const budget of BUDGETS) {
    const byCategory = all.map(([name, rows]) => [name, ...Object.keys(CATEGORY_NAMES).map((c) => rate(rows.filter((h) => h.category === Number(c)), (h) => h.ctx[budget]))]);
    process.stdout.write(`ctx@${budget} by category (${set})\n\n${markdownTable(["signals", ...Object.values(CATEGORY_NAMES)], byCategory)}\n\n`);
  }
}

const wanted = process.argv[2];
for (const set of ["dialog", "notes"] as const) if (!wanted || wanted === set) await ablate(set);
