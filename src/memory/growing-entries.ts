import { parseMemoryEntries } from "./confidence.ts";
import type { MemoryEntry } from "./confidence.ts";

// Day files grow at their end (captures, the agent's own notes), and the Recent-memory slot reads
// the newest ones on every turn. The entries of the last few files read are kept: the same text is
// not parsed again, and a text that only grew has just its last entry and what follows parsed again
// (an append can continue that entry, never one before it).

type ParsedText = { text: string; entries: readonly MemoryEntry[] };

/** Files whose entries are kept (the Recent-memory window is a day or two of day files). */
const MAX_KEPT_FILES = 8;
const kept = new Map<string, ParsedText>();

/** parseMemoryEntries(text), reusing what was parsed for `key` (a file's path) last time. */
export function memoryEntriesOf(key: string, text: string): readonly MemoryEntry[] {
  const known = kept.get(key);
  let entries: readonly MemoryEntry[];
  if (known?.text === text) entries = known.entries;
  else if (known && known.entries.length > 0 && text.startsWith(known.text)) entries = reparseFromLastEntry(known.entries, text);
  else entries = parseMemoryEntries(text);
  kept.delete(key); // re-inserted: the map's order is the order of use
  kept.set(key, { text, entries });
  if (kept.size > MAX_KEPT_FILES) kept.delete(kept.keys().next().value as string);
  return entries;
}

function reparseFromLastEntry(entries: readonly MemoryEntry[], text: string): MemoryEntry[] {
  const last = entries[entries.length - 1];
  const tail = parseMemoryEntries(text.slice(offsetOfLine(text, last.line)));
  for (const entry of tail) entry.line += last.line - 1;
  return [...entries.slice(0, -1), ...tail];
}

/** Where 1-based line `line` starts (lines end at "\n", as parseMemoryEntries splits them). */
function offsetOfLine(text: string, line: number): number {
  let offset = 0;
  for (let n = 1; n < line; n++) offset = text.indexOf("\n", offset) + 1;
  return offset;
}
