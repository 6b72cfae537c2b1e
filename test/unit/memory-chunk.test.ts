import { describe, expect, it } from "vitest";
import { chunkMarkdown } from "../../src/memory/chunk.ts";

const opts = { maxChunkChars: 1200 };

describe("chunkMarkdown", () => {
  it("splits by headings, then paragraphs and top-level list items, keeping heading paths and original text", () => {
    const md = [
      "# Journal",
      "",
      "## Boats",
      "- Jeff's **sailboat** is named Halcyon Drift.",
      "  It is moored at slip 14.",
      "- He wants to repaint the hull.",
      "",
      "### Crew",
      "Sam crews on Saturdays.",
      "",
      "Second paragraph about crew.",
      "",
      "## Work",
      "TypeScript over Go.",
    ].join("\n");
    const chunks = chunkMarkdown(md, "memory/notes.md", opts);
    expect(chunks.map((c) => [c.headingPath.join(" > "), c.text])).toEqual([
      ["Journal > Boats", "- Jeff's **sailboat** is named Halcyon Drift.\n  It is moored at slip 14."],
      ["Journal > Boats", "- He wants to repaint the hull."],
      ["Journal > Boats > Crew", "Sam crews on Saturdays."],
      ["Journal > Boats > Crew", "Second paragraph about crew."],
      ["Journal > Work", "TypeScript over Go."],
    ]);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(chunks.length);
    expect(chunks.every((c) => c.file === "memory/notes.md")).toBe(true);
  });

  it("does not treat '#' lines inside fenced code as headings", () => {
    const md = "## Setup\n```bash\n# not a heading\necho hi\n\necho after blank\n```\n\nAfter code.";
    const chunks = chunkMarkdown(md, "MEMORY.md", opts);
    expect(chunks).toHaveLength(2);
    expect(chunks[0].text).toBe("```bash\n# not a heading\necho hi\n\necho after blank\n```");
    expect(chunks[0].headingPath).toEqual(["Setup"]);
    expect(chunks[1].headingPath).toEqual(["Setup"]);
  });

  it("caps chunk size, splitting long units at sentence ends", () => {
    const sentence = "The quick brown fox jumps over the lazy dog again. ";
    const md = sentence.repeat(40);
    const chunks = chunkMarkdown(md, "MEMORY.md", { maxChunkChars: 200 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(200);
      expect(c.text.endsWith(".")).toBe(true);
    }
  });

  it("hard-splits a unit with no sentence breaks", () => {
    const chunks = chunkMarkdown("x".repeat(1000), "MEMORY.md", { maxChunkChars: 300 });
    expect(chunks.map((c) => c.text.length)).toEqual([300, 300, 300, 100]);
  });

  it("dates chunks from the nearest dated heading, a leading date, front matter, or the file name", () => {
    expect(chunkMarkdown("Plain fact.", "memory/2026-02-22.md", opts)[0].date).toBe("2026-02-22");
    expect(chunkMarkdown("---\ndate: 2025-12-01\n---\nFact.", "memory/notes.md", opts)[0].date).toBe("2025-12-01");
    expect(chunkMarkdown("---\ndate: 2025-12-01\n---\nFact.", "memory/2026-01-01.md", opts)[0].date).toBe("2025-12-01");
    expect(chunkMarkdown("## 2024-05-06 standup\nFact.", "memory/2026-01-01.md", opts)[0].date).toBe("2024-05-06");
    expect(chunkMarkdown("- 2026-01-09: Port moves to 3100.", "MEMORY.md", opts)[0].date).toBe("2026-01-09");
    expect(chunkMarkdown("No date anywhere.", "MEMORY.md", opts)[0].date).toBeUndefined();
    expect(chunkMarkdown("Bad 2026-13-45 date.", "MEMORY.md", opts)[0].date).toBeUndefined();
  });

  it("reads front-matter confidence and never executes JavaScript front matter", () => {
    expect(chunkMarkdown("---\nconfidence: 0.6\n---\nFact.", "m.md", opts)[0].confidence).toBe(0.6);
    (globalThis as Record<string, unknown>).__frontMatterRan = false;
    const hostile = "---js\n{ x: (globalThis.__frontMatterRan = true) }\n---\nFact after js.";
    const chunks = chunkMarkdown(hostile, "m.md", opts);
    expect((globalThis as Record<string, unknown>).__frontMatterRan).toBe(false);
    expect(chunks.map((c) => c.text)).toContain("Fact after js.");
  });

  it("keeps a file with broken front matter as text", () => {
    const chunks = chunkMarkdown("---\ndate: [unclosed\n---\nStill indexed.", "m.md", opts);
    expect(chunks.map((c) => c.text).join("\n")).toContain("Still indexed.");
  });
});
