// Prompt-cache analysis of one conversation's model requests: how much of each request a
// prefix-matching provider cache could reuse from the previous one, where the first difference
// is, and what the input would cost under Anthropic's cache multipliers.
import { estimateTokens } from "../../src/core/tokens.ts";

/** Anthropic prompt-caching price multipliers, relative to the base input price. */
export const CACHE_READ_MULTIPLIER = 0.1;
export const CACHE_WRITE_MULTIPLIER = 1.25;

/** A request flattened into one string in the order a provider reads it: tools, system, messages. */
export type FlatRequest = {
  text: string;
  system: string;
  segments: Segment[];
  /** Content blocks in cache order (tools as one block), with their end offset and whether they carry `cache_control`. */
  blocks: Block[];
};

export type Block = { end: number; breakpoint: boolean; label: string };

/** One part of a flattened request; `messageIndex` counts `messages` (not the system). */
export type Segment = { kind: "tools" | "system" | "message"; role?: string; messageIndex?: number; start: number; end: number; text: string };

export type DiffClass = "none" | "system prompt" | "older history" | "previous user message" | "new content";

export type TurnRow = {
  turn: number;
  kind: string;
  requestTokens: number;
  /** Tokens of the longest common prefix with the previous request (0 on turn 1). */
  prefixTokens: number;
  /** prefix / request, percent (0 on turn 1). */
  reusePct: number;
  /** Undefined on turn 1. */
  systemIdentical?: boolean;
  /** Where the first differing byte falls in the previous request; "none" on turn 1 or a pure append. */
  firstDiff: DiffClass;
  /** Human-readable location, e.g. "system prompt, char 31250". */
  firstDiffAt: string;
  /** ~40 chars of the previous / this request at the first difference. */
  before: string;
  after: string;
  /** The turn's `fact` appears in this request (undefined when the turn has none). */
  factReached?: boolean;
};

export type ConversationTurn = { kind: string; text: string; fact?: string };

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        if (!part || typeof part !== "object") return "";
        const p = part as Record<string, unknown>;
        if (typeof p.text === "string") return p.text;
        if (p.type === "tool_result" || p.type === "tool_use") return JSON.stringify(p);
        return "";
      })
      .join("\n");
  }
  return "";
}

/**
 * Flattens an OpenAI chat-completions body (system = `messages[0]` with role system/developer) or
 * an Anthropic messages body (top-level `system`). Roles are kept in the text so a message that
 * moves to another role is a difference, as it is for the provider.
 */
export function flattenRequest(body: Record<string, unknown>): FlatRequest {
  const segments: Segment[] = [];
  const blocks: Block[] = [];
  let text = "";
  const push = (segment: Omit<Segment, "start" | "end">, content?: unknown) => {
    const start = text.length;
    text += segment.text;
    segments.push({ ...segment, start, end: text.length });
    // Block ends: each part of an array content (parts are joined with "\n"), or the whole segment.
    const header = segment.text.indexOf("\n") + 1;
    if (segment.kind !== "tools" && Array.isArray(content)) {
      let offset = start + header;
      content.forEach((part, index) => {
        const partText = contentText([part]);
        offset += partText.length;
        blocks.push({ end: offset, breakpoint: hasCacheControl(part), label: `${segment.kind === "system" ? "system" : `message ${segment.messageIndex} (${segment.role})`} block ${index}` });
        offset += 1;
      });
    } else {
      const breakpoint = segment.kind === "tools" ? Array.isArray(body.tools) && body.tools.some(hasCacheControl) : false;
      blocks.push({ end: text.length - 1, breakpoint, label: segment.kind === "tools" ? "tools" : segment.kind === "system" ? "system" : `message ${segment.messageIndex} (${segment.role})` });
    }
  };
  push({ kind: "tools", text: `tools:${JSON.stringify(body.tools ?? [])}\n` });
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: string; content?: unknown }[]) : [];
  let system = "";
  let first = 0;
  if (body.system !== undefined) system = contentText(body.system);
  else if (messages[0] && (messages[0].role === "system" || messages[0].role === "developer")) {
    system = contentText(messages[0].content);
    first = 1;
  }
  push({ kind: "system", role: "system", text: `system:\n${system}\n` }, body.system);
  messages.slice(first).forEach((message, index) => {
    push({ kind: "message", role: message.role, messageIndex: index, text: `${message.role}:\n${contentText(message.content)}\n` }, message.content);
  });
  return { text, system, segments, blocks };
}

function hasCacheControl(part: unknown): boolean {
  return Boolean(part && typeof part === "object" && (part as { cache_control?: unknown }).cache_control);
}

