// Ranking-signal ablation on LoCoMo: every signal of src/memory/rerank.ts alone and all together,
// against none, through the pipeline (query rules, ranking, gate, budget, compact layout) without
// the composer, which is what docs/retrieval.md's per-signal table reports. Plain BM25 of the same
// questions is printed alongside.
//   npx tsx bench/locomo/ablation.ts            (LoCoMo from ../shared/bench/locomo or $OPENCLAW_CONTEXT_LOCOMO_DIR)
import { defaultEthosContextConfig } from "../../src/context/config.ts";
import { candidateLimit, prepareQuery, selectAndFormat } from "../../src/context/pipeline.ts";
import { buildMemoryIndex, workspaceMemorySources } from "../../src/memory/index.ts";
import { DEFAULT_RERANK_WEIGHTS } from "../../src/memory/rerank.ts";
import type { RerankWeights } from "../../src/memory/rerank.ts";
import { locomoDir } from "../lib/paths.ts";
import { pct } from "../lib/metrics.ts";
import { markdownTable } from "../lib/table.ts";
import { Bm25Baseline } from "./bm25-baseline.ts";
import { CATEGORY_NAMES, listConversations, loadConversation, turnIdsIn } from "./data.ts";
import type { Turn } from "./data.ts";
import { baselineBlock, goldTextInBlock } from "./evaluate.ts";

const BUDGETS = [250, 500, 1000] as const;
const DEFAULTS: RerankWeights = { ...DEFAULT_RERANK_WEIGHTS };
const OFF: RerankWeights = { ...DEFAULTS, speaker: 0, date: 0, answer: 0, prf: 0 };
const VARIANTS: [string, RerankWeights][] = [
  ["none", OFF],
  ["speaker alone", { ...OFF, speaker: DEFAULTS.speaker }],
  ["date alone", { ...OFF, date: DEFAULTS.date }],
  ["reply alone", { ...OFF, answer: DEFAULTS.answer }],
  ["feedback alone", { ...OFF, prf: DEFAULTS.prf }],
  ["all (default)", DEFAULTS],
];

type Hit = { category: number; r5: boolean; ctx: Record<number, boolean> };

async function main(): Promise<void> {
  const config = defaultEthosContextConfig();
  const root = locomoDir();
  const names = listConversations(root);
  if (names.length === 0) throw new Error(`LoCoMo data not found at ${root}`);
  const hits = new Map<string, Hit[]>(VARIANTS.map(([name]) => [name, []]));
  const baseline: Hit[] = [];
  for (const name of names) {
    const conversation = loadConversation(root, name);
    const index = await buildMemoryIndex(workspaceMemorySources(conversation.dir), { cacheDir: false, maxChunkChars: config.memory.maxChunkChars });
    const bm25 = new Bm25Baseline(conversation.turns.map((turn) => ({ item: turn, text: turn.text })));
    for (const query of conversation.queries) {
      const gold = new Set(query.evidence);
      const goldTurns = query.evidence.map((id) => conversation.turnsById.get(id)).filter((t): t is Turn => !!t);
      const prepared = prepareQuery(query.q, config);
      for (const [variant, weights] of VARIANTS) {
        Object.assign(DEFAULT_RERANK_WEIGHTS, weights);
        const results = prepared.skip ? [] : index.search(prepared.query, candidateLimit(config));
        const rank = results.slice(0, 5).findIndex((m) => turnIdsIn(m.text).some((id) => gold.has(id)));
        const ctx: Record<number, boolean> = {};
        for (const budget of BUDGETS) {
          const selection = selectAndFormat(results, { config, sessionType: "MAIN_SESSION", sourceLabel: "workspace memory", maxTokens: budget });
          ctx[budget] = goldTextInBlock(selection.block, goldTurns);
        }
        hits.get(variant)?.push({ category: query.category, r5: rank >= 0, ctx });
      }
      const turns = bm25.search(query.q, 60).map((hit) => hit.item);
      const ctx: Record<number, boolean> = {};
      for (const budget of BUDGETS) ctx[budget] = goldTextInBlock(baselineBlock(turns, budget), goldTurns);
      baseline.push({ category: query.category, r5: turns.slice(0, 5).some((t) => gold.has(t.id)), ctx });
    }
    process.stderr.write(`ablation: ${name} done\n`);
  }
  Object.assign(DEFAULT_RERANK_WEIGHTS, DEFAULTS);
  const rate = (rows: Hit[], pick: (h: Hit) => boolean) => pct(rows.filter(pick).length / Math.max(1, rows.length));
  const cells = (rows: Hit[]) => [rate(rows, (h) => h.r5), ...BUDGETS.map((b) => rate(rows, (h) => h.ctx[b]))];
  const table = [...VARIANTS.map(([variant]) => [variant, ...cells(hits.get(variant) ?? [])]), ["plain BM25", ...cells(baseline)]];
  process.stdout.write(`${markdownTable(["signals", "R@5", ...BUDGETS.map((b) => `ctx@${b}`)], table)}\n\n`);
  const byCategory = [...VARIANTS.map(([variant]) => [variant, hits.get(variant) ?? []] as const), ["plain BM25", baseline] as const].map(([variant, rows]) => [
    variant,
    ...Object.keys(CATEGORY_NAMES).map((c) => rate(rows.filter((h) => h.category === Number(c)), (h) => h.ctx[1000])),
  ]);
  process.stdout.write(`ctx@1000 by category\n\n${markdownTable(["signals", ...Object.values(CATEGORY_NAMES)], byCategory)}\n`);
}

await main();
