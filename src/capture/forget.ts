import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { getLogger } from "../core/log.ts";
import { contentHash } from "../fs/atomic.ts";
import { appendFileLocked, updateFileLocked } from "../fs/locked-writes.ts";
import type { LockOptions } from "../fs/lock.ts";
import { readRegularFile } from "../fs/safe-read.ts";
import { sealText, unsealText } from "../fs/seal.ts";
import { canWriteIntoWorkspace } from "../fs/workspace-guard.ts";
import { RETRIEVED_MEMORY_RECORD_NAME } from "../host/ids.ts";
import { HYGIENE_CONFIG_DEFAULTS, lockOptionsFromConfig } from "../memory/config-md.ts";
import type { HygieneConfig } from "../memory/config-md.ts";
import { parseMemoryEntries } from "../memory/confidence.ts";
import { dropIndexCaches } from "../memory/index-cache.ts";
import { memoryFilesEdited } from "../memory/memory-index.ts";
import { findSecrets, redactSecrets } from "../memory/secrets.ts";
import { defaultIndexCacheDir } from "../memory/sources.ts";
import { parseCapturedLine } from "./fact-line.ts";
import { CORRECTIONS_FILE_NAME } from "./corrections.ts";
import { parseForgetRequest } from "./forget-trigger.ts";
import { factId, factStatement, factTerms, memoryFiles, readMemoryFacts, requestMatcher } from "./memory-facts.ts";
import type { FactPlace, MemoryFact } from "./memory-facts.ts";
import { FORGET_LOG, TRIAGE_DIR } from "./workspace-files.ts";

// Forget: a fact leaves every place the bundle wrote it, and can come back only by undo.
//   - memory files: the entries that say it (captured lines; lines a person wrote only with the
//     operator's --yes, never from chat), in MEMORY.md and memory/*.md;
//   - the triage queue lines, CORRECTIONS.md excerpts and ETHOS_CONTEXT.md lines that mention it;
//   - the memory index: it re-reads the edited files on the next turn, and its saved cache (which
//     holds chunk text) is deleted.
// One line in the audit log, memory/.forgotten.jsonl, records it: the fact's tombstone (a hash of
// its words with secrets withheld, which the capture checks so the fact does not come back) and
// what undo needs to put every byte back (sealed with the state dir's key when it holds a secret,
// src/fs/seal.ts). Every write takes the file's §4.1 lock. Log lines name ids and files, never text.

const FORGET_AGENT_NAME = "memory-forget";
/** "Delete that from memory" names the newest fact captured within this window. */
const LAST_CAPTURE_WINDOW_MS = 30 * 60_000;
/** Triage queue files looked at (newest days first). */
const MAX_QUEUE_FILES = 60;
const MAX_LOG_BYTES = 8 * 1024 * 1024;
const PREVIEW_CHARS = 160;

const log = () => getLogger("openclaw-context.hygiene");

export type ForgetOrigin = "chat" | "command";

/** One change in a file: `removed` was replaced by `inserted` at `at` (an offset in the text after the edit). */
export type Segment = { at: number; removed: string; inserted: string; /** The text of the line before, to find the place again if the file changed since. */ anchor: string };
export type FileEdit = { file: string; /** sha256 of the file right after the edit. */ after: string; segments: Segment[] };
type ForgottenFact = { id: string; /** Tombstone: hash of the fact's words, secrets withheld. */ key: string; /** The statement with secrets withheld, shortened. */ preview: string; handWritten: boolean };

export type ForgetRecord = {
  type: "forget";
  id: string;
  ts: string;
  origin: ForgetOrigin;
  facts: ForgottenFact[];
  /** What undo needs, in plain text (nothing in it holds a secret), … */
  edits?: FileEdit[];
  /** … or sealed (src/fs/seal.ts), … */
  sealed?: string;
  /** … or nothing (the operator asked for no undo, or sealing failed). */
  undo: "kept" | "sealed" | "not kept";
};
type UnforgetRecord = { type: "unforget"; id: string; ts: string; origin: ForgetOrigin; exact: boolean };
export type ForgetLogRecord = ForgetRecord | UnforgetRecord;

