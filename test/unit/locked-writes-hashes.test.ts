import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import * as atomic from "../../src/fs/atomic.ts";
import { appendFileLocked, updateFileLocked } from "../../src/fs/locked-writes.ts";
import { temporaryWorkspace } from "./lifecycle-fixtures.ts";

// A locked write's hashes are worked out when a caller first reads them, and once: hashing a day
// file of a few hundred KiB twice per capture was a third of a capture's CPU time (issue 24,
// bounded capture cost). Counted through a pass-through of contentHash.

vi.mock("../../src/fs/atomic.ts", async (original) => {
  const actual = await original<typeof import("../../src/fs/atomic.ts")>();
  return { ...actual, contentHash: vi.fn(actual.contentHash) };
});

const workspace = temporaryWorkspace("locked-writes-hashes");
const hashed = () => {
  const texts = vi.mocked(atomic.contentHash).mock.calls.map(([data]) => String(data));
  vi.mocked(atomic.contentHash).mockClear();
  return texts;
};

describe("the hashes of a locked write's result", () => {
  for (const [name, write] of [
    ["appendFileLocked", (file: string) => appendFileLocked(file, "b")],
    ["updateFileLocked", (file: string) => updateFileLocked(file, (text) => `${text}b\n`)],
  ] as const) {
    it(`${name}: none until read, each once, the text before and after`, async () => {
      const file = path.join(workspace(), "queue.md");
      fs.writeFileSync(file, "a\n");
      hashed();
      const result = await write(file);
      expect(result.written).toBe(true);
      expect(hashed()).toEqual([]);
      for (let look = 0; look < 2; look++) {
        expect(result.hashBefore).toBe(atomic.contentHash("a\n"));
        expect(result.hashAfter).toBe(atomic.contentHash("a\nb\n"));
      }
      // Two of each are the expectations above.
      expect(hashed().sort()).toEqual(["a\n", "a\n", "a\n", "a\nb\n", "a\nb\n", "a\nb\n"]);
      // Listed with the rest of the result.
      expect(Object.keys(result)).toEqual(expect.arrayContaining(["hashBefore", "hashAfter"]));
    });
  }

  it("a write skipped: the hash after is the hash before", async () => {
    const file = path.join(workspace(), "queue.md");
    fs.writeFileSync(file, "a\n");
    const result = await updateFileLocked(file, () => null);
    expect(result.written).toBe(false);
    hashed();
    expect(result.hashAfter).toBe(result.hashBefore);
    expect(result.hashBefore).toBe(atomic.contentHash("a\n"));
  });
});
