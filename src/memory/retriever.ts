import type { Retriever } from "./types.ts";
import type { MemoryIndex } from "./memory-index.ts";

/** The embedded backend as a Retriever: refresh (stat only, unless files changed), then search. */
export function createEmbeddedRetriever(index: MemoryIndex, label = "workspace memory"): Retriever {
  return {
    label,
    async search(query, limit) {
      await index.refresh();
      return index.search(query, limit);
    },
  };
}
