// The bundle's embedded retriever and same-turn pipeline, wrapped into the benchmark's
// RetrieverUnderTest shape. This is the only benchmark file that knows their APIs.
import { defaultEthosContextConfig } from "../../src/context/config.ts";
import { prepareQuery, runContextPipeline } from "../../src/context/pipeline.ts";
import { memoryIndexOptions } from "../../src/context/runtime.ts";
import { buildMemoryIndex, chunkMarkdown, createEmbeddedRetriever, workspaceMemorySources } from "../../src/memory/index.ts";
import type { Retriever } from "../../src/memory/types.ts";
import { MemoryIndex as LegacyMemoryIndex } from "./legacy-memory-index.ts";
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
  return `searchTopK ${CONFIG.searchTopK}, maxSnippetCharsEach ${CONFIG.maxSnippetCharsEach}, maxInjectedCharsTotal ${CONFIG.maxInjectedCharsTotal}, confidenceGate ${CONFIG.confidenceGate}, highConfidence ${CONFIG.highConfidence}, maxChunkChars ${CONFIG.memory.maxChunkChars}`;
}

/** "compact": the bundle's index; "legacy": the MiniSearch index it replaced (side-by-side runs). */
export type IndexKind = "compact" | "legacy";
export const INDEX_KINDS: readonly IndexKind[] = ["legacy", "compact"];

async function openKind(kind: IndexKind, workspaceDir: string, options: ReturnType<typeof memoryIndexOptions>) {
  const sources = workspaceMemorySources(workspaceDir, CONFIG.memory.extraGlobs);
  if (kind === "compact") {
    const index = await buildMemoryIndex(sources, options);
    return { index, retriever: createEmbeddedRetriever(index) };
  }
  const index = new LegacyMemoryIndex(sources, options);
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
      const options = { ...memoryIndexOptions(CONFIG), cacheDir };
      const { index, retriever } = await openKind(kind, workspaceDir, options);
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
