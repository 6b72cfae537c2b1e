// Ranking and gate ablation on LoCoMo, on both sets (dialog and curated notes), through the
// pipeline (query rules, ranking, gate, budget, compact layout) without the composer, which is
// what docs/retrieval.md's per-signal tables report. Every variant is printed for the tuning part
// and the held-out part (HELD_OUT_CONVERSATIONS in bench/locomo/data.ts) apart, with plain BM25 of
// the same questions alongside, and the gate's two sides: memory questions that get nothing and
// the 200 non-memory prompts that inject anything (bench/locomo/non-memory-prompts.json).
//   npx tsx bench/locomo/ablation.ts [dialog|notes] [--signals]   (both sets when omitted)
// `--signals` adds the older signals (speaker, date, reply, feedback) each alone over none, and the
// defaults without issue 19's budget fill or name gate; `--neighbours` the neighbours' parameters.
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
import { loadNonMemoryPrompts, locomoSetDir } from "./run.ts";

const BUDGETS = [250, 500, 1000] as const;
const DEFAULTS: RerankWeights = { ...DEFAULT_RERANK_WEIGHTS };
/** Issue 29's ranking signals off: the ranking of issue 19. */
const ISSUE_19: RerankWeights = { ...DEFAULTS, near: 0 };
const OFF: RerankWeights = { ...ISSUE_19, speaker: 0, date: 0, answer: 0, prf: 0 };

/**
 * A variant: reranker weights, and how the gate sees the results. `corroboration: 0` and
 * `gateOnScore` (the gate reads the lent score, not the memory's own evidence) give issue 19's gate.
 */
type Variant = { name: string; weights: RerankWeights; fillFloor?: number; nameGate?: false; corroboration?: number; gateOnScore?: true };
const BEFORE: Omit<Variant, "name"> = { weights: ISSUE_19, corroboration: 0, gateOnScore: true };
const NEW_SIGNALS: [string, Partial<RerankWeights>, Partial<Variant>][] = [
  ["neighbours in the exchange", { near: DEFAULTS.near }, {}],
  ["gate: corroboration", {}, { corroboration: undefined }],
  ["gate: own evidence", {}, { gateOnScore: undefined }],
];
/** The neighbours' parameters around the default (chosen on the tuning part, both sets). */
const NEIGHBOUR_SWEEP: Variant[] = [
  ...[0.3, 0.7].map((near) => ({ name: `neighbours: share ${near}`, weights: { ...DEFAULTS, near } })),
  ...[3, 20].map((nearHits) => ({ name: `neighbours: ${nearHits} hits lend`, weights: { ...DEFAULTS, nearHits } })),
  ...[1, 3].map((nearSpan) => ({ name: `neighbours: span ${nearSpan}`, weights: { ...DEFAULTS, nearSpan } })),
];
const VARIANTS: Variant[] = [
  { name: "issue 19 (before)", ...BEFORE },
  ...NEW_SIGNALS.map(([name, weights, gate]): Variant => ({ name: `before + ${name}`, ...BEFORE, weights: { ...ISSUE_19, ...weights }, ...gate })),
  ...NEW_SIGNALS.map(([name, weights, gate]): Variant => {
    const off = Object.fromEntries(Object.keys(weights).map((key) => [key, 0]));
    const gateOff: Partial<Variant> = "corroboration" in gate ? { corroboration: 0 } : "gateOnScore" in gate ? { gateOnScore: true } : {};
    return { name: `all but ${name}`, weights: { ...DEFAULTS, ...off }, ...gateOff };
  }),
  { name: "all (default)", weights: DEFAULTS },
];
const ISSUE_19_CHECKS: Variant[] = [
  { name: "all, no budget fill", weights: DEFAULTS, fillFloor: 1 }, // a floor of 1 × the top score: only what clears the gate fills
  { name: "all, no name gate", weights: DEFAULTS, nameGate: false },
];
const OLD_SIGNALS: Variant[] = [
  { name: "none", weights: OFF },
  { name: "speaker / name heading alone", weights: { ...OFF, speaker: DEFAULTS.speaker } },
  { name: "date alone", weights: { ...OFF, date: DEFAULTS.date } },
  { name: "reply alone", weights: { ...OFF, answer: DEFAULTS.answer } },
  { name: "feedback alone", weights: { ...OFF, prf: DEFAULTS.prf } },
];

type Hit = { category: number; heldOut: boolean; r5: boolean; ctx: Record<number, boolean>; injected: boolean };
type Prompt = { heldOut: boolean; kind: string; injected: boolean };

/** How the gate sees the results of a variant: issue 19's gate knew no evidence and no names. */
function asGateSees(results: readonly RetrievedMemory[], variant: Variant): RetrievedMemory[] {
  return results.map((memory) => {
    const seen = { ...memory };
    if (variant.nameGate === false) delete seen.named;
    if (variant.gateOnScore) delete seen.evidence;
    return seen;
  });
}

