import crypto from "node:crypto";
import matter from "gray-matter";

// Markdown-aware chunking: headings give the structure, paragraphs and top-level list items
// are the units of meaning (one fact per bullet is the common memory-file style), and long
// units are split at sentence boundaries under a size cap. Chunks keep the original text.

export type MemoryChunk = {
  /** Stable id: the same text in the same file always gets the same id (used for de-duplication). */
  id: string;
  /** Path relative to the index root, with forward slashes. */
  file: string;
  /** Enclosing headings, outermost first. */
  headingPath: string[];
  /** YYYY-MM-DD: nearest dated heading, else a date opening the entry, else front matter `date`,
   *  else the file name, else the first date in the text. */
  date?: string;
  /** Original markdown text of the chunk (what a snippet shows). */
  text: string;
  /** Front-matter `confidence` (spec 004 §8), when present. */
  confidence?: number;
};

export type ChunkOptions = { maxChunkChars: number };

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LIST_ITEM = /^ {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+/;
const ISO_DATE = /(\d{4})-(\d{2})-(\d{2})/;

// gray-matter can evaluate `---js` / `---javascript` / `---coffee` front matter; memory files are
// untrusted text, so those engines are replaced by ones that refuse to run anything.
const INERT_ENGINE = { parse: () => ({}), stringify: () => "" };
const MATTER_OPTIONS = {
  engines: { js: INERT_ENGINE, javascript: INERT_ENGINE, coffee: INERT_ENGINE, coffeescript: INERT_ENGINE },
} as unknown as Parameters<typeof matter>[1];

export function isoDateIn(text: string): string | undefined {
  const match = ISO_DATE.exec(text);
  if (!match) return undefined;
  const [, y, m, d] = match;
  const month = Number(m);
  const day = Number(d);
  return month >= 1 && month <= 12 && day >= 1 && day <= 31 ? `${y}-${m}-${d}` : undefined;
}

function frontMatterDate(value: unknown): string | undefined {
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString().slice(0, 10);
  if (typeof value === "string") return isoDateIn(value);
  return undefined;
}

function frontMatterConfidence(value: unknown): number | undefined {
  const n = typeof value === "string" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) && n >= 0 && n <= 1 ? n : undefined;
}

function parseFrontMatter(raw: string): { body: string; data: Record<string, unknown> } {
  if (!raw.startsWith("---")) return { body: raw, data: {} };
  try {
    const parsed = matter(raw, MATTER_OPTIONS);
    const data = typeof parsed.data === "object" && parsed.data !== null ? (parsed.data as Record<string, unknown>) : {};
    return { body: parsed.content, data };
  } catch {
    // Broken front matter: index the file as plain text rather than lose it.
    return { body: raw, data: {} };
  }
}

/** Split an over-long unit at sentence ends (or, failing that, hard) so each piece fits the cap. */
function splitLongUnit(text: string, maxChars: number): string[] {
  if (text.length <= maxChars) return [text];
  const sentences = text.match(/[^.!?\n]+(?:[.!?]+|\n+|$)/g) ?? [text];
  const pieces: string[] = [];
  let current = "";
  for (const sentence of sentences) {
    if (current && (current + sentence).length > maxChars) {
      pieces.push(current.trim());
      current = "";
    }
    current += sentence;
    while (current.length > maxChars) {
      pieces.push(current.slice(0, maxChars).trim());
      current = current.slice(maxChars);
    }
  }
  if (current.trim()) pieces.push(current.trim());
  return pieces.filter(Boolean);
}

type Unit = { text: string; headingPath: string[] };

const SPACE = 0x20;
const BACKTICK = 0x60;
const TILDE = 0x7e;
const HASH = 0x23;

/** The character code after at most three leading spaces (what a fence, heading or list item opens with). */
function leadingCode(line: string): number {
  let i = 0;
  while (i < 3 && line.charCodeAt(i) === SPACE) i++;
  return line.charCodeAt(i);
}

