// The baseline retriever the bundle is compared with: plain Okapi BM25 (k1 = 1.2, b = 0.75), lowercase,
// split on non-alphanumerics, the `stopword` package's English list (108 words), one turn per chunk.
// Written out rather than taken from a library on purpose: a baseline must be exactly this formula,
// and search libraries (minisearch uses BM25+ with other constants) each add their own twists.
import { eng as ENGLISH_STOPWORDS } from "stopword";

const STOPWORDS = new Set(ENGLISH_STOPWORDS);
const K1 = 1.2;
const B = 0.75;

export function baselineTokens(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((token) => token.length > 0 && !STOPWORDS.has(token));
}

export type BaselineDoc<T> = { item: T; text: string };
export type BaselineHit<T> = { item: T; score: number };

export class Bm25Baseline<T> {
  private readonly items: T[] = [];
  private readonly lengths: number[] = [];
  private readonly postings = new Map<string, { doc: number; tf: number }[]>();
  private averageLength = 0;

  constructor(docs: readonly BaselineDoc<T>[]) {
    for (const { item, text } of docs) {
      const doc = this.items.length;
      const tokens = baselineTokens(text);
      this.items.push(item);
      this.lengths.push(tokens.length);
      const counts = new Map<string, number>();
      for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
      for (const [token, tf] of counts) {
        let list = this.postings.get(token);
        if (!list) this.postings.set(token, (list = []));
        list.push({ doc, tf });
      }
    }
    this.averageLength = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, this.items.length);
  }

  search(query: string, limit: number): BaselineHit<T>[] {
    const n = this.items.length;
    const scores = new Map<number, number>();
    for (const term of new Set(baselineTokens(query))) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const { doc, tf } of list) {
        const norm = tf + K1 * (1 - B + (B * this.lengths[doc]) / this.averageLength);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (K1 + 1)) / norm);
      }
    }
    return [...scores.entries()]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, limit)
      .map(([doc, score]) => ({ item: this.items[doc], score }));
  }
}