export type ForgetSelection = { ids: readonly string[] } | { request: string } | { last: true };

export type ForgetInput = {
  workspaceDir: string;
  select: ForgetSelection;
  /** Entries a person wrote: deleted only when the operator said so (`--yes`); chat keeps them. */
  handWritten: "delete" | "keep";
  origin: ForgetOrigin;
  now?: Date;
  config?: HygieneConfig;
  /** Keep what undo needs (default true). */
  keepUndo?: boolean;
  /** Folders with saved indexes to drop (default: the default index cache folder). */
  indexCacheDirs?: readonly string[];
  env?: NodeJS.ProcessEnv;
};

export type ForgetOutcome = {
  /** The audit id (`fg-…`), when something was forgotten. */
  id?: string;
  facts: ForgottenFact[];
  /** Files changed (relative) and how many pieces each lost. */
  changed: { file: string; pieces: number }[];
  /** Hand-written entries that match and were kept (chat; the command without --yes never gets here). */
  keptHandWritten: FactPlace[];
  undo?: ForgetRecord["undo"];
  /** Saved indexes of the workspace that were deleted (they held the old text). */
  droppedCaches?: string[];
  errors: string[];
};

/** Tombstone of a statement: its words, secrets withheld, hashed (the audit log never holds the fact's text as key). */
export function tombstoneKey(statement: string): string {
  const terms = [...new Set(factTerms(redactSecrets(statement)))].sort();
  return `t-${crypto.createHash("sha256").update(terms.join(" ")).digest("hex").slice(0, 16)}`;
}

function preview(statement: string): string {
  const redacted = redactSecrets(statement).replace(/\s+/g, " ").trim();
  return redacted.length > PREVIEW_CHARS ? `${redacted.slice(0, PREVIEW_CHARS - 1)}…` : redacted;
}

// ── which facts ──────────────────────────────────────────────────────────────────────────────────

/** The facts a selection names, from the workspace's memory files as they are now. */
export async function selectFacts(workspaceDir: string, select: ForgetSelection, now: Date = new Date()): Promise<MemoryFact[]> {
  const facts = await readMemoryFacts(workspaceDir);
  if ("ids" in select) {
    // A unique prefix of at least six characters will do ("f-3a9c1e").
    return facts.filter((fact) => select.ids.some((id) => fact.id === id || (id.length >= 6 && fact.id.startsWith(id))));
  }
  if ("request" in select) {
    const matcher = requestMatcher(select.request);
    return facts.filter((fact) => matcher.names(fact.statement));
  }
  let newest: { fact: MemoryFact; at: number } | undefined;
  for (const fact of facts) {
    for (const place of fact.places) {
      const at = place.capturedAt ? Date.parse(place.capturedAt) : Number.NaN;
      if (!(now.getTime() - at <= LAST_CAPTURE_WINDOW_MS && at <= now.getTime() + 60_000)) continue;
      if (!newest || at > newest.at) newest = { fact, at };
    }
  }
  return newest ? [newest.fact] : [];
}

// ── editing under the lock ───────────────────────────────────────────────────────────────────────

type Range = { start: number; end: number; replacement: string };
type Line = { start: number; end: number; content: string; terminator: string };

/** Lines with their offsets; `end` includes the line's terminator. */
function linesOf(text: string): Line[] {
  const lines: Line[] = [];
  const pattern = /[^\n]*(?:\n|$)/g;
  for (const match of text.matchAll(pattern)) {
    if (match[0] === "" && (match.index ?? 0) >= text.length) break;
    const start = match.index ?? 0;
    const content = match[0].replace(/\r?\n$/, "");
    lines.push({ start, end: start + match[0].length, content, terminator: match[0].slice(content.length) });
  }
  return lines;
}

