import { loadHygieneConfigCached } from "./config-md.ts";
import type { ScoringConfig } from "./confidence.ts";
import type { MemoryIndex } from "./memory-index.ts";
import type { Retriever } from "./types.ts";

/**
 * Where the confidence settings (CONFIG.md `confidence_decay_*`, `confidence_floor`,
 * `confidence_boost_per_mention`, `correction_relevance_boost`) come from: by default the CONFIG.md
 * at the index root (the workspace), re-read only when it changes.
 */
type ScoringConfigSource = () => Promise<ScoringConfig | undefined>;

export type EmbeddedRetrieverOptions = {
  scoringConfig?: ScoringConfigSource;
  /**
   * The settings are looked up again in the background at most this often (ms); a turn never waits
   * for that look-up except the first one. Default 1000, like the index's refresh interval.
   */
  configRecheckMs?: number;
};

/**
 * The embedded backend as a Retriever: refresh (stat only, unless files changed), then search.
 * While a first build is under way (cold build or cache load, started by an earlier turn), a turn
 * gets no memory at once instead of queueing behind the build.
 */
export function createEmbeddedRetriever(index: MemoryIndex, label = "workspace memory", options: EmbeddedRetrieverOptions = {}): Retriever {
  const load: ScoringConfigSource =
    options.scoringConfig ?? (() => loadHygieneConfigCached(index.spec.rootDir).then((loaded) => loaded.config));
  const recheckMs = options.configRecheckMs ?? 1000;
  let known: { config: ScoringConfig | undefined; at: number } | undefined;
  let reloading: Promise<void> | undefined;
  const reload = (): Promise<void> =>
    (reloading ??= load()
      .catch(() => undefined)
      .then((config) => {
        known = { config, at: Date.now() };
      })
      .finally(() => {
        reloading = undefined;
      }));
  return {
    label,
    async search(query, limit) {
      if (index.isBuilding) return [];
      if (!known) await Promise.all([index.refresh(), reload()]);
      else {
        if (Date.now() - known.at >= recheckMs) void reload(); // the next turn gets the new settings
        await index.refresh();
      }
      return index.search(query, limit, { confidence: known?.config });
    },
  };
}
