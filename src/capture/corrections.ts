import path from "node:path";
import { contentHash } from "../fs/atomic.ts";
import { appendFileLocked } from "../fs/locked-writes.ts";
import type { LockOptions } from "../fs/lock.ts";
import type { LockedWriteResult } from "../fs/locked-writes.ts";

// CORRECTIONS.md (persistent memory spec §5.3): one entry per detected recall failure, written under
// the file's lock. Entries are Markdown so the operator can read and edit them; the fields are
// `- key: value` lines so the assembler (and the Recall Validator agent) can parse them back.
//
//   ## Correction c-1a2b3c4d5e6f · 2026-02-22T10:15:00.000Z
//   - logged_at: 2026-02-22T10:15:00.000Z
//   - trigger_phrase: "you forgot"
//   - trigger_confidence: high
//   - pattern_class: recall_failure
//   - session: agent:main:main
//   - confidence: 1.0
//   - verified: false
//   - re_embedded: false
//   - cooldown_expires: 2026-02-23T10:15:00.000Z
//   - status: active
//   - agent_said: (pending review)
//   - correct_information: (pending review)
//
//   > excerpt of the operator's message

export const CORRECTIONS_FILE_NAME = "CORRECTIONS.md";
export const CORRECTIONS_HEADER = "# Corrections\n\nRecall failures detected by heartbeat triage (persistent memory spec §5.3). Newest last.\n";
const MAX_EXCERPT_CHARS = 500;

type TriggerConfidence = "high" | "medium";

export type NewCorrection = {
  loggedAt: Date;
  triggerPhrase: string;
  triggerConfidence: TriggerConfidence;
  patternClass: string;
  sessionKey?: string;
  excerpt: string;
  cooldownHours: number;
  /** Stable id source (e.g. message id); the same source never produces two entries. */
  dedupeKey: string;
};

export type CorrectionEntry = {
  id: string;
  loggedAt?: Date;
  triggerPhrase?: string;
  triggerConfidence?: string;
  session?: string;
  verified: boolean;
  reEmbedded: boolean;
  cooldownExpires?: Date;
  status: string;
  /** What the Recall Validator (or the operator) wrote as the right information, if anything. */
  correctInformation?: string;
  /** `confidence:` as written (triage writes 1.0: the operator's own correction). */
  confidence?: number;
  /** `source:` as written; absent on triage's entries, which are the operator's (§8 `correction`). */
  source?: string;
  /** `last_seen:` (the correction came up again), else undefined: decay then runs from logged_at. */
  lastSeen?: Date;
  /** The whole entry as written, heading included. */
  text: string;
};

/** Statuses that take an entry out of the live corrections (assembler, maintenance). */
export const CLOSED_CORRECTION_STATUSES: ReadonlySet<string> = new Set(["retracted", "archived", "resolved"]);

function correctionId(dedupeKey: string): string {
  return `c-${contentHash(dedupeKey).slice(0, 12)}`;
}

/**
 * Every character some reader of CORRECTIONS.md takes for the end of a line: the four line
 * terminators of JavaScript's regular expressions (\n, \r, U+2028, U+2029: a `^` with the m flag
 * starts a line after each), and what Unicode line breaking and Python's `splitlines` (the Recall
 * Validator agent, an editor) add: \v, \f, U+001C–U+001E and NEL (U+0085). \r\n counts once.
 */
export const LINE_BREAK = /\r\n|[\n\r\v\f\u001c-\u001e\u0085\u2028\u2029]/;
const LINE_BREAKS = new RegExp(LINE_BREAK.source, "g");

