import { stemmer } from "stemmer";
import { eng } from "stopword";
import { boundedMemo } from "../core/memo.ts";

// One analyser for indexing and querying, so both sides agree on every term.
// Steps: Unicode-normalise, lowercase, split on anything that is not a letter or digit,
// drop stopwords and one-letter tokens, Porter-stem what is left.

const STOPWORDS = new Set<string>([
  ...eng,
  // Words that carry no topic in a question put to a memory ("do you remember what I told you…").
  "remember", "recall", "remind", "tell", "told", "know", "knew", "think", "please", "thanks",
  "hey", "hi", "hello", "can", "could", "would", "should", "yes", "no", "ok", "okay",
  // Auxiliaries, pronouns and question words missing from the short English list.
  "does", "doing", "done", "will", "shall", "may", "isn", "aren", "wasn", "don", "doesn", "didn",
  "its", "us", "she", "they", "mine", "yours", "ours", "hers", "theirs", "myself", "yourself",
  "when", "why", "whom", "whose", "there", "again", "any", "just", "so", "not", "what's", "whats",
  "let", "lets", "me", "tell", "say", "says", "anything", "something", "thing", "things",
  // Contraction tails left by splitting on apostrophes ("you're", "we'll", "I've").
  "re", "ll", "ve",
]);

const WORD_SPLIT = /[^\p{L}\p{N}]+/u;
const COMBINING_MARKS = /\p{M}+/gu;
// Fast path for plain-ASCII text (most memory files): the same result without the Unicode steps,
// which dominate a cold index build.
const ASCII_ONLY = /^[\x00-\x7f]*$/;
const ASCII_WORD_SPLIT = /[^a-z0-9]+/;

// Stemming is the costliest step and a vault repeats few words: remember what each recent word
// becomes (its stem, or null when it is dropped), so a repeated word costs one lookup (bounded).
/** The term one word of `wordsOf` becomes: its stem, or null when it is dropped (stopword, one letter). */
export const termOf: (word: string) => string | null = boundedMemo(50_000, (word: string) =>
  (word.length < 2 && !/^\p{N}$/u.test(word)) || STOPWORDS.has(word) ? null : stemmer(word),
);

/**
 * The words of `text` before stopwords and stemming (Unicode-normalised, lowercase, split on
 * anything that is not a letter or digit; empty strings possible). `termOf` finishes each one: the
 * index keeps its own word → term-id table over these, so a repeated word costs it one lookup.
 */
export function wordsOf(text: string): string[] {
  const ascii = ASCII_ONLY.test(text);
  const normalised = ascii ? text.toLowerCase() : text.normalize("NFKD").replace(COMBINING_MARKS, "").toLowerCase();
  return normalised.split(ascii ? ASCII_WORD_SPLIT : WORD_SPLIT);
}

/** Normalised, stemmed terms of `text`, in order, duplicates kept (term frequency matters). */
export function analyzeText(text: string): string[] {
  const terms: string[] = [];
  for (const word of wordsOf(text)) {
    const term = termOf(word);
    if (term !== null) terms.push(term);
  }
  return terms;
}

// Question-frame words: they say what kind of answer is wanted ("the name of my cat", "what kind of
// art"), and the memory that answers rarely repeats them ("my cat is called Miso"). Stemmed forms.
const QUESTION_FRAME_TERMS = new Set(["name", "kind", "type", "sort"]);
/** Share of a question-frame term's information in the calibrated score (docs/retrieval.md). */
const QUESTION_FRAME_WEIGHT = 0.25;

/** Weight of an analysed query term in the calibrated score: less for question-frame words. */
export function queryTermWeight(term: string): number {
  return QUESTION_FRAME_TERMS.has(term) ? QUESTION_FRAME_WEIGHT : 1;
}

/** Distinct query terms, order of first appearance. */
export function analyzeQuery(query: string): string[] {
  return [...new Set(analyzeText(query))];
}

/** Term frequencies of an analysed term list. */
export function termFrequencies(terms: readonly string[]): Record<string, number> {
  const tf: Record<string, number> = {};
  for (const term of terms) tf[term] = (tf[term] ?? 0) + 1;
  return tf;
}
