import fs from "node:fs";
import type { FileHandle } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { withFileLock } from "../fs/lock.ts";
import type { PiecewiseSnapshot, SnapshotArrayName, StoreSnapshot } from "./chunk-store.ts";

// The index's on-disk cache: one binary file per source set. A JSON header (what the cache is
// for, the files and their metadata, where each section starts) followed by raw sections: the
// typed arrays byte for byte, the chunk texts and terms as UTF-8. A warm start copies the
// arrays back and rebuilds the postings; nothing is re-read or re-analysed.

const MAGIC = "OCIX";
const INDEX_CACHE_VERSION = 3;

/** What must match for a cache to be used (anything else means a cold build). */
export type CacheIdentity = { key: string; rootDir: string; maxChunkChars: number; analyser: string };

type Header<M> = CacheIdentity & {
  version: number;
  endianness: string;
  files: { rel: string; meta: M; textBytes: number; count: number }[];
  sections: Record<SectionName, [offset: number, bytes: number]>;
};

type SectionName = "text" | "terms" | "headings" | "textStart" | "textLength" | "heading" | "date" | "confidence" | "length" | "forwardLength" | "forwardTerm" | "forwardTf";

const align4 = (n: number) => (n + 3) & ~3;
/** Files measured or decoded between hand-backs. */
const FILES_PER_STEP = 256;
const pause = () => new Promise<void>((resolve) => setImmediate(resolve));
// Heading paths as text: titles joined by \u0001, paths by \n (a title is one line; a \u0001 in
// one, which no editor types, is stored as U+FFFD).
const TITLE_SEPARATOR = "\u0001";
const encodeHeadings = (headings: readonly string[][]) => headings.map((h) => h.map((t) => t.replaceAll(TITLE_SEPARATOR, "\ufffd")).join(TITLE_SEPARATOR)).join("\n");
const decodeHeadings = (text: string) => text.split("\n").map((line) => (line ? line.split(TITLE_SEPARATOR) : []));

/**
 * How a cache write cuts its work: bytes gathered before they are written (texts are encoded into
 * this buffer, small pieces copied into it; the largest buffer a write makes), heading paths
 * encoded between hand-backs (all at once held the event loop ~35 ms at 100k chunks). Tests cut
 * smaller, to split texts, arrays and headings across pieces.
 */
export type CachePieces = { bufferBytes: number; headings: number };
const PIECES: CachePieces = { bufferBytes: 1 << 20, headings: 4096 };

/** A section's bytes, in pieces written one after the other (a piece may be reused once the next is asked for). */
type Section = { byteLength: number; pieces: () => Iterable<Uint8Array> };

/**
 * Writes the cache of `snapshot` into `handle` (a new, empty file), in pieces: the header, the
 * files' texts encoded a slice at a time, then the other sections, the typed arrays as their own
 * bytes (views of the store's arrays, see `ChunkStore.piecewiseSnapshot`). No buffer of the whole
 * file is made: at 100k chunks that was ~28 MB on top of the index at the moment of the save.
 * Every write hands the event loop back, and so do the steps between them. The bytes are the same
 * as ever (format 3).
 */