/** The text with the ranges replaced, and the segments that undo it. */
export function applyRanges(text: string, ranges: readonly Range[]): { next: string; segments: Segment[] } {
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  const segments: Segment[] = [];
  let next = "";
  let cursor = 0;
  for (const range of sorted) {
    if (range.start < cursor) continue; // overlapping ranges: the first one wins
    next += text.slice(cursor, range.start);
    const lineStart = text.lastIndexOf("\n", range.start - 2) + 1;
    segments.push({ at: next.length, removed: text.slice(range.start, range.end), inserted: range.replacement, anchor: range.start > 0 ? text.slice(lineStart, range.start) : "" });
    next += range.replacement;
    cursor = range.end;
  }
  return { next: next + text.slice(cursor), segments };
}

/** The place nearest to `near` where `anchor` ends in `text`, or undefined. */
function anchorEnd(text: string, anchor: string, near: number): number | undefined {
  const before = text.lastIndexOf(anchor, Math.max(0, near - anchor.length));
  const after = text.indexOf(anchor, Math.max(0, near - anchor.length));
  const candidates = [before, after].filter((i) => i !== -1).map((i) => i + anchor.length);
  if (candidates.length === 0) return undefined;
  return candidates.reduce((best, c) => (Math.abs(c - near) < Math.abs(best - near) ? c : best));
}

/**
 * The file with an edit undone. Untouched since the edit (same hash): every segment goes back at its
 * offset, byte for byte. Changed since: each piece goes back after the line it followed (its marker
 * replaced, for a replacement), else at the end.
 */
export function restoreEdit(current: string, edit: FileEdit): { next: string; exact: boolean } {
  // Segments are in file order; two at the same offset (adjacent lines removed) go back in that order.
  const inOrder = [...edit.segments].sort((a, b) => a.at - b.at);
  if (contentHash(current) === edit.after) {
    let next = current;
    for (const s of inOrder.reverse()) next = next.slice(0, s.at) + s.removed + next.slice(s.at + s.inserted.length);
    return { next, exact: true };
  }
  // In file order, so a piece whose anchor is the piece before it finds that one back in place.
  let next = current;
  let shift = 0;
  for (const s of inOrder) {
    const marker = s.inserted ? next.indexOf(s.inserted) : -1;
    if (marker !== -1) {
      next = next.slice(0, marker) + s.removed + next.slice(marker + s.inserted.length);
    } else {
      const at = s.anchor ? anchorEnd(next, s.anchor, s.at + shift) : 0;
      if (at === undefined) next = `${next}${next && !next.endsWith("\n") ? "\n" : ""}${s.removed}`;
      else next = next.slice(0, at) + s.removed + next.slice(at);
    }
    shift += s.removed.length - s.inserted.length;
  }
  return { next, exact: false };
}

/** Edit one file under its lock with a function of its text (asked again if someone else wrote meanwhile). */
async function editFile(file: string, workspaceDir: string, ranges: (text: string) => Range[], lock: LockOptions): Promise<FileEdit | undefined> {
  let segments: Segment[] = [];
  let after = "";
  const result = await updateFileLocked(
    file,
    (text) => {
      const edit = applyRanges(text, ranges(text));
      segments = edit.segments;
      after = edit.next;
      return segments.length > 0 ? edit.next : null;
    },
    { ...lock, containWithin: workspaceDir },
  );
  return result.written ? { file: path.relative(workspaceDir, file), after: contentHash(after), segments } : undefined;
}

