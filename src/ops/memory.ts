import path from "node:path";
import { expandHome } from "../core/paths.ts";
import { forgetHistory, otherMentions, readForgetLog } from "../capture/forget.ts";
import type { ForgetOutcome, ForgetRecord, UnforgetOutcome } from "../capture/forget.ts";
import { readMemoryFacts, requestMatcher } from "../capture/memory-facts.ts";
import type { FactPlace, MemoryFact } from "../capture/memory-facts.ts";
import { parseMemoryMetadata } from "../memory/confidence.ts";
import { redactSecrets } from "../memory/secrets.ts";
import { defaultIndexCacheDir } from "../memory/sources.ts";
import type { Invocation } from "./commands/command.ts";

// What `memory list | show | forget | unforget` print: the workspace's facts, one fact with every
// place it is in, what a forget changed and how to undo it. Secret values are shown withheld
// whatever the files hold (this is a terminal, often shared or logged).

const STATEMENT_CHARS = 120;

const shown = (text: string, max = STATEMENT_CHARS) => {
  const flat = redactSecrets(text).replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};
const where = (place: FactPlace) => `${place.rel}:${place.line}`;
const newestCapture = (fact: MemoryFact) => fact.places.map((p) => p.capturedAt ?? "").sort().pop() ?? "";
const isCaptured = (fact: MemoryFact) => fact.places.some((p) => p.captured);
const utc = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

export type FactListOptions = { all: boolean; words?: string; limit: number };
export type FactList = { facts: MemoryFact[]; captured: number; handWritten: number; shown: MemoryFact[] };

/** Captured facts newest first, then (with `all`) hand-written entries in file order; filtered by words. */
export async function listFacts(workspace: string, options: FactListOptions): Promise<FactList> {
  const facts = await readMemoryFacts(workspace);
  const matcher = options.words ? requestMatcher(options.words) : undefined;
  const wanted = facts.filter((fact) => !matcher || matcher.mentionedIn(fact.statement));
  const captured = wanted.filter(isCaptured).sort((a, b) => newestCapture(b).localeCompare(newestCapture(a)));
  const handWritten = wanted.filter((fact) => !isCaptured(fact));
  return { facts, captured: captured.length, handWritten: handWritten.length, shown: [...captured, ...(options.all ? handWritten : [])].slice(0, options.limit) };
}

function factLine(fact: MemoryFact): string {
  const captured = fact.places.find((p) => p.captured);
  const origin = captured?.capturedAt ? `captured ${utc(captured.capturedAt)}` : "hand-written";
  const state = fact.places.every((p) => p.superseded) ? " (superseded)" : "";
  const more = fact.places.length > 1 ? ` (+${fact.places.length - 1} more)` : "";
  return `  ${fact.id}  ${origin}${state}  ${shown(fact.statement)}  ${where(captured ?? fact.places[0])}${more}`;
}

export function formatFactList(workspace: string, list: FactList, options: FactListOptions, invocation: Invocation): string {
  const filter = options.words ? ` mentioning "${options.words}"` : "";
  const hidden = options.all || list.handWritten === 0 ? "" : `; ${list.handWritten} hand-written not shown (--all shows them)`;
  const out = [`Memory of ${workspace}${filter}: ${list.captured} captured${options.all ? `, ${list.handWritten} hand-written` : ""}${hidden}`];
  if (list.shown.length === 0) out.push("  nothing");
  for (const fact of list.shown) out.push(factLine(fact));
  const total = list.captured + (options.all ? list.handWritten : 0);
  if (total > list.shown.length) out.push(`  … ${total - list.shown.length} more (--limit <n>)`);
  out.push(`Details: ${invocation.line("memory", "show <id>")}   Forget: ${invocation.line("memory", "forget <id>")}`);
  return out.join("\n");
}