export async function writeIndexCache<M>(handle: FileHandle, identity: CacheIdentity, snapshot: PiecewiseSnapshot<M>, pieces: CachePieces = PIECES): Promise<void> {
  const textBytes: number[] = [];
  for (const [i, f] of snapshot.files.entries()) {
    textBytes.push(Buffer.byteLength(f.text, "utf8"));
    if (i % FILES_PER_STEP === FILES_PER_STEP - 1) await pause();
  }
  const terms = Buffer.from(snapshot.terms.join("\n"), "utf8");
  await pause();
  const headings = await headingPieces(snapshot.headings, Math.max(1, pieces.headings));
  const arraySection = (name: SnapshotArrayName): Section => {
    const array = snapshot.arrays[name];
    return {
      byteLength: array.byteLength,
      *pieces() {
        for (const piece of array.pieces()) yield bytesOf(piece);
      },
    };
  };
  const sections: [SectionName, Section][] = [
    ["terms", { byteLength: terms.length, pieces: () => [terms] }],
    ["headings", { byteLength: headings.reduce((sum, piece) => sum + piece.length, 0), pieces: () => headings }],
    ...ARRAY_SECTIONS.map((name): [SectionName, Section] => [name, arraySection(name)]),
  ];
  const offsets = {} as Header<M>["sections"];
  let offset = 0;
  const place = (name: SectionName, bytes: number) => {
    offsets[name] = [offset, bytes];
    offset = align4(offset + bytes);
  };
  place("text", textBytes.reduce((sum, n) => sum + n, 0));
  for (const [name, section] of sections) place(name, section.byteLength);
  const header: Header<M> = {
    ...identity,
    version: INDEX_CACHE_VERSION,
    endianness: os.endianness(),
    files: snapshot.files.map((f, i) => ({ rel: f.rel, meta: f.meta, textBytes: textBytes[i], count: f.count })),
    sections: offsets,
  };
  const headerBytes = Buffer.from(JSON.stringify(header), "utf8");
  const out = new BufferedWriter(handle, Math.max(4, pieces.bufferBytes));
  await out.write(Buffer.from(MAGIC, "latin1"));
  await out.write(new Uint8Array(new Uint32Array([headerBytes.length]).buffer));
  await out.write(headerBytes);
  const base = align4(8 + headerBytes.length);
  // Each section starts where the header says: 4-aligned, after zeros.
  await out.padTo(base);
  for (const file of snapshot.files) await out.writeText(file.text);
  await out.padTo(base + align4(offsets.text[0] + offsets.text[1]));
  for (const [name, section] of sections) {
    for (const piece of section.pieces()) await out.write(piece);
    await out.padTo(base + align4(offsets[name][0] + offsets[name][1]));
  }
  await out.flush();
  if (out.written !== base + offset) throw new Error(`index cache write ended at ${out.written} of ${base + offset} bytes`);
}

/** The sections of typed arrays, in the file's order. */
const ARRAY_SECTIONS: readonly SnapshotArrayName[] = ["textStart", "textLength", "heading", "date", "confidence", "length", "forwardLength", "forwardTerm", "forwardTf"];

/** The headings section, `perPiece` paths a piece: the pieces one after the other are `encodeHeadings` of them all. */
async function headingPieces(headings: readonly string[][], perPiece: number): Promise<Buffer[]> {
  const pieces: Buffer[] = [];
  for (let from = 0; from < headings.length; from += perPiece) {
    if (from > 0) {
      await pause();
      pieces.push(Buffer.from("\n"));
    }
    pieces.push(Buffer.from(encodeHeadings(headings.slice(from, from + perPiece)), "utf8"));
  }
  return pieces;
}

/**
 * Writes at the file's current position through one buffer: texts are encoded into it and small
 * pieces copied into it, and it is written out when full; a piece at least its size is written as
 * it is. A short write goes on where it stopped.
 */
class BufferedWriter {
  /** Bytes taken so far (written out or waiting in the buffer). */
  written = 0;
  private readonly handle: FileHandle;
  private readonly buffer: Uint8Array;
  private used = 0;
  private readonly encoder = new TextEncoder();

  constructor(handle: FileHandle, bufferBytes: number) {
    this.handle = handle;
    this.buffer = new Uint8Array(bufferBytes);
  }

  async write(bytes: Uint8Array): Promise<void> {
    if (bytes.byteLength > this.buffer.byteLength - this.used) await this.flush();
    if (bytes.byteLength >= this.buffer.byteLength) {
      await this.writeOut(bytes);
    } else {
      this.buffer.set(bytes, this.used);
      this.used += bytes.byteLength;
    }
    this.written += bytes.byteLength;
  }

  /** `text` as UTF-8, as Buffer.byteLength counts it (a lone surrogate as U+FFFD). */
  async writeText(text: string): Promise<void> {
    let rest = text;
    while (rest.length > 0) {
      // Whole characters only (a surrogate pair is never split), as many as fit.
      const { read, written } = this.encoder.encodeInto(rest, this.buffer.subarray(this.used));
      this.used += written;
      this.written += written;
      rest = rest.slice(read);
      if (rest.length > 0) await this.flush();
    }
  }

  /** Zeros up to `position` (padding). */
  async padTo(position: number): Promise<void> {
    if (position > this.written) await this.write(new Uint8Array(position - this.written));
  }

