import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  BASE_CONFIDENCE,
  applyOperatorCorrection,
  chunkRankingMultiplier,
  effectiveConfidence,
  formatMemoryMetadata,
  isRetractionCandidate,
  parseMemoryEntries,
  parseMemoryMetadata,
  recordMention,
  retrievalWeight,
  stripMemoryMetadata,
} from "../../src/memory/confidence.ts";
import type { MemoryMetadata } from "../../src/memory/confidence.ts";

const day = (iso: string) => new Date(`${iso}T00:00:00.000Z`);
const now = day("2026-06-01");
const daysBefore = (n: number) => new Date(now.getTime() - n * 86_400_000);

describe("confidence scoring (§8)", () => {
  it("base confidences", () => {
    expect(effectiveConfidence({ source: "operator" }, now)).toBe(0.95);
    expect(effectiveConfidence({ source: "correction" }, now)).toBe(1);
    expect(effectiveConfidence({ source: "inferred" }, now)).toBe(0.6);
    expect(effectiveConfidence({}, now)).toBe(BASE_CONFIDENCE.inferred);
  });

  it("+0.05 per repeat mention, capped at 1.0", () => {
    expect(effectiveConfidence({ source: "inferred", mentions: 3, last: now }, now)).toBe(0.7);
    expect(effectiveConfidence({ source: "operator", mentions: 5, last: now }, now)).toBe(1);
  });

  it("-0.05 per whole 30 days without mention, floor 0.2", () => {
    expect(effectiveConfidence({ source: "inferred", last: daysBefore(29) }, now)).toBe(0.6);
    expect(effectiveConfidence({ source: "inferred", last: daysBefore(30) }, now)).toBe(0.55);
    expect(effectiveConfidence({ source: "inferred", last: daysBefore(95) }, now)).toBe(0.45);
    expect(effectiveConfidence({ source: "inferred", last: daysBefore(3650) }, now)).toBe(0.2);
    expect(effectiveConfidence({ confidence: 0.9, source: "operator", last: daysBefore(60) }, now)).toBe(0.8);
  });

  it("corrections stay 1.0 forever and get the 1.5x retrieval boost", () => {
    const correction: MemoryMetadata = { source: "correction", last: daysBefore(3650), confidence: 0.4 };
    expect(effectiveConfidence(correction, now)).toBe(1);
    expect(retrievalWeight(correction, now)).toBe(1.5);
    expect(retrievalWeight({ source: "operator", last: now }, now)).toBe(0.95);
  });

  it("a repeat mention boosts the decayed score and restarts the decay clock", () => {
    const old: MemoryMetadata = { source: "inferred", mentions: 1, last: daysBefore(60) }; // 0.5 now
    const mentioned = recordMention(old, now);
    expect(mentioned).toEqual({ source: "inferred", mentions: 2, last: now, confidence: 0.55 });
    expect(effectiveConfidence(mentioned, new Date(now.getTime() + 29 * 86_400_000))).toBe(0.55);
    expect(effectiveConfidence(mentioned, new Date(now.getTime() + 30 * 86_400_000))).toBe(0.5);
  });

  it("an operator correction resets to 1.0", () => {
    const corrected = applyOperatorCorrection({ source: "inferred", confidence: 0.3, last: daysBefore(400), status: "stale" }, now);
    expect(effectiveConfidence(corrected, now)).toBe(1);
    expect(corrected.source).toBe("correction");
  });

  it("only non-operator corrections below 0.3 are retraction candidates", () => {
    expect(isRetractionCandidate({ source: "agent-correction", last: daysBefore(300) }, now)).toBe(true);
    expect(isRetractionCandidate({ source: "agent-correction", last: daysBefore(200) }, now)).toBe(false);
    expect(isRetractionCandidate({ source: "correction", last: daysBefore(3000) }, now)).toBe(false);
    expect(isRetractionCandidate({ source: "inferred", last: daysBefore(3000) }, now)).toBe(false);
  });

  it("property: confidence stays within [floor, 1] and never rises without a mention", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("operator", "inferred", "agent-correction" as const),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 0, max: 5000 }),
        (source, mentions, ageA, extra) => {
          const meta: MemoryMetadata = { source, mentions, last: daysBefore(ageA + extra) };
          const later = effectiveConfidence(meta, now);
          const earlier = effectiveConfidence(meta, daysBefore(extra));
          expect(later).toBeGreaterThanOrEqual(0.2);
          expect(later).toBeLessThanOrEqual(1);
          expect(later).toBeLessThanOrEqual(earlier);
        },
      ),
    );
  });
});

describe("inline metadata", () => {
  it("parses the documented comment and round-trips it", () => {
    const line = "- Prefers window seats <!-- confidence: 0.95 source: operator mentions: 3 last: 2026-02-22 -->";
    const meta = parseMemoryMetadata(line)!;
    expect(meta).toEqual({ confidence: 0.95, source: "operator", mentions: 3, last: day("2026-02-22") });
    expect(formatMemoryMetadata(meta)).toBe("<!-- confidence: 0.95 source: operator mentions: 3 last: 2026-02-22 -->");
    expect(stripMemoryMetadata(line)).toBe("- Prefers window seats");
  });

  it("ignores bad values and unrelated comments; #correction marks a correction", () => {
    expect(parseMemoryMetadata("- x <!-- confidence: 7 source: rumour mentions: 0 last: someday -->")).toEqual({});
    expect(parseMemoryMetadata("- x <!-- just a note -->")).toBeNull();
    expect(parseMemoryMetadata("- no metadata")).toBeNull();
    expect(parseMemoryMetadata("- Lives in Hangzhou now #correction")).toEqual({ source: "correction" });
  });

  it("splits a memory file into entries with their metadata", () => {
    const md = [
      "# MEMORY",
      "",
      "## People",
      "- Alice runs ops <!-- confidence: 0.6 source: inferred -->",
      "  continued on a second line",
      "- Bob moved to Berlin #correction",
      "",
      "A loose paragraph.",
    ].join("\n");
    const entries = parseMemoryEntries(md);
    expect(entries.map((e) => [e.line, e.meta?.source ?? null])).toEqual([[4, "inferred"], [6, "correction"], [8, null]]);
    expect(entries[0].text).toContain("continued on a second line");
  });

  it("chunk multiplier: neutral without metadata, strongest entry wins", () => {
    expect(chunkRankingMultiplier("- plain fact", now)).toBe(1);
    expect(chunkRankingMultiplier("- a <!-- source: inferred last: 2026-06-01 -->\n- b #correction", now)).toBe(1.5);
    expect(chunkRankingMultiplier("- a <!-- source: inferred last: 2026-01-01 -->", now)).toBe(0.35);
  });
});

describe("chunk helpers for the retriever", () => {
  it("chunkConfidence: undefined without metadata, strongest entry otherwise", async () => {
    const { chunkConfidence, isCorrectionChunk } = await import("../../src/memory/confidence.ts");
    expect(chunkConfidence("- plain", now)).toBeUndefined();
    expect(chunkConfidence("- a <!-- source: inferred last: 2026-01-01 -->\n- b <!-- source: operator last: 2026-05-30 -->", now)).toBe(0.95);
    expect(isCorrectionChunk("- b #correction")).toBe(true);
    expect(isCorrectionChunk("- b <!-- source: operator -->")).toBe(false);
  });
});