export function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * Classifies the first difference by where it falls in the PREVIOUS request: in the tools or
 * system prompt, in history older than the previous turn's user message, in that message, or
 * after it (the previous turn's own tail, the reply, the new message: new content).
 */
export function classifyFirstDiff(previous: FlatRequest, prefix: number, previousTurnText: string): { diff: DiffClass; at: string } {
  if (prefix >= previous.text.length) return { diff: "none", at: "append only" };
  const segment = previous.segments.find((s) => prefix >= s.start && prefix < s.end)!;
  const offset = prefix - segment.start;
  if (segment.kind !== "message") return { diff: "system prompt", at: `${segment.kind === "tools" ? "tools" : "system prompt"}, char ${offset}` };
  const userIndex = lastIndexWhere(previous.segments, (s) => s.kind === "message" && s.role === "user" && s.text.includes(previousTurnText));
  const where = `message ${segment.messageIndex} (${segment.role}), char ${offset}`;
  if (userIndex < 0) return { diff: "older history", at: `${where}; previous user message not found` };
  const userSegment = previous.segments[userIndex]!;
  if (segment.start < userSegment.start) return { diff: "older history", at: where };
  if (segment === userSegment) return { diff: "previous user message", at: where };
  return { diff: "new content", at: where };
}

function lastIndexWhere<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i]!)) return i;
  return -1;
}

const snippet = (text: string, at: number) => JSON.stringify(text.slice(Math.max(0, at - 8), at + 32)).slice(1, -1);