  async flush(): Promise<void> {
    const used = this.used;
    this.used = 0;
    if (used > 0) await this.writeOut(this.buffer.subarray(0, used));
  }

  private async writeOut(bytes: Uint8Array): Promise<void> {
    for (let done = 0; done < bytes.byteLength; ) {
      const { bytesWritten } = await this.handle.write(bytes, done, bytes.byteLength - done);
      done += bytesWritten;
    }
  }
}

/**
 * The snapshot in `data`, or undefined when it is not a cache for `identity` (or is damaged).
 * Decoded in steps, handing the event loop back between them.
 */
export async function decodeIndexCache<M>(data: Buffer, identity: CacheIdentity): Promise<StoreSnapshot<M> | undefined> {
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
    !Array.isArray(header.files)
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
  const termsText = section("terms").toString("utf8");
  const headings = decodeHeadings(section("headings").toString("utf8"));
  await pause();
  // Each file's text decoded on its own (no step decodes the whole vault at once).
  const text = section("text");
  const files: StoreSnapshot<M>["files"] = [];
  let at = 0;
  for (const [i, f] of header.files.entries()) {
    if (at + f.textBytes > text.length) return undefined;
    files.push({ rel: f.rel, meta: f.meta, text: text.toString("utf8", at, at + f.textBytes), count: f.count });
    at += f.textBytes;
    if (i % FILES_PER_STEP === FILES_PER_STEP - 1) await pause();
  }
  if (at !== text.length) return undefined;
  await pause();
  return {
    files,
    terms: termsText ? termsText.split("\n") : [],
    headings,
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

/** The header of a saved index (its folder and files), or undefined for anything else. Reads the header only. */
export function readIndexCacheHeader(file: string): { rootDir?: string; files?: string[] } | undefined {
  const fd = fs.openSync(file, "r");
  try {
    const head = Buffer.alloc(8);
    if (fs.readSync(fd, head, 0, 8, 0) < 8 || head.toString("latin1", 0, 4) !== MAGIC) return undefined;
    const length = head.readUInt32LE(4);
    if (length > 64 * 1024 * 1024) return undefined;
    const header = Buffer.alloc(length);
    fs.readSync(fd, header, 0, length, 8);
    const parsed = JSON.parse(header.toString("utf8")) as { rootDir?: unknown; files?: { rel?: unknown }[] };
    return {
      rootDir: typeof parsed.rootDir === "string" ? parsed.rootDir : undefined,
      files: Array.isArray(parsed.files) ? parsed.files.map((f) => String(f.rel)) : undefined,
    };
  } finally {
    fs.closeSync(fd);
  }
}

/** The lock a cache write takes (memory-index.ts): one writer at a time, never a long wait. */
export const CACHE_LOCK = { maxRetries: 1, retryIntervalSeconds: 0.05, staleThresholdSeconds: 30 } as const;

/**
 * Delete the saved indexes of `rootDir` in these folders (after the bundle removed text from its
 * memory files: a saved index holds the chunks' text). Each under the cache's own lock; a cache
 * busy being written is retried a few times. The next start builds the index from the files.
 */
export async function dropIndexCaches(rootDir: string, cacheDirs: readonly string[]): Promise<string[]> {
  const root = path.resolve(rootDir);
  const dropped: string[] = [];
  for (const dir of new Set(cacheDirs.map((d) => path.resolve(d)))) {
    let names: string[];
    try {
      names = fs.readdirSync(dir).filter((name) => name.endsWith(".idx"));
    } catch {
      continue;
    }
    for (const name of names) {
      const file = path.join(dir, name);
      let header: ReturnType<typeof readIndexCacheHeader>;
      try {
        header = fs.lstatSync(file).isFile() ? readIndexCacheHeader(file) : undefined;
      } catch {
        continue;
      }
      if (header?.rootDir !== root) continue;
      await withFileLock(file, async () => fs.rmSync(file, { force: true }), { ...CACHE_LOCK, maxRetries: 20 });
      dropped.push(file);
    }
  }
  return dropped;
}

/** The array's own bytes (a view: nothing is copied). */
function bytesOf(array: Int32Array | Uint32Array | Uint16Array | Float32Array | Uint8Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}