/** Memory file entries of the chosen facts (captured ones always, hand-written ones when allowed). */
function entryRanges(ids: ReadonlySet<string>, handWritten: ForgetInput["handWritten"]) {
  return (text: string): Range[] => {
    const lines = linesOf(text);
    return parseMemoryEntries(text)
      .filter((entry) => ids.has(factId(factStatement(entry.text))))
      .filter((entry) => handWritten === "delete" || parseCapturedLine(entry.text) !== undefined)
      .map((entry) => {
        const first = lines[entry.line - 1];
        const last = lines[entry.line - 1 + entry.text.split("\n").length - 1] ?? first;
        return { start: first.start, end: last.end, replacement: "" };
      });
  };
}

/** Lines that mention a forgotten fact (ETHOS_CONTEXT.md), removed. */
function mentioningLines(mentions: (text: string) => boolean) {
  return (text: string): Range[] => linesOf(text).filter((line) => mentions(line.content)).map((line) => ({ start: line.start, end: line.end, replacement: "" }));
}

/** Triage queue lines whose excerpt mentions a forgotten fact, removed. */
function queueLines(mentions: (text: string) => boolean) {
  return (text: string): Range[] =>
    linesOf(text)
      .filter((line) => {
        try {
          const excerpt = (JSON.parse(line.content) as { excerpt?: unknown }).excerpt;
          return typeof excerpt === "string" && mentions(excerpt);
        } catch {
          return false;
        }
      })
      .map((line) => ({ start: line.start, end: line.end, replacement: "" }));
}

/** CORRECTIONS.md excerpts (the `> ` blockquote of an entry) that mention a forgotten fact, replaced by a marker. */
function correctionExcerpts(mentions: (text: string) => boolean, forgetId: string) {
  return (text: string): Range[] => {
    const ranges: Range[] = [];
    let block: Line[] = [];
    const flush = () => {
      if (block.length > 0 && mentions(block.map((line) => line.content.replace(/^>[ \t]?/, "")).join(" "))) {
        const last = block[block.length - 1];
        ranges.push({ start: block[0].start, end: last.end, replacement: `> (forgotten: ${forgetId})${last.terminator}` });
      }
      block = [];
    };
    for (const line of linesOf(text)) {
      if (line.content.startsWith(">")) block.push(line);
      else flush();
    }
    flush();
    return ranges;
  };
}

async function existingFiles(files: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const file of files) if ((await fs.stat(file).catch(() => undefined))?.isFile()) found.push(file);
  return found;
}

async function queueFiles(workspaceDir: string): Promise<string[]> {
  const dir = path.join(workspaceDir, TRIAGE_DIR);
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  return names
    .filter((name) => /^\d{4}-\d{2}-\d{2}\.jsonl$/.test(name))
    .sort()
    .reverse()
    .slice(0, MAX_QUEUE_FILES)
    .map((name) => path.join(dir, name));
}

function newForgetId(now: Date): string {
  return `fg-${now.toISOString().slice(0, 10).replace(/-/g, "")}-${crypto.randomBytes(3).toString("hex")}`;
}

// ── the audit log ────────────────────────────────────────────────────────────────────────────────

export function forgetLogPath(workspaceDir: string): string {
  return path.join(workspaceDir, FORGET_LOG);
}

/** The audit log's records, oldest first (lines that do not parse are skipped). */
export async function readForgetLog(workspaceDir: string): Promise<ForgetLogRecord[]> {
  const read = await readRegularFile(forgetLogPath(workspaceDir), { maxBytes: MAX_LOG_BYTES, root: workspaceDir, truncate: true });
  if (!read.ok) return [];
  const records: ForgetLogRecord[] = [];
  for (const line of read.bytes.toString("utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      const record = JSON.parse(line) as ForgetLogRecord;
      if ((record.type === "forget" && Array.isArray(record.facts)) || record.type === "unforget") records.push(record);
    } catch {
      // a torn or hand-edited line
    }
  }
  return records;
}

