import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { readRegularFile } from "../fs/safe-read.ts";
import { parseMemoryEntries, stripMemoryMetadata } from "../memory/confidence.ts";
import { withoutWithheldMarkers } from "../memory/secrets.ts";
import { analyzeQuery } from "../memory/tokenize.ts";
import { MEMORY_DIR } from "./fact-index.ts";
import { parseCapturedLine } from "./fact-line.ts";

// The facts in a workspace's memory files (MEMORY.md, memory/*.md), for `memory list | show |
// forget` and the chat's "forget that …": every entry (a list item with its continuation lines, or
// a paragraph) with an id, where it is, and whether the bundle wrote it (a captured line, with the
// capture metadata) or a person did (anything else: never deleted without the operator's --yes).
// The same statement in several files (a day file and MEMORY.md) is one fact with several places.

export const MEMORY_FILE_NAME = "MEMORY.md";
/** Bigger files are not read (the index does not take them either, by default). */
const MAX_MEMORY_FILE_BYTES = 2 * 1024 * 1024;
/** At most this many files of memory/ are read (newest day files first). */
const MAX_MEMORY_FILES = 2000;

export type FactPlace = {
  /** Absolute path. */
  file: string;
  /** Path relative to the workspace (what logs and the audit log name). */
  rel: string;
  /** First line of the entry (1-based) and its number of lines. */
  line: number;
  lineCount: number;
  /** The entry as in the file, metadata included. */
  text: string;
  /** Written by the bundle's capture (a line with the capture metadata). */
  captured: boolean;
  superseded: boolean;
  capturedAt?: string;
};

export type MemoryFact = { id: string; statement: string; places: FactPlace[] };

const TAGS = /(^|\s)#(?:event|knowledge|skill|decision)\b/g;
const LIST_MARKER = /^\s*(?:[-*+]|\d+[.)])\s+/;

/** What a memory entry says: a captured line's statement, else its text without metadata, list marker and extra spaces. */
export function factStatement(entryText: string): string {
  const captured = parseCapturedLine(entryText);
  if (captured) return captured.statement;
  return stripMemoryMetadata(entryText).replace(LIST_MARKER, "").replace(/\s+/g, " ").trim();
}

/** A stable id for a statement (the same words, case and spacing aside, give the same id). */
export function factId(statement: string): string {
  const normalised = statement.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
  return `f-${crypto.createHash("sha256").update(normalised).digest("hex").slice(0, 10)}`;
}

/** The words a fact is matched on: stemmed content terms, without tags and withheld markers. */
export function factTerms(text: string): string[] {
  return analyzeQuery(withoutWithheldMarkers(stripMemoryMetadata(text)).replace(TAGS, " "));
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
/** CJK text is not split into words by the analyser: such requests are matched as text. */
const compact = (text: string) => withoutWithheldMarkers(stripMemoryMetadata(text)).normalize("NFKC").toLowerCase().replace(/[\s\p{P}\p{S}]+/gu, "");

/** How a request ("my locker code", "my locker code is 4312") is matched against memory text. */
export type RequestMatcher = {
  /** The request names this fact: every request word is in it and they are at least half of its words. */
  names(factText: string): boolean;
  /** The text mentions the request (every request word is in it): excerpts, queue lines. */
  mentionedIn(text: string): boolean;
};

/** Share of a fact's words a request must give to name it ("forget coffee" does not name every coffee fact). */
const MIN_REQUEST_COVERAGE = 0.5;

export function requestMatcher(request: string): RequestMatcher {
  if (CJK.test(request)) {
    const wanted = compact(request);
    const inText = (text: string) => wanted.length >= 2 && compact(text).includes(wanted);
    return { names: (fact) => inText(fact) && wanted.length >= compact(fact).length * MIN_REQUEST_COVERAGE, mentionedIn: inText };
  }
  const wanted = factTerms(request);
  const within = (text: string) => {
    const terms = new Set(factTerms(text));
    return wanted.length > 0 && wanted.every((term) => terms.has(term)) ? terms.size : 0;
  };
  return {
    names: (fact) => {
      const size = within(fact);
      return size > 0 && wanted.length >= size * MIN_REQUEST_COVERAGE;
    },
    mentionedIn: (text) => within(text) > 0,
  };
}

/** MEMORY.md and memory/*.md (day files newest first, at most MAX_MEMORY_FILES), as absolute paths. */
export async function memoryFiles(workspaceDir: string): Promise<string[]> {
  const dir = path.join(workspaceDir, MEMORY_DIR);
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const inMemory = names
    .filter((name) => name.endsWith(".md") && !name.startsWith("."))
    .sort()
    .reverse()
    .slice(0, MAX_MEMORY_FILES)
    .map((name) => path.join(dir, name));
  return [path.join(workspaceDir, MEMORY_FILE_NAME), ...inMemory];
}

/** A memory file's text through the shared safe reader (regular, inside the workspace, bounded); undefined when unusable. */
async function readMemoryText(file: string, workspaceDir: string): Promise<string | undefined> {
  const read = await readRegularFile(file, { maxBytes: MAX_MEMORY_FILE_BYTES, root: workspaceDir });
  return read.ok ? read.bytes.toString("utf8") : undefined;
}

/** The places of one file's entries. */
function placesIn(markdown: string, file: string, rel: string): FactPlace[] {
  return parseMemoryEntries(markdown).map((entry) => {
    const captured = parseCapturedLine(entry.text);
    return {
      file,
      rel,
      line: entry.line,
      lineCount: entry.text.split("\n").length,
      text: entry.text,
      captured: captured !== undefined,
      superseded: captured?.superseded ?? false,
      ...(captured ? { capturedAt: captured.capturedAt } : {}),
    };
  });
}

/** Every fact of the workspace's memory files, grouped by id, in file order (MEMORY.md, then the newest day file first). */
export async function readMemoryFacts(workspaceDir: string): Promise<MemoryFact[]> {
  const facts = new Map<string, MemoryFact>();
  for (const file of await memoryFiles(workspaceDir)) {
    const text = await readMemoryText(file, workspaceDir);
    if (text === undefined) continue;
    for (const place of placesIn(text, file, path.relative(workspaceDir, file))) {
      const statement = factStatement(place.text);
      if (!statement) continue;
      const id = factId(statement);
      const fact = facts.get(id) ?? { id, statement, places: [] };
      fact.places.push(place);
      facts.set(id, fact);
    }
  }
  return [...facts.values()];
}
