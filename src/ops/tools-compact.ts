import { estimateTokens } from "../core/tokens.ts";
import { findSections, splitLines } from "../core/markdown.ts";

// AC-6: TOOLS_COMPACT.md is a lookup table (≤ 300 tokens, required sections, no narrative), and a
// deterministic draft of it can be extracted from TOOLS.md.

const DEFAULT_REQUIRED_SECTIONS = ["Browser", "Mission Control", "Telegram Topics", "Cursor CLI", "TTS", "Camera"];
const DEFAULT_MAX_TOKENS = 300;
/** Words/phrases that mark "why" explanations rather than lookup data. */
const NARRATIVE_MARKERS = ["because", "so that", "we", "in order to", "the reason"];
const DEFAULT_MAX_PARAGRAPH_WORDS = 30;

export type CompactCheckOptions = { requiredSections: string[]; maxTokens: number; maxParagraphWords: number; narrativeMarkers: string[] };
type CompactViolation = { rule: "size" | "missing-section" | "narrative" | "long-paragraph" | "damaged"; detail: string; line?: number };
export type CompactCheckResult = { ok: boolean; tokens: number; violations: CompactViolation[]; sectionsFound: string[] };

export const DEFAULT_CHECK_OPTIONS: CompactCheckOptions = {
  requiredSections: DEFAULT_REQUIRED_SECTIONS,
  maxTokens: DEFAULT_MAX_TOKENS,
  maxParagraphWords: DEFAULT_MAX_PARAGRAPH_WORDS,
  narrativeMarkers: NARRATIVE_MARKERS,
};

