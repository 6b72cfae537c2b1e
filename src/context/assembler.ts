import { CHARS_PER_TOKEN, estimateTokens } from "../core/tokens.ts";
import { boundedMemo } from "../core/memo.ts";
import { HYGIENE_CONFIG_DEFAULTS } from "../memory/config-md.ts";
import type { HygieneConfig } from "../memory/config-md.ts";

// Context assembler (persistent memory spec §6), a pure function: slot contents + CONFIG.md budgets
// + the model's context window in, the assembled blocks and a report of every decision out.
//
//  1. Budgets. Each slot starts with its CONFIG.md budget and claims min(budget, what it needs).
//  2. Stealing. In priority order, a slot that needs more takes budget from lower-priority slots,
//     lowest priority first: first their spare budget (budget they do not need), then budget they
//     use. So a higher-priority slot only ever goes short once every lower slot is empty.
//     (Option `stealing: "spare-only"` moves only spare budget; see AssemblerInput.) Then budget
//     still unused anywhere (say a higher slot with little content) goes to the slots still short,
//     in priority order.
//  3. Fitting. The cap is min(context_budget_tokens, model_context_window − headroom_reserve_tokens
//     − system_prompt_tokens). While the claims exceed it, cut from slot 8 up to slot 1.
//  4. Rendering. Each slot fills its allocation item by item, in its order (corrections ordered by
//     correction_overflow_strategy). Items are whole; only a slot's first item may be cut (at a
//     line end when possible), so a long SOUL.md still contributes its head.
//
// Token arithmetic uses estimateTokens (ceil(chars / 4)). A slot's block plus its "\n\n" separator
// stays within allocation × 4 characters, so estimateTokens(assembled text) ≤ the sum of the
// allocations ≤ the cap, whatever the content.

export const SLOTS = [
  "identity",
  "operator_profile",
  "corrections",
  "recent_memory",
  "semantic_recall",
  "crm",
  "longterm_memory",
  "external",
] as const;
export type SlotName = (typeof SLOTS)[number];

/** CONFIG.md key of each slot's budget. */
type SlotBudgetKey =
  | "identity_tokens"
  | "user_profile_tokens"
  | "corrections_tokens"
  | "recent_memory_tokens"
  | "semantic_recall_tokens"
  | "crm_tokens"
  | "longterm_memory_tokens"
  | "external_context_budget";

const SLOT_BUDGET_KEYS: Record<SlotName, SlotBudgetKey> = {
  identity: "identity_tokens",
  operator_profile: "user_profile_tokens",
  corrections: "corrections_tokens",
  recent_memory: "recent_memory_tokens",
  semantic_recall: "semantic_recall_tokens",
  crm: "crm_tokens",
  longterm_memory: "longterm_memory_tokens",
  external: "external_context_budget",
};

const SLOT_TITLES: Record<SlotName, string> = {
  identity: "Identity (SOUL.md)",
  operator_profile: "Operator profile (USER.md)",
  corrections: "Corrections (CORRECTIONS.md)",
  recent_memory: "Recent memory",
  semantic_recall: "Relevant memories",
  crm: "People and organisations",
  longterm_memory: "Long-term memory (MEMORY.md)",
  external: "External context",
};

export type SlotItem = {
  /** Stable id for the report. */
  id: string;
  /** Text as it should appear (already neutralised by the caller where the text is untrusted). */
  text: string;
  /** When the item was written/mentioned: recency order, the recent-memory window, correction order. */
  timestamp?: Date;
  /** Corrections: verified after the cool-down (spec §5.3). */
  verified?: boolean;
  /** Corrections: re-embedded into the memory stores. */
  reEmbedded?: boolean;
};

export type SlotContent = {
  items: SlotItem[];
  /** Heading line of the block; default SLOT_TITLES[slot]; "" for none. */
  title?: string;
  /**
   * The slot's text for these items, when the caller lays the slot out itself (the search hits in
   * the compact layout): what the slot needs and keeps is measured on it, and its items are never cut.
   */
  layout?: (items: readonly SlotItem[]) => string;
};

