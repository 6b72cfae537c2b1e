import path from "node:path";
import { folderNames } from "../fs/folder-names.ts";
import { createHash } from "node:crypto";
import { assembleContext, shownAs, shownMemory } from "./assembler.ts";
import type { AssemblerBudgets, AssemblerResult, SlotContent, SlotItem, SlotName } from "./assembler.ts";
import type { BootstrapSlot } from "./bootstrap-slots.ts";
import { renderMemoryText } from "../memory/neutralise.ts";
import type { RetrievedMemory } from "../memory/types.ts";
import { HYGIENE_CONFIG_DEFAULTS } from "../memory/config-md.ts";
import type { HygieneConfig } from "../memory/config-md.ts";
import { CLOSED_CORRECTION_STATUSES, CORRECTIONS_FILE_NAME, correctionStatement, parseCorrections } from "../capture/corrections.ts";
import type { CorrectionEntry } from "../capture/corrections.ts";
import { isSupersededEntry } from "../capture/capture.ts";
import { MAX_INDEXED_DAY_FILE_BYTES } from "../capture/fact-index.ts";
import { isSecretEntry } from "../memory/secrets.ts";
import { parseMemoryEntries, stripMemoryMetadata } from "../memory/confidence.ts";
import type { MemoryEntry } from "../memory/confidence.ts";
import { memoryEntriesOf } from "../memory/growing-entries.ts";
import { readKeptText } from "../fs/kept-text.ts";

// The turn's block through the §6 assembler (persistent memory spec §6):
//   1 Identity (SOUL.md), 2 Operator profile (USER.md), 7 Long-term memory (MEMORY.md): OpenClaw's
//     bootstrap injects these files when the session's set lists them; the block counts them
//     against `context_budget_tokens` (each at most its slot's budget) and never repeats them;
//   3 Corrections (open CORRECTIONS.md entries), 4 Recent memory (the last `memory_retention_hours`
//     of memory/YYYY-MM-DD*.md), 5 Relevant memories (this turn's search hits), 6 CRM profiles and
//     8 External context (the extension point, src/context/context-sources.ts) are the block's own.
// The block's slots share the session type's ceiling in proportion to their CONFIG.md budgets (the
// slots with something to show this turn; a slot never gets more than its budget), so a flood of
// daily notes cannot push the search hits out and vice versa. The cap is the smallest of that
// ceiling, the room the model's window leaves (the caller's `maxTokens`) and what
// `context_budget_tokens` leaves after slots 1, 2 and 7; over the cap the assembler cuts from slot 8
// up (the spec's truncation order).
//
// Each memory appears once, in the slot that explains it best: a correction under Corrections, a
// search hit under Relevant memories (not again as a recent note), a recent note that no search
// found under Recent memory.
//
// Every file read is bounded; workspace text is untrusted and goes through renderMemoryText.

const MAX_SLOT_FILE_BYTES = 256 * 1024;
export const MAX_RECENT_FILES = 16;
/**
 * Recent-memory items gathered per turn, newest first: far more than the slot (or the whole block)
 * can show, and a bound on a turn's work when the last days hold thousands of captured facts
 * (every item is rendered, checked for secrets and compared with the search hits).
 */
export const MAX_RECENT_ITEMS = 400;
const DAILY_FILE = /^(\d{4}-\d{2}-\d{2})(?:-[^/\\]*)?\.md$/;
/** What forget leaves of a correction's excerpt (src/capture/forget.ts). */
const FORGOTTEN_EXCERPT = /^\s*\(forgotten: fg-[\w-]+\)\s*$/;

