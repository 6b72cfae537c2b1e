import type fs from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { lineEnd } from "../../src/fs/locked-writes.ts";

// The separator decision of a locked append, against a file another writer is appending to. The
// kernel shows such a file for a moment at a page boundary, mid-line (ext4, Linux 6.18): these
// fakes replay that view, so the test does not need to win a race.

/** A handle over `views`: each stat returns the next view, reads see the latest one. */
function handleOver(views: string[]): fs.FileHandle {
  let current = 0;
  const fake = {
    stat: async () => {
      current = Math.min(current + 1, views.length - 1);
      return { size: Buffer.byteLength(views[current]!) };
    },
    read: async (buffer: Buffer, offset: number, length: number, position: number) => {
      const bytes = Buffer.from(views[current]!);
      const bytesRead = bytes.copy(buffer, offset, position, Math.min(bytes.length, position + length));
      return { bytesRead, buffer };
    },
  };
  return fake as unknown as fs.FileHandle;
}

const size = (text: string) => Buffer.byteLength(text);

describe("lineEnd: the newline a locked append puts before its entry", () => {
  it("none for an empty file or one that ends in a newline", async () => {
    expect(await lineEnd(handleOver([""]), 0)).toEqual({ size: 0, separator: "" });
    expect(await lineEnd(handleOver(["a\n"]), 2)).toEqual({ size: 2, separator: "" });
  });

  it("one for a file whose last line is unterminated, and that stays so: a single second look tells", async () => {
    const text = "# Memory\n- an edit without a final newline";
    expect(await lineEnd(handleOver([text, text]), size(text))).toEqual({ size: size(text), separator: "\n" });
    let stats = 0;
    const handle = handleOver([text, text]);
    const counted = { ...handle, stat: async () => (stats++, handle.stat()) } as unknown as fs.FileHandle;
    expect(await lineEnd(counted, size(text))).toEqual({ size: size(text), separator: "\n" });
    expect(stats).toBe(1);
  });

  it("none when the mid-line view was another writer's append in flight: the size moves, the second look ends in a newline", async () => {
    const half = "# Memory\nplain 1";
    const whole = "# Memory\nplain 12\n";
    expect(await lineEnd(handleOver([half, whole]), size(half))).toEqual({ size: size(whole), separator: "" });
  });

  it("one when the append in flight finished on an unterminated line", async () => {
    const half = "# Memory\npla";
    const whole = "# Memory\nplain 12";
    expect(await lineEnd(handleOver([half, whole, whole]), size(half))).toEqual({ size: size(whole), separator: "\n" });
  });

  it("a file that keeps growing mid-line is looked at a bounded number of times, then gets the newline", async () => {
    const views = Array.from({ length: 50 }, (_, i) => `# Memory\n${"x".repeat(i + 1)}`);
    let stats = 0;
    const handle = handleOver(views);
    const counted = { ...handle, stat: async () => (stats++, handle.stat()) } as unknown as fs.FileHandle;
    const result = await lineEnd(counted, size(views[0]!));
    expect(result.separator).toBe("\n");
    expect(stats).toBeGreaterThan(1);
    expect(stats).toBeLessThan(20);
  });
});
