import { formatMemoryMetadata, parseMemoryMetadata } from "../memory/confidence.ts";
import type { MemoryMetadata } from "../memory/confidence.ts";
import type { FactTag } from "./statement.ts";

// One captured fact is one line of a day file (persistent memory spec §5.1, §8 metadata):
//
//   - my locker code is 4312 #knowledge <!-- confidence: 0.95 source: operator mentions: 1 last: 2026-11-25 captured: 2026-11-25T03:12:09.120Z -->
//
// The format and its parser, shared by the capture, its index and the operator's status.

export const SUPERSEDED = "superseded";
const CAPTURED_LINE = /^- (.+?) (#event|#knowledge|#skill|#decision) (<!--[^>]*\bcaptured:[ \t]*(\S+)[^>]*-->)[ \t]*$/;

export type CapturedFact = {
  /** The whole line as in the file (used to find it again under the lock). */
  line: string;
  statement: string;
  tag: FactTag;
  meta: MemoryMetadata;
  capturedAt: string;
  superseded: boolean;
};

/** A captured fact line, or undefined for any other line. */
export function parseCapturedLine(line: string): CapturedFact | undefined {
  // Most lines of a day file are not ours: a cheap look before the pattern.
  // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: a shortcut: CAPTURED_LINE requires both
  if (!line.startsWith("- ") || !line.includes("captured:")) return undefined;
  const match = CAPTURED_LINE.exec(line);
  if (!match) return undefined;
  const meta = parseMemoryMetadata(match[3]) ?? {};
  return { line, statement: match[1], tag: match[2] as FactTag, meta, capturedAt: match[4], superseded: meta.status === SUPERSEDED };
}

/** The statement of a captured fact line and whether it was superseded, without its metadata (what an index needs). */
export function capturedStatement(line: string): { statement: string; superseded: boolean } | undefined {
  // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: a shortcut: CAPTURED_LINE requires both
  if (!line.startsWith("- ") || !line.includes("captured:")) return undefined;
  const match = CAPTURED_LINE.exec(line);
  return match ? { statement: match[1], superseded: isSupersededEntry(match[3]) } : undefined;
}

export function formatCapturedLine(statement: string, tag: FactTag, meta: MemoryMetadata, capturedAt: string): string {
  // Stryker disable next-line Regex: formatMemoryMetadata's comment holds one " -->", at its end
  return `- ${statement} ${tag} ${formatMemoryMetadata(meta).replace(/ -->$/, ` captured: ${capturedAt} -->`)}`;
}

/** Captured facts of a day file, newest (lowest in the file) first. */
export function capturedFacts(markdown: string): CapturedFact[] {
  const facts: CapturedFact[] = [];
  for (const line of markdown.split(/\r?\n/)) {
    const fact = parseCapturedLine(line);
    if (fact) facts.push(fact);
  }
  return facts.reverse();
}

/** Is this memory entry a captured fact that a newer value replaced? Retrieval leaves it out. */
export function isSupersededEntry(text: string): boolean {
  return /<!--[^>]*\bstatus:[ \t]*superseded\b[^>]*-->/i.test(text);
}

/** `markdown` with the whole line `line` replaced by `next`, or null when the line is not there. */
export function replaceLine(markdown: string, line: string, next: string): string | null {
  for (let at = markdown.indexOf(line); at !== -1; at = markdown.indexOf(line, at + 1)) {
    const end = at + line.length;
    const startsLine = at === 0 || markdown[at - 1] === "\n";
    const endsLine = end === markdown.length || markdown[end] === "\n" || (markdown[end] === "\r" && (end + 1 === markdown.length || markdown[end + 1] === "\n"));
    if (startsLine && endsLine) return `${markdown.slice(0, at)}${next}${markdown.slice(end)}`;
  }
  return null;
}