/** One fact: every memory file place with its entry, and the bundle's other files that mention it. */
export async function formatFact(workspace: string, fact: MemoryFact, invocation: Invocation): Promise<string> {
  const out = [`${fact.id}  ${shown(fact.statement, 400)}`];
  for (const place of fact.places) {
    const meta = parseMemoryMetadata(place.text);
    const said = meta?.mentions && meta.mentions > 1 ? `, said ${meta.mentions} times` : "";
    const kind = place.captured ? `captured ${place.capturedAt ?? ""} (${place.superseded ? "superseded" : "current"}${said})` : "hand-written (forget asks for --yes)";
    out.push(`  ${where(place)}  ${kind}`);
    for (const line of redactSecrets(place.text).split("\n")) out.push(`    ${line}`);
  }
  const others = await otherMentions(workspace, [fact]);
  if (others.length > 0) {
    out.push("Also mentioned in (forget changes these too):");
    for (const other of others) out.push(`  ${other.file}:${other.line}`);
  }
  out.push(`Forget it: ${invocation.line("memory", `forget ${fact.id}`)}`);
  return out.join("\n");
}

export function formatForgetOutcome(outcome: ForgetOutcome, invocation: Invocation): string {
  const droppedCaches = outcome.droppedCaches?.length ?? 0;
  const out = [`Forgotten (${outcome.id ?? "not recorded"}): ${outcome.facts.length} fact(s)`];
  for (const fact of outcome.facts) out.push(`  ${fact.id}  ${fact.preview}`);
  for (const change of outcome.changed) out.push(`  ${change.file}: ${change.pieces} removed`);
  if (droppedCaches > 0) out.push(`  saved memory index: ${droppedCaches} dropped (the next turn re-reads the files)`);
  for (const error of outcome.errors) out.push(`  NOT CHANGED ${error}`);
  if (outcome.id) {
    const undo = outcome.undo === "not kept" ? "no undo data was kept" : `undo: ${invocation.line("memory", `unforget ${outcome.id}`)}`;
    out.push(`The capture will not write it again; ${undo}`);
  }
  return out.join("\n");
}

export function formatUnforget(outcome: UnforgetOutcome): string {
  const out = [`Undone ${outcome.id}:`];
  for (const file of outcome.restored) out.push(`  ${file.file}: ${file.exact ? "restored byte for byte" : "restored; the file had changed since, so each piece went back after the line it followed"}`);
  for (const error of outcome.errors) out.push(`  NOT RESTORED ${error}`);
  return out.join("\n");
}

/** The audit log's forgets, newest first, with undo state. */
export async function forgetHistoryNewestFirst(workspace: string): Promise<{ record: ForgetRecord; undoneAt?: string }[]> {
  return forgetHistory(await readForgetLog(workspace)).reverse();
}

export function formatForgetHistory(history: readonly { record: ForgetRecord; undoneAt?: string }[], limit: number): string[] {
  if (history.length === 0) return ["  nothing forgotten"];
  return history.slice(0, limit).map(({ record, undoneAt }) => {
    const facts = record.facts.map((f) => f.preview).join("; ");
    const state = undoneAt ? `undone ${utc(undoneAt)}` : `undo ${record.undo}`;
    return `  ${utc(record.ts)}  ${record.id}  ${record.origin}: ${record.facts.length} fact(s): ${shown(facts)} (${state})`;
  });
}

/** Saved-index folders: the default (or $OPENCLAW_CONTEXT_INDEX_CACHE_DIR) and any memory.indexCacheDir in openclaw.json. */
export function indexCacheDirs(cfg: Record<string, unknown> | undefined, env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs = [defaultIndexCacheDir(env)];
  const hook = (cfg?.hooks as { internal?: { entries?: Record<string, { memory?: { indexCacheDir?: unknown } }> } } | undefined)?.internal?.entries?.["ethos-context"];
  const pkg = (cfg?.plugins as { entries?: Record<string, { config?: { ethosContext?: { memory?: { indexCacheDir?: unknown } } } }> } | undefined)?.entries?.["openclaw-context"];
  for (const dir of [hook?.memory?.indexCacheDir, pkg?.config?.ethosContext?.memory?.indexCacheDir]) if (typeof dir === "string" && dir) dirs.push(path.resolve(expandHome(dir, env)));
  return dirs;
}
