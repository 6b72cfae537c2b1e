import { boundedMemo } from "../core/memo.ts";
import { wordsOf } from "../memory/tokenize.ts";
import { FORWARDED_START, HANDOVER_LINE, LANGS, RULES, TRIGGERS } from "./language.ts";
import type { Lang, LanguageRules, Trigger } from "./language.ts";
import { scanWindow } from "./patterns.ts";
import { detectLanguage } from "./relation.ts";
import { sentencesOf } from "./sentences.ts";

// What a message asks to be remembered, as plain text functions (no I/O, no LLM), from the
// per-language data in language.ts:
//   - the operator's own words: fenced and inline code, quoted lines and passages, HTML comments,
//     forwarded messages and text handed over to another speaker ("Tom wrote:") are left out, so a
//     trigger inside them never becomes a fact;
//   - its sentences (sentences.ts: abbreviations and initials do not end one);
//   - in each sentence, a trigger that asks to keep something ("remember that", "merk dir",
//     "记住"), unless it is negated, asked, reported, hypothetical, the speaker's own remembering or
//     a moment recalled ("remember when …"); then the statement it introduces (trigger words
//     removed, bounded, one line, nothing that could open or close the metadata comment);
//   - a sentence that corrects without a trigger ("Actually, my locker code is 5580 now"), which
//     capture.ts only writes when it changes a captured fact;
//   - each fact's §5.1 tag. How two statements relate is relation.ts.

export const MAX_FACT_CHARS = 280;
/** A statement shorter than this says nothing worth keeping ("remember that!"). */
const MIN_FACT_CHARS = 3;

export type FactTag = "#event" | "#knowledge" | "#skill" | "#decision";

