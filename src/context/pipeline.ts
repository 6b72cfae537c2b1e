import type { SessionType } from "../session/types.ts";
import { budgetLimitsFor, buildBudgetedBlock } from "./budget.ts";
import type { EthosContextConfig } from "./config.ts";
import { formatCompactBlock, formatContextBlock } from "./format.ts";
import type { ContextBlockFormatter } from "./format.ts";
import { CORROBORATING_TERMS, FILL_FLOOR_RATIO, SINGLE_RESULT_MIN, applyConfidenceGate } from "./gate.ts";
import type { GateDecision } from "./gate.ts";
import { extractQuery } from "./query.ts";
import { skipReason } from "./skip.ts";
import type { SkipReason } from "./skip.ts";
import type { RetrievedMemory, Retriever } from "../memory/types.ts";

// The hook's same-turn path as plain functions, in three steps so the hook can run them at the
// right moments (query synchronously on message:received, retrieval in the background, selection
// at agent:bootstrap), and in one call (`runContextPipeline`) for tests and benchmarks.

export type PreparedQuery = { query: string; skip?: undefined } | { query: string; skip: SkipReason };

/** Step 1 (synchronous): clean query and skip rules. */
export function prepareQuery(message: unknown, config: EthosContextConfig): PreparedQuery {
  const query = extractQuery(message, config.maxQueryChars);
  const skip = skipReason(message, query, { minQueryChars: config.minQueryChars, skipTechnicalPrompts: config.skipTechnicalPrompts });
  return skip ? { query, skip } : { query };
}

/** Candidates asked for when the budget alone limits the block: more than any default ceiling holds. */
const BUDGET_FILL_CANDIDATES = 40;

/** How many candidates to ask for: enough that de-duplication and the gate still fill the block. */
export function candidateLimit(config: EthosContextConfig): number {
  return config.searchTopK === undefined ? BUDGET_FILL_CANDIDATES : Math.max(config.searchTopK * 3, 10);
}

/** Step 2 (async): ranked candidates from the backend, best first. */
export async function retrieveCandidates(query: string, retriever: Retriever, config: EthosContextConfig): Promise<RetrievedMemory[]> {
  const results = await retriever.search(query, candidateLimit(config));
  return [...results].sort((a, b) => b.score - a.score);
}

export type SelectOptions = {
  config: EthosContextConfig;
  sessionType: SessionType;
  sourceLabel: string;
  /** Memories already injected earlier in this session (never injected twice). */
  excludeIds?: ReadonlySet<string>;
  /** Gate from ethos.toml, when configured; else config.confidenceGate. */
  confidenceGate?: number;
  /** Token ceiling override (benchmarks sweep budgets); else config.maxTokensBySessionType. */
  maxTokens?: number;
  /** Budget-fill floor as a share of the top score (benchmarks ablate it); else FILL_FLOOR_RATIO. */
  fillFloor?: number;
  /** Informative query words one result of the `multiple` tier must hold (benchmarks ablate it); else CORROBORATING_TERMS. */
  corroboration?: number;
  now?: Date;
  /** Layout of the block; the context assembler may supply its own. */
  format?: ContextBlockFormatter;
};

export type Selection = {
  decision: GateDecision;
  /** Candidates after per-session exclusion, best first. */
  candidates: RetrievedMemory[];
  /** What made it into the block, in order. */
  injected: RetrievedMemory[];
  /** Exact text injected ("" when nothing is), in the compact layout the model reads. */
  block: string;
  /** The same memories in story 007's layout, for ETHOS_CONTEXT.md (operators read it). */
  fileBlock: string;
  /** The same layout and budget for a subset of `injected` (used by the block composer). */
  render: (memories: readonly RetrievedMemory[]) => string;
  /** The same layout for memories in at most `maxChars` (within the budget): the block and the memories in it. */
  fit: (memories: readonly RetrievedMemory[], maxChars: number) => { block: string; injected: RetrievedMemory[] };
  /** Story 007's layout for a subset of `injected` (the composer's ETHOS_CONTEXT.md copy). */
  renderFile: (memories: readonly RetrievedMemory[]) => string;
};

