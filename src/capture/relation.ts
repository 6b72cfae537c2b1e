import { stemmer } from "stemmer";
import { DETECT, LANGS, RULES, fold } from "./language.ts";
import type { Lang } from "./language.ts";

// How two captured statements relate, from their words (no LLM): the same fact said again (a
// repeat), the same thing given a new value (which supersedes the older line), or unrelated.
//
// A statement is analysed once into its content (words with stopwords out and English stemmed, and
// values: any token with a digit, "4312", "2026-05-03", "8:15", "11pm"), its polarity (a negation
// anywhere: "not", "n't", "不", "kein", "ne … pas") and where a relation word ("is", "lives", "是",
// "wohnt": copulas and single-valued verbs) stands before a content word. Chinese is compared
// character by character (no word segmentation needed); values stay whole.
//
//   repeat   the same content (order aside) and the same polarity;
//   change   the same content with the other polarity ("I like coffee" → "I do not like coffee"),
//            or the same subject and attribute with another value:
//            - numbers: the same words around one value that differs ("my locker code is 4312" →
//              "my locker code is 5580", "Eigentlich ist mein Spindcode jetzt 5580");
//            - otherwise the statements share a start and an end and differ in between, in one or
//              two words of one kind ("the wifi password is sunflower" → "… is moonlight"); a
//              restatement ("remember that …") needs a relation word before that value, a
//              correction ("actually …") does not ("I prefer tea in the morning");
//            - a correction may name only the attribute and the value ("actually it's slip 22 now").
// "my flight to Paris cost 300 euros" does not change "my flight is on 2026-05-03" (other words
// around the values), nor "my son Tom has 2 cats" "my son is 7".

/** Bits of a content key's flags. */
export const VALUE = 1;
export const RELATION = 2;
export const AFTER_RELATION = 4;

export type Shape = {
  lang: Lang;
  /** Content keys in order: stemmed words and values. */
  keys: string[];
  /**
   * Per key, one character: the bits VALUE, RELATION (it is a relation word) and AFTER_RELATION (a
   * relation word stands before it) over "0" (a string: an indexed vault holds tens of thousands).
   */
  flags: string;
  negated: boolean;
  /** Order-free identity of the content (the same words and values), and of its words alone. */
  content: string;
  words: string;
};

/** The flag bits of content key `i` (0 past the end). */
export function flagOf(shape: Shape, i: number): number {
  return i < shape.flags.length ? shape.flags.charCodeAt(i) - 48 : 0;
}

/** A shape and where each content key sits in the analysed text (character offsets). */
export type Analysis = Shape & { spans: [number, number][] };