export type AssemblerBudgets = Pick<
  HygieneConfig,
  SlotBudgetKey | "context_budget_tokens" | "headroom_reserve_tokens" | "memory_retention_hours" | "correction_overflow_strategy"
>;

export type AssemblerInput = {
  slots: Partial<Record<SlotName, SlotContent>>;
  config?: AssemblerBudgets;
  modelContextWindow: number;
  systemPromptTokens?: number;
  /** Needed for the recent-memory window; items without a timestamp are always kept. */
  now?: Date;
  /**
   * "spare-then-used" (default, spec §6): strict priority, a higher slot may take budget a lower
   * slot is using. "spare-only": slots keep their own budget and only unused budget moves, for
   * callers that want slots to share a small ceiling (see hygiene/memory-block.ts).
   */
  stealing?: "spare-then-used" | "spare-only";
};

type StealRecord = { from: SlotName; tokens: number; spare: boolean };

type SlotReport = {
  slot: SlotName;
  priority: number;
  budget: number;
  demand: number;
  allocated: number;
  used: number;
  itemsIn: number;
  itemsKept: number;
  /** An item was dropped or cut for lack of room (not for being outside the recent window). */
  truncated: boolean;
  stolen: StealRecord[];
  /** `of`: for a duplicate, the id of the item in a higher slot that shows the same memory. */
  dropped: Array<{ id: string; reason: "stale" | "budget" | "duplicate"; of?: string }>;
  cut?: { id: string; keptChars: number; fullChars: number };
};

type AssembledBlock = { slot: SlotName; text: string; tokens: number; itemIds: string[] };

export type AssemblerResult = {
  blocks: AssembledBlock[];
  /** The blocks joined by blank lines. */
  text: string;
  tokens: number;
  cap: number;
  maxInjectable: number;
  slots: SlotReport[];
  /** Every decision, in order, in words. */
  decisions: string[];
};

const SEPARATOR = "\n\n";
const CUT_MARK = " …[truncated]";

function charsFor(tokens: number): number {
  return tokens * CHARS_PER_TOKEN;
}

/** Tokens a rendered block costs including its separator (the accounting unit of this module). */
function blockCost(text: string): number {
  return text ? estimateTokens(text + SEPARATOR) : 0;
}

function render(title: string, lines: readonly string[]): string {
  if (lines.length === 0) return "";
  return title ? `## ${title}\n${lines.join("\n")}` : lines.join("\n");
}

/** prioritize_unverified: not re-embedded first, then unverified, then newest; so the oldest verified go first. */
export function orderCorrections(items: readonly SlotItem[], strategy: AssemblerBudgets["correction_overflow_strategy"]): SlotItem[] {
  const time = (item: SlotItem) => item.timestamp?.getTime() ?? 0;
  return [...items].sort((a, b) => {
    if (strategy === "prioritize_unverified") {
      const embedded = Number(a.reEmbedded === true) - Number(b.reEmbedded === true);
      if (embedded !== 0) return embedded;
      const verified = Number(a.verified === true) - Number(b.verified === true);
      if (verified !== 0) return verified;
    }
    return time(b) - time(a);
  });
}

/** Cut `text` to at most `maxChars` (mark included), preferring a line end. "" when nothing useful fits. */
function cutText(text: string, maxChars: number): string {
  const room = maxChars - CUT_MARK.length;
  if (room < 16) return "";
  let head = text.slice(0, room);
  const lineEnd = head.lastIndexOf("\n");
  if (lineEnd >= room / 2) head = head.slice(0, lineEnd);
  return head.trimEnd() + CUT_MARK;
}

