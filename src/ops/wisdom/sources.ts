import fs from "node:fs/promises";
import path from "node:path";
import { findSections, splitLines } from "../../core/markdown.ts";

// Step 1 of the wisdom pipeline (spec §5): collect raw lessons, each with a stable id (L1, L2, …)
// that the model must cite, so every wisdom entry can be traced back to the lessons it compresses.

export type Lesson = { id: string; source: string; text: string };
type SourceStatus = { label: string; file: string; status: "ok" | "missing" | "no-lessons" | "truncated"; lessons: number; detail?: string };
export type CollectedLessons = { lessons: Lesson[]; sources: SourceStatus[]; warnings: string[]; omitted: number };

export type CollectOptions = {
  today: Date;
  days: number;
  /** Bytes read per source file (bounded reads: a 5 MB log must not blow up the prompt). */
  maxBytesPerFile: number;
  maxLessonChars: number;
  /** Total lesson characters sent to the model. */
  maxPromptLessonChars: number;
};

export const DEFAULT_COLLECT_OPTIONS: Omit<CollectOptions, "today"> = {
  days: 30,
  maxBytesPerFile: 1024 * 1024,
  maxLessonChars: 300,
  maxPromptLessonChars: 60_000,
};

export class NoSourcesError extends Error {}

async function readHead(file: string, maxBytes: number): Promise<{ text: string; truncated: boolean } | undefined> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(file, "r");
    const size = (await handle.stat()).size;
    const buffer = Buffer.alloc(Math.min(size, maxBytes));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return { text: buffer.subarray(0, bytesRead).toString("utf8"), truncated: size > maxBytes };
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

/** List items (with their continuation lines) of a Markdown fragment; paragraphs when it has no list. */
export function lessonItems(markdown: string): string[] {
  const items: string[] = [];
  let current: string[] | undefined;
  let sawList = false;
  const flush = () => {
    if (current) items.push(current.join(" ").replace(/\s+/g, " ").trim());
    current = undefined;
  };
  for (const line of splitLines(markdown)) {
    const item = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (item) {
      flush();
      sawList = true;
      current = [item[1]];
    } else if (/^\s*$/.test(line) || /^\s{0,3}#/.test(line)) {
      flush();
    } else if (current) current.push(line.trim());
  }
  flush();
  if (sawList) return items.filter(Boolean);
  return markdown
    .split(/\r?\n\s*\r?\n/)
    .map((paragraph) => paragraph.replace(/^\s{0,3}#.*$/gm, "").replace(/\s+/g, " ").trim())
    .filter((paragraph) => paragraph.length > 0);
}

function sectionsText(text: string, pattern: RegExp): string | undefined {
  const lines = splitLines(text);
  const matches = findSections(text).filter((section) => pattern.test(section.title));
  // Nested matches would be collected twice: keep the outermost.
  const outer = matches.filter((section) => !matches.some((other) => other !== section && other.startLine < section.startLine && other.endLine >= section.endLine));
  if (outer.length === 0) return undefined;
  return outer.map((section) => lines.slice(section.startLine + 1, section.endLine).join("\n")).join("\n\n");
}

const DAILY_NOTE = /^(\d{4})-(\d{2})-(\d{2})(?:-[\w.-]+)?\.md$/;

/** memory/YYYY-MM-DD[-slug].md notes dated within the last `days` days (inclusive of today). */
async function recentDailyNotes(workspace: string, today: Date, days: number): Promise<string[]> {
  const dir = path.join(workspace, "memory");
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return [];
  }
  const end = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  const start = end - (days - 1) * 86_400_000;
  return names
    .filter((name) => {
      const match = DAILY_NOTE.exec(name);
      if (!match) return false;
      const stamp = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
      return stamp >= start && stamp <= end;
    })
    .sort()
    .map((name) => path.join(dir, name));
}

export async function collectLessons(workspace: string, options: CollectOptions): Promise<CollectedLessons> {
  const warnings: string[] = [];
  const sources: SourceStatus[] = [];
  const raw: { source: string; text: string }[] = [];

  const take = async (label: string, file: string, select: (text: string) => string | undefined, missingSectionDetail?: string) => {
    const read = await readHead(file, options.maxBytesPerFile);
    if (!read) {
      sources.push({ label, file, status: "missing", lessons: 0 });
      warnings.push(`source missing: ${label} (${file}); continuing without it`);
      return;
    }
    const selected = select(read.text);
    const items = selected === undefined ? [] : lessonItems(selected);
    if (items.length === 0) {
      sources.push({ label, file, status: "no-lessons", lessons: 0, detail: missingSectionDetail });
      warnings.push(`source has no lessons: ${label}${missingSectionDetail && selected === undefined ? ` (${missingSectionDetail})` : ""}`);
      return;
    }
    if (read.truncated) warnings.push(`${label}: read only the first ${options.maxBytesPerFile} bytes`);
    sources.push({ label, file, status: read.truncated ? "truncated" : "ok", lessons: items.length });
    for (const text of items) raw.push({ source: label, text: text.length > options.maxLessonChars ? `${text.slice(0, options.maxLessonChars - 1)}…` : text });
  };

  await take("AGENTS.md § Operational Lessons", path.join(workspace, "AGENTS.md"), (text) => sectionsText(text, /operational lessons/i), 'no "Operational Lessons" section');
  await take("LESSONS_LEARNED.md", path.join(workspace, "LESSONS_LEARNED.md"), (text) => text);
  await take("MEMORY.md § lessons/decisions", path.join(workspace, "MEMORY.md"), (text) => sectionsText(text, /lesson|decision/i), "no lessons/decisions section");
  const notes = await recentDailyNotes(workspace, options.today, options.days);
  if (notes.length === 0) {
    sources.push({ label: `memory/YYYY-MM-DD.md (last ${options.days} days)`, file: path.join(workspace, "memory"), status: "missing", lessons: 0 });
    warnings.push(`source missing: no memory/YYYY-MM-DD.md notes from the last ${options.days} days`);
  }
  for (const note of notes) {
    await take(`memory/${path.basename(note)}`, note, (text) => sectionsText(text, /lesson|decision|learned/i) ?? text);
  }

  if (sources.every((source) => source.status === "missing")) {
    throw new NoSourcesError("no wisdom sources found: none of AGENTS.md, LESSONS_LEARNED.md, MEMORY.md or recent memory/YYYY-MM-DD.md exist in the workspace");
  }
  if (raw.length === 0) throw new NoSourcesError("the wisdom sources exist but contain no lessons (no list items or paragraphs in the lesson sections)");

  // Dedupe identical lessons, then keep within the prompt budget (in source order, as listed above).
  const seen = new Set<string>();
  const lessons: Lesson[] = [];
  let chars = 0;
  let omitted = 0;
  for (const item of raw) {
    const key = item.text.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    if (chars + item.text.length > options.maxPromptLessonChars) {
      omitted += 1;
      continue;
    }
    chars += item.text.length;
    lessons.push({ id: `L${lessons.length + 1}`, source: item.source, text: item.text });
  }
  if (omitted > 0) warnings.push(`${omitted} lesson(s) left out to keep the prompt under ${options.maxPromptLessonChars} characters`);
  return { lessons, sources, warnings, omitted };
}
