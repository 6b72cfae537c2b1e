// The bundle's embedded retriever and same-turn pipeline, wrapped into the benchmark's
// RetrieverUnderTest shape. This is the only benchmark file that knows their APIs.
import { defaultEthosContextConfig } from "../../src/context/config.ts";
import { prepareQuery, runContextPipeline } from "../../src/context/pipeline.ts";
import { memoryIndexOptions } from "../../src/context/runtime.ts";
import { buildMemoryIndex, chunkMarkdown, createEmbeddedRetriever, workspaceMemorySources } from "../../src/memory/index.ts";
import type { RetrieverUnderTest } from "./retriever-under-test.ts";
import type { ChunkCounter } from "../scale/vault.ts";

/** The hook's default config: the benchmark measures what an operator gets out of the box. */
const CONFIG = defaultEthosContextConfig();

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

export async function loadBundle(): Promise<RetrieverUnderTest> {
  return {
    name: "bundle",
    async openIndex(workspaceDir, { cacheDir }) {
      const options = { ...memoryIndexOptions(CONFIG), cacheDir };
      const index = await buildMemoryIndex(workspaceMemorySources(workspaceDir, CONFIG.memory.extraGlobs), options);
      const retriever = createEmbeddedRetriever(index);
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
          // Fresh session each call: no exclusions from earlier turns.
          const result = await runContextPipeline({
            message,
            retriever,
            config: options.searchTopK ? { ...CONFIG, searchTopK: options.searchTopK } : CONFIG,
            sessionType: "MAIN_SESSION",
            maxTokens: budgetTokens,
            confidenceGate: options.confidenceGate,
          });
          const gate = result.skipped ? `skipped:${result.skipped}` : (result.decision?.tier ?? "none");
          return { injected: result.block.length > 0, block: result.block, gate };
        },
        async refresh() {
          await index.refresh();
        },
        flush: () => index.whenSaved(),
      };
    },
  };
}