export type MemoryBlockInput = {
  workspaceDir: string;
  semanticHits: readonly RetrievedMemory[];
  /** The block's ceiling for this turn, in tokens (the session type's, within the model's window). */
  maxTokens: number;
  /** The ceiling the slots' shares are cut from: the session type's (default `maxTokens`). */
  shareTokens?: number;
  now?: Date;
  config?: HygieneConfig;
  /** Longest single entry, in characters (default 600). */
  maxSnippetChars?: number;
  include?: { corrections?: boolean; recentMemory?: boolean };
  /** Item ids already injected earlier in the session: left out (never injected twice). */
  excludeIds?: ReadonlySet<string>;
  /** Recent-memory entries (raw text, metadata included) to leave out of this block. */
  leaveOut?: (entryText: string) => boolean;
  /** Tokens OpenClaw's bootstrap injects this turn for slots 1, 2 and 7 (counted, never repeated). */
  bootstrapTokens?: Partial<Record<BootstrapSlot, number>>;
  /** Text of the extension slots, already read: 6 CRM profiles, 8 external context. */
  extensions?: { crm?: string; external?: string };
  /** How the caller lays out the search hits it shows (the compact layout): slot 5 is measured on it. */
  hitLayout?: (hits: readonly RetrievedMemory[]) => string;
};

export type MemoryBlockResult = AssemblerResult & {
  errors: string[];
  /** Items left out because a slot that explains them better shows the same memory: id → the id shown. */
  shownAs: Map<string, string>;
};

/** A workspace file's text through the shared safe reader (regular file, contained, bounded); null when unusable. */
async function readBounded(file: string, workspaceDir: string): Promise<string | null> {
  const read = await readKeptText(file, { root: workspaceDir, maxBytes: MAX_SLOT_FILE_BYTES });
  if (read.ok) return read.text;
  if (read.reason === "missing") return null;
  throw new Error(`${path.basename(file)}: ${read.reason}${read.detail ? ` (${read.detail})` : ""}`);
}

/** The entry's `> ` excerpt, as one line. */
function quotedExcerpt(entry: CorrectionEntry): string {
  return entry.text
    .split("\n")
    .filter((line) => line.startsWith(">"))
    .map((line) => line.replace(/^>[ \t]?/, ""))
    .join(" ");
}

/**
 * The items of the last CORRECTIONS.md text seen: an unchanged file comes back as the same string
 * (kept-text.ts), so it is not parsed again on every turn. The items are never modified downstream.
 */
let lastCorrections: { markdown: string; maxSnippetChars: number; items: readonly SlotItem[] } | undefined;

function keptCorrectionItems(markdown: string, maxSnippetChars: number): SlotItem[] {
  if (lastCorrections?.markdown !== markdown || lastCorrections.maxSnippetChars !== maxSnippetChars) {
    lastCorrections = { markdown, maxSnippetChars, items: correctionItems(markdown, maxSnippetChars) };
  }
  return [...lastCorrections.items];
}

/** Open CORRECTIONS.md entries as assembler items (verified / re-embedded flags kept for ordering). */
export function correctionItems(markdown: string, maxSnippetChars: number): SlotItem[] {
  return parseCorrections(markdown)
    .filter((entry) => !CLOSED_CORRECTION_STATUSES.has(entry.status))
    .map((entry) => {
      const day = entry.loggedAt?.toISOString().slice(0, 10) ?? "undated";
      const state = entry.verified ? "verified" : "unverified";
      // A forgotten correction keeps only its marker (`(forgotten: fg-…)`): nothing for the model,
      // whatever its fields say.
      const text = FORGOTTEN_EXCERPT.test(quotedExcerpt(entry)) ? "" : renderMemoryText(correctionStatement(entry), maxSnippetChars);
      return { id: entry.id, text: text ? `- [${day}, ${state}] ${text}` : "", timestamp: entry.loggedAt, verified: entry.verified, reEmbedded: entry.reEmbedded };
    });
}

export type DailyFile = { name: string; day: string };

// A folder's listing is the same array while the folder is unchanged (folderNames): its day files
// are picked out and sorted once, not on every turn (a vault of years holds thousands of them).
const dailyFiles = new WeakMap<readonly string[], readonly DailyFile[]>();

