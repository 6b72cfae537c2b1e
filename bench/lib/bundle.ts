// The bundle's embedded retriever and its memory-context service, wrapped into the benchmark's
// RetrieverUnderTest shape. This is the only benchmark file that knows their APIs.
//
// A benchmark turn goes through the same service the hook and the plugin call
// (`createMemoryContextService().buildTurnContext`): scope check, query and skip rules, the
// ethos.toml gate when one is configured, retrieval, gate, budget, de-duplication, neutralisation,
// the compact layout and the context-assembler composer. What differs from a gateway turn, and why
// (also printed under the LoCoMo tables, see BENCH_DIFFERENCES):
//  - `writeContextFile: false`: the memory folders are read-only benchmark data; the block is the same;
//  - the index cache lives in a temp folder (`memory.indexCacheDir`), not the state dir;
//  - the wait is 10 s instead of `awaitTimeoutMs` (250 ms), so a busy benchmark machine cannot turn
//    a slow search into "nothing injected"; how often a real turn misses the wait is the scale
//    benchmark's number;
//  - every question is a fresh main session (de-duplication across turns never hides a memory);
//  - every turn re-checks the memory files for changes, as a gateway turn does (its turns come
//    seconds apart, past the 1 s refresh interval), though benchmark turns come back to back.
import { defaultEthosContextConfig } from "../../src/context/config.ts";
import { formatContextBlock } from "../../src/context/format.ts";
import { prepareQuery } from "../../src/context/pipeline.ts";
import { createMemoryContextService, memoryIndexOptions } from "../../src/context/service.ts";
import { HOOK_KEYS } from "../../src/host/ids.ts";
import { MemoryIndex, chunkMarkdown, sharedMemoryIndex, workspaceMemorySources } from "../../src/memory/index.ts";
import type { Retriever } from "../../src/memory/types.ts";
import type { OpenClawConfig } from "../../src/host/events.ts";
import { MemoryIndex as LegacyMemoryIndex } from "./legacy-memory-index.ts";
import type { RetrieverUnderTest } from "./retriever-under-test.ts";
import type { ChunkCounter } from "../scale/vault.ts";

/** The hook's default config: the benchmark measures what an operator gets out of the box. */
const CONFIG = defaultEthosContextConfig();

/** How a benchmark turn differs from a gateway turn (printed with the results). */
export const BENCH_DIFFERENCES =
  "Turns run through the memory-context service the hook and the plugin call (scope, skip rules, gate, budget, composer), as a fresh main session each; " +
  "differences from a gateway turn: ETHOS_CONTEXT.md not written (read-only data), index cache in a temp folder, a 10 s wait instead of 250 ms (timeouts are the scale benchmark's figure).";

const BENCH_WAIT_MS = 10_000;

export const bundleChunkCounter: ChunkCounter = (markdown, relPath) =>
  chunkMarkdown(markdown, relPath, { maxChunkChars: CONFIG.memory.maxChunkChars }).length;

/** How long agent:bootstrap waits for retrieval before injecting nothing. */
export function awaitTimeoutMs(): number {
  return CONFIG.awaitTimeoutMs;
}

export function defaultConfidenceGate(): number {
  return CONFIG.confidenceGate;
}

export function bundleConfigSummary(): string {
  return `searchTopK ${CONFIG.searchTopK ?? "unset (the budget fills the block)"}, maxSnippetCharsEach ${CONFIG.maxSnippetCharsEach}, maxInjectedCharsTotal ${CONFIG.maxInjectedCharsTotal}, confidenceGate ${CONFIG.confidenceGate}, highConfidence ${CONFIG.highConfidence}, maxChunkChars ${CONFIG.memory.maxChunkChars}`;
}

/** "compact": the bundle's index; "legacy": the MiniSearch index it replaced (side-by-side runs). */
export type IndexKind = "compact" | "legacy";
export const INDEX_KINDS: readonly IndexKind[] = ["legacy", "compact"];

/** The replaced index behind the same service: only the retriever differs between the two kinds. */
async function openLegacy(workspaceDir: string, options: ReturnType<typeof memoryIndexOptions>) {
  const index = new LegacyMemoryIndex(workspaceMemorySources(workspaceDir, CONFIG.memory.extraGlobs), options);
  await index.refresh();
  const retriever: Retriever = {
    label: "workspace memory",
    async search(query, limit) {
      await index.refresh();
      return index.search(query, limit);
    },
  };
  return { index, retriever };
}

export async function loadBundle(kind: IndexKind = "compact"): Promise<RetrieverUnderTest> {
  return {
    name: kind === "compact" ? "bundle" : "bundle (legacy index)",
    async openIndex(workspaceDir, { cacheDir }) {
      // The openclaw.json a gateway would hold: only the hook entry, with the two bench settings.
      const openclawConfig = (overrides: Record<string, unknown> = {}): OpenClawConfig =>
        ({ hooks: { internal: { entries: { [HOOK_KEYS.ethosContext]: { writeContextFile: false, memory: { indexCacheDir: cacheDir }, ...overrides } } } } }) as OpenClawConfig;
      const config = { ...CONFIG, memory: { ...CONFIG.memory, indexCacheDir: cacheDir } };
      // Every turn re-checks the memory files, as a gateway turn does: its turns come seconds
      // apart, past the hook's 1 s refresh interval, while a benchmark's come back to back.
      const options = { ...memoryIndexOptions(config), minRefreshIntervalMs: 0 };
      // The service's own shared index for this workspace (same key), so ranking and turns use one index.
      const legacy = kind === "legacy" ? await openLegacy(workspaceDir, options) : undefined;
      const index = legacy?.index ?? sharedMemoryIndex(workspaceMemorySources(workspaceDir, config.memory.extraGlobs), options);
      await index.refresh();
      let turn = 0;
      return {
        minRefreshIntervalMs: options.minRefreshIntervalMs ?? 0,
        get chunkCount() {
          return index.chunkCount;
        },
        async rank(message, limit) {
          // The hook's query extraction and skip rules, then the retriever's own ranking.
          const prepared = prepareQuery(message, CONFIG);
          if (prepared.skip) return [];
          return index.search(prepared.query, limit).map((m) => ({ file: m.file ?? "", headingPath: m.headingPath, date: m.date, text: m.text, score: m.score }));
        },
        async runTurn(message, budgetTokens, options = {}) {
          const overrides: Record<string, unknown> = { maxTokensBySessionType: { MAIN_SESSION: budgetTokens } };
          if (options.confidenceGate !== undefined) overrides.confidenceGate = options.confidenceGate;
          if (options.searchTopK !== undefined) overrides.searchTopK = options.searchTopK;
          // A fresh service per turn: a fresh session, so nothing is excluded as already injected.
          const service = createMemoryContextService({
            ...(options.layout === "story-007" ? { format: formatContextBlock } : {}),
            ...(legacy ? { createRetriever: () => legacy.retriever } : {}),
          });
          turn += 1;
          const result = await service.buildTurnContext({
            sessionKey: "agent:main:main",
            cfg: openclawConfig(overrides),
            text: message,
            workspaceDir,
            turnKey: `bench-${turn}`,
            waitMs: BENCH_WAIT_MS,
          });
          return { injected: result.block.length > 0, block: result.block, gate: result.status === "ok" ? result.reason : `${result.status}:${result.reason}` };
        },
        async refresh() {
          await index.refresh();
        },
        flush: () => index.whenSaved(),
        async fullCheck() {
          if (index instanceof MemoryIndex) index.close(); // the old index never watched
          await index.refresh();
        },
      };
    },
  };
}
