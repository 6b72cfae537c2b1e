import path from "node:path";
import { contentHash } from "../fs/atomic.ts";
import { appendFileLocked } from "../fs/lock.ts";
import type { LockOptions, LockedWriteResult } from "../fs/lock.ts";

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
export const MAX_EXCERPT_CHARS = 500;

export type TriggerConfidence = "high" | "medium";

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

export function correctionId(dedupeKey: string): string {
  return `c-${contentHash(dedupeKey).slice(0, 12)}`;
}

/** One line, no Markdown structure, at most `max` characters. */
function singleLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The excerpt as a blockquote: it can never start a heading or a field line of its own. */
export function quoteExcerpt(text: string, max = MAX_EXCERPT_CHARS): string {
  const clipped = text.length > max ? `${text.slice(0, max - 1)}…` : text;
  return clipped
    .replace(/\r\n?/g, "\n")
    .split("\n")
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

function field(block: string, key: string): string | undefined {
  // Accepts "- key: value", "key: value" and "**Key:** value"; key spelling tolerant of "Re-embedded".
  const pattern = new RegExp(`^[ \\t]*(?:[-*][ \\t]+)?\\**${key.replace(/_/g, "[_ -]")}\\**[ \\t]*:\\**[ \\t]*(.*)$`, "im");
  const value = pattern.exec(block)?.[1]?.trim();
  return value === undefined || value === "" ? undefined : value.replace(/^"(.*)"$/, "$1");
}

function parseDate(value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function parseConfidence(value: string | undefined): number | undefined {
  const n = Number(value);
  return value !== undefined && Number.isFinite(n) && n >= 0 && n <= 1 ? n : undefined;
}

/**
 * CORRECTIONS.md cut at its `## ` headings: the text before the first one, then one block per entry
 * (heading to the next heading, blank lines included), so that joining them gives the file back.
 */
export function splitCorrectionBlocks(markdown: string): { preamble: string; blocks: string[] } {
  const parts = markdown.split(/^(?=##[ \t])/m);
  const preamble = /^##[ \t]/.test(parts[0] ?? "") ? "" : (parts.shift() ?? "");
  return { preamble, blocks: parts };
}

/** Split CORRECTIONS.md into entries (one per `## ` heading). Text before the first heading is skipped. */
export function parseCorrections(markdown: string): CorrectionEntry[] {
  return splitCorrectionBlocks(markdown).blocks.map((block, index) => {
    const heading = block.split("\n", 1)[0];
    const id = /\bc-[0-9a-f]{6,}\b/.exec(heading)?.[0] ?? `entry-${index + 1}`;
    return {
      id,
      loggedAt: parseDate(field(block, "logged_at") ?? field(block, "timestamp")),
      triggerPhrase: field(block, "trigger_phrase"),
      triggerConfidence: field(block, "trigger_confidence"),
      session: field(block, "session"),
      verified: /^true$/i.test(field(block, "verified") ?? ""),
      reEmbedded: /^true$/i.test(field(block, "re_embedded") ?? ""),
      cooldownExpires: parseDate(field(block, "cooldown_expires")),
      status: (field(block, "status") ?? "active").toLowerCase(),
      confidence: parseConfidence(field(block, "confidence")),
      source: field(block, "source")?.toLowerCase(),
      lastSeen: parseDate(field(block, "last_seen")),
      text: block.trimEnd(),
    };
  });
}

/**
 * What the correction says: the operator's `correct_information` once someone filled it in, else
 * the quoted message, else the trigger phrase.
 */
export function correctionStatement(entry: CorrectionEntry): string {
  const fixed = /^[ \t]*-[ \t]*correct_information:[ \t]*(.+)$/im.exec(entry.text)?.[1]?.trim();
  const quoted = entry.text
    .split("\n")
    .filter((line) => line.startsWith(">"))
    .map((line) => line.replace(/^>[ \t]?/, ""))
    .join(" ");
  return fixed && !/^\(pending/.test(fixed) ? fixed : quoted || (entry.triggerPhrase ?? "");
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