/** Could the line open a list item (`-`, `*`, `+` or a digit after at most three spaces)? */
function mayOpenListItem(code: number): boolean {
  return code === 0x2d || code === 0x2a || code === 0x2b || (code >= 0x30 && code <= 0x39);
}

/**
 * Paragraphs and top-level list items (with their continuation lines), fenced code kept whole.
 * Units under the same headings share one heading-path array (read-only, like the index's).
 * Each line's first character decides which patterns can match at all (a vault has millions of lines).
 */
function splitUnits(body: string): Unit[] {
  const units: Unit[] = [];
  const headings: { level: number; title: string }[] = [];
  let headingPath: string[] = [];
  let buffer: string[] = [];
  let fence: string | undefined;

  const flush = () => {
    if (buffer.length === 0) return;
    // Trailing whitespace, and leading blank lines (an unanchored /\s+$/ rescans every space run).
    const joined = buffer.join("\n").trimEnd();
    const text = joined.replace(/^\s*\n/, "");
    if (text.trim()) units.push({ text, headingPath });
    buffer = [];
  };

  for (const line of body.split(/\r?\n/)) {
    const lead = leadingCode(line);
    const fenceMatch = lead === BACKTICK || lead === TILDE ? FENCE.exec(line) : null;
    if (fence) {
      buffer.push(line);
      if (fenceMatch && fenceMatch[1][0] === fence[0] && fenceMatch[1].length >= fence.length) fence = undefined;
      continue;
    }
    if (fenceMatch) {
      flush();
      fence = fenceMatch[1];
      buffer.push(line);
      continue;
    }
    const heading = lead === HASH ? HEADING.exec(line) : null;
    if (heading) {
      flush();
      const level = heading[1].length;
      while (headings.length && headings[headings.length - 1].level >= level) headings.pop();
      if (heading[2].trim()) headings.push({ level, title: heading[2].trim() });
      headingPath = headings.map((h) => h.title);
      continue;
    }
    if (!line.trim()) {
      flush();
      continue;
    }
    if (mayOpenListItem(lead) && LIST_ITEM.test(line)) flush();
    buffer.push(line);
  }
  flush();
  return units;
}

export function chunkId(file: string, text: string): string {
  return crypto.createHash("sha1").update(file).update("\n").update(text).digest("hex").slice(0, 16);
}

/** A chunk before its id is computed (the index derives ids only for the chunks it returns). */
export type UnidentifiedChunk = Omit<MemoryChunk, "id">;

/** Chunk one markdown file. `file` is the path relative to the index root. */
export function chunkMarkdown(raw: string, file: string, options: ChunkOptions): MemoryChunk[] {
  return splitMarkdown(raw, file, options).map((chunk) => ({ id: chunkId(file, chunk.text), ...chunk }));
}

/** `chunkMarkdown` without the ids. */
export function splitMarkdown(raw: string, file: string, options: ChunkOptions): UnidentifiedChunk[] {
  const { body, data } = parseFrontMatter(raw);
  const fileDate = frontMatterDate(data.date) ?? isoDateIn(file.split("/").pop() ?? file);
  const confidence = frontMatterConfidence(data.confidence);
  const chunks: UnidentifiedChunk[] = [];
  let datedPath: string[] | undefined;
  let pathDate: string | undefined;
  for (const unit of splitUnits(body)) {
    // Units under the same headings share the path array: its date is looked up once.
    if (unit.headingPath !== datedPath) {
      datedPath = unit.headingPath;
      pathDate = [...unit.headingPath].reverse().map(isoDateIn).find(Boolean);
    }
    const headingDate = pathDate;
    // "- 2026-01-09: Mission Control moves…" dates the entry itself.
    const leadingDate = isoDateIn(unit.text.slice(0, 24));
    for (const text of splitLongUnit(unit.text, options.maxChunkChars)) {
      const chunk: UnidentifiedChunk = { file, headingPath: unit.headingPath, text };
      const date = headingDate ?? leadingDate ?? fileDate ?? isoDateIn(text);
      if (date) chunk.date = date;
      if (confidence !== undefined) chunk.confidence = confidence;
      chunks.push(chunk);
    }
  }
  return chunks;
}
