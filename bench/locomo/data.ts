// Reads the LoCoMo memory folders (one file per session, one paragraph per turn, each turn tagged
// with `<!-- Dn:m -->`) and their queries.jsonl. The notes set has the same layout, one paragraph
// per fact, each tagged with the turn it was drawn from (several facts may cite the same turn).
import fs from "node:fs";
import path from "node:path";

export const CATEGORY_NAMES: Record<number, string> = {
  1: "multi-hop",
  2: "temporal",
  3: "open-domain",
  4: "single-hop",
  5: "adversarial",
};

export type Turn = {
  id: string;
  /** Path relative to the conversation folder, e.g. `memory/2023-05-08.md`. */
  file: string;
  /** The paragraph as written, including the id comment. */
  raw: string;
  /** The paragraph without the id comment: what a reader of the injected block should see. */
  text: string;
};

export type Query = { q: string; evidence: string[]; category: number };

/**
 * Conversations kept apart from tuning: ranking and gate changes are chosen on the other four and
 * count only if they hold here too (the bench reports both parts of each set separately).
 */
export const HELD_OUT_CONVERSATIONS: ReadonlySet<string> = new Set(["conv-43", "conv-44", "conv-47"]);

export type Conversation = {
  name: string;
  dir: string;
  files: { rel: string; content: string }[];
  turns: Turn[];
  /** Every paragraph tagged with the id (one turn in the dialog set; one or more facts in the notes set). */
  turnsById: Map<string, Turn[]>;
  queries: Query[];
};

const TURN_ID = /<!--\s*(D\d+:\d+)\s*-->/g;

/** Every gold id mentioned in a piece of text. */
export function turnIdsIn(text: string): string[] {
  return [...text.matchAll(TURN_ID)].map((m) => m[1]);
}

export function stripTurnIds(text: string): string {
  return text.replace(TURN_ID, "").trim();
}

export function listConversations(root: string): string[] {
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(root, d.name, "queries.jsonl")))
    .map((d) => d.name)
    .sort();
}

export function loadConversation(root: string, name: string): Conversation {
  const dir = path.join(root, name);
  const memoryDir = path.join(dir, "memory");
  const files = fs
    .readdirSync(memoryDir)
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => ({ rel: `memory/${f}`, content: fs.readFileSync(path.join(memoryDir, f), "utf8") }));
  const turns: Turn[] = [];
  for (const file of files) {
    for (const paragraph of file.content.split(/\n\s*\n/)) {
      const ids = turnIdsIn(paragraph);
      if (ids.length === 0) continue;
      const raw = paragraph.trim();
      for (const id of ids) turns.push({ id, file: file.rel, raw, text: stripTurnIds(raw) });
    }
  }
  const queries = fs
    .readFileSync(path.join(dir, "queries.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as Query);
  const turnsById = new Map<string, Turn[]>();
  for (const turn of turns) {
    const list = turnsById.get(turn.id);
    if (list) list.push(turn);
    else turnsById.set(turn.id, [turn]);
  }
  return { name, dir, files, turns, turnsById, queries };
}

/** The paragraphs that carry a question's evidence: any of them reaching the block is a hit. */
export function goldTurnsOf(conversation: Conversation, evidence: readonly string[]): Turn[] {
  return evidence.flatMap((id) => conversation.turnsById.get(id) ?? []);
}