/** One line, no Markdown structure, at most `max` characters. */
function singleLine(text: string, max: number): string {
  const flat = text.replace(LINE_BREAKS, " ").replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * The excerpt as a blockquote: it can never start a heading or a field line of its own. Every line
 * break any reader knows (LINE_BREAK) starts a new quoted line, so a U+2028 in a message cannot end
 * the quote for a reader whose lines end there too.
 */
export function quoteExcerpt(text: string, max = MAX_EXCERPT_CHARS): string {
  const clipped = text.length > max ? `${text.slice(0, max - 1)}…` : text;
  return clipped
    .split(LINE_BREAK)
    .map((line) => `> ${line}`.trimEnd())
    .join("\n");
}

export function formatCorrection(correction: NewCorrection): string {
  const loggedAt = correction.loggedAt.toISOString();
  const cooldown = new Date(correction.loggedAt.getTime() + correction.cooldownHours * 3_600_000).toISOString();
  return [
    `## Correction ${correctionId(correction.dedupeKey)} · ${loggedAt}`,
    `- logged_at: ${loggedAt}`,
    `- trigger_phrase: ${JSON.stringify(singleLine(correction.triggerPhrase, 80))}`,
    `- trigger_confidence: ${correction.triggerConfidence}`,
    `- pattern_class: ${correction.patternClass}`,
    `- session: ${singleLine(correction.sessionKey ?? "unknown", 200)}`,
    "- confidence: 1.0",
    "- verified: false",
    "- re_embedded: false",
    `- cooldown_expires: ${cooldown}`,
    "- status: active",
    "- agent_said: (pending review)",
    "- correct_information: (pending review)",
    "",
    quoteExcerpt(correction.excerpt),
    "",
  ].join("\n");
}

/**
 * Append one correction to `<workspace>/CORRECTIONS.md` under its lock. Idempotent per dedupeKey:
 * a retried or duplicated message event does not log the same failure twice (decided under the
 * lock). A pure append (O_APPEND, `appendFileLocked`): the file is never rewritten, so an operator
 * or agent appending to it without our lock neither loses text nor makes this write fail. A blank
 * line separates entries; a new (or blank) file gets the header first.
 */
export async function appendCorrection(workspaceDir: string, correction: NewCorrection, lock: LockOptions): Promise<{ id: string; file: string; result: LockedWriteResult }> {
  const file = path.join(workspaceDir, CORRECTIONS_FILE_NAME);
  const id = correctionId(correction.dedupeKey);
  const entry = formatCorrection(correction);
  const result = await appendFileLocked(
    file,
    (current) => {
      if (current.includes(`## Correction ${id} `)) return null;
      // appendFileLocked puts a newline first when the file does not end in one.
      return current.trim() === "" ? `${CORRECTIONS_HEADER}\n${entry}` : `\n${entry}`;
    },
    { ...lock, containWithin: workspaceDir },
  );
  return { id, file, result };
}

/** The lines of an entry: only \n (or \r\n) ends one, as this module writes them. */
function linesOf(text: string): string[] {
  return text.split("\n").map((line) => line.replace(/\r$/, ""));
}

function field(lines: readonly string[], key: string): string | undefined {
  // Accepts "- key: value", "key: value" and "**Key:** value"; key spelling tolerant of "Re-embedded".
  // Matched line by line without the m flag: a U+2028 inside a quoted line never starts a field.
  const pattern = new RegExp(`^[ \\t]*(?:[-*][ \\t]+)?\\**${key.replace(/_/g, "[_ -]")}\\**[ \\t]*:\\**[ \\t]*(.*)$`, "i");
  for (const line of lines) {
    const value = pattern.exec(line)?.[1].trim();
    if (value !== undefined) return value === "" ? undefined : value.replace(/^"(.*)"$/, "$1");
  }
  return undefined;
}

function parseDate(value: string | undefined): Date | undefined {
  const date = new Date(value ?? Number.NaN);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function isTrue(value: string | undefined): boolean {
  return value?.toLowerCase() === "true";
}

function parseConfidence(value: string | undefined): number | undefined {
  const n = Number(value); // NaN when the field is absent (field() never returns "")
  return Number.isFinite(n) && n >= 0 && n <= 1 ? n : undefined;
}

/**
 * CORRECTIONS.md cut at its `## ` headings: the text before the first one, then one block per entry
 * (heading to the next heading, blank lines included), so that joining them gives the file back.
 * Only \n ends a line here, as every writer of the file ends them: a U+2028 or NEL inside an older,
 * unquoted excerpt never starts an entry (no m flag: `^` would also match after \r, U+2028, U+2029).
 */
export function splitCorrectionBlocks(markdown: string): { preamble: string; blocks: string[] } {
  const [first, ...rest] = markdown.split(/(?<=\n)(?=##[ \t])/); // split() gives at least [""]
  return /^##[ \t]/.test(first) ? { preamble: "", blocks: [first, ...rest] } : { preamble: first, blocks: rest };
}

/** Split CORRECTIONS.md into entries (one per `## ` heading). Text before the first heading is skipped. */
export function parseCorrections(markdown: string): CorrectionEntry[] {
  return splitCorrectionBlocks(markdown).blocks.map((block, index) => {
    const lines = linesOf(block);
    const id = /\bc-[0-9a-f]{6,}\b/.exec(lines[0])?.[0] ?? `entry-${index + 1}`;
    return {
      id,
      loggedAt: parseDate(field(lines, "logged_at") ?? field(lines, "timestamp")),
      triggerPhrase: field(lines, "trigger_phrase"),
      triggerConfidence: field(lines, "trigger_confidence"),
      session: field(lines, "session"),
      verified: isTrue(field(lines, "verified")),
      reEmbedded: isTrue(field(lines, "re_embedded")),
      cooldownExpires: parseDate(field(lines, "cooldown_expires")),
      status: (field(lines, "status") ?? "active").toLowerCase(),
      correctInformation: field(lines, "correct_information"),
      confidence: parseConfidence(field(lines, "confidence")),
      source: field(lines, "source")?.toLowerCase(),
      lastSeen: parseDate(field(lines, "last_seen")),
      text: block.trimEnd(),
    };
  });
}

/**
 * What the correction says: the operator's `correct_information` once someone filled it in, else
 * the quoted message, else the trigger phrase.
 */
export function correctionStatement(entry: CorrectionEntry): string {
  const fixed = entry.correctInformation;
  const quoted = entry.text
    .split("\n")
    .filter((line) => line.startsWith(">"))
    .map((line) => line.slice(1).replace(/^[ \t]/, ""))
    .join(" ");
  return fixed && !fixed.startsWith("(pending") ? fixed : quoted || (entry.triggerPhrase ?? "");
}

/**
 * The entry with `- key: value` set: the existing field line is rewritten (the first one, in any
 * of the spellings `parseCorrections` reads), else a `- key: value` line is added after the last
 * field line. Everything else stays byte for byte.
 */
export function withCorrectionField(entryText: string, key: string, value: string): string {
  const lines = entryText.split("\n");
  const pattern = new RegExp(`^([ \\t]*(?:[-*][ \\t]+)?\\**${key.replace(/_/g, "[_ -]")}\\**[ \\t]*:\\**[ \\t]*)(.*?)(\\r?)$`, "i");
  const at = lines.findIndex((line) => pattern.test(line));
  if (at >= 0) {
    lines[at] = lines[at].replace(pattern, (_all, lead: string, _old: string, cr: string) => `${lead}${value}${cr}`);
    return lines.join("\n");
  }
  let last = 0;
  lines.forEach((line, index) => {
    if (/^[ \t]*[-*][ \t]+\**[\w -]+\**[ \t]*:/.test(line)) last = index;
  });
  lines.splice(last + 1, 0, `- ${key}: ${value}`);
  return lines.join("\n");
}
