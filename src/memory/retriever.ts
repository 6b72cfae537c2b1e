import { loadHygieneConfigCached } from "../hygiene/config.ts";
import type { ScoringConfig } from "../hygiene/confidence.ts";
import type { Retriever } from "./types.ts";
import type { MemoryIndex } from "./memory-index.ts";

/**
 * Where the confidence settings (CONFIG.md `confidence_decay_*`, `confidence_floor`,
 * `confidence_boost_per_mention`, `correction_relevance_boost`) come from: by default the CONFIG.md
 * at the index root (the workspace), re-read only when it changes.
 */
export type ScoringConfigSource = () => Promise<ScoringConfig | undefined>;

/** The embedded backend as a Retriever: refresh (stat only, unless files changed), then search. */
export function createEmbeddedRetriever(index: MemoryIndex, label = "workspace memory", scoringConfig?: ScoringConfigSource): Retriever {
  const loadScoring: ScoringConfigSource = scoringConfig ?? (() => loadHygieneConfigCached(index.spec.rootDir).then((loaded) => loaded.config));
  return {
    label,
    async search(query, limit) {
      const [, confidence] = await Promise.all([index.refresh(), loadScoring().catch(() => undefined)]);
      return index.search(query, limit, { confidence });
    },
  };
}
