import fs from "node:fs/promises";
import path from "node:path";
import { readRegularFile } from "../fs/safe-read.ts";
import { assembleContext } from "./assembler.ts";
import type { AssemblerBudgets, AssemblerResult, SlotItem } from "./assembler.ts";
import { renderMemoryText } from "../memory/neutralise.ts";
import type { RetrievedMemory } from "../memory/types.ts";
import { HYGIENE_CONFIG_DEFAULTS } from "../memory/config-md.ts";
import type { HygieneConfig } from "../memory/config-md.ts";
import { CLOSED_CORRECTION_STATUSES, CORRECTIONS_FILE_NAME, correctionStatement, parseCorrections } from "../capture/corrections.ts";
import { isSupersededEntry } from "../capture/capture.ts";
import { isSecretEntry } from "../memory/secrets.ts";
import { parseMemoryEntries, stripMemoryMetadata } from "../memory/confidence.ts";

// The ethos-context hook's injected block through the §6 assembler: open corrections (slot 3),
// memory from the last `memory_retention_hours` (slot 4) and the semantic hits (slot 5) share the
// hook's token ceiling in proportion to their CONFIG.md budgets, so a fresh correction or
// yesterday's note competes with the retrieval hits instead of being invisible to them. SOUL.md,
// USER.md and MEMORY.md are not included: OpenClaw already injects them as bootstrap files.
//
// Every file read is bounded; workspace text is untrusted and goes through renderMemoryText.

export const MAX_SLOT_FILE_BYTES = 256 * 1024;
export const MAX_RECENT_FILES = 16;
const DAILY_FILE = /^(\d{4}-\d{2}-\d{2})(?:-[^/\\]*)?\.md$/;
export type MemoryBlockInput = {
  workspaceDir: string;
  semanticHits: readonly RetrievedMemory[];
  /** The hook's ceiling for its injected block, in tokens. */
  maxTokens: number;
  now?: Date;
  config?: HygieneConfig;
  /** Longest single entry, in characters (default 600). */
  maxSnippetChars?: number;
  include?: { corrections?: boolean; recentMemory?: boolean };
  /** Item ids already injected earlier in the session: left out (never injected twice). */
  excludeIds?: ReadonlySet<string>;
  /** Recent-memory entries (raw text, metadata included) to leave out of this block. */
  leaveOut?: (entryText: string) => boolean;
};

export type MemoryBlockResult = AssemblerResult & { errors: string[] };

/** A workspace file's text through the shared safe reader (regular file, contained, bounded); null when unusable. */
async function readBounded(file: string, workspaceDir: string): Promise<string | null> {
  const read = await readRegularFile(file, { maxBytes: MAX_SLOT_FILE_BYTES, root: workspaceDir, truncate: true });
  if (read.ok) return read.bytes.toString("utf8");
  if (read.reason === "missing") return null;
  throw new Error(`${path.basename(file)}: ${read.reason}${read.detail ? ` (${read.detail})` : ""}`);
}

/** Open CORRECTIONS.md entries as assembler items (verified / re-embedded flags kept for ordering). */
export function correctionItems(markdown: string, maxSnippetChars: number): SlotItem[] {
  return parseCorrections(markdown)
    .filter((entry) => !CLOSED_CORRECTION_STATUSES.has(entry.status))
    .map((entry) => {
      const day = entry.loggedAt?.toISOString().slice(0, 10) ?? "undated";
      const state = entry.verified ? "verified" : "unverified";
      const text = renderMemoryText(correctionStatement(entry), maxSnippetChars);
      return { id: entry.id, text: text ? `- [${day}, ${state}] ${text}` : "", timestamp: entry.loggedAt, verified: entry.verified, reEmbedded: entry.reEmbedded };
    });
}