/** Forget records that were not undone, with the time of each undo for those that were. */
export function forgetHistory(records: readonly ForgetLogRecord[]): { record: ForgetRecord; undoneAt?: string }[] {
  const undone = new Map<string, string>();
  for (const record of records) if (record.type === "unforget") undone.set(record.id, record.ts);
  return records.filter((r): r is ForgetRecord => r.type === "forget").map((record) => ({ record, ...(undone.has(record.id) ? { undoneAt: undone.get(record.id) } : {}) }));
}

const tombstoneCache = new Map<string, { stamp: string; keys: Set<string> }>();

/** Tombstones in force (forgotten and not undone), re-read only when the audit log changed. */
async function forgottenKeys(workspaceDir: string): Promise<Set<string>> {
  const file = forgetLogPath(workspaceDir);
  const stat = await fs.stat(file).catch(() => undefined);
  const stamp = stat ? `${stat.mtimeMs}:${stat.size}` : "missing";
  const cached = tombstoneCache.get(file);
  if (cached?.stamp === stamp) return cached.keys;
  const keys = new Set<string>();
  for (const { record, undoneAt } of forgetHistory(stat ? await readForgetLog(workspaceDir) : [])) {
    if (!undoneAt) for (const fact of record.facts) keys.add(fact.key);
  }
  if (tombstoneCache.size > 64) tombstoneCache.clear();
  tombstoneCache.set(file, { stamp, keys });
  return keys;
}

/** Was this statement forgotten (and not undone)? The capture asks before it writes a fact. */
export async function isForgotten(workspaceDir: string, statement: string): Promise<boolean> {
  return (await forgottenKeys(workspaceDir)).has(tombstoneKey(statement));
}

async function appendRecord(workspaceDir: string, record: ForgetLogRecord, lock: LockOptions): Promise<void> {
  const file = forgetLogPath(workspaceDir);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await appendFileLocked(file, JSON.stringify(record), { ...lock, containWithin: workspaceDir });
}

/** What undo needs, in the form the record may hold: plain, sealed when a piece holds a secret, or none. */
async function undoData(edits: FileEdit[], keep: boolean, env: NodeJS.ProcessEnv | undefined): Promise<Pick<ForgetRecord, "edits" | "sealed" | "undo">> {
  if (!keep) return { undo: "not kept" };
  // A withheld marker is no secret; a value is (kept by memory_keep_secrets, or written by hand).
  const secret = edits.some((edit) => edit.segments.some((s) => findSecrets(s.removed).length > 0 || findSecrets(s.anchor).length > 0));
  if (!secret) return { edits, undo: "kept" };
  try {
    return { sealed: await sealText(JSON.stringify(edits), env), undo: "sealed" };
  } catch (error) {
    log().warn({ event: "memory.forget", err: (error as Error).message }, "forget: undo data holds a secret and could not be sealed; it is not kept");
    return { undo: "not kept" };
  }
}

/** Where the bundle's other files (triage queue, CORRECTIONS.md, ETHOS_CONTEXT.md) mention these facts: what forget would change there. */
export async function otherMentions(workspaceDir: string, facts: readonly MemoryFact[]): Promise<{ file: string; line: number }[]> {
  const matchers = facts.map((fact) => requestMatcher(fact.statement));
  const mentions = (text: string) => matchers.some((matcher) => matcher.mentionedIn(text));
  const found: { file: string; line: number }[] = [];
  const look = async (file: string, ranges: (text: string) => Range[]) => {
    const read = await readRegularFile(file, { maxBytes: MAX_LOG_BYTES, root: workspaceDir });
    if (!read.ok) return;
    const text = read.bytes.toString("utf8");
    for (const range of ranges(text)) found.push({ file: path.relative(workspaceDir, file), line: text.slice(0, range.start).split("\n").length });
  };
  for (const file of await queueFiles(workspaceDir)) await look(file, queueLines(mentions));
  await look(path.join(workspaceDir, CORRECTIONS_FILE_NAME), correctionExcerpts(mentions, ""));
  await look(path.join(workspaceDir, RETRIEVED_MEMORY_RECORD_NAME), mentioningLines(mentions));
  return found;
}

