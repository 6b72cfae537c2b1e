// The last turns as our log tells them: each turn's bootstrap decision (session type, the files it
// got), its memory line (delivered by which channel, or why not) and what the operator's message
// captured. The records carry a session tag (a hash of the session key, never the key: it holds peer
// ids), so the lines of one turn can be put together: a memory line and a capture belong to the
// bootstrap of the same session closest in time. Read by `status --last N` and by doctor.
import { CONFIG_ISSUE_EVENT } from "../core/config.ts";
import { isObject } from "../host/events.ts";
import { TRIAGE_EVENT } from "../capture/inbound.ts";
import { MEMORY_OUTCOME_EVENT } from "../context/service.ts";

export type LogRecord = { time?: number; level?: number; msg?: string; name?: string; event?: string; sessionType?: string; session?: string; [key: string]: unknown };

const BOOTSTRAP_DECISION_EVENT = "aci-bootstrap.decision";
/** Lines older logs wrote before the memory line had its event. */
const LEGACY_MEMORY_MESSAGE = "memory context for this turn";
/** A memory line or a capture belongs to a bootstrap of its session at most this far away. */
const SAME_TURN_MS = 120_000;

type TurnFiles = { rule?: string; files: string[]; dropped: string[]; tokensBefore?: number; tokensAfter?: number; hostFiltered: string[] };
export type TurnMemory = { status?: string; injected: number; reason: string; delivery?: string; chars: number };
type TurnCapture = { action?: string; classes: string[] };

export type TurnSummary = {
  time: number;
  session?: string;
  sessionType: string;
  files?: TurnFiles;
  memory?: TurnMemory;
  captures: TurnCapture[];
  /** Warnings and errors our code logged for this session around this turn (a failed hook, a file not delivered). */
  problems: string[];
};

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []);
const numberOr = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined);

function isMemoryRecord(record: LogRecord): boolean {
  return record.event === MEMORY_OUTCOME_EVENT || (record.event === undefined && record.msg === LEGACY_MEMORY_MESSAGE);
}

function filesOf(record: LogRecord): TurnFiles {
  const kept = strings(record.kept);
  return {
    rule: typeof record.rule === "string" ? record.rule : undefined,
    files: [...kept, ...strings(record.added).filter((name) => !kept.includes(name))],
    dropped: strings(record.dropped),
    tokensBefore: numberOr(record.tokensBefore),
    tokensAfter: numberOr(record.tokensAfter),
    hostFiltered: strings(record.hostFiltered),
  };
}

function memoryOf(record: LogRecord): TurnMemory {
  return {
    status: typeof record.status === "string" ? record.status : undefined,
    injected: numberOr(record.injected) ?? 0,
    reason: String(record.reason ?? "?"),
    delivery: typeof record.delivery === "string" ? record.delivery : undefined,
    chars: numberOr(record.chars) ?? 0,
  };
}

/** Which turns a record can join: its session tag, else (older logs) its session type. */
function sessionOf(record: LogRecord): string {
  return typeof record.session === "string" ? `s:${record.session}` : `t:${String(record.sessionType ?? "?")}`;
}

