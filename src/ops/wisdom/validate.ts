import { estimateTokens } from "../../core/tokens.ts";
import { analyzeText } from "../../memory/tokenize.ts";
import type { Lesson } from "./sources.ts";
import { REQUIRED_MEMORY_ENTRY, isMemoryEntryLine } from "../../bootstrap/soul-instructions.ts";

// Step 3 of the wisdom pipeline: parse the model's answer and check every rule of spec §5 / AC-7.
//
// Traceability (AC-7 "each entry covers at least 3 raw lessons"): the prompt numbers every raw
// lesson (L1…Ln) and the model must end each entry with the ids it compresses, e.g. "[L3, L8, L12]".
// The check: at least 3 distinct ids, every id exists, and at least one cited lesson shares a
// content word (stemmed, stopwords removed) with the entry, so citations cannot be pure noise.
// The ids are stripped from the draft and listed, with the lesson texts, in SOUL_WISDOM_TRACE.md
// for the human review gate.

/** The required memory entry (spec §5); one definition, shared with the hook and status. */
export const REQUIRED_ENTRY = REQUIRED_MEMORY_ENTRY;
const REQUIRED_NAME = "When context feels incomplete, check your memory.";

export type WisdomEntry = { name: string; wisdom: string; citations: string[]; line: string; required: boolean };
export type ParsedAnswer = { entries: WisdomEntry[]; strayLines: string[] };
export type WisdomLimits = { minEntries: number; maxEntries: number; maxWords: number; maxSectionTokens: number; minCitations: number };
export const DEFAULT_WISDOM_LIMITS: WisdomLimits = { minEntries: 12, maxEntries: 15, maxWords: 15, maxSectionTokens: 150, minCitations: 3 };

const ENTRY_LINE = /^\s*(?:[-*+]\s+)?\*\*(.+?)\*\*\s*(.*?)\s*(?:\[\s*((?:L\d+\s*,?\s*)+)\])?\s*$/;

function isRequiredEntry(entry: { name: string; wisdom: string }): boolean {
  return isMemoryEntryLine(`**${entry.name}** ${entry.wisdom}`);
}

