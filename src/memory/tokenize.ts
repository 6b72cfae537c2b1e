import { stemmer } from "stemmer";
import { eng } from "stopword";

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

// Stemming is the costliest step and a vault repeats few words: remember recent stems (bounded).
const STEM_CACHE_MAX = 50_000;
const stems = new Map<string, string>();
function stem(word: string): string {
  let stemmed = stems.get(word);
  if (stemmed === undefined) {
    stemmed = stemmer(word);
    if (stems.size >= STEM_CACHE_MAX) stems.clear();
    stems.set(word, stemmed);
  }
  return stemmed;
}

/** Normalised, stemmed terms of `text`, in order, duplicates kept (term frequency matters). */
export function analyzeText(text: string): string[] {
  const terms: string[] = [];
  const ascii = ASCII_ONLY.test(text);
  const normalised = ascii ? text.toLowerCase() : text.normalize("NFKD").replace(COMBINING_MARKS, "").toLowerCase();
  for (const word of normalised.split(ascii ? ASCII_WORD_SPLIT : WORD_SPLIT)) {
    if (word.length < 2 && !/^\p{N}$/u.test(word)) continue;
    if (STOPWORDS.has(word)) continue;
    terms.push(stem(word));
  }
  return terms;
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
