import { performance } from "node:perf_hooks";
import { RE2JS } from "re2js";
import type { CustomPatternConfig } from "../memory/config-md.ts";

// Heartbeat triage patterns (persistent memory spec §7), regex only, no LLM.
//
// Built-in patterns are the spec's, each given a leading \b so "casino it's" or "unimportant:" do
// not fire, plus the Chinese phrases operators use. They are fixed, reviewed V8 regexes with no
// nested quantifiers, so they run in linear time.
//
// Patterns from CONFIG.md are untrusted: an operator typo like `(a+)+$` can backtrack for minutes
// on V8. They are compiled with RE2JS (pure-JS port of RE2: automaton-based, linear in the input,
// no backreferences or lookaround, so a pattern that needs those fails to compile and is skipped
// with a reported problem). On top of that, every scan looks at a bounded window of the message
// (see `scanWindow`) and custom patterns share a wall-clock budget per message.

type PatternClass = "memory_trigger" | "recall_failure" | "soft_correction" | (string & {});
export type TriggerConfidence = "high" | "medium";

export type TriagePattern = {
  id: string;
  class: PatternClass;
  /** Set for patterns that route to the Recall Validator (a CORRECTIONS.md entry). */
  confidence?: TriggerConfidence;
  source: string;
  /** The matched phrase, or null. */
  match: (text: string) => string | null;
};

export type TriageMatch = { id: string; class: PatternClass; confidence?: TriggerConfidence; phrase: string };

function builtin(id: string, cls: PatternClass, confidence: TriggerConfidence | undefined, regex: RegExp): TriagePattern {
  return { id, class: cls, confidence, source: regex.toString(), match: (text) => regex.exec(text)?.[0] ?? null };
}

const MEMORY = "memory_trigger";
const RECALL = "recall_failure";
const SOFT = "soft_correction";