/** Entries of `memory/YYYY-MM-DD*.md` files dated within the retention window, newest first. */
export async function recentMemoryItems(
  workspaceDir: string,
  now: Date,
  retentionHours: number,
  maxSnippetChars: number,
  leaveOut: (entryText: string) => boolean = () => false,
): Promise<SlotItem[]> {
  const dir = path.join(workspaceDir, "memory");
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return [];
  }
  const oldestDay = new Date(now.getTime() - retentionHours * 3_600_000).toISOString().slice(0, 10);
  const today = now.toISOString().slice(0, 10);
  const files = names
    .filter((name) => {
      const day = DAILY_FILE.exec(name)?.[1];
      return day !== undefined && day >= oldestDay && day <= today;
    })
    .sort()
    .reverse()
    .slice(0, MAX_RECENT_FILES);
  const items: SlotItem[] = [];
  for (const name of files) {
    const file = path.join(dir, name);
    const read = await readRegularFile(file, { maxBytes: MAX_SLOT_FILE_BYTES, root: workspaceDir, truncate: true });
    if (!read.ok) continue; // a FIFO, a link out of the workspace, a vanished file: not a memory
    const text = read.bytes.toString("utf8");
    if (!text) continue;
    const day = DAILY_FILE.exec(name)![1];
    const timestamp = new Date(Math.min(read.mtimeMs, now.getTime()));
    const entries = parseMemoryEntries(text).reverse(); // later entries in a day file are newer
    entries.forEach((entry, index) => {
      // A superseded captured fact is history, not current memory (its line stays for the operator).
      // A secret (or its withheld marker) is never replayed for being recent: only a search finds it.
      if (isSupersededEntry(entry.text) || isSecretEntry(entry.text) || leaveOut(entry.text)) return;
      const body = renderMemoryText(stripMemoryMetadata(entry.text).replace(/^([-*+]|\d+[.)])\s+/, ""), maxSnippetChars);
      if (body) items.push({ id: `${name}#${entries.length - index}`, text: `- [${day}] ${body}`, timestamp });
    });
  }
  return items;
}

function normalise(text: string): string {
  return text.toLowerCase().replace(/\W+/g, " ").trim();
}

/**
 * The hook's block: corrections + recent memory + semantic hits, assembled under `maxTokens`.
 * Never throws for missing or unreadable files: those come back in `errors` and the slot is empty.
 */
export async function assembleMemoryBlock(input: MemoryBlockInput): Promise<MemoryBlockResult> {
  const config = input.config ?? HYGIENE_CONFIG_DEFAULTS;
  const now = input.now ?? new Date();
  const snippet = input.maxSnippetChars ?? 600;
  const errors: string[] = [];
  let corrections: SlotItem[] = [];
  let recent: SlotItem[] = [];
  if (input.include?.corrections !== false) {
    try {
      corrections = correctionItems((await readBounded(path.join(input.workspaceDir, CORRECTIONS_FILE_NAME), input.workspaceDir)) ?? "", snippet);
    } catch (error) {
      errors.push(`corrections: ${(error as Error).message}`);
    }
  }
  if (input.include?.recentMemory !== false) {
    try {
      recent = await recentMemoryItems(input.workspaceDir, now, config.memory_retention_hours, snippet, input.leaveOut);
    } catch (error) {
      errors.push(`recent memory: ${(error as Error).message}`);
    }
  }
  const excluded = input.excludeIds;
  if (excluded) {
    corrections = corrections.filter((item) => !excluded.has(item.id));
    recent = recent.filter((item) => !excluded.has(item.id));
  }
  // A semantic hit that repeats a recent entry or a correction is shown once, in the earlier slot.
  const seen = new Set([...corrections, ...recent].map((item) => normalise(item.text.replace(/^- \[[^\]]*\] /, ""))));
  const hits: SlotItem[] = [];
  for (const hit of input.semanticHits) {
    if (excluded?.has(hit.id)) continue;
    const body = renderMemoryText(hit.text, snippet);
    if (!body || seen.has(normalise(body))) continue;
    seen.add(normalise(body));
    hits.push({ id: hit.id, text: `- [${hit.date ?? "undated"}] ${body}` });
  }

  // Share the hook's ceiling between the three slots in proportion to their CONFIG.md budgets.
  const cap = Math.max(0, Math.floor(input.maxTokens));
  const weights = { corrections: config.corrections_tokens, recent: config.recent_memory_tokens, semantic: config.semantic_recall_tokens };
  const total = weights.corrections + weights.recent + weights.semantic || 1;
  const share = (w: number) => Math.floor((cap * w) / total);
  const budgets: AssemblerBudgets = {
    ...config,
    context_budget_tokens: cap,
    headroom_reserve_tokens: 0,
    identity_tokens: 0,
    user_profile_tokens: 0,
    corrections_tokens: share(weights.corrections),
    recent_memory_tokens: share(weights.recent),
    semantic_recall_tokens: cap - share(weights.corrections) - share(weights.recent),
    crm_tokens: 0,
    longterm_memory_tokens: 0,
    external_context_budget: 0,
  };
  const result = assembleContext({
    slots: { corrections: { items: corrections }, recent_memory: { items: recent }, semantic_recall: { items: hits } },
    config: budgets,
    modelContextWindow: cap,
    now,
    stealing: "spare-only",
  });
  return { ...result, errors };
}