const FENCED_BLOCK = /(^|\n)[ \t]*(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:\n[ \t]*\2[ \t]*(?=\n|$)|$)/g;
const INLINE_CODE = /`[^`\n]*`/g;
const QUOTED_LINE = /^[ \t]*>.*$/gm;
// Straight or typographic double quotes, CJK corner brackets; not apostrophes (they are in "don't").
const QUOTED_PASSAGE = /"[^"\n]{0,2000}"|“[^”\n]{0,2000}”|„[^“”\n]{0,2000}[“”]|「[^」\n]{0,2000}」|『[^』\n]{0,2000}』|«[^»\n]{0,2000}»/g;

/** Someone else's text from its first line to the end: a forwarded message, a quoted e-mail. */
function withoutForwarded(text: string): string {
  const at = FORWARDED_START.exec(text)?.index ?? -1;
  return at === -1 ? text : text.slice(0, at);
}

/** "Tom wrote:" on a line of its own hands the lines after it, up to a blank line, to Tom. */
function withoutHandedOver(text: string): string {
  const handover = HANDOVER_LINE.exec(text);
  if (!handover) return text;
  const from = handover.index;
  const blank = text.slice(from).search(/\n[ \t]*\n/);
  return `${text.slice(0, from)}\n${blank === -1 ? "" : withoutHandedOver(text.slice(from + blank))}`;
}

/** The operator's own words: code, quotes, comments and other people's text replaced by a line break. */
export function ownWords(text: string): string {
  const own = text
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/<!--[\s\S]*?(?:-->|$)/g, " ")
    .replace(FENCED_BLOCK, "$1\n")
    .replace(INLINE_CODE, " ")
    .replace(QUOTED_LINE, "")
    .replace(QUOTED_PASSAGE, " ");
  return withoutHandedOver(withoutForwarded(own));
}

/** One line, inert inside a Markdown list item followed by an HTML comment, at most MAX_FACT_CHARS. */
export function tidyStatement(text: string): string {
  let tidy = text
    .replace(/[<>`]/g, " ")
    .replace(/[\u0000-\u001F\u007F-\u009F\u200B-\u200D\u2028\u2029\u2060\uFEFF\u202A-\u202E\u2066-\u2069]/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^(?:[#>*+•·-]+\s*|\d{1,9}[.)]\s+)+/, "")
    .replace(/^[\s,;:：，、\-–—]+|[\s,;:：，、\-–—]+$/g, "")
    .trim();
  if (tidy.length > MAX_FACT_CHARS) {
    const cut = tidy.slice(0, MAX_FACT_CHARS - 1);
    const space = cut.lastIndexOf(" ");
    tidy = `${space > MAX_FACT_CHARS * 0.6 ? cut.slice(0, space) : cut}…`;
  }
  return tidy;
}

type CaptureKind = "memory" | "correction";

export type ExtractedFact = { kind: CaptureKind; statement: string; tag: FactTag; trigger: string };

/** At most this many facts from one message (a long list is not a memory dump). */
export const MAX_FACTS_PER_MESSAGE = 8;

type Found = { trigger: Trigger; start: number; end: number };

/** The first of `triggers` in a sentence (the earliest; of two at the same place, the first listed). */
function findTrigger(sentence: string, triggers: readonly Trigger[]): Found | undefined {
  let best: Found | undefined;
  for (const trigger of triggers) {
    const match = trigger.pattern.exec(sentence);
    if (match && (!best || match.index < best.start)) best = { trigger, start: match.index, end: match.index + match[0].length };
  }
  return best;
}

/** The trigger right before the statement: "Important: remember that X" asks through "remember that". */
function innermost(sentence: string, found: Found, triggers: readonly Trigger[]): Found {
  const after = sentence.slice(found.end);
  const from = found.end + after.length - after.replace(RULES[found.trigger.lang].leadingFiller, "").length;
  const next = findTrigger(sentence.slice(from), triggers);
  return next?.start === 0 && next.trigger.shape === "intro" ? innermost(sentence, { trigger: next.trigger, start: from, end: from + next.end }, triggers) : found;
}

/**
 * Why a trigger in this sentence does not ask to keep a fact: it is negated, asked (the sentence,
 * or a clause trigger after a question word: "remind me what we decided"), someone else's,
 * hypothetical, the speaker remembering ("I'll remember that"), or a moment shared ("remember that
 * time we …"). Undefined when it does ask.
 */
function notMeant(sentence: string, found: Found): string | undefined {
  const rules = RULES[found.trigger.lang];
  const before = sentence.slice(0, found.start);
  const after = sentence.slice(found.end);
  if (rules.negatedBefore.test(before) || rules.negatedAfter.test(after)) return "negated";
  if (rules.reportedBefore.test(before)) return "reported";
  if (rules.hypotheticalBefore.test(before)) return "hypothetical";
  if (found.trigger.shape === "clause" && rules.askedBefore.test(before)) return "question";
  if (rules.request.test(before)) return undefined;
  if (rules.question.test(sentence)) return "question";
  if (rules.selfBefore.test(before)) return "self";
  if (found.trigger.shape === "intro" && rules.reminiscenceAfter.test(after)) return "reminiscence";
  return undefined;
}

const LIST_ITEM = /^\s*(?:[-*+•·]|\d{1,3}[.)])\s+\S/;
const END_PUNCTUATION = /[\s.!?。！？]+$/;

/** A statement worth keeping: trimmed of filler and end punctuation, at least MIN_FACT_CHARS. */
function finish(text: string, rules: LanguageRules): string | undefined {
  const statement = tidyStatement(text.replace(END_PUNCTUATION, "").replace(rules.trailingFiller, "").replace(rules.leadingFiller, ""));
  return statement.length >= MIN_FACT_CHARS && /[\p{L}\p{N}]/u.test(statement) ? statement : undefined;
}

/** The statements a trigger in `sentences[index]` introduces, and the index of the last sentence used. */
function statementsAt(sentences: readonly string[], index: number, found: Found, triggers: readonly Trigger[]): { statements: string[]; last: number } {
  const sentence = sentences[index];
  const rules = RULES[found.trigger.lang];
  if (found.trigger.shape === "clause") return { statements: [sentence.slice(found.start)], last: index };
  const tail = sentence.slice(found.end);
  if (finish(tail, rules)) return { statements: tail.replace(rules.leadingFiller, "").split(rules.andThat), last: index };
  // "My locker code is 4312, remember that."
  const before = sentence.slice(0, found.start).replace(rules.correctionStart, "");
  if (finish(before, rules)) return { statements: [before], last: index };
  // "Remember these:" followed by list items, "Note to self:" followed by the note.
  if (!/[:：]\s*$/.test(sentence)) return { statements: [], last: index };
  let last = index;
  while (last + 1 < sentences.length && LIST_ITEM.test(sentences[last + 1])) last++;
  if (last === index && index + 1 < sentences.length && !findTrigger(sentences[index + 1], triggers)) last++;
  return { statements: sentences.slice(index + 1, last + 1), last };
}

/** A correction without a trigger ("Actually, my locker code is 5580 now"), or undefined. */
function correctionIn(sentence: string): string | undefined {
  // The language whose cue opens the sentence ("En fait, …"), else the sentence's own.
  const rules = RULES[LANGS.find((l) => RULES[l].correctionStart.test(sentence)) ?? detectLanguage(sentence)];
  const cue = rules.correctionStart.exec(sentence);
  if (!cue && !rules.correctionMarker.test(sentence)) return undefined;
  if (rules.question.test(sentence) || rules.hypotheticalBefore.test(sentence) || rules.reportedBefore.test(sentence)) return undefined;
  const statement = sentence.slice(cue ? cue[0].length : 0).replace(END_PUNCTUATION, "").replace(rules.notTail, "").replace(rules.changeTail, "");
  return finish(statement, rules);
}

// A correction cue anywhere in a text (the start cues without their anchor), per language.
const CUE_ANYWHERE = Object.fromEntries(LANGS.map((l) => [l, new RegExp(RULES[l].correctionStart.source.replace(/^\^/, ""), RULES[l].correctionStart.flags)])) as Record<Lang, RegExp>;

/**
 * The triggers, and the languages with a correction cue, anywhere in the text: each pattern runs
 * once over the whole text, and sentences are only searched for what is there.
 */
function presentIn(own: string): { triggers: Trigger[]; corrections: boolean } {
  const lower = own.toLowerCase();
  return {
    // Stryker disable next-line MethodExpression,ConditionalExpression,LogicalOperator: a shortcut: without the filter every sentence is searched for every trigger, with the same result
    triggers: TRIGGERS.filter((t) => t.anchors.some((anchor) => lower.includes(anchor)) && t.pattern.test(own)),
    // Stryker disable next-line MethodExpression,ConditionalExpression,LogicalOperator: a shortcut: without it every sentence is searched for a correction, with the same result
    corrections: LANGS.some((l) => CUE_ANYWHERE[l].test(own) || RULES[l].correctionMarker.test(own)),
  };
}

/**
 * The facts a message asks to keep, in order: each sentence with a trigger that asks (several
 * statements in one message are all kept; "… and that …" splits one sentence into two), and each
 * sentence that corrects without a trigger. Only the operator's own words count (code, quotes and
 * forwarded text are left out first). No I/O; linear in the (bounded) message.
 */
export function extractFacts(text: string): ExtractedFact[] {
  const own = ownWords(scanWindow(text).text);
  const present = presentIn(own);
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a shortcut: without it the sentences are cut and nothing is found in them
  if (present.triggers.length === 0 && !present.corrections) return [];
  const sentences = sentencesOf(own);
  const facts: ExtractedFact[] = [];
  const add = (kind: CaptureKind, statement: string | undefined, trigger: Trigger | undefined) => {
    if (!statement || facts.length >= MAX_FACTS_PER_MESSAGE || facts.some((f) => f.statement === statement)) return;
    facts.push({ kind, statement, tag: tagFor(trigger, statement), trigger: trigger?.id ?? "correction" });
  };
  // Stryker disable next-line EqualityOperator: one step past the end reads an undefined sentence, in which nothing is found
  for (let index = 0; index < sentences.length; index++) {
    const found = findTrigger(sentences[index], present.triggers);
    if (!found) {
      // Stryker disable next-line ConditionalExpression: a shortcut: without it every sentence is searched for a correction, with the same result
      if (present.corrections) add("correction", correctionIn(sentences[index]), undefined);
      continue;
    }
    if (notMeant(sentences[index], found)) continue;
    const { statements, last } = statementsAt(sentences, index, innermost(sentences[index], found, present.triggers), present.triggers);
    for (const statement of statements) add("memory", finish(statement, RULES[found.trigger.lang]), found.trigger);
    index = last;
  }
  return facts;
}

/** The first fact a message asks to keep (see extractFacts). */
export function extractFact(text: string): ExtractedFact | undefined {
  return extractFacts(text)[0];
}

function tagFor(trigger: Trigger | undefined, statement: string): FactTag {
  if (trigger?.decision || /决定|计划|说好|约好|商量好|定好/.test(statement)) return "#decision";
  if (/\bhow to\b|\bthe way to\b|\bto fix\b|怎么|如何/i.test(statement)) return "#skill";
  if (
    /\b\d{4}-\d{2}-\d{2}\b|\b(on|next|last|this) (mon|tues|wednes|thurs|fri|satur|sun)day\b|\b(yesterday|today|tomorrow|tonight|mañana|hoy|ayer|morgen|heute|gestern|demain|aujourd'hui|hier)\b|昨天|今天|明天/i.test(
      statement,
    )
  )
    return "#event";
  return "#knowledge";
}

/**
 * A memory whose text is already in this turn's message adds nothing to the turn: "remember that my
 * locker code is 4312" must not come back as a memory in the same request.
 */
export function echoesMessage(memoryText: string, message: string): boolean {
  return echoesOf(message)(memoryText);
}

/** echoesMessage for one message and many memories: the message's words are worked out once. */
export function echoesOf(message: string): (memoryText: string) => boolean {
  const said = spacedWords(message);
  return (memoryText) => {
    const memory = memoryWords(memoryText);
    return memory.trim().length >= 12 && said.includes(memory);
  };
}

function spacedWords(text: string): string {
  return ` ${wordsOf(text).filter(Boolean).join(" ")} `;
}

/** A memory's words without its metadata and tags; the same notes come back every turn, so kept (bounded). */
const memoryWords = boundedMemo(4096, (memoryText: string) =>
  spacedWords(memoryText.replace(/<!--[\s\S]*?-->/g, " ").replace(/(^|\s)#(event|knowledge|skill|decision)\b/g, " ")),
);