/** One row per turn; `bodies[i]` is the model request of `turns[i]`. */
export function analyseConversation(turns: readonly ConversationTurn[], bodies: readonly Record<string, unknown>[]): TurnRow[] {
  const flat = bodies.map(flattenRequest);
  return flat.map((request, i) => {
    const turn = turns[i]!;
    const requestTokens = estimateTokens(request.text);
    const factReached = turn.fact === undefined ? undefined : request.text.includes(turn.fact);
    if (i === 0) {
      return { turn: 1, kind: turn.kind, requestTokens, prefixTokens: 0, reusePct: 0, firstDiff: "none", firstDiffAt: "first turn", before: "", after: "", factReached };
    }
    const previous = flat[i - 1]!;
    const prefix = commonPrefixLength(previous.text, request.text);
    const prefixTokens = Math.floor(prefix / 4);
    const { diff, at } = classifyFirstDiff(previous, prefix, turns[i - 1]!.text);
    return {
      turn: i + 1,
      kind: turn.kind,
      requestTokens,
      prefixTokens,
      reusePct: (100 * prefixTokens) / requestTokens,
      systemIdentical: previous.system === request.system,
      firstDiff: diff,
      firstDiffAt: at,
      before: snippet(previous.text, prefix),
      after: snippet(request.text, prefix),
      factReached,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Cost model

export type CostAssumptions = {
  /** Turns to extrapolate to. */
  turns: number;
  /** Tokens of new history each extrapolated turn adds (a real reply and question; the mock's replies are tiny). */
  historyTokensPerTurn: number;
};

export const DEFAULT_COST_ASSUMPTIONS: CostAssumptions = { turns: 40, historyTokensPerTurn: 600 };

/** Input cost of one turn in base-price tokens: the common prefix is read, the rest written. */
export function turnCost(requestTokens: number, prefixTokens: number): number {
  return CACHE_READ_MULTIPLIER * prefixTokens + CACHE_WRITE_MULTIPLIER * (requestTokens - prefixTokens);
}

/** Modeled input cost of the measured turns (turn 1 writes everything). */
export function measuredCost(rows: readonly TurnRow[]): number {
  return rows.reduce((sum, row) => sum + turnCost(row.requestTokens, row.prefixTokens), 0);
}

/**
 * Measured turns, then turns up to `assumptions.turns` that repeat the measured pattern of turns
 * 2..N in order: each adds `historyTokensPerTurn` tokens to the request. A turn whose first
 * difference was in the system prompt or older history re-reads only the same prefix as measured
 * (everything after it, the growing history included, is written again); any other turn re-writes
 * the same number of tail tokens of the previous request as measured, plus the new tokens.
 */
export function extrapolatedCost(rows: readonly TurnRow[], assumptions: CostAssumptions = DEFAULT_COST_ASSUMPTIONS): number {
  let cost = measuredCost(rows);
  const pattern = rows.slice(1);
  if (pattern.length === 0) return cost;
  let previousTokens = rows[rows.length - 1]!.requestTokens;
  for (let turn = rows.length + 1, k = 0; turn <= assumptions.turns; turn++, k++) {
    const model = pattern[k % pattern.length]!;
    const modelPrevious = rows[model.turn - 2]!.requestTokens;
    const requestTokens = previousTokens + assumptions.historyTokensPerTurn;
    const prefixTokens =
      model.firstDiff === "system prompt" || model.firstDiff === "older history"
        ? model.prefixTokens
        : Math.max(0, previousTokens - (modelPrevious - model.prefixTokens));
    cost += turnCost(requestTokens, Math.min(prefixTokens, previousTokens));
    previousTokens = requestTokens;
  }
  return cost;
}

// ---------------------------------------------------------------------------------------------
// Anthropic explicit breakpoints

/** Anthropic checks for cache hits at block boundaries up to this many blocks before a breakpoint. */
export const ANTHROPIC_LOOKBACK_BLOCKS = 20;

export type BreakpointRow = {
  turn: number;
  /** Where each breakpoint of this request sits. */
  breakpoints: { label: string; tokens: number; readableNextTurn?: boolean; carries?: string }[];
  /** Tokens read from entries earlier requests wrote (Anthropic's rules, modeled). */
  readTokens: number;
  requestTokens: number;
};

/**
 * Where OpenClaw put `cache_control` on each request, whether the entry each breakpoint writes
 * is a prefix of the next request (readable) or not, and how much of each request the entries
 * written so far let Anthropic read: a hit is an earlier breakpoint's exact prefix ending at a
 * block boundary at most 20 blocks before one of this request's breakpoints.
 * `markers` names content to look for in a breakpoint's block (e.g. a memory fact).
 */
export function analyseBreakpoints(bodies: readonly Record<string, unknown>[], markers: readonly string[] = []): BreakpointRow[] {
  const flat = bodies.map(flattenRequest);
  const entries = new Set<string>();
  return flat.map((request, i) => {
    let readChars = 0;
    request.blocks.forEach((block, b) => {
      if (!block.breakpoint) return;
      for (let j = b; j >= Math.max(0, b - ANTHROPIC_LOOKBACK_BLOCKS); j--) {
        const end = request.blocks[j]!.end;
        if (end > readChars && entries.has(request.text.slice(0, end))) readChars = end;
      }
    });
    const next = flat[i + 1];
    const breakpoints = request.blocks
      .map((block, b) => ({ block, start: b === 0 ? 0 : request.blocks[b - 1]!.end }))
      .filter(({ block }) => block.breakpoint)
      .map(({ block, start }) => {
        const content = request.text.slice(start, block.end);
        const carries = markers.filter((marker) => content.includes(marker)).join(", ") || undefined;
        return {
          label: block.label,
          tokens: estimateTokens(request.text.slice(0, block.end)),
          readableNextTurn: next ? next.text.startsWith(request.text.slice(0, block.end)) : undefined,
          carries,
        };
      });
    for (const block of request.blocks) if (block.breakpoint) entries.add(request.text.slice(0, block.end));
    return { turn: i + 1, breakpoints, readTokens: Math.floor(readChars / 4), requestTokens: estimateTokens(request.text) };
  });
}

/** Modeled input cost with Anthropic's breakpoint reads instead of the longest common prefix. */
export function breakpointCost(rows: readonly BreakpointRow[]): number {
  return rows.reduce((sum, row) => sum + turnCost(row.requestTokens, row.readTokens), 0);
}

/**
 * 40-turn estimate under the breakpoint reads: like extrapolatedCost, each later turn repeats the
 * measured pattern and adds `historyTokensPerTurn`; it re-writes the same tail as measured and,
 * when the turn before wrote an unreadable message entry (a memory turn), also that turn's new
 * history, because Anthropic can then only read the entry of the turn before it.
 */
export function extrapolatedBreakpointCost(rows: readonly BreakpointRow[], assumptions: CostAssumptions = DEFAULT_COST_ASSUMPTIONS): number {
  let cost = breakpointCost(rows);
  const pattern = rows.slice(1);
  if (pattern.length === 0) return cost;
  const unreadable = (row: BreakpointRow) => row.breakpoints.some((bp) => bp.label.startsWith("message") && bp.readableNextTurn === false);
  let previousTokens = rows[rows.length - 1]!.requestTokens;
  for (let turn = rows.length + 1, k = 0; turn <= assumptions.turns; turn++, k++) {
    const model = pattern[k % pattern.length]!;
    const before = rows[model.turn - 2]!;
    const requestTokens = previousTokens + assumptions.historyTokensPerTurn;
    const lost = unreadable(before) ? assumptions.historyTokensPerTurn : 0;
    const readTokens = Math.max(0, previousTokens - (before.requestTokens - model.readTokens) - lost);
    cost += turnCost(requestTokens, readTokens);
    previousTokens = requestTokens;
  }
  return cost;
}