async function ablate(set: LocomoSetName, variants: readonly Variant[]): Promise<void> {
  const config = defaultEthosContextConfig();
  const root = locomoSetDir(set);
  const names = listConversations(root);
  if (names.length === 0) throw new Error(`LoCoMo ${set} data not found at ${root}`);
  const prompts = loadNonMemoryPrompts();
  const hits = new Map<string, Hit[]>(variants.map(({ name }) => [name, []]));
  const gateRuns = new Map<string, Prompt[]>(variants.map(({ name }) => [name, []]));
  const baseline: Hit[] = [];
  for (const name of names) {
    const conversation = loadConversation(root, name);
    const heldOut = HELD_OUT_CONVERSATIONS.has(name);
    const index = await buildMemoryIndex(workspaceMemorySources(conversation.dir), { cacheDir: false, maxChunkChars: config.memory.maxChunkChars, watchForChanges: false });
    for (const variant of variants) {
      Object.assign(DEFAULT_RERANK_WEIGHTS, variant.weights);
      const rank = (message: string) => {
        const prepared = prepareQuery(message, config);
        return prepared.skip ? [] : index.search(prepared.query, candidateLimit(config));
      };
      const blockOf = (ranked: readonly RetrievedMemory[], budget: number) =>
        selectAndFormat(asGateSees(ranked, variant), {
          config,
          sessionType: "MAIN_SESSION",
          sourceLabel: "workspace memory",
          maxTokens: budget,
          fillFloor: variant.fillFloor,
          corroboration: variant.corroboration,
        }).block;
      for (const query of conversation.queries) {
        const gold = new Set(query.evidence);
        const goldTurns = goldTurnsOf(conversation, query.evidence);
        const ranked = rank(query.q);
        const r5 = ranked.slice(0, 5).some((m) => turnIdsIn(m.text).some((id) => gold.has(id)));
        const ctx: Record<number, boolean> = {};
        let injected = false;
        for (const budget of BUDGETS) {
          const block = blockOf(ranked, budget);
          ctx[budget] = goldTextInBlock(block, goldTurns);
          injected = block.length > 0;
        }
        hits.get(variant.name)?.push({ category: query.category, heldOut, r5, ctx, injected });
      }
      for (const prompt of prompts) gateRuns.get(variant.name)?.push({ heldOut, kind: prompt.kind, injected: blockOf(rank(prompt.text), 1000).length > 0 });
    }
    const bm25 = new Bm25Baseline(conversation.turns.map((turn) => ({ item: turn, text: turn.text })));
    for (const query of conversation.queries) {
      const gold = new Set(query.evidence);
      const goldTurns = goldTurnsOf(conversation, query.evidence);
      const turns = bm25.search(query.q, 60).map((hit) => hit.item);
      const ctx: Record<number, boolean> = {};
      for (const budget of BUDGETS) ctx[budget] = goldTextInBlock(baselineBlock(turns, budget), goldTurns);
      baseline.push({ category: query.category, heldOut, r5: turns.slice(0, 5).some((t) => gold.has(t.id)), ctx, injected: true });
    }
    index.close();
    process.stderr.write(`ablation ${set}: ${name} done\n`);
  }
  Object.assign(DEFAULT_RERANK_WEIGHTS, DEFAULTS);
  const rate = <T>(rows: readonly T[], pick: (row: T) => boolean) => pct(rows.filter(pick).length / Math.max(1, rows.length));
  const part = (rows: Hit[], heldOut: boolean) => rows.filter((h) => h.heldOut === heldOut);
  const all: [string, Hit[], Prompt[] | undefined][] = [...variants.map(({ name }): [string, Hit[], Prompt[] | undefined] => [name, hits.get(name) ?? [], gateRuns.get(name)]), ["plain BM25", baseline, undefined]];
  const headline = (rows: Hit[]) => [rate(rows, (h) => h.r5), ...BUDGETS.map((b) => rate(rows, (h) => h.ctx[b]))].join(" / ");
  const category = (rows: Hit[], name: string) => {
    const id = Number(Object.entries(CATEGORY_NAMES).find(([, n]) => n === name)?.[0]);
    const chosen = rows.filter((h) => h.category === id);
    return `${rate(part(chosen, false), (h) => h.ctx[1000])} / ${rate(part(chosen, true), (h) => h.ctx[1000])}`;
  };
  const gate = (rows: Hit[], prompts: Prompt[] | undefined) => {
    if (!prompts) return ["", ""];
    const coding = prompts.filter((p) => p.kind === "coding-question");
    return [rate(rows, (h) => !h.injected), `${rate(prompts, (p) => p.injected)} (coding ${rate(coding, (p) => p.injected)})`];
  };
  process.stdout.write(`### ${set} set\n\n`);
  process.stdout.write(
    `${markdownTable(
      ["variant", "tuning: R@5 / ctx@250 / ctx@500 / ctx@1000", "held-out: R@5 / ctx@250 / ctx@500 / ctx@1000", "multi-hop ctx@1000 tuning / held-out", "open-domain ctx@1000 tuning / held-out", "memory questions with nothing", "non-memory prompts injecting"],
      all.map(([name, rows, prompts]) => [name, headline(part(rows, false)), headline(part(rows, true)), category(rows, "multi-hop"), category(rows, "open-domain"), ...gate(rows, prompts)]),
    )}\n\n`,
  );
  for (const budget of BUDGETS) {
    const byCategory = all.map(([name, rows]) => [name, ...Object.keys(CATEGORY_NAMES).map((c) => rate(rows.filter((h) => h.category === Number(c)), (h) => h.ctx[budget]))]);
    process.stdout.write(`ctx@${budget} by category, all conversations (${set})\n\n${markdownTable(["variant", ...Object.values(CATEGORY_NAMES)], byCategory)}\n\n`);
  }
}

const args = process.argv.slice(2);
const variants = [...(args.includes("--signals") ? [...OLD_SIGNALS, ...ISSUE_19_CHECKS] : []), ...VARIANTS, ...(args.includes("--neighbours") ? NEIGHBOUR_SWEEP : [])];
for (const set of ["dialog", "notes"] as const) if (!args.some((a) => a === "dialog" || a === "notes") || args.includes(set)) await ablate(set, variants);