// ── forget and undo ──────────────────────────────────────────────────────────────────────────────

/**
 * Forget the selected facts everywhere the bundle wrote them. Hand-written entries are deleted
 * only with `handWritten: "delete"` (the command's --yes); otherwise they are kept and reported.
 * Never throws for a file it cannot change: that is in `errors` and the log, the rest goes on.
 */
export async function forgetFacts(input: ForgetInput): Promise<ForgetOutcome> {
  const { workspaceDir } = input;
  const now = input.now ?? new Date();
  const config = input.config ?? HYGIENE_CONFIG_DEFAULTS;
  const lock = lockOptionsFromConfig(config, FORGET_AGENT_NAME);
  const outcome: ForgetOutcome = { facts: [], changed: [], keptHandWritten: [], errors: [] };
  const facts = await selectFacts(workspaceDir, input.select, now);
  if (facts.length === 0) {
    log().info({ event: "memory.forget", origin: input.origin, facts: 0 }, "forget: nothing in memory matches");
    return outcome;
  }
  const id = newForgetId(now);
  const ids = new Set(facts.map((fact) => fact.id));
  outcome.facts = facts.map((fact) => ({ id: fact.id, key: tombstoneKey(fact.statement), preview: preview(fact.statement), handWritten: fact.places.some((p) => !p.captured) }));
  if (input.handWritten === "keep") outcome.keptHandWritten = facts.flatMap((fact) => fact.places.filter((place) => !place.captured));
  const matchers = facts.map((fact) => requestMatcher(fact.statement));
  const mentions = (text: string) => matchers.some((matcher) => matcher.mentionedIn(text));

  const edits: FileEdit[] = [];
  const edit = async (file: string, ranges: (text: string) => Range[]) => {
    try {
      const done = await editFile(file, workspaceDir, ranges, lock);
      if (done) {
        edits.push(done);
        outcome.changed.push({ file: done.file, pieces: done.segments.length });
      }
    } catch (error) {
      outcome.errors.push(`${path.relative(workspaceDir, file)}: ${(error as Error).message}`);
    }
  };
  for (const file of await existingFiles(await memoryFiles(workspaceDir))) await edit(file, entryRanges(ids, input.handWritten));
  for (const file of await queueFiles(workspaceDir)) await edit(file, queueLines(mentions));
  for (const file of await existingFiles([path.join(workspaceDir, CORRECTIONS_FILE_NAME)])) await edit(file, correctionExcerpts(mentions, id));
  for (const file of await existingFiles([path.join(workspaceDir, RETRIEVED_MEMORY_RECORD_NAME)])) await edit(file, mentioningLines(mentions));

  // The index re-reads the edited files on the next turn; saved indexes hold chunk text: dropped.
  try {
    await memoryFilesEdited(workspaceDir);
    outcome.droppedCaches = await dropIndexCaches(workspaceDir, input.indexCacheDirs ?? [defaultIndexCacheDir(input.env)]);
  } catch (error) {
    outcome.errors.push(`index cache: ${(error as Error).message}`);
  }

  const undo = await undoData(edits, input.keepUndo ?? true, input.env);
  // Without undo the audit log keeps no text of the fact either: its id and tombstone only.
  const recorded = undo.undo === "not kept" && input.keepUndo === false ? outcome.facts.map((fact) => ({ ...fact, preview: "(not kept)" })) : outcome.facts;
  const record: ForgetRecord = { type: "forget", id, ts: now.toISOString(), origin: input.origin, facts: recorded, ...undo };
  try {
    await appendRecord(workspaceDir, record, lock);
    outcome.id = id;
    outcome.undo = undo.undo;
  } catch (error) {
    outcome.errors.push(`${FORGET_LOG}: ${(error as Error).message}`);
  }
  const fields = { event: "memory.forget", forget: id, origin: input.origin, facts: facts.map((f) => f.id), files: outcome.changed.map((c) => c.file), undo: undo.undo };
  if (outcome.errors.length > 0) log().warn({ ...fields, errors: outcome.errors }, "forget: some places could not be changed");
  else log().info(fields, "memory forgotten");
  if (outcome.keptHandWritten.length > 0) {
    log().warn(
      { event: "memory.forget.kept-hand-written", forget: id, facts: [...new Set(outcome.keptHandWritten.map((p) => factId(factStatement(p.text))))], places: outcome.keptHandWritten.map((p) => `${p.rel}:${p.line}`) },
      "forget: hand-written memory matches and was kept; the operator can delete it with `memory forget <id> --yes`",
    );
  }
  return outcome;
}