export const BUILTIN_PATTERNS: readonly TriagePattern[] = [
  // Memory triggers → flag for the Memory Miner (priority: true)
  builtin("remember-that", MEMORY, undefined, /\bremember (that|this|when)/i),
  builtin("dont-forget", MEMORY, undefined, /\bdon't forget/i),
  builtin("important", MEMORY, undefined, /\bimportant:/i),
  builtin("decision", MEMORY, undefined, /\bdecision:/i),
  builtin("we-agreed", MEMORY, undefined, /\bwe agreed/i),
  builtin("the-plan-is", MEMORY, undefined, /\bthe plan is/i),
  builtin("note-to-self", MEMORY, undefined, /\bnote to self/i),
  builtin("zh-remember", MEMORY, undefined, /记住|(别|不要)忘(了|记)|重要[:：]|决定[:：]|我们(说好|约好|商量好|定好)了?|计划是/),
  // Ours: English phrases the spec's list lacks, and Spanish, German and French (what capture reads, language.ts).
  builtin("keep-in-mind", MEMORY, undefined, /\b(?:keep|bear) in mind\b|\b(?:make|take) a note\b|\bfor future reference\b|\bnever forget\b/i),
  builtin("es-remember", MEMORY, undefined, /\b(?:recuerda|recuerde|acuérdate|acuerdate)\b|\bno (?:te )?olvides\b|\bten(?:ga)? en cuenta\b|\bnota para m[ií]|\bimportante ?:|\bdecisión ?:/i),
  builtin("de-remember", MEMORY, undefined, /\bmerke? dir\b|\bmerken sie sich\b|\bdenke? (?:daran|dran)\b|\bvergiss(?: bitte)? nicht\b|\bnicht vergessen\b|\bnotiz an mich\b|\bwichtig ?:|\bentscheidung ?:|\bwir haben (?:vereinbart|abgemacht)\b/i),
  builtin("fr-remember", MEMORY, undefined, /\b(?:souviens|rappelle)-toi\b|\bretiens\b|\bn'oublie pas\b|\bnote pour moi\b|\bgarde en tête\b|\bimportant :|\bdécision ?:|\bon a convenu\b/i),
  // Explicit recall failures → Recall Validator, trigger_confidence: high
  builtin("already-told-you", RECALL, "high", /\bi (already|just) told you/i),
  builtin("we-discussed", RECALL, "high", /\bwe (talked|discussed|went over) (about |this)/i),
  builtin("you-forgot", RECALL, "high", /\byou forgot/i),
  builtin("remember-when-i-said", RECALL, "high", /\bremember when i said/i),
  builtin("i-mentioned", RECALL, "high", /\bi mentioned (this|that|it) (before|earlier|already|yesterday|last)/i),
  builtin("no-i-said", RECALL, "high", /\bno,? (i said|it's|it was|my)/i),
  // The spec's bare "how many times" also fires on plain questions ("How many times should we retry
  // the camera?"): only the speaker's complaint about repeating themselves is a recall failure.
  builtin(
    "how-many-times",
    RECALL,
    "high",
    /\bhow many times (?:do|did|have|must|will|am|should) i (?:(?:have|need|got|going) to |gotta )?(?:tell|told|say|said|ask|asked|explain|explained|remind|reminded|mention|mentioned|repeat|repeated)\b/i,
  ),
  builtin("dont-you-remember", RECALL, "high", /\bdon't you remember/i),
  builtin(
    "zh-already-told",
    RECALL,
    "high",
    /我(已经|之前|刚才|刚刚|早就|都)(跟你|和你|给你|对你)?(说|讲|提|告诉)过|我(跟你|和你|给你)(说|讲|提)过|你(又|怎么又|怎么)?忘(了|记了)|你不记得|说了?多少(次|遍)|(讲|说)过(好)?几(次|遍)/,
  ),
  // Soft corrections → Recall Validator, trigger_confidence: medium
  builtin("actually", SOFT, "medium", /\bactually,? (it's|it was|the|I|we|that)/i),
  builtin("no-its", SOFT, "medium", /\bno,? (it's|that's|the) /i),
  builtin("i-changed", SOFT, "medium", /\bi (changed|switched|moved|updated|stopped|started) /i),
  builtin("thats-wrong", SOFT, "medium", /\bthat's (not right|wrong|outdated|old)/i),
  builtin("its-now", SOFT, "medium", /\bit's .{1,30} now/i),
  // 不对 but not 不对称 (asymmetric), 不对劲 (feels off), 不对应 (does not correspond);
  // 错了 but not 不错了 ("not bad") or 没错了 ("that's right").
  builtin("zh-wrong", SOFT, "medium", /不对(?![称劲应])|(?<![不没])错了|不是这样|不是的[，,。！!]|其实是|实际上是|我(已经)?(改|换|搬)(成|到)了?/),
];

export type CompiledCustomPatterns = { patterns: TriagePattern[]; problems: string[] };

const MAX_CUSTOM_PATTERN_LENGTH = 500;

function re2Flags(flags: string): number {
  let value = 0;
  if (flags.includes("i")) value |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes("m")) value |= RE2JS.MULTILINE;
  if (flags.includes("s")) value |= RE2JS.DOTALL;
  return value;
}

/** "/source/flags" or a bare source. Bare sources are case-insensitive like the spec's patterns. */
function splitLiteral(text: string): { source: string; flags: string } {
  const literal = /^\/(.+)\/([a-z]*)$/s.exec(text);
  return literal ? { source: literal[1], flags: literal[2] } : { source: text, flags: "i" };
}

/** Compile CONFIG.md `heartbeat_custom_patterns`. Never throws: bad entries become `problems`. */
export function compileCustomPatterns(entries: readonly CustomPatternConfig[]): CompiledCustomPatterns {
  const patterns: TriagePattern[] = [];
  const problems: string[] = [];
  entries.forEach((entry, index) => {
    const spec = typeof entry === "string" ? { ...splitLiteral(entry), name: undefined, cls: "custom", confidence: undefined } : {
      source: entry.pattern,
      flags: entry.flags ?? "i",
      name: entry.name,
      cls: entry.class,
      confidence: entry.trigger_confidence,
    };
    const label = `heartbeat_custom_patterns[${index}]`;
    if (spec.source.length > MAX_CUSTOM_PATTERN_LENGTH) {
      problems.push(`${label}: longer than ${MAX_CUSTOM_PATTERN_LENGTH} characters, skipped`);
      return;
    }
    if (/[^imsu]/.test(spec.flags)) {
      problems.push(`${label}: unsupported flags "${spec.flags}" (allowed: i, m, s, u), skipped`);
      return;
    }
    try {
      const regex = RE2JS.compile(spec.source, re2Flags(spec.flags));
      patterns.push({
        id: spec.name ?? `custom-${index}`,
        class: spec.cls,
        confidence: spec.confidence,
        source: `/${spec.source}/${spec.flags}`,
        match: (text) => {
          // test() runs RE2's DFA (about 10 µs per 2 kB); the slower capturing matcher only runs
          // on a hit, to report the phrase.
          if (!regex.test(text)) return null;
          const matcher = regex.matcher(text);
          return matcher.find() ? (matcher.group() ?? "") : "";
        },
      });
    } catch (error) {
      const reason = (error as Error).message.split("\n")[0];
      problems.push(`${label}: invalid or unsupported pattern (${reason}), skipped`);
    }
  });
  return { patterns, problems };
}

export type ScanOptions = {
  /** Characters of the message scanned: the first 3/4 and the last 1/4 of this many. */
  maxScanChars?: number;
  /** Wall-clock budget for custom patterns per message; later patterns are skipped once spent. */
  customBudgetMs?: number;
};

const DEFAULT_MAX_SCAN_CHARS = 16_384;
const DEFAULT_CUSTOM_BUDGET_MS = 10;

/**
 * The part of the message the patterns see. Triggers sit near the start ("you forgot, …") or the end
 * (a long paste followed by "note to self: …"), so a long message keeps its head and its tail.
 * Curly apostrophes (phone keyboards) become straight ones so "don’t forget" matches.
 */
export function scanWindow(text: string, maxChars = DEFAULT_MAX_SCAN_CHARS): { text: string; truncated: boolean } {
  const straight = (s: string) => s.replace(/[\u2018\u2019\u02bc]/g, "'");
  if (text.length <= maxChars) return { text: straight(text), truncated: false };
  const head = Math.floor(maxChars * 0.75);
  return { text: straight(`${text.slice(0, head)}\n${text.slice(text.length - (maxChars - head))}`), truncated: true };
}

export type ScanResult = { matches: TriageMatch[]; scannedChars: number; truncated: boolean; customSkipped: number };

/** Every pattern that matches, at most one match per pattern, built-ins first. */
export function scanMessage(text: string, custom: readonly TriagePattern[] = [], options: ScanOptions = {}): ScanResult {
  const window = scanWindow(text, options.maxScanChars);
  const matches: TriageMatch[] = [];
  for (const pattern of BUILTIN_PATTERNS) {
    const phrase = pattern.match(window.text);
    if (phrase !== null) matches.push({ id: pattern.id, class: pattern.class, confidence: pattern.confidence, phrase });
  }
  const deadline = performance.now() + (options.customBudgetMs ?? DEFAULT_CUSTOM_BUDGET_MS);
  let customSkipped = 0;
  for (const pattern of custom) {
    if (performance.now() > deadline) {
      customSkipped++;
      continue;
    }
    const phrase = pattern.match(window.text);
    if (phrase !== null) matches.push({ id: pattern.id, class: pattern.class, confidence: pattern.confidence, phrase });
  }
  return { matches, scannedChars: window.text.length, truncated: window.truncated, customSkipped };
}
