import os from "node:os";
import type { StoreSnapshot } from "./chunk-store.ts";

// The index's on-disk cache: one binary file per source set. A JSON header (what the cache is
// for, the files and their metadata, where each section starts) followed by raw sections: the
// typed arrays byte for byte, the chunk texts and terms as UTF-8. A warm start copies the
// arrays back and rebuilds the postings; nothing is re-read or re-analysed.

const MAGIC = "OCIX";
export const INDEX_CACHE_VERSION = 3;

/** What must match for a cache to be used (anything else means a cold build). */
export type CacheIdentity = { key: string; rootDir: string; maxChunkChars: number; analyser: string };

type Header<M> = CacheIdentity & {
  version: number;
  endianness: string;
  files: { rel: string; meta: M; textChars: number; count: number }[];
  headings: string[][];
  sections: Record<SectionName, [offset: number, bytes: number]>;
};

type SectionName = "text" | "terms" | "textStart" | "textLength" | "heading" | "date" | "confidence" | "length" | "forwardLength" | "forwardTerm" | "forwardTf";

const align4 = (n: number) => (n + 3) & ~3;

/** Encodes in a few steps, handing the event loop back between them (the text is the big one). */
export async function encodeIndexCache<M>(identity: CacheIdentity, snapshot: StoreSnapshot<M>): Promise<Buffer> {
  const pause = () => new Promise<void>((resolve) => setImmediate(resolve));
  const text = Buffer.from(snapshot.files.map((f) => f.text).join(""), "utf8");
  await pause();
  const terms = Buffer.from(snapshot.terms.join("\n"), "utf8");
  await pause();
  const sections: [SectionName, Buffer][] = [
    ["text", text],
    ["terms", terms],
    ["textStart", bytesOf(snapshot.textStart)],
    ["textLength", bytesOf(snapshot.textLength)],
    ["heading", bytesOf(snapshot.heading)],
    ["date", bytesOf(snapshot.date)],
    ["confidence", bytesOf(snapshot.confidence)],
    ["length", bytesOf(snapshot.length)],
    ["forwardLength", bytesOf(snapshot.forwardLength)],
    ["forwardTerm", bytesOf(snapshot.forwardTerm)],
    ["forwardTf", bytesOf(snapshot.forwardTf)],
  ];
  const offsets = {} as Header<M>["sections"];
  let offset = 0;
  for (const [name, bytes] of sections) {
    offsets[name] = [offset, bytes.length];
    offset = align4(offset + bytes.length);
  }
  const header: Header<M> = {
    ...identity,
    version: INDEX_CACHE_VERSION,
    endianness: os.endianness(),
    files: snapshot.files.map((f) => ({ rel: f.rel, meta: f.meta, textChars: f.text.length, count: f.count })),
    headings: snapshot.headings,
    sections: offsets,
  };
  const headerBytes = Buffer.from(JSON.stringify(header), "utf8");
  const prefix = Buffer.alloc(align4(8 + headerBytes.length));
  prefix.write(MAGIC, 0, "latin1");
  prefix.writeUInt32LE(headerBytes.length, 4);
  headerBytes.copy(prefix, 8);
  const out = Buffer.alloc(prefix.length + offset);
  prefix.copy(out, 0);
  for (const [name, bytes] of sections) bytes.copy(out, prefix.length + offsets[name][0]);
  return out;
}

/** The snapshot in `data`, or undefined when it is not a cache for `identity` (or is damaged). */
export function decodeIndexCache<M>(data: Buffer, identity: CacheIdentity): StoreSnapshot<M> | undefined {
  if (data.length < 8 || data.toString("latin1", 0, 4) !== MAGIC) return undefined;
  const headerLength = data.readUInt32LE(4);
  if (8 + headerLength > data.length) return undefined;
  const header = JSON.parse(data.toString("utf8", 8, 8 + headerLength)) as Header<M>;
  if (
    header.version !== INDEX_CACHE_VERSION ||
    header.endianness !== os.endianness() ||
    header.key !== identity.key ||
    header.rootDir !== identity.rootDir ||
    header.maxChunkChars !== identity.maxChunkChars ||
    header.analyser !== identity.analyser ||
    !Array.isArray(header.files) ||
    !Array.isArray(header.headings)
  ) {
    return undefined;
  }
  const base = align4(8 + headerLength);
  const section = (name: SectionName): Buffer => {
    const [offset, bytes] = header.sections[name];
    if (base + offset + bytes > data.length) throw new Error(`index cache section ${name} is truncated`);
    return data.subarray(base + offset, base + offset + bytes);
  };
  // Copies, so the arrays are aligned and do not pin the file buffer.
  const array = <T>(name: SectionName, make: (buffer: ArrayBuffer) => T): T => {
    const bytes = section(name);
    return make(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer);
  };
  const text = section("text").toString("utf8");
  const termsText = section("terms").toString("utf8");
  let at = 0;
  const files = header.files.map((f) => {
    const fileText = text.slice(at, at + f.textChars);
    at += f.textChars;
    return { rel: f.rel, meta: f.meta, text: fileText, count: f.count };
  });
  if (at !== text.length) return undefined;
  return {
    files,
    terms: termsText ? termsText.split("\n") : [],
    headings: header.headings,
    textStart: array("textStart", (b) => new Int32Array(b)),
    textLength: array("textLength", (b) => new Int32Array(b)),
    heading: array("heading", (b) => new Int32Array(b)),
    date: array("date", (b) => new Int32Array(b)),
    confidence: array("confidence", (b) => new Float32Array(b)),
    length: array("length", (b) => new Int32Array(b)),
    forwardLength: array("forwardLength", (b) => new Int32Array(b)),
    forwardTerm: array("forwardTerm", (b) => new Uint32Array(b)),
    forwardTf: array("forwardTf", (b) => new Uint16Array(b)),
  };
}

function bytesOf(array: Int32Array | Uint32Array | Uint16Array | Float32Array): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}