export type UnforgetOutcome = { id: string; restored: { file: string; exact: boolean }[]; errors: string[] };

/** Undo a forget: every piece back where it was (byte for byte when the file did not change since), tombstones lifted. */
export async function unforget(input: { workspaceDir: string; id: string; origin: ForgetOrigin; now?: Date; config?: HygieneConfig; env?: NodeJS.ProcessEnv }): Promise<UnforgetOutcome> {
  const { workspaceDir } = input;
  const lock = lockOptionsFromConfig(input.config ?? HYGIENE_CONFIG_DEFAULTS, FORGET_AGENT_NAME);
  const entry = forgetHistory(await readForgetLog(workspaceDir)).find(({ record }) => record.id === input.id);
  if (!entry) throw new Error(`no forget ${input.id} in ${FORGET_LOG}`);
  if (entry.undoneAt) throw new Error(`${input.id} was already undone at ${entry.undoneAt}`);
  const { record } = entry;
  let edits = record.edits;
  if (!edits && record.sealed) edits = JSON.parse(await unsealText(record.sealed, input.env)) as FileEdit[];
  if (!edits) throw new Error(`${input.id} kept no undo data (undo: ${record.undo})`);
  const outcome: UnforgetOutcome = { id: input.id, restored: [], errors: [] };
  for (const edit of edits) {
    const file = path.join(workspaceDir, edit.file);
    let exact = true;
    try {
      await updateFileLocked(
        file,
        (text) => {
          const restored = restoreEdit(text, edit);
          exact = restored.exact;
          return restored.next;
        },
        { ...lock, containWithin: workspaceDir },
      );
      outcome.restored.push({ file: edit.file, exact });
    } catch (error) {
      outcome.errors.push(`${edit.file}: ${(error as Error).message}`);
    }
  }
  await memoryFilesEdited(workspaceDir);
  const exact = outcome.restored.every((r) => r.exact) && outcome.errors.length === 0;
  await appendRecord(workspaceDir, { type: "unforget", id: input.id, ts: (input.now ?? new Date()).toISOString(), origin: input.origin, exact }, lock);
  log().info({ event: "memory.unforget", forget: input.id, origin: input.origin, files: outcome.restored.map((r) => r.file), exact, errors: outcome.errors.length }, "forget undone");
  return outcome;
}

/**
 * The chat's "forget that …" from the owner (the caller decided it is the owner's session): forget
 * what the message names; hand-written entries are kept and reported in the log. Undefined when the
 * message is no forget request.
 */
export async function forgetOnRequest(input: { workspaceDir: string; message: string; now?: Date; config?: HygieneConfig }): Promise<ForgetOutcome | undefined> {
  const request = parseForgetRequest(input.message);
  if (!request) return undefined;
  if (!(await canWriteIntoWorkspace(input.workspaceDir, "forget"))) return { facts: [], changed: [], keptHandWritten: [], errors: ["forget: workspace missing or relative, nothing changed"] };
  const select: ForgetSelection = request.kind === "last" ? { last: true } : { request: request.statement };
  return forgetFacts({ workspaceDir: input.workspaceDir, select, handWritten: "keep", origin: "chat", now: input.now, config: input.config });
}
