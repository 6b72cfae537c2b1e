import { HYGIENE_CONFIG_DEFAULTS } from "./config-md.ts";
import type { HygieneConfig } from "./config-md.ts";

// Confidence scoring (persistent memory spec §8), as pure functions, plus the inline metadata syntax
// that carries it on MEMORY.md / memory/*.md entries:
//
//   - Prefers window seats on long flights <!-- confidence: 0.95 source: operator mentions: 3 last: 2026-02-22 -->
//
// One HTML comment (invisible in rendered Markdown) holding `key: value` pairs separated by spaces:
//   confidence  number 0..1, the score as of `last` (optional: derived from source and mentions)
//   source      operator | correction | inferred | agent-correction
//   mentions    integer ≥ 1, how often the fact came up (default 1)
//   last        ISO date or date-time of the latest mention (decay runs from here)
//   status      free word, e.g. corrected | retracted (optional)
// `#correction` anywhere in the entry also marks an operator correction.

export type MemorySource = "operator" | "correction" | "inferred" | "agent-correction";

export type MemoryMetadata = {
  confidence?: number;
  source?: MemorySource;
  mentions?: number;
  last?: Date;
  status?: string;
};

export const BASE_CONFIDENCE: Record<MemorySource, number> = {
  operator: 0.95, // explicit statement by the operator
  correction: 1.0, // correction from the operator
  inferred: 0.6, // inferred from context
  "agent-correction": 0.6, // a correction proposed by an agent, not the operator: decays, can be retracted
};

export type ScoringConfig = Pick<
  HygieneConfig,
  | "confidence_boost_per_mention"
  | "confidence_decay_amount"
  | "confidence_decay_interval_days"
  | "confidence_floor"
  | "correction_relevance_boost"
  | "correction_retraction_confidence"
>;

const DAY_MS = 86_400_000;
const round = (value: number) => Math.round(value * 1000) / 1000;

export function isOperatorCorrection(meta: MemoryMetadata): boolean {
  return meta.source === "correction";
}

/** Score as of the last mention: explicit `confidence`, else base + boost per repeat mention (max 1). */
function confidenceAtLastMention(meta: MemoryMetadata, config: ScoringConfig = HYGIENE_CONFIG_DEFAULTS): number {
  if (isOperatorCorrection(meta)) return 1;
  if (meta.confidence !== undefined) return Math.min(1, Math.max(0, meta.confidence));
  const repeats = Math.max(0, (meta.mentions ?? 1) - 1);
  return round(Math.min(1, BASE_CONFIDENCE[meta.source ?? "inferred"] + repeats * config.confidence_boost_per_mention));
}

/** Whole decay periods since the last mention (0 when `last` is unknown or in the future). */
function decayPeriods(meta: MemoryMetadata, now: Date, config: ScoringConfig = HYGIENE_CONFIG_DEFAULTS): number {
  if (!meta.last) return 0;
  const days = (now.getTime() - meta.last.getTime()) / DAY_MS;
  return days <= 0 ? 0 : Math.floor(days / config.confidence_decay_interval_days);
}

/**
 * Confidence now: −decay per whole interval without a mention, never below the floor. Operator
 * corrections are always 1.0.
 */
export function effectiveConfidence(meta: MemoryMetadata, now: Date, config: ScoringConfig = HYGIENE_CONFIG_DEFAULTS): number {
  if (isOperatorCorrection(meta)) return 1;
  const decayed = confidenceAtLastMention(meta, config) - decayPeriods(meta, now, config) * config.confidence_decay_amount;
  return round(Math.max(config.confidence_floor, decayed));
}

/** The entry came up again: +boost on the current (decayed) score, mentions + 1, last = now. */
export function recordMention(meta: MemoryMetadata, now: Date, config: ScoringConfig = HYGIENE_CONFIG_DEFAULTS): MemoryMetadata {
  const confidence = isOperatorCorrection(meta) ? 1 : round(Math.min(1, effectiveConfidence(meta, now, config) + config.confidence_boost_per_mention));
  return { ...meta, confidence, mentions: (meta.mentions ?? 1) + 1, last: now };
}