export function parseWisdomAnswer(text: string): ParsedAnswer {
  const entries: WisdomEntry[] = [];
  const strayLines: string[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (!line || /^#{1,6}\s/.test(line) || /^_Last compressed:/i.test(line) || line.startsWith("```")) continue;
    const match = ENTRY_LINE.exec(line);
    if (!match || !match[2]) {
      strayLines.push(line);
      continue;
    }
    const citations = match[3] ? [...new Set(match[3].split(/[\s,]+/).filter(Boolean))] : [];
    const name = match[1].trim();
    const wisdom = match[2].replace(/`/g, "").trim();
    const required = isRequiredEntry({ name, wisdom });
    entries.push({ name: required ? REQUIRED_NAME : name, wisdom, citations, line, required });
  }
  return { entries, strayLines };
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word)).length;
}

/** Implementation details AC-7 bans from wisdom: ports, model names, paths, hostnames. */
const SPECIFICS: { label: string; pattern: RegExp }[] = [
  { label: "port number", pattern: /:\d{2,5}\b|\bport\s*\d+|\b\d{4,5}\b/i },
  { label: "model name", pattern: /\b(?:qwen|llama|gpt-?\d|claude|sonnet|opus|haiku|gemini|mistral|mixtral|deepseek|phi-?\d|gemma|nomic-embed|ollama)[\w.:-]*|\b\w+:\d+(?:\.\d+)?b\b/i },
  { label: "path", pattern: /(?:^|\s)(?:~|\.{1,2})?\/[\w.-]+|\b[\w-]+\/[\w.-]+\/?|\b[\w-]+\.(?:md|ts|js|json|json5|py|sh|toml|ya?ml|txt|log)\b/i },
  { label: "hostname", pattern: /\blocalhost\b|\b\d{1,3}(?:\.\d{1,3}){3}\b|\b[\w-]+\.(?:local|lan|internal|com|net|org|io|dev|ai)\b|https?:\/\//i },
];

export function renderWisdomSection(entries: readonly { name: string; wisdom: string; required?: boolean }[], date: string, sourceLessons: number, eol = "\n"): string {
  const lines = ["## Wisdom", `_Last compressed: ${date} | Source lessons: ${sourceLessons}_`, ""];
  for (const entry of entries) lines.push(entry.required ? REQUIRED_ENTRY : `**${entry.name}** ${entry.wisdom}`);
  return lines.join(eol) + eol;
}

export type ValidationInput = { answer: ParsedAnswer; lessons?: readonly Lesson[]; limits?: WisdomLimits; renderedSection: string };

/** All violations, each a sentence the model (on re-prompt) and the operator can act on. */
export function validateWisdom(input: ValidationInput): string[] {
  const limits = input.limits ?? DEFAULT_WISDOM_LIMITS;
  const { entries, strayLines } = input.answer;
  const violations: string[] = [];
  for (const stray of strayLines.slice(0, 5)) violations.push(`not in the format "**<Pattern name.>** <wisdom> [L1, L2, L3]": ${stray.slice(0, 100)}`);
  if (strayLines.length > 5) violations.push(`${strayLines.length - 5} more lines not in the entry format`);
  if (entries.length < limits.minEntries || entries.length > limits.maxEntries) {
    violations.push(`${entries.length} entries; need ${limits.minEntries} to ${limits.maxEntries} (including the required memory entry)`);
  }
  if (!entries.some((entry) => entry.required)) violations.push(`the required entry is missing; include it verbatim: ${REQUIRED_ENTRY}`);
  const tokens = estimateTokens(input.renderedSection);
  if (tokens > limits.maxSectionTokens) {
    violations.push(`the wisdom section is ${tokens} tokens (${input.renderedSection.length} chars); the limit is ${limits.maxSectionTokens} tokens (${limits.maxSectionTokens * 4} chars): shorten or merge entries`);
  }
  const lessonsById = new Map((input.lessons ?? []).map((lesson) => [lesson.id, lesson]));
  for (const entry of entries) {
    if (entry.required) continue;
    const label = `"**${entry.name}**"`;
    if (!entry.name.endsWith(".")) violations.push(`${label}: the pattern name must end with a period`);
    const words = wordCount(entry.wisdom);
    if (words > limits.maxWords) violations.push(`${label}: ${words} words; at most ${limits.maxWords}`);
    for (const { label: kind, pattern } of SPECIFICS) {
      const hit = pattern.exec(`${entry.name} ${entry.wisdom}`);
      if (hit) violations.push(`${label}: contains a ${kind} ("${hit[0].trim()}"); keep wisdom free of implementation details`);
    }
    if (!input.lessons) continue; // promote re-checks a draft whose citations live in the trace file
    const unknown = entry.citations.filter((id) => !lessonsById.has(id));
    if (unknown.length > 0) violations.push(`${label}: cites unknown lesson id(s) ${unknown.join(", ")}`);
    const valid = entry.citations.filter((id) => lessonsById.has(id));
    if (valid.length < limits.minCitations) {
      violations.push(`${label}: cites ${valid.length} existing lesson id(s); each entry must compress at least ${limits.minCitations} lessons, listed like [L1, L4, L9]`);
    } else {
      const entryTerms = new Set(analyzeText(`${entry.name} ${entry.wisdom}`));
      const related = valid.some((id) => analyzeText(lessonsById.get(id)?.text ?? "").some((term) => entryTerms.has(term)));
      if (!related) violations.push(`${label}: none of the cited lessons (${valid.join(", ")}) shares a word with the entry; cite the lessons it actually compresses`);
    }
  }
  const names = entries.map((entry) => entry.name.toLowerCase());
  const duplicates = names.filter((name, index) => names.indexOf(name) !== index);
  if (duplicates.length > 0) violations.push(`duplicate entries: ${[...new Set(duplicates)].join("; ")}`);
  return violations;
}
