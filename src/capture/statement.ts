import { termOf, wordsOf } from "../memory/tokenize.ts";
import { BUILTIN_PATTERNS } from "./patterns.ts";
import type { TriageMatch, TriagePattern } from "./patterns.ts";

// What "remember that …" asks to be remembered, as plain text functions (no I/O, no LLM):
//   - the operator's words without fenced or inline code, quoted lines and quoted passages, so a
//     trigger inside a paste or a quote never becomes a fact;
//   - the statement the trigger introduces (trigger words removed, bounded length, one line, no
//     characters that could open or close the metadata comment);
//   - its §5.1 tag, and how two statements relate (a repeat, a changed value, or unrelated).

export const MAX_FACT_CHARS = 280;
/** A statement shorter than this says nothing worth keeping ("remember that!"). */
export const MIN_FACT_CHARS = 3;

export type FactTag = "#event" | "#knowledge" | "#skill" | "#decision";

const FENCED_BLOCK = /(^|\n)[ \t]*(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:\n[ \t]*\2[ \t]*(?=\n|$)|$)/g;
const INLINE_CODE = /`[^`\n]*`/g;
const QUOTED_LINE = /^[ \t]*>.*$/gm;
// Straight or typographic double quotes, CJK corner brackets; not apostrophes (they are in "don't").
const QUOTED_PASSAGE = /"[^"\n]{0,2000}"|“[^”\n]{0,2000}”|„[^“”\n]{0,2000}[“”]|「[^」\n]{0,2000}」|『[^』\n]{0,2000}』|«[^»\n]{0,2000}»/g;

/** The operator's own words: code, quoted lines and quoted passages replaced by a sentence break. */
export function ownWords(text: string): string {
  return text
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/<!--[\s\S]*?(?:-->|$)/g, " ")
    .replace(FENCED_BLOCK, "$1\n")
    .replace(INLINE_CODE, " ")
    .replace(QUOTED_LINE, "")
    .replace(QUOTED_PASSAGE, " ");
}

const MEMORY_PATTERNS: readonly TriagePattern[] = BUILTIN_PATTERNS.filter((p) => p.class === "memory_trigger");
const SOFT_PATTERNS: readonly TriagePattern[] = BUILTIN_PATTERNS.filter((p) => p.class === "soft_correction");

/** Sentence ends: . ! ? (not inside numbers like 4.5), CJK stops, line breaks. */
const SENTENCE_END = /[.!?]+(?=\s|$)|[。！？\n]/g;

type TriggerSentence = { before: string; trigger: string; after: string; question: boolean };

/** The sentence holding the pattern's first match in `text`, split around the trigger. */
function triggerSentence(text: string, pattern: TriagePattern): TriggerSentence | undefined {
  const regex = new RegExp(pattern.source.replace(/^\/(.*)\/([a-z]*)$/s, "$1"), pattern.source.endsWith("/i") ? "i" : "");
  const match = regex.exec(text);
  if (!match) return undefined;
  const start = match.index;
  const end = start + match[0].length;
  let from = 0;
  let to = text.length;
  let stopText = "";
  for (const stop of text.matchAll(SENTENCE_END)) {
    const at = stop.index ?? 0;
    if (at + stop[0].length <= start) from = at + stop[0].length;
    else if (at >= end) {
      to = at;
      stopText = stop[0];
      break;
    }
  }
  return { before: text.slice(from, start), trigger: match[0], after: text.slice(end, to), question: /[?？]/.test(stopText) };
}

/** One line, inert inside a Markdown list item followed by an HTML comment, at most MAX_FACT_CHARS. */
export function tidyStatement(text: string): string {
  let tidy = text
    .replace(/[<>`]/g, " ")
    .replace(/[\u0000-\u001F\u007F\u200B-\u200D\u2060\uFEFF\u202A-\u202E\u2066-\u2069]/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^(?:[#>*+\-]+\s*|\d{1,9}[.)]\s+)+/, "")
    .replace(/^[\s,;:：，、\-–—]+|[\s,;:：，、\-–—]+$/g, "")
    .trim();
  if (tidy.length > MAX_FACT_CHARS) {
    const cut = tidy.slice(0, MAX_FACT_CHARS - 1);
    const space = cut.lastIndexOf(" ");
    tidy = `${space > MAX_FACT_CHARS * 0.6 ? cut.slice(0, space) : cut}…`;
  }
  return tidy;
}

// Words left at the seam after the trigger is cut out: "remember [that] …", "don't forget [to] …".
const LEADING_FILLER = /^(?:\s*(?:[:：,，]|that|this|to|about|is|are|was|please|when)\b)+/i;
const TRAILING_FILLER = /(?:\b(?:please|ok|okay|so|and|but)\b|[,，]|\s)+$/i;
const LEADING_CORRECTION = /^\s*(?:no|nope|actually|sorry|correction|wait|update)\b[\s,，:：!]*/i;

/** The statement a trigger introduces; a question ("remember when we met?") states nothing. */
function statementFrom(sentence: TriggerSentence): string | undefined {
  if (sentence.question) return undefined;
  const tail = sentence.after.replace(LEADING_FILLER, "");
  const chosen = tidyStatement(tail).length >= MIN_FACT_CHARS ? tail : sentence.before.replace(LEADING_CORRECTION, "").replace(TRAILING_FILLER, "");
  const statement = tidyStatement(chosen);
  return statement.length >= MIN_FACT_CHARS ? statement : undefined;
}

export type CaptureKind = "memory" | "correction";

export type ExtractedFact = { kind: CaptureKind; statement: string; tag: FactTag; trigger: string };

function tagFor(triggerId: string, statement: string): FactTag {
  if (/^(decision|we-agreed|the-plan-is)$/.test(triggerId) || /决定|计划|说好|约好|商量好|定好/.test(statement)) return "#decision";
  if (/\bhow to\b|\bthe way to\b|\bto fix\b|怎么|如何/i.test(statement)) return "#skill";
  if (/\b\d{4}-\d{2}-\d{2}\b|\b(on|next|last|this) (mon|tues|wednes|thurs|fri|satur|sun)day\b|\b(yesterday|today|tomorrow|tonight)\b|昨天|今天|明天/i.test(statement)) return "#event";
  return "#knowledge";
}

/**
 * The fact a flagged message asks to keep, from the triage matches of that message (scanned once by
 * triage). A memory trigger wins over a soft correction in the same message. Only triggers found in
 * the operator's own words count: a trigger inside code or a quote yields nothing.
 */
export function extractFact(text: string, matches: readonly TriageMatch[]): ExtractedFact | undefined {
  const own = ownWords(text);
  const ids = new Set(matches.map((m) => m.id));
  const candidates: [CaptureKind, readonly TriagePattern[]][] = [
    ["memory", MEMORY_PATTERNS],
    ["correction", SOFT_PATTERNS],
  ];
  for (const [kind, patterns] of candidates) {
    for (const pattern of patterns) {
      if (!ids.has(pattern.id)) continue;
      const sentence = triggerSentence(own, pattern);
      const statement = sentence && statementFrom(sentence);
      if (!sentence || !statement) continue;
      // A correction keeps its whole sentence ("the locker code is 5580 now"), minus "actually,"/"no,".
      const whole = tidyStatement(`${sentence.before}${sentence.trigger}${sentence.after}`.replace(LEADING_CORRECTION, ""));
      const chosen = kind === "correction" && whole.length >= MIN_FACT_CHARS ? whole : statement;
      return { kind, statement: chosen, tag: tagFor(pattern.id, chosen), trigger: pattern.id };
    }
  }
  return undefined;
}

// ── how two statements relate ──────────────────────────────────────────────────────────────────

const EXTRA_STOPWORDS = new Set(["actually", "now", "anymore", "instead", "changed", "switched", "moved", "updated", "new", "old"]);

/** Content terms (stemmed, stopwords out), in order. */
export function contentTerms(text: string): string[] {
  const terms: string[] = [];
  for (const word of wordsOf(text)) {
    if (!word || EXTRA_STOPWORDS.has(word)) continue;
    const term = termOf(word);
    if (term) terms.push(term);
  }
  return terms;
}

const hasDigit = (term: string) => /\p{N}/u.test(term);

/** Same content terms (order and filler words aside): the same fact said again. */
export function isRepeat(a: string, b: string): boolean {
  const x = new Set(contentTerms(a));
  const y = new Set(contentTerms(b));
  if (x.size === 0 || x.size !== y.size) return false;
  for (const term of x) if (!y.has(term)) return false;
  return true;
}

export type ValueChange = { key: string; oldValue: string; newValue: string };

const subsetOf = (a: ReadonlySet<string>, b: ReadonlySet<string>) => a.size > 0 && [...a].every((term) => b.has(term));

/**
 * The newer statement gives another value for the key of the older one: the words around the
 * values are the same (one statement's non-number words all in the other's), and a shared word is
 * followed within three words by a value with a digit that differs ("slip 14" → "it's slip 22 now",
 * "my locker code is 4312" → "the locker code is 5580"). A shared word alone is no evidence of the
 * same fact: "my bike lock code is 1234" leaves "my locker code is 4312" alone.
 */
export function valueChange(older: string, newer: string): ValueChange | undefined {
  const oldTerms = contentTerms(older);
  const newTerms = contentTerms(newer);
  const oldWords = new Set(oldTerms.filter((term) => !hasDigit(term)));
  const newWords = new Set(newTerms.filter((term) => !hasDigit(term)));
  if (!subsetOf(newWords, oldWords) && !subsetOf(oldWords, newWords)) return undefined;
  const valueAfter = (terms: string[], index: number) => terms.slice(index + 1, index + 4).find(hasDigit);
  for (let i = 0; i < newTerms.length; i++) {
    const key = newTerms[i];
    if (hasDigit(key)) continue;
    const j = oldTerms.indexOf(key);
    if (j === -1) continue;
    const newValue = valueAfter(newTerms, i);
    const oldValue = valueAfter(oldTerms, j);
    if (newValue && oldValue && newValue !== oldValue) return { key, oldValue, newValue };
  }
  return undefined;
}

/**
 * The older statement with the changed value put in: "my sailboat is at slip 14" + "it's slip 22
 * now" → "my sailboat is at slip 22". When the old value cannot be found verbatim, undefined.
 */
export function withNewValue(older: string, change: ValueChange): string | undefined {
  const words = older.split(/(\s+)/);
  const index = words.findIndex((word) => word.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "") === change.oldValue);
  if (index === -1) return undefined;
  const original = words[index];
  const newer = original.replace(new RegExp(change.oldValue.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "i"), change.newValue);
  if (newer === original) return undefined;
  words[index] = newer;
  return words.join("");
}

/**
 * A memory whose text is already in this turn's message adds nothing to the turn: "remember that my
 * locker code is 4312" must not come back as a memory in the same request.
 */
export function echoesMessage(memoryText: string, message: string): boolean {
  const norm = (s: string) => ` ${wordsOf(s).filter(Boolean).join(" ")} `;
  const memory = norm(memoryText.replace(/<!--[\s\S]*?-->/g, " ").replace(/(^|\s)#(event|knowledge|skill|decision)\b/g, " "));
  return memory.trim().length >= 12 && norm(message).includes(memory);
}