function normalizeTitle(title: string): string {
  return title.toLowerCase().replace(/[*_`]/g, "").replace(/\s+/g, " ").trim();
}

/** Text a reader sees as prose: inline code, URLs and table pipes removed. */
function proseOf(line: string): string {
  return line.replace(/`[^`]*`/g, " ").replace(/\bhttps?:\/\/\S+/g, " ");
}

function markerPattern(marker: string): RegExp {
  return new RegExp(`\\b${marker.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\s+/g, "\\s+")}\\b`, "i");
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter((word) => /[A-Za-z]/.test(word)).length;
}

export function checkToolsCompact(text: string, options: CompactCheckOptions = DEFAULT_CHECK_OPTIONS): CompactCheckResult {
  const violations: CompactViolation[] = [];
  const tokens = estimateTokens(text);
  if (tokens > options.maxTokens) violations.push({ rule: "size", detail: `${tokens} tokens > ${options.maxTokens}` });

  const titles = findSections(text).map((section) => normalizeTitle(section.title));
  const sectionsFound: string[] = [];
  for (const required of options.requiredSections) {
    const wanted = normalizeTitle(required);
    if (titles.some((title) => title === wanted || title.includes(wanted))) sectionsFound.push(required);
    else violations.push({ rule: "missing-section", detail: `no "## ${required}" section` });
  }

  const lines = splitLines(text);
  let inFence = false;
  let paragraph: { start: number; words: number } | undefined;
  const closeParagraph = () => {
    if (paragraph && paragraph.words > options.maxParagraphWords) {
      violations.push({ rule: "long-paragraph", line: paragraph.start + 1, detail: `paragraph of ${paragraph.words} words (> ${options.maxParagraphWords}) at line ${paragraph.start + 1}` });
    }
    paragraph = undefined;
  };
  lines.forEach((line, index) => {
    if (/^\s{0,3}(```|~~~)/.test(line)) {
      inFence = !inFence;
      closeParagraph();
      return;
    }
    if (inFence) return;
    if (line.trim() === "" || /^\s{0,3}#/.test(line)) {
      closeParagraph();
      return;
    }
    const prose = proseOf(line);
    for (const marker of options.narrativeMarkers) {
      if (markerPattern(marker).test(prose)) {
        violations.push({ rule: "narrative", line: index + 1, detail: `line ${index + 1} reads as narrative ("${marker}"): ${line.trim().slice(0, 80)}` });
        break;
      }
    }
    // Table rows and list items are lookup entries; runs of plain lines form paragraphs.
    if (/^\s*(\||[-*+]\s|\d+[.)]\s)/.test(line)) {
      closeParagraph();
      if (wordCount(prose) > options.maxParagraphWords) {
        violations.push({ rule: "long-paragraph", line: index + 1, detail: `entry of ${wordCount(prose)} words (> ${options.maxParagraphWords}) at line ${index + 1}` });
      }
      return;
    }
    paragraph ??= { start: index, words: 0 };
    paragraph.words += wordCount(prose);
  });
  closeParagraph();
  return { ok: violations.length === 0, tokens, violations, sectionsFound };
}

// ---------------------------------------------------------------------------------------------
// Draft generator

/** Headings in TOOLS.md that feed each compact section (matched case-insensitively, substring). */
const SECTION_SYNONYMS: Record<string, string[]> = {
  browser: ["browser", "chrome", "chromium", "playwright", "cdp"],
  "mission control": ["mission control", "mission-control"],
  "telegram topics": ["telegram", "topic"],
  "cursor cli": ["cursor"],
  tts: ["tts", "text-to-speech", "text to speech", "voice", "speech"],
  camera: ["camera", "cameras", "cam", "rtsp"],
};

const PORT = /(?:^|[\s(])(?:[\w.-]*):(\d{2,5})\b|\bport\s+\d{2,5}\b/i;
const FLAG = /(?:^|\s)--?[a-zA-Z][\w-]*/;
const CODE = /`[^`]+`/;
// The separator colon must be followed by a space (or bold end + space): the colon of a URL scheme
// ("http://…") or of host:port is part of the value, never a key separator.
const KEY_VALUE = /^\s*(?:[-*+]\s+)?(?:\*\*)?([A-Za-z][\w ./-]{0,40}?)(?:\*\*)?\s*(?::(?=(?:\*\*)?(?:\s|$))|=)\s*(?:\*\*)?\s*(\S.*)$/;
const ID = /\b\d{2,}\b|@[\w-]+|\b[0-9a-f]{8}-[0-9a-f]{4}-/i;

export type DraftResult = { text: string; perSection: { section: string; sources: string[]; items: number; dropped: number }[]; warnings: string[] };

function cleanItem(item: string): string {
  return item
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/, "")
    .replace(/\*\*/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** URLs of any scheme (http, rtsp, ws, …), up to whitespace or a closing bracket. */
const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s)>\]`'"]+/gi;
const HOST_PORT = /\b[A-Za-z][\w.-]*:\d{2,5}\b/g;
const PORT_PHRASE = /\bports?\s+\d{2,5}\b/gi;
const HISTORY_BEFORE = /\b(?:from|was|formerly|previously|used to be on|old)\s+$/i;
const HANDLE = /(?<![\w.])@[A-Za-z][\w-]+/g;
/** ~/x, ./x, ../x and absolute paths with at least two segments (so "and/or" or "/s" is not one). */
const PATH_PATTERN = /(?<![\w/:.~])(?:~\/|\.{1,2}\/|\/)[\w.@-]+(?:\/[\w.@-]+)*\/?/g;

function isPath(token: string): boolean {
  return /^(?:~|\.{1,2})\//.test(token) || (token.match(/\//g) ?? []).length >= 2;
}

/**
 * Values that must survive byte for byte: code spans (commands), URLs, host:port, "port N",
 * paths and @handles, in the order they appear. A token inside a longer one (the host:port of a
 * URL) is not repeated.
 */
function exactTokens(text: string): string[] {
  const found: { index: number; token: string }[] = [];
  for (const match of text.matchAll(/`[^`]+`/g)) found.push({ index: match.index ?? 0, token: match[0] });
  const bare = text.replace(/`[^`]+`/g, (code) => " ".repeat(code.length));
  for (const pattern of [URL_PATTERN, HOST_PORT, PORT_PHRASE, HANDLE, PATH_PATTERN]) {
    for (const match of bare.matchAll(pattern)) {
      const token = match[0].replace(/[.,;:]+$/, "");
      if (pattern === PATH_PATTERN && !isPath(token)) continue;
      // "moved from port 3000 to 3100": the old value is history, not lookup data.
      if (pattern === PORT_PHRASE && HISTORY_BEFORE.test(bare.slice(Math.max(0, (match.index ?? 0) - 20), match.index))) continue;
      found.push({ index: match.index ?? 0, token });
    }
  }
  found.sort((a, b) => a.index - b.index || b.token.length - a.token.length);
  const kept: { index: number; token: string }[] = [];
  for (const item of found) {
    const inside = kept.some((outer) => item.index >= outer.index && item.index + item.token.length <= outer.index + outer.token.length);
    if (!inside) kept.push(item);
  }
  return [...new Set(kept.map((item) => item.token))];
}

/**
 * Lookup tokens of prose: code spans, URLs, host:port, ports, paths and @handles. Prose such as
 * "moved from port 3000 to 3100 because …" is history; its words are not kept, its values are.
 */
function lookupTokens(text: string): string[] {
  return exactTokens(text);
}

function hasNarrative(text: string): boolean {
  return NARRATIVE_MARKERS.some((marker) => markerPattern(marker).test(proseOf(text)));
}

/** Short enough to be a lookup entry as written (values longer than this are reduced to their tokens). */
const MAX_ENTRY_WORDS = 8;
const EMPTY_CELL = /^(?:none|n\/a|-|—|tbd)$/i;

function isLookupSignal(text: string): boolean {
  return PORT.test(text) || FLAG.test(text) || CODE.test(text) || ID.test(text) || exactTokens(text).length > 0;
}

/** A table row: keep the cells that look like lookup values (ids, code, short names), drop descriptions. */
function tableRowItem(line: string): string {
  const cells = line.split("|").map((cell) => cell.trim()).filter(Boolean);
  return cells.filter((cell) => !EMPTY_CELL.test(cell) && (wordCount(proseOf(cell)) <= 3 || isLookupSignal(cell))).join(" ");
}

/** One list item or paragraph (wrapped lines joined). */
function unitItem(unit: string): string | undefined {
  const text = cleanItem(unit);
  const keyValue = KEY_VALUE.exec(text);
  // "Why …:" keys introduce explanations, exactly what the compact table leaves out.
  if (keyValue && /^why\b/i.test(keyValue[1].trim())) return undefined;
  if (keyValue) {
    const value = keyValue[2];
    const short = !hasNarrative(value) && wordCount(proseOf(value)) <= MAX_ENTRY_WORDS;
    const kept = short ? cleanItem(value) : lookupTokens(value).join(" ");
    return kept ? `${cleanItem(keyValue[1])}: ${kept}` : undefined;
  }
  if (!isLookupSignal(text)) return undefined;
  const short = !hasNarrative(text) && wordCount(proseOf(text)) <= MAX_ENTRY_WORDS;
  const kept = short ? text : lookupTokens(text).join(" ");
  return kept || undefined;
}

/** Deterministic extraction of lookup entries from one TOOLS.md section body. */
export function extractLookupItems(body: string): string[] {
  const items: string[] = [];
  const lines = splitLines(body);
  let inFence = false;
  let unit: string[] = [];
  const flush = () => {
    if (unit.length > 0) {
      const item = unitItem(unit.join(" "));
      if (item) items.push(item);
    }
    unit = [];
  };
  for (const [index, raw] of lines.entries()) {
    if (/^\s{0,3}(```|~~~)/.test(raw)) {
      flush();
      inFence = !inFence;
      continue;
    }
    const line = raw.trim();
    // Fenced or indented code: a command line worth keeping verbatim.
    if (inFence || (/^( {4}|\t)/.test(raw) && unit.length === 0 && line)) {
      if (line && line.length <= 80) items.push(`\`${line}\``);
      continue;
    }
    if (!line || line.startsWith("#")) {
      flush();
      continue;
    }
    if (line.startsWith("|")) {
      flush();
      const isSeparator = (candidate: string | undefined) => candidate !== undefined && /^\|[\s|:-]+\|?$/.test(candidate.trim());
      if (isSeparator(line) || isSeparator(lines[index + 1])) continue; // separator and header rows
      const item = tableRowItem(line);
      if (item) items.push(item);
      continue;
    }
    // A new list item starts a new unit; wrapped text continues the current one. An unindented line
    // right after a list item is read as a new paragraph (the usual intent, even if Markdown says otherwise).
    const isListItem = /^(?:[-*+]|\d+[.)])\s+/.test(line);
    const unitIsList = unit.length > 0 && /^(?:[-*+]|\d+[.)])\s+/.test(unit[0]);
    if (isListItem || (unitIsList && !/^\s/.test(raw))) flush();
    unit.push(line);
  }
  flush();
  return [...new Set(items.map(cleanItem).filter(Boolean))];
}