/** The `YYYY-MM-DD*.md` names of a listing with their days, names in reverse order (newest first). */
function dailyFilesNewestFirst(names: readonly string[]): readonly DailyFile[] {
  let files = dailyFiles.get(names);
  if (!files) {
    files = names
      .flatMap((name) => {
        const day = DAILY_FILE.exec(name)?.[1];
        return day === undefined ? [] : [{ name, day }];
      })
      .sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    dailyFiles.set(names, files);
  }
  return files;
}

/** The day files of a listing dated `oldestDay` to `today` (YYYY-MM-DD), newest name first, at most MAX_RECENT_FILES. */
export function recentDailyFiles(names: readonly string[], oldestDay: string, today: string): DailyFile[] {
  // A file's day is the start of its name, so newest name first the days in the window are one run.
  const files: DailyFile[] = [];
  for (const file of dailyFilesNewestFirst(names)) {
    if (file.day > today) continue;
    if (file.day < oldestDay || files.length >= MAX_RECENT_FILES) break;
    files.push(file);
  }
  return files;
}

/**
 * Entries of `memory/YYYY-MM-DD*.md` files dated within the retention window, newest first, at
 * most MAX_RECENT_ITEMS of them (items in `excludeIds` not counted).
 */
export async function recentMemoryItems(
  workspaceDir: string,
  now: Date,
  retentionHours: number,
  maxSnippetChars: number,
  leaveOut: (entryText: string) => boolean = () => false,
  excludeIds?: ReadonlySet<string>,
): Promise<SlotItem[]> {
  const dir = path.join(workspaceDir, "memory");
  let names: readonly string[];
  try {
    names = await folderNames(dir);
  } catch {
    return [];
  }
  const oldestDay = new Date(now.getTime() - retentionHours * 3_600_000).toISOString().slice(0, 10);
  const today = now.toISOString().slice(0, 10);
  const items: SlotItem[] = [];
  for (const { name, day } of recentDailyFiles(names, oldestDay, today)) {
    if (items.length >= MAX_RECENT_ITEMS) break;
    const file = path.join(dir, name);
    // Up to the bound the capture compares with: a day file's newest notes are at its end, and a
    // busy day of captures passes 256 KiB. Read and parsed once per change (src/fs/kept-text.ts,
    // src/memory/growing-entries.ts).
    const read = await readKeptText(file, { root: workspaceDir, maxBytes: MAX_INDEXED_DAY_FILE_BYTES });
    if (!read.ok) continue; // a FIFO, a link out of the workspace, a vanished file: not a memory
    const timestamp = new Date(Math.min(read.mtimeMs, now.getTime()));
    const entries = memoryEntriesOf(file, read.text);
    // Later entries in a day file are newer: read from the end.
    for (let position = entries.length; position >= 1 && items.length < MAX_RECENT_ITEMS; position--) {
      const entry = entries[position - 1];
      const id = `${name}#${position}`;
      if (excludeIds?.has(id)) continue;
      const text = recentText(entry, day, maxSnippetChars);
      if (text && !leaveOut(entry.text)) items.push({ id, text, timestamp });
    }
  }
  return items;
}

// What an entry shows under Recent memory ("" for nothing), worked out once per entry (entries are
// kept: growing-entries.ts). The same text object turn after turn also spares the lookups keyed by
// it (factKey) hashing it again.
const recentTexts = new WeakMap<MemoryEntry, { day: string; maxSnippetChars: number; text: string }>();

function recentText(entry: MemoryEntry, day: string, maxSnippetChars: number): string {
  const known = recentTexts.get(entry);
  if (known?.maxSnippetChars === maxSnippetChars && known.day === day) return known.text;
  // A superseded captured fact is history, not current memory (its line stays for the operator).
  // A secret (or its withheld marker) is never replayed for being recent: only a search finds it.
  const hidden = isSupersededEntry(entry.text) || isSecretEntry(entry.text);
  const body = hidden ? "" : renderMemoryText(stripMemoryMetadata(entry.text).replace(/^([-*+]|\d+[.)])\s+/, ""), maxSnippetChars);
  const text = body ? `- [${day}] ${body}` : "";
  recentTexts.set(entry, { day, maxSnippetChars, text });
  return text;
}