type Prepared = {
  slot: SlotName;
  title: string;
  items: SlotItem[];
  full: string;
  stale: SlotItem[];
  duplicates: { item: SlotItem; of: string }[];
  /** The slot's text for a prefix of its items. */
  text: (items: readonly SlotItem[]) => string;
  /** A caller's layout: items are kept whole. */
  custom: boolean;
};

/** The words of a memory, without its "- [date, state] " label, metadata comments, case and punctuation. */
// The same notes come back turn after turn (the Recent-memory slot's hundreds): keyed once (bounded).
export const factKey: (text: string) => string = boundedMemo(8192, (text: string) =>
  text
    .replace(/^\s*[-*+]\s+\[[^\]]*\]\s*/, "")
    .replace(/<!--[\s\S]*?-->/g, " ")
    .toLowerCase()
    .replace(/[\W_]+/g, " ")
    .trim(),
);

/** Shorter than this, containment says little (a one-word note is in many others)… */
const MIN_CONTAINED_CHARS = 24;
/** …unless it is a statement of its own: "my cat is miso" inside "no, you forgot: my cat is miso". */
const MIN_CONTAINED_WORDS = 4;

/** Does `outer` hold all of `inner`, word for word (never half a word)? */
function holdsWords(outer: string, inner: string): boolean {
  if (inner.length < MIN_CONTAINED_CHARS && !hasWords(inner, MIN_CONTAINED_WORDS)) return false;
  // Keys are words joined by single spaces (factKey): `inner` must start and end at word edges.
  for (let at = outer.indexOf(inner); at !== -1; at = outer.indexOf(inner, at + 1)) {
    const end = at + inner.length;
    if ((at === 0 || outer.charCodeAt(at - 1) === SPACE) && (end === outer.length || outer.charCodeAt(end) === SPACE)) return true;
  }
  return false;
}

const SPACE = 32;

/** Does the key hold at least `count` words? (Counted without splitting: this runs for every pair of shown items.) */
function hasWords(key: string, count: number): boolean {
  if (key.length === 0) return false;
  let words = 1;
  for (let at = key.indexOf(" "); at !== -1 && words < count; at = key.indexOf(" ", at + 1)) words++;
  return words >= count;
}

/** A memory already in the block, as `shownAs` compares with it. */
export type ShownMemory = { id: string; key: string; bits: number };

export function shownMemory(text: string, id: string): ShownMemory {
  const key = factKey(text);
  return { id, key, bits: wordBits(key) };
}

// Each word of a key sets one of 32 bits, so a key that holds another has all the other's bits:
// most pairs (hundreds of recent notes against the hits, every turn) differ there, with no search.
const wordBits = boundedMemo(8192, (key: string): number => {
  let bits = 0;
  let hash = 0;
  for (let i = 0; i <= key.length; i++) {
    const code = i < key.length ? key.charCodeAt(i) : SPACE;
    if (code === SPACE) {
      bits |= 1 << (hash & 31);
      hash = 0;
    } else {
      hash = (Math.imul(hash, 31) + code) | 0;
    }
  }
  return bits;
});

/**
 * The shown memory this text repeats, or undefined: equal words, or one text holds the other whole
 * (a search hit is often a longer chunk of the same note; a correction quotes the fact it corrects).
 */
export function shownAs(text: string, shown: readonly ShownMemory[]): string | undefined {
  const { key, bits } = shownMemory(text, "");
  if (!key) return undefined;
  return shown.find((other) => other.key === key || ((bits & ~other.bits) === 0 && holdsWords(other.key, key)) || ((other.bits & ~bits) === 0 && holdsWords(key, other.key)))?.id;
}

/** The largest n in [0, count] with fits(n), for a fits() that holds up to some n and not after it. */
function longestFittingPrefix(count: number, fits: (n: number) => boolean): number {
  let low = 0;
  let high = count;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(mid)) low = mid;
    else high = mid - 1;
  }
  return low;
}