const HAN = /\p{Script=Han}/u;
const TOKEN = /\p{Script=Han}|(?:(?!\p{Script=Han})[\p{L}\p{N}\p{M}'’])+(?:[.:/-]\p{N}+)*/gu;
/** What is left of "can't", "won't", "shan't" once the n't is cut. */
const CONTRACTED: Record<string, string> = { ca: "can", wo: "will", sha: "shall" };

/** The language a statement is in: Chinese when it has Han characters, else by its function words. */
export function detectLanguage(text: string): Lang {
  if (HAN.test(text)) return "zh";
  let best: Lang = "en";
  let bestScore = 0;
  // Stryker disable next-line Regex: one separator or a run of them: the empty words between match no function word
  const words = text.split(/[^\p{L}]+/u).map(fold); // fold lowercases
  for (const lang of LANGS) {
    if (lang === "zh") continue;
    const detect = DETECT[lang];
    let score = detect.letters.test(text) ? 2 : 0;
    for (const word of words) if (detect.words.has(word)) score++;
    if (score > bestScore) [best, bestScore] = [lang, score];
  }
  return best;
}

// A word's key per language, remembered (stemming is the costly step, and the same string object
// for the same key keeps thousands of indexed facts small). Bounded.
const KEYS_MAX = 50_000;
const KEY_CACHE = new Map<string, string>();
function keyOf(word: string, lang: Lang): string {
  const id = `${lang}\u0000${word}`;
  let key = KEY_CACHE.get(id);
  // Stryker disable next-line ConditionalExpression: a cache: computing the key again gives the same key
  if (key === undefined) {
    key = lang === "en" && !/\p{N}/u.test(word) ? stemmer(word) : word;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: the cache's bound: clearing it sooner, later or always only costs time
    if (KEY_CACHE.size >= KEYS_MAX) KEY_CACHE.clear();
    KEY_CACHE.set(id, key);
  }
  return key;
}

/** Content, polarity and relation words of one statement, with where each content key sits. */
export function analyseWithSpans(statement: string, lang: Lang = detectLanguage(statement)): Analysis {
  const rules = RULES[lang];
  // Stryker disable next-line StringLiteral: placeholders, each set below before the shape is returned
  const shape: Analysis = { lang, keys: [], flags: "", negated: false, content: "", words: "", spans: [] };
  const flags: number[] = [];
  let relationPending = false;
  // Blanked, not removed: the offsets of what is left stay those of `statement`.
  const text = rules.fillerPhrases ? statement.replace(rules.fillerPhrases, (phrase) => " ".repeat(phrase.length)) : statement;
  for (const match of text.matchAll(TOKEN)) {
    let raw = match[0];
    // "isn't", "don't": the n't is the negation and the rest a word of its own ("is", "do").
    if (lang === "en" && /n['’]t$/i.test(raw)) {
      shape.negated = true;
      raw = raw.slice(0, -3);
    }
    // "son's", "j'aime", "n'aime": an apostrophe splits words.
    let offset = match.index ?? 0;
    for (const part of raw.split(/['’]/)) {
      const start = offset;
      offset += part.length + 1;
      const word = CONTRACTED[fold(part)] ?? fold(part);
      if (rules.negations.has(word)) {
        shape.negated = true;
        continue;
      }
      const relation = rules.relations.has(word);
      const value = /\p{N}/u.test(word);
      if (!value && (rules.fillers.has(word) || rules.stopwords.has(word) || (word.length < 2 && !HAN.test(word)))) {
        relationPending ||= relation;
        continue;
      }
      const previous = flags[flags.length - 1]; // undefined for the first key: undefined & RELATION is 0
      shape.keys.push(keyOf(word, lang));
      flags.push((value ? VALUE : 0) | (relation ? RELATION : 0) | (relationPending || previous & RELATION ? AFTER_RELATION : 0));
      shape.spans.push([start, start + part.length]);
      relationPending = false;
    }
  }
  // Stryker disable next-line MethodExpression: memory only: no spare capacity kept per fact
  shape.keys = shape.keys.slice();
  shape.flags = String.fromCharCode(...flags.map((bits) => 48 + bits));
  shape.content = [...new Set(shape.keys)].sort().join("\u0001");
  // Only a statement with a value compares its words alone.
  shape.words = flags.some((bits) => bits & VALUE)
    ? shape.keys
        .filter((_, i) => !(flags[i] & VALUE))
        .sort()
        .join("\u0001")
    : "";
  return shape;
}

/** The shape alone (what an index keeps). */
export function analyse(statement: string): Shape {
  const { lang, keys, flags, negated, content, words } = analyseWithSpans(statement);
  return { lang, keys, flags, negated, content, words };
}

/** The same fact said again: same content words and values, same polarity. */
export function isRepeat(a: Shape, b: Shape): boolean {
  return a.keys.length > 0 && a.negated === b.negated && a.content === b.content;
}

export type Change = {
  how: "polarity" | "value";
  /** The older and the newer statement's value, as ranges [from, to) of their content keys. */
  oldRange?: [number, number];
  newRange?: [number, number];
};

const isValue = (shape: Shape, i: number) => (flagOf(shape, i) & VALUE) !== 0;
const kindOf = (shape: Shape, from: number, to: number) => {
  let values = 0;
  for (let i = from; i < to; i++) if (isValue(shape, i)) values++;
  return values === to - from ? "value" : values === 0 ? "word" : "mixed";
};
/** Longest value, in characters of Chinese or in words elsewhere. */
const maxValueKeys = (lang: Lang) => (lang === "zh" ? 4 : 2);
const valueIndexes = (shape: Shape) => shape.keys.map((_, i) => i).filter((i) => isValue(shape, i));

/** Numbers: the same words, and one value (in order) that differs. */
function numericChange(older: Shape, newer: Shape): Change | undefined {
  const oldValues = valueIndexes(older);
  const newValues = valueIndexes(newer);
  if (oldValues.length === 0 || oldValues.length !== newValues.length || oldValues.length === older.keys.length || older.words !== newer.words) return undefined;
  const differing = oldValues.map((_, k) => k).filter((k) => older.keys[oldValues[k]] !== newer.keys[newValues[k]]);
  if (differing.length !== 1) return undefined;
  const [k] = differing;
  return { how: "value", oldRange: [oldValues[k], oldValues[k] + 1], newRange: [newValues[k], newValues[k] + 1] };
}

/** A common start and end, and one short value of one kind in between that differs. */
function alignedChange(older: Shape, newer: Shape, correction: boolean): Change | undefined {
  const a = older.keys;
  const b = newer.keys;
  let prefix = 0;
  // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: past an end a key is undefined and differs; past both, the keys were equal, which changeOf answered before
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const oldLength = a.length - suffix - prefix;
  const newLength = b.length - suffix - prefix;
  const limit = maxValueKeys(older.lang);
  if (prefix === 0 || oldLength === 0 || newLength === 0 || oldLength > limit || newLength > limit) return undefined;
  const kind = kindOf(older, prefix, prefix + oldLength);
  if (kind === "mixed" || kind !== kindOf(newer, prefix, prefix + newLength)) return undefined;
  // A restatement only replaces what a relation word gives a single value ("is", "lives in").
  if (!correction && kind === "word" && !(flagOf(older, prefix) & AFTER_RELATION && flagOf(newer, prefix) & AFTER_RELATION)) return undefined;
  return { how: "value", oldRange: [prefix, prefix + oldLength], newRange: [prefix, prefix + newLength] };
}

/** A correction naming only the attribute and its value: "it's slip 22 now" for "… moored at slip 14 …". */
function ellipticChange(older: Shape, newer: Shape): Change | undefined {
  const values = valueIndexes(newer);
  const words = newer.keys.length - values.length;
  if (values.length !== 1 || words > 3) return undefined;
  const oldKeys = new Set(older.keys);
  if (!newer.keys.every((key, i) => isValue(newer, i) || oldKeys.has(key))) return undefined;
  // The word right before the one value (undefined when the value comes first: no attribute).
  const [at] = values;
  const attribute = newer.keys[at - 1];
  const j = older.keys.findIndex((key, k) => key === attribute && isValue(older, k + 1));
  if (j === -1 || older.keys[j + 1] === newer.keys[at]) return undefined;
  return { how: "value", oldRange: [j + 1, j + 2], newRange: [at, at + 1] };
}

/**
 * How `newer` changes `older`, or undefined. `correction`: the newer statement is a correction
 * ("actually …"), which may replace any value and may name only the attribute and the value.
 */
export function changeOf(older: Shape, newer: Shape, correction: boolean): Change | undefined {
  if (older.keys.length === 0 || newer.keys.length === 0) return undefined;
  if (older.content === newer.content) return older.negated === newer.negated ? undefined : { how: "polarity" };
  if (older.negated !== newer.negated) return undefined;
  return numericChange(older, newer) ?? alignedChange(older, newer, correction) ?? (correction ? ellipticChange(older, newer) : undefined);
}

/**
 * The older statement with the newer value put in: "my sailboat is moored at slip 14 in Sausalito"
 * + "it's slip 22 now" → "my sailboat is moored at slip 22 in Sausalito". A polarity change is the
 * newer statement as said.
 */
export function withNewValue(older: string, newer: string, change: Change): string {
  if (!change.oldRange || !change.newRange) return newer;
  const oldSpans = analyseWithSpans(older).spans;
  const newSpans = analyseWithSpans(newer).spans;
  const [oldFrom, oldTo] = change.oldRange;
  const [newFrom, newTo] = change.newRange;
  return `${older.slice(0, oldSpans[oldFrom][0])}${newer.slice(newSpans[newFrom][0], newSpans[newTo - 1][1])}${older.slice(oldSpans[oldTo - 1][1])}`;
}
