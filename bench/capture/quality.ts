// Capture quality on the labelled messages in this folder: every message goes through the real
// entry point (`triageInboundMessage` with `capture: true`) on a fresh workspace holding the facts
// the label says were captured before, and what lands in the day files is compared with the label.
//
// Units: each fact the message should add (`expect`), each earlier fact it should mark superseded
// (`supersede`) and each earlier fact whose mention count it should raise (`mention`). What the
// capture did is counted the same way: new current lines, earlier lines marked, earlier lines
// raised. precision = right writes / writes; recall = right writes / expected writes. A fact is
// right when its words match the label (case and punctuation aside).
//
// `messages.jsonl` is the part the capture rules were developed against; `held-out.jsonl` was
// written at the same time, before the rules, and is reported separately.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { setLogDestination } from "../../src/core/log.ts";
import { capturedFacts, dayFileFor, formatCapturedLine } from "../../src/capture/capture.ts";
import { triageInboundMessage } from "../../src/capture/triage.ts";
import { HYGIENE_CONFIG_DEFAULTS } from "../../src/memory/config-md.ts";
import { markdownTable } from "../lib/table.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const TUNING_SET = path.join(HERE, "messages.jsonl");
export const HELD_OUT_SET = path.join(HERE, "held-out.jsonl");

export const LANGUAGES = ["en", "zh", "es", "de", "fr"] as const;
export const CATEGORIES = [
  "positive",
  "multi",
  "abbreviation",
  "negation",
  "question",
  "reported",
  "forwarded",
  "hypothetical",
  "reminiscence",
  "quoted",
  "chitchat",
  "repeat",
  "polarity",
  "correction",
  "no-supersede",
] as const;

const labelled = z
  .object({
    id: z.string().min(1),
    lang: z.enum(LANGUAGES),
    cat: z.enum(CATEGORIES),
    text: z.string().min(1),
    /** Facts captured before this message (today, or yesterday with priorDay). */
    prior: z.array(z.string()).default([]),
    priorDay: z.enum(["today", "yesterday"]).default("today"),
    expect: z.array(z.string()),
    supersede: z.array(z.string()).default([]),
    mention: z.array(z.string()).default([]),
  })
  .strict();
export type LabelledMessage = z.infer<typeof labelled>;

export function loadSet(file: string): LabelledMessage[] {
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const messages: LabelledMessage[] = [];
  lines.forEach((line, index) => {
    if (!line.trim()) return;
    const parsed = labelled.safeParse(JSON.parse(line));
    if (!parsed.success) throw new Error(`${path.basename(file)}:${index + 1}: ${parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")}`);
    messages.push(parsed.data);
  });
  const ids = new Set<string>();
  for (const message of messages) {
    if (ids.has(message.id)) throw new Error(`${path.basename(file)}: duplicate id ${message.id}`);
    ids.add(message.id);
  }
  return messages;
}

/** Words only: case, punctuation and spacing never decide whether a fact is right. */
export function sameWords(a: string, b: string): boolean {
  const norm = (s: string) => s.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
  return norm(a) === norm(b);
}

export type MessageResult = {
  message: LabelledMessage;
  /** New current fact lines. */
  added: string[];
  superseded: string[];
  mentioned: string[];
  tp: number;
  fp: number;
  fn: number;
};

/** Matched pairs between what was written and what was expected (each used once). */
function matches(written: readonly string[], expected: readonly string[]): number {
  const left = [...expected];
  let hits = 0;
  for (const item of written) {
    const at = left.findIndex((e) => sameWords(e, item));
    if (at === -1) continue;
    left.splice(at, 1);
    hits++;
  }
  return hits;
}

const NOW = new Date("2026-11-25T10:00:00.000Z");
// Secret values kept (memory_keep_secrets): this bench measures what the capture understands of a
// message; what it withholds by default is test/unit/secrets.test.ts's (24 secrets, 36 look-alikes).
const CONFIG = { ...HYGIENE_CONFIG_DEFAULTS, memory_keep_secrets: true, lock_retry_interval_seconds: 0.01, lock_max_retries: 500 };