function normalise(text: string): string {
  return text.toLowerCase().replace(/\W+/g, " ").trim();
}

/** The assembler's slots the block renders itself, in priority order (1, 2 and 7 are the bootstrap's). */
const BLOCK_SLOTS = ["corrections", "recent_memory", "semantic_recall", "crm", "external"] as const satisfies readonly SlotName[];
type BlockSlot = (typeof BLOCK_SLOTS)[number];
const BUDGET_KEYS = {
  corrections: "corrections_tokens",
  recent_memory: "recent_memory_tokens",
  semantic_recall: "semantic_recall_tokens",
  crm: "crm_tokens",
  external: "external_context_budget",
} as const satisfies Record<BlockSlot, keyof HygieneConfig>;
const BOOTSTRAP_BUDGET_KEYS = { identity: "identity_tokens", operator_profile: "user_profile_tokens", longterm_memory: "longterm_memory_tokens" } as const satisfies Record<BootstrapSlot, keyof HygieneConfig>;

/** Lines of an extension source as slot items (each entry neutralised, ids from their words). */
function extensionItems(slot: "crm" | "external", text: string | undefined, maxSnippetChars: number): SlotItem[] {
  if (!text) return [];
  return parseMemoryEntries(text).flatMap((entry) => {
    const body = renderMemoryText(stripMemoryMetadata(entry.text), maxSnippetChars);
    if (!body) return [];
    const id = `${slot}:${createHash("sha256").update(normalise(body)).digest("hex").slice(0, 12)}`;
    return [{ id, text: `- ${body}` }];
  });
}

/**
 * The block: corrections, recent memory, search hits and the extension slots, assembled under the
 * turn's cap. Never throws for missing or unreadable files: those come back in `errors` and the
 * slot is empty.
 */