export function assembleContext(input: AssemblerInput): AssemblerResult {
  const config = input.config ?? HYGIENE_CONFIG_DEFAULTS;
  const decisions: string[] = [];
  const maxInjectable = Math.max(0, Math.floor(input.modelContextWindow - config.headroom_reserve_tokens - (input.systemPromptTokens ?? 0)));
  const cap = Math.max(0, Math.min(config.context_budget_tokens, maxInjectable));
  decisions.push(
    `cap ${cap} tokens = min(context_budget_tokens ${config.context_budget_tokens}, model window ${input.modelContextWindow} − headroom ${config.headroom_reserve_tokens} − system prompt ${input.systemPromptTokens ?? 0} = ${maxInjectable})`,
  );

  // What each slot would need at full size. The same memory in two slots (a search hit that is
  // also a recent note) is kept once, in the higher-priority slot.
  const shown: ShownMemory[] = [];
  const prepared: Prepared[] = SLOTS.map((slot) => {
    const content = input.slots[slot];
    let items = (content?.items ?? []).filter((item) => item.text.trim() !== "");
    let stale: SlotItem[] = [];
    if (slot === "recent_memory" && input.now) {
      const oldest = input.now.getTime() - config.memory_retention_hours * 3_600_000;
      stale = items.filter((item) => item.timestamp && item.timestamp.getTime() < oldest);
      items = items.filter((item) => !stale.includes(item));
      if (stale.length) decisions.push(`recent_memory: ${stale.length} item(s) older than memory_retention_hours ${config.memory_retention_hours} left out`);
    }
    if (slot === "corrections") items = orderCorrections(items, config.correction_overflow_strategy);
    const duplicates: Prepared["duplicates"] = [];
    for (const item of items) {
      const of = shownAs(item.text, shown);
      if (of !== undefined) duplicates.push({ item, of });
    }
    if (duplicates.length) {
      items = items.filter((item) => !duplicates.some((duplicate) => duplicate.item === item));
      decisions.push(`${slot}: ${duplicates.length} item(s) already shown in a higher slot left out`);
    }
    for (const item of items) shown.push(shownMemory(item.text, item.id));
    const title = content?.title ?? SLOT_TITLES[slot];
    const layout = content?.layout;
    const text = (kept: readonly SlotItem[]) => (kept.length === 0 ? "" : layout ? layout(kept) : render(title, kept.map((item) => item.text)));
    return { slot, title, items, stale, duplicates, full: text(items), text, custom: layout !== undefined };
  });

  const budget = SLOTS.map((slot) => Math.max(0, Math.floor(config[SLOT_BUDGET_KEYS[slot]] || 0)));
  const demand = prepared.map((p) => blockCost(p.full));
  const claim = demand.map((d, i) => Math.min(d, budget[i]));
  const available = [...budget]; // budget each slot still owns (changes as budget is stolen)
  const stolen: StealRecord[][] = SLOTS.map(() => []);

  // 2. Stealing, in priority order, from the lowest-priority slot first: spare budget, then used budget.
  for (let i = 0; i < SLOTS.length; i++) {
    for (const spareOnly of input.stealing === "spare-only" ? [true] : [true, false]) {
      for (let j = SLOTS.length - 1; j > i && claim[i] < demand[i]; j--) {
        const takeable = spareOnly ? available[j] - claim[j] : claim[j];
        const take = Math.min(takeable, demand[i] - claim[i]);
        if (take <= 0) continue;
        available[j] -= take;
        if (!spareOnly) claim[j] -= take;
        available[i] += take;
        claim[i] += take;
        stolen[i].push({ from: SLOTS[j], tokens: take, spare: spareOnly });
        decisions.push(`${SLOTS[i]} needs ${demand[i]} > budget ${budget[i]}: took ${take} ${spareOnly ? "spare" : "in-use"} tokens from ${SLOTS[j]}`);
      }
    }
  }

  // 2b. Budget still unused anywhere (e.g. a higher slot with little content) goes to slots still
  //     short, in priority order, so a short slot is never starved next to idle budget.
  for (let i = 0; i < SLOTS.length; i++) {
    for (let j = SLOTS.length - 1; j >= 0 && claim[i] < demand[i]; j--) {
      const take = j === i ? 0 : Math.min(available[j] - claim[j], demand[i] - claim[i]);
      if (take <= 0) continue;
      available[j] -= take;
      available[i] += take;
      claim[i] += take;
      stolen[i].push({ from: SLOTS[j], tokens: take, spare: true });
      decisions.push(`${SLOTS[i]} needs ${demand[i]} > budget ${budget[i]}: took ${take} unused tokens from ${SLOTS[j]}`);
    }
  }

  // 3. Fit under the cap, cutting from slot 8 up to slot 1.
  let excess = claim.reduce((a, b) => a + b, 0) - cap;
  for (let j = SLOTS.length - 1; j >= 0 && excess > 0; j--) {
    const cut = Math.min(claim[j], excess);
    if (cut <= 0) continue;
    claim[j] -= cut;
    excess -= cut;
    decisions.push(`over the cap: ${SLOTS[j]} cut by ${cut} tokens to ${claim[j]}`);
  }

  // 4. Render each slot into its allocation.
  const blocks: AssembledBlock[] = [];
  const reports: SlotReport[] = prepared.map((p, i) => {
    const report: SlotReport = {
      slot: p.slot,
      priority: i + 1,
      budget: budget[i],
      demand: demand[i],
      allocated: claim[i],
      used: 0,
      itemsIn: p.items.length + p.stale.length + p.duplicates.length,
      itemsKept: 0,
      truncated: false,
      stolen: stolen[i],
      dropped: [...p.stale.map((item) => ({ id: item.id, reason: "stale" as const })), ...p.duplicates.map(({ item, of }) => ({ id: item.id, reason: "duplicate" as const, of }))],
    };
    if (p.items.length === 0) return report;
    const maxChars = charsFor(claim[i]) - SEPARATOR.length;
    const lines: string[] = [];
    const keptItems: SlotItem[] = [];
    const kept: string[] = [];
    // A slot keeps a prefix of its ordered items: once one is left out, the rest are too. A slot's
    // text never gets shorter with more items, so the longest prefix that fits is found in log(n)
    // renderings, not one per item (a caller's layout renders every item of its prefix again).
    const fitting = longestFittingPrefix(p.items.length, (n) => p.text(p.items.slice(0, n)).length <= maxChars);
    for (const [index, item] of p.items.entries()) {
      if (index < fitting) {
        lines.push(item.text);
        keptItems.push(item);
        kept.push(item.id);
        continue;
      }
      if (index === 0 && !p.custom) {
        const cut = cutText(item.text, maxChars - render(p.title, [""]).length);
        if (cut) {
          lines.push(cut);
          kept.push(item.id);
          report.cut = { id: item.id, keptChars: cut.length - CUT_MARK.length, fullChars: item.text.length };
          decisions.push(`${p.slot}: item ${item.id} cut to ${cut.length} of ${item.text.length} chars`);
          continue;
        }
      }
      report.dropped.push({ id: item.id, reason: "budget" });
    }
    const budgetDrops = report.dropped.filter((d) => d.reason === "budget").length;
    report.truncated = budgetDrops > 0 || report.cut !== undefined;
    if (budgetDrops > 0) decisions.push(`${p.slot}: ${budgetDrops} item(s) left out for lack of room (allocated ${claim[i]} tokens)`);
    const text = report.cut ? render(p.title, lines) : p.text(keptItems);
    report.itemsKept = kept.length;
    report.used = blockCost(text);
    if (text) blocks.push({ slot: p.slot, text, tokens: report.used, itemIds: kept });
    return report;
  });

  const text = blocks.map((b) => b.text).join(SEPARATOR);
  return { blocks, text, tokens: estimateTokens(text), cap, maxInjectable, slots: reports, decisions };
}