export async function runMessage(message: LabelledMessage, root: string): Promise<MessageResult> {
  const workspaceDir = fs.mkdtempSync(path.join(root, `${message.id}-`));
  const priorAt = new Date(NOW.getTime() - (message.priorDay === "yesterday" ? 24 : 1) * 3_600_000);
  if (message.prior.length > 0) {
    const file = dayFileFor(workspaceDir, priorAt);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const lines = message.prior.map((statement) =>
      formatCapturedLine(statement, "#knowledge", { confidence: 0.95, source: "operator", mentions: 1, last: priorAt }, priorAt.toISOString()),
    );
    fs.writeFileSync(file, `${lines.join("\n")}\n`);
  }
  const outcome = await triageInboundMessage({ content: message.text, workspaceDir, now: NOW, config: CONFIG, capture: true, sessionKey: "agent:main:main", messageId: message.id });
  if (outcome.errors.length > 0) throw new Error(`${message.id}: ${outcome.errors.join("; ")}`);
  const memory = path.join(workspaceDir, "memory");
  const facts = fs.existsSync(memory)
    ? fs.readdirSync(memory).filter((name) => name.endsWith(".md")).flatMap((name) => capturedFacts(fs.readFileSync(path.join(memory, name), "utf8")))
    : [];
  const added = facts.filter((f) => f.capturedAt === NOW.toISOString() && !f.superseded).map((f) => f.statement);
  const earlier = facts.filter((f) => f.capturedAt !== NOW.toISOString());
  const superseded = earlier.filter((f) => f.superseded).map((f) => f.statement);
  const mentioned = earlier.filter((f) => (f.meta.mentions ?? 1) > 1).map((f) => f.statement);
  const tp = matches(added, message.expect) + matches(superseded, message.supersede) + matches(mentioned, message.mention);
  const written = added.length + superseded.length + mentioned.length;
  const expected = message.expect.length + message.supersede.length + message.mention.length;
  return { message, added, superseded, mentioned, tp, fp: written - tp, fn: expected - tp };
}

export async function runSet(messages: readonly LabelledMessage[]): Promise<MessageResult[]> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "occ-bench-capture-"));
  setLogDestination({ write: () => true } as never);
  try {
    const results: MessageResult[] = [];
    for (const message of messages) results.push(await runMessage(message, root));
    return results;
  } finally {
    setLogDestination(undefined);
    fs.rmSync(root, { recursive: true, force: true, maxRetries: 10 });
  }
}

export type Score = { messages: number; expected: number; written: number; tp: number; precision: number; recall: number };

export function score(results: readonly MessageResult[]): Score {
  const tp = results.reduce((sum, r) => sum + r.tp, 0);
  const written = results.reduce((sum, r) => sum + r.tp + r.fp, 0);
  const expected = results.reduce((sum, r) => sum + r.tp + r.fn, 0);
  // Nothing written is no wrong write; nothing expected is nothing missed.
  return { messages: results.length, expected, written, tp, precision: written === 0 ? 1 : tp / written, recall: expected === 0 ? 1 : tp / expected };
}

const pct = (value: number) => value.toFixed(3);

function scoreRows<K extends string>(results: readonly MessageResult[], keys: readonly K[], keyOf: (r: MessageResult) => K): (string | number)[][] {
  return keys
    .map((key) => [key, score(results.filter((r) => keyOf(r) === key))] as const)
    .filter(([, s]) => s.messages > 0)
    .map(([key, s]) => [key, s.messages, s.expected, s.written, s.tp, s.written - s.tp, s.expected - s.tp, pct(s.precision), s.expected === 0 ? "-" : pct(s.recall)]);
}

const HEADERS = ["", "messages", "expected writes", "writes", "right", "wrong", "missed", "precision", "recall"];

export function qualityTables(name: string, results: readonly MessageResult[]): string {
  const all = score(results);
  return [
    `#### ${name}: precision ${pct(all.precision)}, recall ${pct(all.recall)} (${all.messages} messages, ${all.expected} expected writes)`,
    "",
    markdownTable(["category", ...HEADERS.slice(1)], scoreRows(results, CATEGORIES, (r) => r.message.cat)),
    "",
    markdownTable(["language", ...HEADERS.slice(1)], scoreRows(results, LANGUAGES, (r) => r.message.lang)),
  ].join("\n");
}

/** The messages a set got wrong, one line each (for the tuning set only: the held-out part is scored, not read). */
export function failures(results: readonly MessageResult[]): string[] {
  return results
    .filter((r) => r.fp > 0 || r.fn > 0)
    .map((r) => {
      const got = [...r.added.map((s) => `+${s}`), ...r.superseded.map((s) => `~${s}`), ...r.mentioned.map((s) => `=${s}`)];
      const want = [...r.message.expect.map((s) => `+${s}`), ...r.message.supersede.map((s) => `~${s}`), ...r.message.mention.map((s) => `=${s}`)];
      return `${r.message.id}: ${JSON.stringify(r.message.text)}\n    want ${JSON.stringify(want)}\n    got  ${JSON.stringify(got)}`;
    });
}