export async function assembleMemoryBlock(input: MemoryBlockInput): Promise<MemoryBlockResult> {
  const config = input.config ?? HYGIENE_CONFIG_DEFAULTS;
  const now = input.now ?? new Date();
  const snippet = input.maxSnippetChars ?? 600;
  const errors: string[] = [];
  const moved = new Map<string, string>();
  let corrections: SlotItem[] = [];
  let recent: SlotItem[] = [];
  if (input.include?.corrections !== false && config.corrections_tokens > 0) {
    try {
      corrections = keptCorrectionItems((await readBounded(path.join(input.workspaceDir, CORRECTIONS_FILE_NAME), input.workspaceDir)) ?? "", snippet);
    } catch (error) {
      errors.push(`corrections: ${(error as Error).message}`);
    }
  }
  if (input.include?.recentMemory !== false && config.recent_memory_tokens > 0) {
    try {
      recent = await recentMemoryItems(input.workspaceDir, now, config.memory_retention_hours, snippet, input.leaveOut, input.excludeIds);
    } catch (error) {
      errors.push(`recent memory: ${(error as Error).message}`);
    }
  }
  const excluded = input.excludeIds;
  if (excluded) {
    corrections = corrections.filter((item) => !excluded.has(item.id));
    recent = recent.filter((item) => !excluded.has(item.id));
  }
  const hits: SlotItem[] = [];
  const hitBodies = new Map<string, string>();
  for (const hit of input.semanticHits) {
    if (excluded?.has(hit.id)) continue;
    const body = renderMemoryText(hit.text, snippet);
    if (!body) continue;
    const words = normalise(body);
    const twin = hitBodies.get(words);
    if (twin !== undefined) {
      moved.set(hit.id, twin); // the same words in two files: one memory
      continue;
    }
    hitBodies.set(words, hit.id);
    hits.push({ id: hit.id, text: hit.date ? `- [${hit.date}] ${body}` : `- ${body}` });
  }
  // A recent note the search also found is shown as the hit (it answers this turn's question); the
  // assembler's own rule (the higher slot keeps it) then keeps a correction over both.
  const hitKeys = hits.map((item) => shownMemory(item.text, item.id));
  recent = recent.filter((item) => {
    const hit = shownAs(item.text, hitKeys);
    if (hit !== undefined) moved.set(item.id, hit);
    return hit === undefined;
  });
  const contents: Record<BlockSlot, SlotItem[]> = {
    corrections,
    recent_memory: recent,
    semantic_recall: hits,
    crm: config.crm_tokens > 0 ? extensionItems("crm", input.extensions?.crm, snippet) : [],
    external: config.external_context_budget > 0 ? extensionItems("external", input.extensions?.external, snippet) : [],
  };

  // The cap: the turn's ceiling, within what context_budget_tokens leaves after the bootstrap's slots.
  const decisions: string[] = [];
  let reserved = 0;
  for (const [slot, key] of Object.entries(BOOTSTRAP_BUDGET_KEYS) as [BootstrapSlot, keyof HygieneConfig][]) {
    const injected = Math.max(0, Math.floor(input.bootstrapTokens?.[slot] ?? 0));
    const counted = Math.min(injected, config[key] as number);
    if (injected > 0) decisions.push(`${slot}: ${injected} tokens injected by the bootstrap, ${counted} counted (${key} ${config[key] as number})`);
    reserved += counted;
  }
  const contextRoom = Math.max(0, config.context_budget_tokens - reserved);
  const ceiling = Math.max(0, Math.floor(input.maxTokens));
  const cap = Math.min(ceiling, contextRoom);
  decisions.push(`block cap ${cap} tokens = min(turn ceiling ${ceiling}, context_budget_tokens ${config.context_budget_tokens} − ${reserved} for the bootstrap's slots)`);

  // Shares of the session type's ceiling, for the slots with something to show, never above a budget.
  const showing = BLOCK_SLOTS.filter((slot) => contents[slot].length > 0);
  const total = showing.reduce((sum, slot) => sum + (config[BUDGET_KEYS[slot]] as number), 0);
  const basis = Math.max(0, Math.floor(input.shareTokens ?? input.maxTokens));
  const scale = total > 0 ? Math.min(1, basis / total) : 0;
  const share = (slot: BlockSlot) => (showing.includes(slot) ? Math.floor((config[BUDGET_KEYS[slot]] as number) * scale) : 0);
  const budgets: AssemblerBudgets = {
    ...config,
    context_budget_tokens: cap,
    headroom_reserve_tokens: 0, // the caller's maxTokens is already within the window's headroom
    identity_tokens: 0,
    user_profile_tokens: 0,
    longterm_memory_tokens: 0,
    corrections_tokens: share("corrections"),
    recent_memory_tokens: share("recent_memory"),
    semantic_recall_tokens: share("semantic_recall"),
    crm_tokens: share("crm"),
    external_context_budget: share("external"),
  };
  const hitsById = new Map(input.semanticHits.map((hit) => [hit.id, hit]));
  const hitLayout = input.hitLayout;
  const layouts: Partial<Record<BlockSlot, SlotContent["layout"]>> = {
    semantic_recall: hitLayout ? (items) => hitLayout(items.flatMap((item) => hitsById.get(item.id) ?? [])) : undefined,
  };
  const result = assembleContext({
    slots: Object.fromEntries(BLOCK_SLOTS.map((slot) => [slot, { items: contents[slot], layout: layouts[slot] }])),
    config: budgets,
    modelContextWindow: cap,
    now,
    stealing: "spare-only",
  });
  for (const report of result.slots) for (const drop of report.dropped) if (drop.reason === "duplicate" && drop.of) moved.set(drop.id, drop.of);
  return { ...result, decisions: [...decisions, ...result.decisions], errors, shownAs: moved };
}
