import type { Retriever } from "./types.ts";
import type { MemoryIndex } from "./memory-index.ts";

/**
 * The embedded backend as a Retriever: refresh (stat only, unless files changed), then search.
 * While a first build is under way (cold build or cache load, started by an earlier turn), a turn
 * gets no memory at once instead of queueing behind the build.
 */
export function createEmbeddedRetriever(index: MemoryIndex, label = "workspace memory"): Retriever {
  return {
    label,
    async search(query, limit) {
      if (index.isBuilding) return [];
      await index.refresh();
      return index.search(query, limit);
    },
  };
}