/** The last `count` turns, newest first. */
export function recentTurns(records: readonly LogRecord[], count: number): TurnSummary[] {
  const timed = records.filter((record) => typeof record.time === "number").sort((a, b) => (a.time as number) - (b.time as number));
  const turns: (TurnSummary & { key: string })[] = [];
  const nearest = (record: LogRecord, accept: (turn: TurnSummary) => boolean) => {
    const key = sessionOf(record);
    let best: (TurnSummary & { key: string }) | undefined;
    for (const turn of turns) {
      if (turn.key !== key || !accept(turn) || Math.abs(turn.time - (record.time as number)) > SAME_TURN_MS) continue;
      if (!best || Math.abs(turn.time - (record.time as number)) < Math.abs(best.time - (record.time as number))) best = turn;
    }
    return best;
  };
  for (const record of timed) {
    if (record.event !== BOOTSTRAP_DECISION_EVENT) continue;
    turns.push({ key: sessionOf(record), time: record.time as number, session: record.session, sessionType: String(record.sessionType ?? "?"), files: filesOf(record), captures: [], problems: [] });
  }
  for (const record of timed) {
    if (isMemoryRecord(record)) {
      // The memory line follows its bootstrap (the plugin) or comes with it (the hook pack).
      const turn = nearest(record, (candidate) => !candidate.memory && candidate.time <= (record.time as number) + 5_000);
      if (turn) turn.memory = memoryOf(record);
      else turns.push({ key: sessionOf(record), time: record.time as number, session: record.session, sessionType: String(record.sessionType ?? "?"), memory: memoryOf(record), captures: [], problems: [] });
    } else if (record.event === TRIAGE_EVENT) {
      // A message with several statements logs each fact's action (`captures`), one with one fact only `capture`.
      const actions = strings(record.captures);
      const classes = strings(record.classes);
      const captures = actions.length > 0 ? actions.map((action) => ({ action, classes })) : [{ action: typeof record.capture === "string" ? record.capture : undefined, classes }];
      const turn = nearest(record, () => true);
      if (turn) turn.captures.push(...captures);
      else turns.push({ key: sessionOf(record), time: record.time as number, session: record.session, sessionType: String(record.sessionType ?? "the operator's session"), captures, problems: [] });
    }
  }
  // Warnings of a session around its turn (a failed hook; a file that could not be delivered).
  for (const record of timed) {
    if ((record.level ?? 0) < 40 || record.event === CONFIG_ISSUE_EVENT || typeof record.session !== "string") continue;
    nearest(record, () => true)?.problems.push(String(record.msg ?? record.event ?? "warning"));
  }
  return turns
    .sort((a, b) => b.time - a.time)
    .slice(0, count)
    .map(({ key: _key, ...turn }) => turn);
}

const DELIVERY_WORDS: Record<string, string> = {
  "runtime-carrier": "as the runtime-context carrier",
  "prepend-context": "as prependContext on the user message",
  "bootstrap-record": "as the ETHOS_CONTEXT.md record",
};

/** One line of memory: delivered how, or why not. */
export function describeMemory(memory: TurnMemory | undefined): string {
  if (!memory) return "memory: no line logged (memory off, or not this artifact's turn)";
  if (memory.injected > 0) return `memory: ${memory.injected} memor${memory.injected === 1 ? "y" : "ies"} delivered ${DELIVERY_WORDS[memory.delivery ?? ""] ?? ""} (${memory.chars} chars; gate: ${memory.reason})`.replace("  (", " (");
  const why = memory.status === "out-of-scope" ? `out of scope (${memory.reason})` : memory.status === "skipped" ? `skipped (${memory.reason.replace(/^skipped:/, "")})` : memory.status === "timeout" ? "no result within the wait" : memory.reason;
  return `memory: none: ${why}`;
}

/** The turns as status prints them, newest first; `ago` formats a time. */
export function formatTurns(turns: readonly TurnSummary[], ago: (time: number) => string): string[] {
  const out: string[] = [];
  for (const turn of turns) {
    out.push(`  ${ago(turn.time)}  ${turn.sessionType}${turn.files?.rule ? ` (${turn.files.rule})` : ""}${turn.session ? ` session ${turn.session}` : ""}`);
    if (turn.files) {
      const tokens = turn.files.tokensBefore !== undefined ? `; tokens ${turn.files.tokensBefore} → ${turn.files.tokensAfter}` : "";
      const dropped = turn.files.dropped.length ? `; dropped ${turn.files.dropped.join(", ")}` : "";
      const host = turn.files.hostFiltered.length ? `; the host drops ${turn.files.hostFiltered.join(", ")} after hooks` : "";
      out.push(`      files: ${turn.files.files.join(", ") || "(none)"}${dropped}${tokens}${host}`);
    } else out.push("      files: no bootstrap decision logged (bootstrap off)");
    out.push(`      ${describeMemory(turn.memory)}`);
    for (const capture of turn.captures) out.push(`      capture: ${capture.action ?? "nothing written"} (${capture.classes.join(", ") || "triaged"})`);
    for (const problem of turn.problems) out.push(`      warning: ${problem}`);
  }
  return out;
}

/** Parse our log's JSON lines (a line cut by rotation or a byte cap is skipped). */
export function parseLogLines(text: string): LogRecord[] {
  const records: LogRecord[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      const parsed: unknown = JSON.parse(line);
      if (isObject(parsed)) records.push(parsed as LogRecord);
    } catch {
      // a cut line
    }
  }
  return records;
}
