import { describe, expect, it } from "vitest";
import { parseMemoryEntries } from "../../src/memory/confidence.ts";
import { memoryEntriesOf } from "../../src/memory/growing-entries.ts";
import { seededRandom } from "../../bench/scale/vault.ts";

const plain = (entries: readonly { text: string; line: number }[]) => entries.map((e) => ({ text: e.text, line: e.line }));

describe("memoryEntriesOf", () => {
  it("gives what parseMemoryEntries gives, for a text that grows in any way, is rewritten or shrinks", () => {
    const random = seededRandom(11);
    let text = "";
    let reused = 0;
    for (let step = 0; step < 400; step++) {
      const roll = random();
      // Appends of every kind: new items, continuations, blank lines, headings, paragraphs, CRLF,
      // a line cut in the middle (the next append ends it), metadata comments; now and then a rewrite.
      if (roll < 0.35) text += `- item ${step} <!-- c:0.9 s:operator m:1 -->\n`;
      else if (roll < 0.45) text += `  continued ${step}\n`;
      else if (roll < 0.52) text += "\n";
      else if (roll < 0.58) text += `## Heading ${step}\n`;
      else if (roll < 0.64) text += `A paragraph ${step}\r\n`;
      else if (roll < 0.72) text += `- cut ${step}`;
      else if (roll < 0.78) text += ` more of the cut line ${step}\n`;
      else if (roll < 0.83) text += "   ";
      else if (roll < 0.88) text += "1. numbered\n";
      else if (roll < 0.92) text = text.slice(0, Math.floor(text.length * random()));
      else if (roll < 0.95) text = `- rewritten ${step}\n${text}`;
      const first = memoryEntriesOf("day.md", text);
      const again = memoryEntriesOf("day.md", text);
      if (again === first) reused++;
      expect(plain(first)).toEqual(plain(parseMemoryEntries(text)));
      expect(first[0]?.meta ?? null).toEqual(parseMemoryEntries(text)[0]?.meta ?? null);
    }
    expect(reused).toBe(400); // the same text twice: the same entries, not parsed again
  });

  it("keeps files apart by key", () => {
    expect(plain(memoryEntriesOf("a.md", "- in a\n"))).toEqual([{ text: "- in a", line: 1 }]);
    expect(plain(memoryEntriesOf("b.md", "- in b\n- more\n"))).toEqual([{ text: "- in b", line: 1 }, { text: "- more", line: 2 }]);
    expect(plain(memoryEntriesOf("a.md", "- in a\n- and\n"))).toEqual([{ text: "- in a", line: 1 }, { text: "- and", line: 2 }]);
  });
});
