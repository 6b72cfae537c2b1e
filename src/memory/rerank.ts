import { lendToNeighbours } from "./neighbours.ts";
import type { NeighbourLookup } from "./neighbours.ts";
import { RankPool } from "./rank-pool.ts";
import { analyzeText } from "./tokenize.ts";
import type { CandidateTerms, RerankCandidate } from "./candidate.ts";
import { boundedMemo } from "../core/memo.ts";

// Second-stage ranking over the index's candidates. The index finds candidates with BM25 and gives
// each a calibrated relevance in [0, 1] (src/memory/calibrate.ts); the signals below re-order
// them using what BM25 cannot see: who is speaking, the memory's date, the turn that answers a
// question, the vocabulary of the best hits, and the rest of the best hits' exchanges. Each signal
// was kept only because it raised recall on the LoCoMo benchmark; docs/retrieval.md ("Ranking
// signals") gives the measured effect. Signals about a chunk itself multiply its relevance by a
// bounded factor (its own evidence); signals that come from a related chunk lend it a share of that
// chunk's score (src/memory/rank-pool.ts). Scores are clamped to [0, 1], so a score still means what
// the confidence gate expects, and a candidate without any signal keeps its calibrated score.

export type RerankContext = {
  /** The query as the user wrote it (dates and names are read from it). */
  query: string;
  /** Distinct analysed query terms. */
  queryTerms: readonly string[];
  /** Inverse document frequency of an analysed term in the index. */
  idf: (term: string) => number;
  /** The chunk that follows `id` in its file, when the index knows it (the reply to a question). */
  next?: (id: string) => RerankCandidate | undefined;
  /** The chunk `offset` places from `id` in the same file and section (neighbours in the exchange). */
  near?: NeighbourLookup;
  /** Order of two candidates tied on score and BM25 (default: by id). */
  compareIds?: (a: string, b: string) => number;
};

export type RerankWeights = {
  /** Query names the speaker of a `Name: …` entry: that speaker's entries × (1 + speaker). */
  speaker: number;
  /** Query names a date or month: entries dated in that period × (1 + date). */
  date: number;
  /** A question entry that matches lends this share of its score to the entry that answers it. */
  answer: number;
  /** Pseudo-relevance feedback: terms of the top `prfDocs` hits; weight of their overlap. */
  prf: number;
  prfDocs: number;
  prfTerms: number;
  /** Neighbours in the exchange: the `nearHits` best hits lend this share to chunks up to `nearSpan` away. */
  near: number;
  nearHits: number;
  nearSpan: number;
};

export const DEFAULT_RERANK_WEIGHTS: RerankWeights = { speaker: 0.25, date: 0.3, answer: 0.9, prf: 0.15, prfDocs: 5, prfTerms: 8, near: 0.5, nearHits: 10, nearSpan: 2 };

export type Reranked = RerankCandidate & {
  /** What fills the block: own evidence plus what related chunks lent (src/memory/rank-pool.ts). */
  score: number;
  /** What the chunk earned by its own match: the gate decides on this. */
  evidence: number;
  /** The entry is about someone the query names (speaker label or name heading, capitalised in the query). */
  named?: true;
};

// `Caroline: …`, `**Jeff:** …`, `- Mel: …`: a short capitalised label opening the entry.
const SPEAKER = /^\s*(?:[-*+]\s+)?\**([\p{Lu}][\p{L}'’-]*(?: [\p{Lu}][\p{L}'’-]*){0,2})\**:\**\s/u;

export function speakerOf(text: string): string | undefined {
  return SPEAKER.exec(text)?.[1];
}

// `## Caroline`, `### Project Atlas`: a heading that is only a name (one to three capitalised words).
const NAME_HEADING = /^[\p{Lu}][\p{L}'’-]*(?: [\p{Lu}][\p{L}'’-]*){0,2}$/u;

/**
 * Whom an entry is about: the speaker of a `Name: …` entry, else the innermost heading when that
 * heading is a name (curated notes file each fact under `## Caroline`).
 */
export function entityOf(text: string, headingPath: readonly string[]): string | undefined {
  return speakerOf(text) ?? nameHeadingOf(headingPath);
}

