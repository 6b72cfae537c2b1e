import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { HYGIENE_CONFIG_DEFAULTS } from "../../src/memory/config-md.ts";
import type { HygieneConfig } from "../../src/memory/config-md.ts";
import { buildMemoryIndex } from "../../src/memory/memory-index.ts";
import { createEmbeddedRetriever } from "../../src/memory/retriever.ts";
import { workspaceMemorySources } from "../../src/memory/sources.ts";

// Each CONFIG.md confidence setting documented in docs/memory-hygiene.md changes the ranking score
// of a memory that carries metadata. The query matches the memory only partly, so its score stays
// well under 1 and a weight change is visible (no clamping).

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "confidence-settings-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const today = new Date().toISOString().slice(0, 10);
const ENTRIES: Record<string, string> = {
  decayed: "- Jeff's kayak is stored in the garage <!-- source: operator last: 2020-01-01 -->",
  mentioned: `- Jeff's kayak is stored in the garage <!-- source: inferred mentions: 5 last: ${today} -->`,
  correction: "- Jeff's kayak is stored in the garage #correction",
};

async function scoreOf(kind: keyof typeof ENTRIES, settings: Partial<HygieneConfig>): Promise<number> {
  const ws = fs.mkdtempSync(path.join(tmp, `${kind}-`));
  fs.writeFileSync(path.join(ws, "MEMORY.md"), `# Memory\n${ENTRIES[kind]}\n- Unrelated note about lunch.\n- Another note about the weather.\n`);
  const index = await buildMemoryIndex(workspaceMemorySources(ws), { cacheDir: false });
  const [hit] = index.search("Where is the kayak paddle?", 3, { confidence: { ...HYGIENE_CONFIG_DEFAULTS, ...settings } });
  expect(hit.text).toContain("kayak");
  expect(hit.score).toBeLessThan(0.7);
  return hit.score;
}

describe("CONFIG.md confidence settings reach retrieval ranking", () => {
  it("confidence_decay_amount: no decay keeps an old memory's score", async () => {
    expect(await scoreOf("decayed", { confidence_decay_amount: 0 })).toBeGreaterThan(await scoreOf("decayed", {}));
  });

  it("confidence_decay_interval_days: a longer interval decays less", async () => {
    expect(await scoreOf("decayed", { confidence_decay_interval_days: 100_000 })).toBeGreaterThan(await scoreOf("decayed", {}));
  });

  it("confidence_floor: a higher floor lifts a fully decayed memory", async () => {
    expect(await scoreOf("decayed", { confidence_floor: 0.9 })).toBeGreaterThan(await scoreOf("decayed", {}));
  });

  it("confidence_boost_per_mention: a bigger boost lifts a memory mentioned five times", async () => {
    expect(await scoreOf("mentioned", { confidence_boost_per_mention: 0.1 })).toBeGreaterThan(await scoreOf("mentioned", {}));
  });

  it("correction_relevance_boost: a bigger boost lifts an operator correction", async () => {
    expect(await scoreOf("correction", { correction_relevance_boost: 3 })).toBeGreaterThan(await scoreOf("correction", {}));
  });

  it("the embedded retriever reads them from the workspace's CONFIG.md", async () => {
    const ws = fs.mkdtempSync(path.join(tmp, "config-md-"));
    fs.writeFileSync(path.join(ws, "MEMORY.md"), `# Memory\n${ENTRIES.decayed}\n- Unrelated note about lunch.\n`);
    const index = await buildMemoryIndex(workspaceMemorySources(ws), { cacheDir: false });
    const retriever = createEmbeddedRetriever(index, "workspace memory", { configRecheckMs: 0 });
    const score = async () => (await retriever.search("Where is the kayak paddle?", 3))[0].score;
    const before = await score();
    fs.writeFileSync(path.join(ws, "CONFIG.md"), "# Config\n```yaml\nconfidence_floor: 0.9\n```\n");
    // Re-read in the background: a later turn gets the new floor.
    await vi.waitFor(async () => expect(await score()).toBeGreaterThan(before), { timeout: 120_000 });
  });
});
