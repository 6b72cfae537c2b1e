// Retrieval shapes shared by both backends (embedded index, Ethos server) and the context pipeline.
// They live at the bottom layer so memory/, ethos/ and hygiene/ never import from context/.

export type RetrievedMemory = {
  /** Stable id (chunk hash or Ethos memory id): per-session de-duplication keys on it. */
  id: string;
  /** Original memory text. */
  text: string;
  /** Calibrated relevance in [0, 1] (Ethos: cosine similarity; embedded: see src/memory/calibrate.ts). */
  score: number;
  /** Backend's raw score before calibration (embedded: BM25), for diagnostics. */
  rawScore?: number;
  /** YYYY-MM-DD when known. */
  date?: string;
  /** Source file relative to the index root (embedded only). */
  file?: string;
  headingPath: string[];
  source: "embedded" | "ethos";
  confidence?: number;
  /**
   * The memory is about someone the query names: its speaker label or its name heading
   * (`## Caroline`) is written in the query. The gate lets such a turn inject below the threshold.
   */
  named?: true;
  /**
   * The part of `score` the memory earned by its own match with the query, before any share lent
   * by a related memory (the question it answers, a hit next to it): the gate decides on this,
   * the budget fills by `score`. Absent: the score is all its own (Ethos).
   */
  evidence?: number;
  /**
   * How many of the query's informative words the memory holds (embedded index only): two or more
   * found together corroborate a partial match (src/context/gate.ts).
   */
  matchedTerms?: number;
};

export type Retriever = {
  /** "Ethos" or "workspace memory": shown in the injected block's intro line. */
  readonly label: string;
  search(query: string, limit: number): Promise<RetrievedMemory[]>;
};
