// Deterministic synthetic memory vaults for the scale benchmark: MEMORY.md plus dated daily files
// under memory/, with headings, dates, lists, code blocks and prose. Same seed, same bytes.
import fs from "node:fs";
import path from "node:path";

/** mulberry32: a tiny, well-known seeded PRNG; Math.random cannot be seeded. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PEOPLE = ["Alice", "Bob", "Chen", "Dana", "Emeka", "Farah", "Gustavo", "Hana", "Ivan", "Jules", "Kofi", "Lena", "Mateo", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq", "Uma", "Viktor", "Wen", "Yusuf", "Zoe"];
const PROJECTS = ["billing migration", "mobile app", "search revamp", "onboarding flow", "data warehouse", "payments API", "design system", "status page", "CRM sync", "invoice export", "release train", "support bot", "analytics dashboard", "auth service", "newsletter", "garden plan", "kitchen remodel", "marathon training", "tax return", "family trip"];
const PLACES = ["Lisbon", "Berlin", "Nairobi", "Osaka", "Toronto", "Austin", "Kraków", "Melbourne", "Bogotá", "Reykjavík", "the office", "the cabin", "home"];
const VERBS = ["decided", "agreed", "proposed", "reviewed", "shipped", "postponed", "asked about", "fixed", "measured", "drafted", "cancelled", "booked", "renewed", "migrated", "tested", "rolled back", "documented", "approved"];
const NOUNS = ["deadline", "budget", "schedule", "database schema", "retry policy", "dentist appointment", "flight", "contract", "rate limit", "backup job", "feature flag", "vendor quote", "API key rotation", "test suite", "birthday dinner", "cache layer", "landing page", "quarterly review", "insurance claim", "hiring plan"];
const ADJECTIVES = ["urgent", "minor", "tricky", "promising", "expensive", "cheap", "flaky", "stable", "late", "early", "surprising", "boring", "critical", "optional"];
const FILLER = ["because the numbers looked off", "after a long discussion", "since the vendor changed terms", "to keep the team unblocked", "until further notice", "pending legal review", "as a trial for two weeks", "once the metrics are in", "without telling anyone yet", "to reduce on-call pages"];
const LANGS = ["ts", "bash", "sql", "python", "json"];

type Rng = () => number;
const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)];
/** Zipf-like pick so a few terms are common and most are rare, as in real notes. */
const pickSkewed = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() ** 2 * list.length)];

function sentence(rng: Rng): string {
  return `${pickSkewed(rng, PEOPLE)} ${pick(rng, VERBS)} the ${pick(rng, ADJECTIVES)} ${pickSkewed(rng, NOUNS)} for the ${pickSkewed(rng, PROJECTS)} ${pick(rng, FILLER)}.`;
}