/** Step 3 (synchronous): de-duplicate, gate, budget, neutralise and format. */
/**
 * The budget fill was measured on the embedded index's calibrated scores only (docs/retrieval.md,
 * "Budget fill"); an Ethos server's cosine similarities keep the absolute gate.
 */
function fillFloorFor(config: EthosContextConfig): number | undefined {
  return config.backend === "embedded" ? FILL_FLOOR_RATIO : undefined;
}

export function selectAndFormat(results: readonly RetrievedMemory[], options: SelectOptions): Selection {
  const { config } = options;
  const excluded = options.excludeIds;
  const candidates = excluded ? results.filter((memory) => !excluded.has(memory.id)) : [...results];
  const gate = options.confidenceGate ?? config.confidenceGate;
  const decision = applyConfidenceGate(candidates, { gate, high: config.highConfidence, single: SINGLE_RESULT_MIN, fill: options.fillFloor ?? fillFloorFor(config), corroboration: options.corroboration ?? CORROBORATING_TERMS });
  const limits = budgetLimitsFor(config, options.sessionType, options.maxTokens);
  const frame = { ts: options.now ?? new Date(), queryScore: decision.topScore, threshold: gate, sourceLabel: options.sourceLabel };
  const format = options.format ?? formatCompactBlock;
  const fit = (memories: readonly RetrievedMemory[], maxChars: number) =>
    buildBudgetedBlock(memories, { ...limits, maxTotalChars: Math.min(limits.maxTotalChars, Math.max(0, Math.floor(maxChars))) }, frame, format);
  const render = (memories: readonly RetrievedMemory[]) => buildBudgetedBlock(memories, limits, frame, format).block;
  // The file copy shows exactly the injected memories; the budget already chose them.
  const fileLimits = { ...limits, maxTotalChars: Number.POSITIVE_INFINITY };
  const renderFile = (memories: readonly RetrievedMemory[]) => buildBudgetedBlock(memories, fileLimits, frame, formatContextBlock).block;
  if (!decision.inject) return { decision, candidates, injected: [], block: "", fileBlock: "", render, renderFile, fit };
  const { injected, block } = buildBudgetedBlock(decision.passing, limits, frame, format);
  return { decision, candidates, injected, block, fileBlock: renderFile(injected), render, renderFile, fit };
}

export type PipelineInput = {
  message: unknown;
  retriever: Retriever;
  config: EthosContextConfig;
  sessionType: SessionType;
} & Omit<SelectOptions, "config" | "sessionType" | "sourceLabel">;

export type PipelineResult = {
  query: string;
  skipped?: SkipReason;
  /** null when the message was skipped before retrieval. */
  decision: GateDecision | null;
  /** Ranked chunks (file, heading path, date, original text, calibrated score), best first. */
  chunks: RetrievedMemory[];
  injected: RetrievedMemory[];
  block: string;
  /** ETHOS_CONTEXT.md's story-007 copy of the same memories. */
  fileBlock: string;
};

/** The whole path for one message, exactly as the hook runs it (minus session state and I/O). */
export async function runContextPipeline(input: PipelineInput): Promise<PipelineResult> {
  const prepared = prepareQuery(input.message, input.config);
  if (prepared.skip) return { query: prepared.query, skipped: prepared.skip, decision: null, chunks: [], injected: [], block: "", fileBlock: "" };
  const results = await retrieveCandidates(prepared.query, input.retriever, input.config);
  const selection = selectAndFormat(results, { ...input, sourceLabel: input.retriever.label });
  return { query: prepared.query, decision: selection.decision, chunks: selection.candidates, injected: selection.injected, block: selection.block, fileBlock: selection.fileBlock };
}