// Chunks under the same headings share one heading-path array: each is tested once (hot path).
const nameHeadings = new WeakMap<readonly string[], string | null>();
function nameHeadingOf(headingPath: readonly string[]): string | undefined {
  let name = nameHeadings.get(headingPath);
  if (name === undefined) {
    const heading = headingPath[headingPath.length - 1];
    name = heading && NAME_HEADING.test(heading) ? heading : null;
    nameHeadings.set(headingPath, name);
  }
  return name ?? undefined;
}

/**
 * Does the query write the name as a name: capitalised, a whole word, and not as the query's first
 * word (any word is capitalised there)? "may" is not "May", "Notes on Python" does not name `## Notes`.
 */
export function queryWritesName(query: string, name: string): boolean {
  const opening = query.search(/[\p{L}\p{N}]/u);
  let from = 0;
  for (;;) {
    const at = query.indexOf(name, from);
    if (at < 0) return false;
    if (at === opening) {
      from = at + 1;
      continue;
    }
    const before = at > 0 ? query[at - 1] : " ";
    const after = query[at + name.length] ?? " ";
    if (!/[\p{L}\p{N}]/u.test(before) && !/[\p{L}\p{N}]/u.test(after)) return true;
    from = at + 1;
  }
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const MONTH_PATTERN = new RegExp(`\\b(${MONTHS.join("|")}|${MONTHS.map((m) => m.slice(0, 3)).join("|")})\\.?(?:\\s+(\\d{1,2})(?:st|nd|rd|th)?)?(?:,?\\s+(\\d{4}))?\\b`, "i");
const ISO = /\b(\d{4})-(\d{2})(?:-(\d{2}))?\b/;
const YEAR = /\b(?:in|during|of)\s+(\d{4})\b/i;

/** A period the query names, as an inclusive range of YYYY-MM-DD strings (year may be open). */
export type QueryPeriod = { year?: string; month?: string; day?: string };

export function queryPeriod(query: string): QueryPeriod | undefined {
  const iso = ISO.exec(query);
  if (iso) return { year: iso[1], month: iso[2], day: iso[3] };
  const named = MONTH_PATTERN.exec(query);
  if (named) {
    const index = MONTHS.findIndex((m) => m.startsWith(named[1].toLowerCase().slice(0, 3)));
    // "may" alone is too often the verb: only with a day or a year.
    if (named[1].toLowerCase() === "may" && !named[2] && !named[3]) return undefined;
    const period: QueryPeriod = { month: String(index + 1).padStart(2, "0") };
    if (named[2]) period.day = named[2].padStart(2, "0");
    if (named[3]) period.year = named[3];
    return period;
  }
  const year = YEAR.exec(query);
  return year ? { year: year[1] } : undefined;
}

/** Does a memory dated `date` fall in the period, or in the few days after it (told "last week")? */
export function dateMatches(date: string | undefined, period: QueryPeriod): boolean {
  if (!date) return false;
  const [y, m, d] = date.split("-");
  if (period.year && period.month && period.day) {
    const target = Date.UTC(Number(period.year), Number(period.month) - 1, Number(period.day));
    const at = Date.UTC(Number(y), Number(m) - 1, Number(d));
    return at >= target && at - target <= 10 * 86_400_000;
  }
  if (period.year && y !== period.year) {
    // "in June 2023" told on 2023-07-04: the month after still counts, the year must hold.
    return false;
  }
  if (period.month) {
    const month = Number(m);
    const wanted = Number(period.month);
    return month === wanted || (month === (wanted % 12) + 1 && Number(d) <= 14);
  }
  return true;
}

// Analysed terms of a speaker label ("Caroline" → ["carolin"]), kept across queries (labels repeat).
const speakerTerms = boundedMemo(4096, analyzeText);

const ENDS_WITH_QUESTION = /\?\s*(?:\[[^\]]*\]\s*)?(?:<!--[\s\S]*?-->\s*)?$/;

/** Does the entry end with a question (an image caption or a metadata comment may follow)? */
function isQuestion(text: string): boolean {
  const mark = text.lastIndexOf("?");
  return mark >= 0 && ENDS_WITH_QUESTION.test(text.slice(mark));
}

/**
 * Re-order candidates (best first) with the signals above; scores stay in [0, 1]. At most `limit`
 * results are returned (scores are kept per position; only the returned ones become objects).
 */