/** The operator corrected this entry: it becomes a correction, reset to 1.0. */
export function applyOperatorCorrection(meta: MemoryMetadata, now: Date): MemoryMetadata {
  return { ...meta, source: "correction", confidence: 1, last: now, status: undefined };
}

/** Multiplier for retrieval ranking: confidence × 1.5 (correction_relevance_boost) for corrections. */
export function retrievalWeight(meta: MemoryMetadata, now: Date, config: ScoringConfig = HYGIENE_CONFIG_DEFAULTS): number {
  const confidence = effectiveConfidence(meta, now, config);
  return round(isOperatorCorrection(meta) ? confidence * config.correction_relevance_boost : confidence);
}

/** §8 retraction: a non-operator correction whose confidence decayed below the threshold. */
export function isRetractionCandidate(meta: MemoryMetadata, now: Date, config: ScoringConfig = HYGIENE_CONFIG_DEFAULTS): boolean {
  return meta.source === "agent-correction" && effectiveConfidence(meta, now, config) < config.correction_retraction_confidence;
}

// ── inline metadata ────────────────────────────────────────────────────────────────────────────

const COMMENT = /<!--([^>]{0,400}?)-->/g;
const PAIR = /\b(confidence|source|mentions|last|status)[ \t]*:[ \t]*([^\s,;]+)/gi;
const SOURCES = new Set<string>(["operator", "correction", "inferred", "agent-correction"]);

/** Metadata from the entry's HTML comments (unknown keys and bad values are ignored), or null. */
export function parseMemoryMetadata(entry: string): MemoryMetadata | null {
  let meta: MemoryMetadata | null = null;
  for (const comment of entry.matchAll(COMMENT)) {
    for (const [, rawKey, value] of comment[1].matchAll(PAIR)) {
      const key = rawKey.toLowerCase();
      meta ??= {};
      if (key === "confidence") {
        const n = Number(value);
        if (Number.isFinite(n) && n >= 0 && n <= 1) meta.confidence = n;
      } else if (key === "source") {
        if (SOURCES.has(value.toLowerCase())) meta.source = value.toLowerCase() as MemorySource;
      } else if (key === "mentions") {
        const n = Number(value);
        if (Number.isInteger(n) && n >= 1) meta.mentions = n;
      } else if (key === "last") {
        const date = new Date(value);
        if (!Number.isNaN(date.getTime())) meta.last = date;
      } else if (key === "status") {
        meta.status = value.toLowerCase();
      }
    }
  }
  if (/(^|\s)#correction\b/.test(entry.replace(COMMENT, " "))) {
    meta = { ...meta, source: "correction" };
  }
  return meta;
}

/** The comment for an entry, e.g. `<!-- confidence: 0.95 source: operator mentions: 3 last: 2026-02-22 -->`. */
export function formatMemoryMetadata(meta: MemoryMetadata): string {
  const parts: string[] = [];
  if (meta.confidence !== undefined) parts.push(`confidence: ${round(meta.confidence)}`);
  if (meta.source) parts.push(`source: ${meta.source}`);
  if (meta.mentions !== undefined) parts.push(`mentions: ${meta.mentions}`);
  if (meta.last) parts.push(`last: ${meta.last.toISOString().slice(0, 10)}`);
  if (meta.status) parts.push(`status: ${meta.status}`);
  return `<!-- ${parts.join(" ")} -->`;
}

/**
 * The line with `key: value` pairs set in its metadata comment: a key already there gets the new
 * value, a new key goes at the end of the comment, keys not named stay as they are (`captured:`
 * included). A line without a comment gets one at its end.
 */
