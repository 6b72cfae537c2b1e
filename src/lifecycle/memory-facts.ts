import { analyse } from "../capture/relation.ts";
import type { Shape } from "../capture/relation.ts";
import type { FactTag } from "../capture/statement.ts";
import { isoDateIn } from "../memory/chunk.ts";
import { isOperatorCorrection, parseMemoryEntries, stripMemoryMetadata, withMetadataKeys } from "../memory/confidence.ts";
import type { MemoryMetadata } from "../memory/confidence.ts";

// The entries of MEMORY.md and the day files as the maintenance pass sees them: one fact per list
// item (or paragraph), with what it says (no list marker, tags or metadata), its §5.1 tag, its §8
// metadata, its date and where it is in its file, so a step can find it again and mark it.

export { MEMORY_FILE_NAME as MEMORY_FILE } from "../capture/memory-facts.ts";
export { MEMORY_DIR } from "../capture/fact-index.ts";
const SUPERSEDED_STATUS = "superseded";
/** memory/YYYY-MM-DD.md, also with a slug (memory/YYYY-MM-DD-standup.md), as the wisdom sources read them. */
const DAY_FILE = /^(\d{4}-\d{2}-\d{2})(?:-[\w.-]+)?\.md$/;

export type MemoryFact = {
  /** Workspace-relative file. */
  file: string;
  /** 0-based index of the entry's first line in its file. */
  lineIndex: number;
  lineCount: number;
  /** The entry's first line exactly as in the file (marks are set on it). */
  firstLine: string;
  text: string;
  /** What it says: no list marker, tags or metadata comments. */
  statement: string;
  /** Its content (capture's analysis: words, values, polarity), which repeats and changes are told by. */
  shape: Shape;
  /** The shape's content keys, for overlap. */
  terms: ReadonlySet<string>;
  tag?: FactTag;
  meta: MemoryMetadata | null;
  /** The later of its latest mention (`last`, a day) and its capture time, else a date opening it, else the day file's date; undefined in an undated MEMORY.md entry. */
  date?: Date;
  superseded: boolean;
  /** An operator correction (`source: correction` or `#correction`): never compacted, wins a conflict. */
  correction: boolean;
};

const TAG = /(^|\s)(#event|#knowledge|#skill|#decision)\b/;
const ANY_TAG = /(^|\s)#(event|knowledge|skill|decision|correction)\b/g;

/** Jaccard overlap of two term sets (0 when either is empty). */
export function termOverlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const term of a) if (b.has(term)) shared++;
  return shared / (a.size + b.size - shared);
}

export function dayOfFile(name: string): string | undefined {
  return DAY_FILE.exec(name)?.[1];
}

function capturedAt(text: string): Date | undefined {
  const value = /<!--[^>]*\bcaptured:[ \t]*(\S+)/.exec(text)?.[1];
  const date = value ? new Date(value) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date : undefined;
}

/** "2026-01-09: Mission Control moves …" dates the entry itself (as the memory index reads it). */
function leadingDate(statement: string): Date | undefined {
  const day = isoDateIn(statement.slice(0, 24));
  return day ? new Date(`${day}T00:00:00.000Z`) : undefined;
}

function latest(a: Date | undefined, b: Date | undefined): Date | undefined {
  return a && b ? (a > b ? a : b) : (a ?? b);
}

function statementOf(entryText: string): string {
  return stripMemoryMetadata(entryText)
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/, "")
    .replace(ANY_TAG, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** The facts of one memory file, in file order. `fileDay` (YYYY-MM-DD) dates entries that carry no date of their own. */
export function memoryFacts(file: string, markdown: string, fileDay?: string): MemoryFact[] {
  const lines = markdown.split("\n");
  const fallback = fileDay ? new Date(`${fileDay}T00:00:00.000Z`) : undefined;
  return parseMemoryEntries(markdown).map((entry) => {
    const meta = entry.meta;
    const statement = statementOf(entry.text);
    const shape = analyse(statement);
    const tag = TAG.exec(stripMemoryMetadata(entry.text))?.[2] as FactTag | undefined;
    return {
      file,
      lineIndex: entry.line - 1,
      lineCount: entry.text.split("\n").length,
      firstLine: lines[entry.line - 1] ?? "",
      text: entry.text,
      statement,
      shape,
      terms: new Set(shape.keys),
      tag,
      meta,
      date: latest(meta?.last, capturedAt(entry.text)) ?? leadingDate(statement) ?? fallback,
      superseded: meta?.status === SUPERSEDED_STATUS,
      correction: meta !== null && isOperatorCorrection(meta),
    };
  });
}

/**
 * The file with the fact's first line replaced (found by its exact text, at its index first);
 * null when the line is no longer there.
 */
export function replaceFactLine(markdown: string, fact: MemoryFact, next: string): string | null {
  const lines = markdown.split("\n");
  const stripCr = (line: string) => line.replace(/\r$/, "");
  const index = stripCr(lines[fact.lineIndex] ?? "") === stripCr(fact.firstLine) ? fact.lineIndex : lines.findIndex((line) => stripCr(line) === stripCr(fact.firstLine));
  if (index < 0) return null;
  const cr = lines[index].endsWith("\r") ? "\r" : "";
  lines[index] = next + cr;
  return lines.join("\n");
}

/** The fact's first line marked `status: superseded` (a losing fact is marked, never deleted). */
export function supersededLine(fact: MemoryFact, pairs: Readonly<Record<string, string>> = {}): string {
  return withMetadataKeys(fact.firstLine.replace(/\r$/, ""), { status: SUPERSEDED_STATUS, ...pairs });
}