function isoDay(base: Date, offsetDays: number): string {
  return new Date(base.getTime() + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

function codeBlock(rng: Rng): string {
  const lang = pick(rng, LANGS);
  const id = Math.floor(rng() * 10_000);
  const bodies: Record<string, string> = {
    ts: `const retries = ${1 + (id % 5)};\nexport async function sync${id}() {\n  return fetchWithRetry("/v1/items/${id}", { retries });\n}`,
    bash: `kubectl rollout restart deploy/api-${id % 7}\nkubectl logs -l app=api --since=10m | grep -c ERROR`,
    sql: `SELECT customer_id, count(*) FROM orders\nWHERE created_at > now() - interval '${id % 90} days'\nGROUP BY 1 ORDER BY 2 DESC LIMIT 10;`,
    python: `def score(items):\n    return sum(i.weight for i in items if i.id != ${id})`,
    json: `{ "service": "worker-${id % 13}", "timeoutMs": ${1000 + id}, "enabled": true }`,
  };
  return "```" + lang + "\n" + bodies[lang] + "\n```";
}

/** One chunk-sized section: a heading and one block of content (~250-500 characters). */
function section(rng: Rng, day: string): string {
  const heading = `## ${pickSkewed(rng, PROJECTS)} — ${pick(rng, ["notes", "decision", "follow-up", "meeting", "todo", "idea", "incident"])}`;
  const roll = rng();
  let body: string;
  if (roll < 0.45) {
    body = [sentence(rng), sentence(rng), sentence(rng)].join(" ");
  } else if (roll < 0.75) {
    body = [1, 2, 3, 4].map(() => `- ${sentence(rng)}`).join("\n");
  } else if (roll < 0.9) {
    body = `${sentence(rng)}\n\n${codeBlock(rng)}`;
  } else {
    body = `- [ ] ${sentence(rng)} (due ${day})\n- [x] Met ${pick(rng, PEOPLE)} in ${pick(rng, PLACES)}.\n- ${sentence(rng)}`;
  }
  return `${heading}\n\n${body}`;
}

export const SECTIONS_PER_FILE = 20;

export type VaultInfo = { dir: string; files: number; sections: number; chunks: number; bytes: number };

/** How many retrieval chunks a file holds; the default counts one per section. */
export type ChunkCounter = (markdown: string, relPath: string) => number;
const countSections: ChunkCounter = (markdown) => (markdown.match(/^## /gm) ?? []).length;

/**
 * Writes a vault into `dir` (created, must be empty) until it holds `targetChunks` chunks as
 * counted by `countChunks` (pass the retriever's own chunker to size vaults in its chunks):
 * MEMORY.md with one file's worth of long-term notes, the rest in daily files of 20 sections each.
 */
export function generateVault(dir: string, targetChunks: number, seed = 42, countChunks: ChunkCounter = countSections): VaultInfo {
  const rng = seededRandom(seed);
  fs.mkdirSync(path.join(dir, "memory"), { recursive: true });
  const base = new Date(Date.UTC(2015, 0, 1));
  let sections = 0;
  let chunks = 0;
  let files = 0;
  let bytes = 0;
  // Sections are added one at a time, each counted on its own, so the vault stops at the target
  // chunk count (at most one section over) whatever the chunker makes of lists and code blocks.
  const writeFile = (rel: string, header: string[], date: string) => {
    const parts = [...header];
    let fileChunks = countChunks(header.join("\n\n") + "\n", rel);
    while (parts.length - header.length < SECTIONS_PER_FILE && chunks + fileChunks < targetChunks) {
      const next = section(rng, date);
      parts.push(next);
      fileChunks += countChunks(next + "\n", rel);
    }
    const text = parts.join("\n\n") + "\n";
    fs.writeFileSync(path.join(dir, rel), text);
    sections += parts.length - header.length;
    chunks += fileChunks;
    bytes += Buffer.byteLength(text);
    files++;
  };
  writeFile("MEMORY.md", ["# MEMORY", "Long-term facts and preferences."], isoDay(base, 0));
  for (let day = 0; chunks < targetChunks; day++) {
    const date = isoDay(base, day);
    writeFile(`memory/${date}.md`, [`# ${date}`], date);
  }
  return { dir, files, sections, chunks, bytes };
}

/** Realistic queries over the vault's vocabulary, deterministic from the seed. */
export function generateQueries(count: number, seed = 7): string[] {
  const rng = seededRandom(seed);
  const templates = [
    () => `What did ${pick(rng, PEOPLE)} decide about the ${pick(rng, NOUNS)}?`,
    () => `When is the ${pick(rng, PROJECTS)} ${pick(rng, NOUNS)}?`,
    () => `remind me what we agreed on the ${pick(rng, PROJECTS)}`,
    () => `Did ${pick(rng, PEOPLE)} fix the ${pick(rng, ADJECTIVES)} ${pick(rng, NOUNS)} yet?`,
    () => `Who went to ${pick(rng, PLACES)} for the ${pick(rng, PROJECTS)}?`,
  ];
  return Array.from({ length: count }, () => pick(rng, templates)());
}

/** Appends one new section to one daily file (the "user edited a file" case). */
export function touchOneFile(dir: string, seed = 99): string {
  const rng = seededRandom(seed);
  const daily = fs.readdirSync(path.join(dir, "memory")).filter((f) => f.endsWith(".md")).sort();
  const rel = `memory/${daily[Math.floor(rng() * daily.length)]}`;
  fs.appendFileSync(path.join(dir, rel), `\n${section(rng, "2026-01-01")}\n`);
  return rel;
}