export function rerank(candidates: readonly RerankCandidate[], context: RerankContext, weights: RerankWeights = DEFAULT_RERANK_WEIGHTS, limit = Number.POSITIVE_INFINITY): Reranked[] {
  if (candidates.length === 0) return [];
  const queryTerms = new Set(context.queryTerms);

  // Speaker (or name heading): only when the query names someone the candidates are about.
  const speakers = candidates.map((candidate) => entityOf(candidate.text, candidate.headingPath));
  const namedSpeakers = new Set<string>();
  const writtenNames = new Set<string>();
  for (const speaker of new Set(speakers)) {
    if (speaker && speakerTerms(speaker).some((t) => queryTerms.has(t))) {
      namedSpeakers.add(speaker);
      if (queryWritesName(context.query, speaker)) writtenNames.add(speaker);
    }
  }

  const period = weights.date > 0 ? queryPeriod(context.query) : undefined;
  const prf = weights.prf > 0 ? feedbackTerms(candidates, context, weights) : undefined;

  // Each candidate's own evidence: its relevance times the signals about the chunk itself.
  const pool = new RankPool();
  candidates.forEach((candidate, i) => {
    let factor = 1;
    const speaker = speakers[i];
    if (weights.speaker > 0 && speaker !== undefined && namedSpeakers.has(speaker)) factor *= 1 + weights.speaker;
    if (period && dateMatches(candidate.date, period)) factor *= 1 + weights.date;
    if (prf && candidate.terms) factor *= 1 + weights.prf * feedbackOverlap(candidate.terms, prf);
    pool.add(candidate, candidate.relevance * factor);
  });

  // The reply to a matching question carries the answer the question only asks about.
  if (weights.answer > 0 && context.next) {
    const asking = pool.size;
    for (let i = 0; i < asking; i++) {
      if (!isQuestion(pool.candidates[i].text)) continue;
      const reply = context.next(pool.candidates[i].id);
      if (reply) pool.lend(reply, pool.scores[i] * weights.answer, "max");
    }
  }

  const compareIds = context.compareIds ?? ((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0));
  // The rest of the best hits' exchanges (src/memory/neighbours.ts).
  if (weights.near > 0 && context.near) {
    lendToNeighbours(pool, pool.order(compareIds), context.near, { share: weights.near, hits: weights.nearHits, span: weights.nearSpan });
  }

  const order = pool.order(compareIds);
  return order.slice(0, Math.min(order.length, limit)).map((i) => {
    const candidate = pool.candidates[i];
    const result: Reranked = { ...candidate, score: pool.scores[i], evidence: pool.evidence[i] };
    const about = entityOf(candidate.text, candidate.headingPath);
    if (about !== undefined && writtenNames.has(about)) result.named = true;
    return result;
  });
}

type Feedback = { terms: string[]; shares: number[] };

/** Share of the feedback terms' weight that the chunk holds, in [0, 1]. */
function feedbackOverlap(terms: CandidateTerms, feedback: Feedback): number {
  let share = 0;
  for (let i = 0; i < feedback.terms.length; i++) if (terms.has(feedback.terms[i])) share += feedback.shares[i];
  return share;
}

/** Top terms of the best hits that the query does not already hold, weighted by idf × frequency. */
function feedbackTerms(candidates: readonly RerankCandidate[], context: RerankContext, weights: RerankWeights): Feedback | undefined {
  const top = [...candidates].sort((a, b) => b.relevance - a.relevance).slice(0, weights.prfDocs);
  const weight = new Map<string, number>();
  const asked = new Set(context.queryTerms);
  for (const candidate of top) {
    if (!candidate.terms) continue;
    for (const [term, tf] of candidate.terms.counts()) {
      if (asked.has(term)) continue;
      weight.set(term, (weight.get(term) ?? 0) + Math.min(tf, 2) * context.idf(term));
    }
  }
  const chosen = [...weight].sort((a, b) => b[1] - a[1]).slice(0, weights.prfTerms);
  if (chosen.length === 0) return undefined;
  const total = chosen.reduce((sum, [, w]) => sum + w, 0);
  return { terms: chosen.map(([term]) => term), shares: chosen.map(([, w]) => w / total) };
}


