import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildBudgetedBlock } from "../../src/context/budget.ts";
import { contextFilePath, flushContextFileWrites, writeContextFile } from "../../src/context/context-file.ts";
import { formatCompactBlock, formatContextBlock } from "../../src/context/format.ts";
import type { RetrievedMemory } from "../../src/memory/types.ts";

// Story 007 "Output Format" example, verbatim (the spec file stores it double-encoded; this is the
// decoded text: 🧠, ≥ and — are single characters).
const STORY_007_EXAMPLE = `<!-- ethos:context ts=2026-02-22T10:59:00Z query_score=0.87 -->
## 🧠 Memory Context

Relevant memories retrieved from Ethos (top 3, similarity ≥ 0.75):

1. **[2026-02-22]** Ethos uses gemini-embedding-001 with 768 dimensions. The outputDimensionality parameter must be set in the API request — default is 3072. *(score: 0.89)*

2. **[2026-02-22]** The ethos-server is managed by a systemd user service. Restart after builds with \`./scripts/rebuild.sh\`. *(score: 0.82)*

3. **[2026-02-21]** PostgreSQL pgvector extension requires superuser to install. Run CREATE EXTENSION vector as the postgres user, not as the ethos DB user. *(score: 0.77)*
`;

const EXAMPLE_MEMORIES: RetrievedMemory[] = [
  { id: "1", date: "2026-02-22", score: 0.89, headingPath: [], source: "ethos",
    text: "Ethos uses gemini-embedding-001 with 768 dimensions. The outputDimensionality parameter must be set in the API request — default is 3072." },
  { id: "2", date: "2026-02-22", score: 0.82, headingPath: [], source: "ethos",
    text: "The ethos-server is managed by a systemd user service. Restart after builds with `./scripts/rebuild.sh`." },
  { id: "3", date: "2026-02-21", score: 0.77, headingPath: [], source: "ethos",
    text: "PostgreSQL pgvector extension requires superuser to install. Run CREATE EXTENSION vector as the postgres user, not as the ethos DB user." },
];

const frame = { ts: new Date("2026-02-22T10:59:00.000Z"), queryScore: 0.87, threshold: 0.75, sourceLabel: "Ethos" };

describe("story 007 format", () => {
  it("formats the example byte for byte", () => {
    const block = formatContextBlock({ ...frame, entries: EXAMPLE_MEMORIES.map(({ date, text, score }) => ({ date, text, score })) });
    expect(Buffer.from(block, "utf8").equals(Buffer.from(STORY_007_EXAMPLE, "utf8"))).toBe(true);
  });

  it("the full budgeted, neutralised path leaves the example unchanged", () => {
    const { block, injected } = buildBudgetedBlock(EXAMPLE_MEMORIES, { topK: 3, maxSnippetChars: 800, maxTotalChars: 4000 }, frame, formatContextBlock);
    expect(block).toBe(STORY_007_EXAMPLE);
    expect(injected.map((m) => m.id)).toEqual(["1", "2", "3"]);
  });

  it("is empty when there are no entries", () => {
    expect(formatContextBlock({ ...frame, entries: [] })).toBe("");
  });

  it("marks undated memories and rounds scores to two decimals", () => {
    const block = formatContextBlock({ ...frame, entries: [{ text: "Fact.", score: 0.8349 }] });
    expect(block).toContain("1. **[undated]** Fact. *(score: 0.83)*");
  });
});

describe("ETHOS_CONTEXT.md writer", () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), "ethos-file-"));
  afterAll(() => fs.rmSync(ws, { recursive: true, force: true }));

  it("writes an empty file (not a missing one) when nothing passed the gate", async () => {
    await writeContextFile(ws, "");
    expect(fs.existsSync(contextFilePath(ws))).toBe(true);
    expect(fs.readFileSync(contextFilePath(ws), "utf8")).toBe("");
  });

  it("overwrites, never appends; queued writes land in order", async () => {
    void writeContextFile(ws, STORY_007_EXAMPLE);
    void writeContextFile(ws, "second turn\n");
    await flushContextFileWrites();
    expect(fs.readFileSync(contextFilePath(ws), "utf8")).toBe("second turn\n");
    await writeContextFile(ws, "");
    expect(fs.readFileSync(contextFilePath(ws), "utf8")).toBe("");
    expect(fs.readdirSync(ws).filter((f) => f.includes("ETHOS_CONTEXT"))).toEqual(["ETHOS_CONTEXT.md"]);
  });
});

describe("compact layout (the injected block the model reads)", () => {
  it("groups entries under their date, oldest first, with no scores or marker; an undated memory first, under no label", () => {
    const block = formatCompactBlock({
      entries: [
        { date: "2026-02-22", text: "Sailboat moved to slip 22.", score: 0.9 },
        { text: "Prefers window seats.", score: 0.5 },
        { date: "2025-12-01", text: "Bought the sailboat.", score: 0.4 },
        { date: "2026-02-22", text: "Bottom paint booked.", score: 0.3 },
      ],
      ts: new Date("2026-02-22T10:59:00Z"),
      queryScore: 0.9,
      threshold: 0.12,
      sourceLabel: "workspace memory",
    });
    expect(block).toBe(
      [
        "Relevant memories (workspace memory), by date:",
        "- Prefers window seats.",
        "[2025-12-01]",
        "- Bought the sailboat.",
        "[2026-02-22]",
        "- Sailboat moved to slip 22.",
        "- Bottom paint booked.",
        "",
      ].join("\n"),
    );
    expect(formatCompactBlock({ entries: [], ts: new Date(), queryScore: 0, threshold: 0.12, sourceLabel: "x" })).toBe("");
  });
});