export function withMetadataKeys(line: string, pairs: Readonly<Record<string, string>>): string {
  const comment = /<!--([^>]{0,400}?)-->/.exec(line);
  if (!comment) return `${line.replace(/[ \t]+$/, "")} <!-- ${Object.entries(pairs).map(([key, value]) => `${key}: ${value}`).join(" ")} -->`;
  let body = comment[1].trim();
  for (const [key, value] of Object.entries(pairs)) {
    const existing = new RegExp(`\\b${key}[ \\t]*:[ \\t]*[^\\s,;]*`, "i");
    body = existing.test(body) ? body.replace(existing, `${key}: ${value}`) : `${body} ${key}: ${value}`.trim();
  }
  return `${line.slice(0, comment.index)}<!-- ${body} -->${line.slice(comment.index + comment[0].length)}`;
}

/** Entry text without its metadata comments (what gets shown to the model). */
export function stripMemoryMetadata(entry: string): string {
  return entry.replace(COMMENT, "").replace(/[ \t]+$/gm, "");
}

export type MemoryEntry = { text: string; meta: MemoryMetadata | null; line: number };

/**
 * Entries of a memory file: each top-level list item (with its indented continuation lines) is
 * one entry; headings and blank lines separate, other paragraphs are entries of their own.
 */
export function parseMemoryEntries(markdown: string): MemoryEntry[] {
  const entries: MemoryEntry[] = [];
  let current: { lines: string[]; line: number } | null = null;
  const flush = () => {
    if (!current) return;
    const text = current.lines.join("\n").trimEnd();
    // Parsed when first read: the recent-memory slot reads the text of thousands of entries, not their metadata.
    let meta: MemoryMetadata | null | undefined;
    entries.push({
      text,
      get meta() {
        return meta === undefined ? (meta = parseMemoryMetadata(text)) : meta;
      },
      line: current.line,
    });
    current = null;
  };
  markdown.split(/\r?\n/).forEach((line, index) => {
    if (/^\s*$/.test(line) || /^#{1,6}\s/.test(line)) return flush();
    const startsItem = /^([-*+]|\d+[.)])\s/.test(line);
    if (startsItem || !current) {
      flush();
      current = { lines: [line], line: index + 1 };
    } else {
      current.lines.push(line);
    }
  });
  flush();
  return entries;
}

/**
 * Ranking multiplier for a retrieved chunk: entries without metadata are neutral (1), entries with
 * metadata weigh by their effective confidence, corrections by 1.0 × correction_relevance_boost.
 * For a chunk holding several entries the strongest one counts.
 */
export function chunkRankingMultiplier(chunkText: string, now: Date, config: ScoringConfig = HYGIENE_CONFIG_DEFAULTS): number {
  let best: number | undefined;
  for (const entry of parseMemoryEntries(chunkText)) {
    if (!entry.meta) continue;
    const weight = retrievalWeight(entry.meta, now, config);
    best = best === undefined ? weight : Math.max(best, weight);
  }
  return best ?? 1;
}

/**
 * Effective confidence of the strongest entry in a retrieved chunk that carries metadata (1.0 for
 * a correction), or undefined when none does: plugs into the retriever's confidence input. Pair it
 * with `isCorrectionChunk` for the correction_relevance_boost.
 */
export function chunkConfidence(chunkText: string, now: Date, config: ScoringConfig = HYGIENE_CONFIG_DEFAULTS): number | undefined {
  let best: number | undefined;
  for (const entry of parseMemoryEntries(chunkText)) {
    if (!entry.meta) continue;
    const value = effectiveConfidence(entry.meta, now, config);
    best = best === undefined ? value : Math.max(best, value);
  }
  return best;
}

/** Does the chunk hold an operator correction (metadata `source: correction` or `#correction`)? */
export function isCorrectionChunk(chunkText: string): boolean {
  return parseMemoryEntries(chunkText).some((entry) => entry.meta !== null && isOperatorCorrection(entry.meta));
}