function sectionKey(required: string): string {
  return required.toLowerCase();
}

/**
 * Build a TOOLS_COMPACT draft from TOOLS.md: one `## <section>` per required section, fed by the
 * TOOLS.md sections whose headings match it, items joined with " · ", trimmed from the end of the
 * longest section until the draft fits `maxTokens`.
 */
export function draftToolsCompact(toolsMd: string, options: { requiredSections?: string[]; maxTokens?: number } = {}): DraftResult {
  const required = options.requiredSections ?? DEFAULT_REQUIRED_SECTIONS;
  const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
  const lines = splitLines(toolsMd);
  const sections = findSections(toolsMd);
  const warnings: string[] = [];
  const gathered = required.map((name) => {
    const synonyms = SECTION_SYNONYMS[sectionKey(name)] ?? [name.toLowerCase()];
    const matching = sections.filter((section) => synonyms.some((synonym) => normalizeTitle(section.title).includes(synonym)));
    // A matched parent already covers its subsections.
    const top = matching.filter((section) => !matching.some((other) => other !== section && other.startLine < section.startLine && other.endLine >= section.endLine));
    const items = [...new Set(top.flatMap((section) => extractLookupItems(lines.slice(section.startLine + 1, section.endLine).join("\n"))))];
    if (top.length === 0) warnings.push(`no TOOLS.md section matches "${name}" (looked for headings containing: ${synonyms.join(", ")})`);
    else if (items.length === 0) warnings.push(`TOOLS.md section(s) for "${name}" hold no lookup data (tables, key: value, ports, flags, ids, code)`);
    return { section: name, sources: top.map((section) => section.title), items, dropped: 0 };
  });

  const render = () =>
    ["# TOOLS_COMPACT", "", ...gathered.flatMap((entry) => [`## ${entry.section}`, entry.items.length ? entry.items.join(" · ") : "TODO: not found in TOOLS.md", ""])].join("\n").trimEnd() + "\n";
  let text = render();
  while (estimateTokens(text) > maxTokens) {
    const longest = gathered.reduce((best, entry) => (entry.items.join(" · ").length > best.items.join(" · ").length ? entry : best));
    if (longest.items.length <= 1) break;
    longest.items.pop();
    longest.dropped += 1;
    text = render();
  }
  for (const entry of gathered) if (entry.dropped > 0) warnings.push(`${entry.section}: dropped ${entry.dropped} item(s) to fit ${maxTokens} tokens; review TOOLS.md for what matters most`);
  if (estimateTokens(text) > maxTokens) warnings.push(`draft is still ${estimateTokens(text)} tokens (> ${maxTokens}): single entries are too long, shorten them by hand`);
  return { text, perSection: gathered.map(({ section, sources, items, dropped }) => ({ section, sources, items: items.length, dropped })), warnings };
}

// ---------------------------------------------------------------------------------------------
// Draft against its source: nothing damaged, and what was left out listed

export type SourceCheck = {
  /** Values in the compact text that do not appear byte for byte in TOOLS.md (a damaged URL, port, path or command). */
  damaged: string[];
  /** Values of the matching TOOLS.md sections that the compact text does not carry. */
  lost: string[];
};

/** A URL whose scheme colon is followed by a space ("http: //host"): always damage. */
const BROKEN_URL = /\b[a-z][a-z0-9+.-]*: +\/\/[^\s]*/gi;

export function checkAgainstSource(compact: string, toolsMd: string, requiredSections: string[] = DEFAULT_REQUIRED_SECTIONS): SourceCheck {
  const damaged = new Set<string>();
  for (const match of compact.matchAll(BROKEN_URL)) damaged.add(match[0]);
  for (const token of exactTokens(compact)) {
    const value = token.startsWith("`") ? token.slice(1, -1) : token;
    if (!toolsMd.includes(value)) damaged.add(token);
  }
  const lines = splitLines(toolsMd);
  const sections = findSections(toolsMd);
  const sourceTokens = new Set<string>();
  for (const name of requiredSections) {
    const synonyms = SECTION_SYNONYMS[sectionKey(name)] ?? [name.toLowerCase()];
    for (const section of sections.filter((candidate) => synonyms.some((synonym) => normalizeTitle(candidate.title).includes(synonym)))) {
      for (const token of exactTokens(lines.slice(section.startLine + 1, section.endLine).join("\n"))) sourceTokens.add(token);
    }
  }
  const lost = [...sourceTokens].filter((token) => !compact.includes(token.startsWith("`") ? token.slice(1, -1) : token));
  return { damaged: [...damaged], lost };
}
