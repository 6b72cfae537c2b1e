import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultEthosContextConfig } from "../../src/context/config.ts";
import { runContextPipeline } from "../../src/context/pipeline.ts";
import { buildMemoryIndex } from "../../src/memory/memory-index.ts";
import type { MemoryIndex } from "../../src/memory/memory-index.ts";
import { createEmbeddedRetriever } from "../../src/memory/retriever.ts";
import { workspaceMemorySources } from "../../src/memory/sources.ts";

// Curated daily notes, the shape of an agent's memory/YYYY-MM-DD.md: a date, a name heading, one
// short fact per bullet. No `Name:` lines, so a question about Caroline can only find her through
// the heading; and short facts score low, so the gate must not also cut how much is injected.
const DAYS: Record<string, string> = {
  "2023-05-08": "# 2023-05-08\n\n## Caroline\n\n- Went to a support group and found it inspiring.\n\n- Wants to study counseling.\n\n## Melanie\n\n- Painted a lake at sunrise last year.\n\n- Goes swimming with the kids.\n",
  "2023-05-25": "# 2023-05-25\n\n## Caroline\n\n- Adopted a guinea pig called Oscar.\n\n- Reads a book about adoption.\n\n## Melanie\n\n- Ran a charity race for mental health.\n\n- Caroline cheered for Melanie at the race.\n",
  "2023-06-09": "# 2023-06-09\n\n## Caroline\n\n- Gave a talk at a school about her journey.\n\n## Melanie\n\n- Camped in the mountains with the family.\n\n- Took pottery classes.\n",
};

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "notes-vault-"));
let index: MemoryIndex;
beforeAll(async () => {
  fs.mkdirSync(path.join(tmp, "memory"));
  for (const [day, text] of Object.entries(DAYS)) fs.writeFileSync(path.join(tmp, "memory", `${day}.md`), text);
  index = await buildMemoryIndex(workspaceMemorySources(tmp), { cacheDir: false });
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const ask = (message: string, maxTokens = 1000) =>
  runContextPipeline({ message, retriever: createEmbeddedRetriever(index), config: defaultEthosContextConfig(), sessionType: "MAIN_SESSION", maxTokens });

describe("curated notes at the hook's defaults", () => {
  it("a question about someone the notes file facts under injects their facts, though its other words miss", async () => {
    const result = await ask("Which hobbies does Melanie have these days?");
    expect(result.decision).toMatchObject({ inject: true, tier: "named" });
    expect(result.block).toContain("Took pottery classes");
    // Filed under Melanie, so her facts come before Caroline's.
    const melanie = result.block.indexOf("Painted a lake");
    const caroline = result.block.indexOf("support group");
    expect(melanie).toBeGreaterThanOrEqual(0);
    if (caroline >= 0) expect(melanie).toBeLessThan(caroline);
  });

  it("the same question with the name in lowercase does not open the gate on the name alone", async () => {
    const result = await ask("which hobbies does melanie have these days?");
    expect(result.decision?.tier).not.toBe("named");
  });

  it("once the gate is passed, the budget fills with weaker matches instead of stopping at the gate", async () => {
    const result = await ask("When did Caroline adopt Oscar the guinea pig?");
    expect(result.decision?.inject).toBe(true);
    expect(result.block).toContain("Adopted a guinea pig called Oscar");
    const belowGate = result.injected.filter((memory) => memory.score < defaultEthosContextConfig().confidenceGate);
    expect(belowGate.length).toBeGreaterThan(0);
    // A smaller budget holds fewer entries, best first.
    const small = await ask("When did Caroline adopt Oscar the guinea pig?", 60);
    expect(small.injected.length).toBeLessThan(result.injected.length);
    expect(small.block).toContain("Adopted a guinea pig called Oscar");
  });

  it("prompts that name nobody the notes know stay out", async () => {
    for (const prompt of ["Explain the difference between a process and a thread.", "How can I make my Jest tests run faster?"]) {
      expect((await ask(prompt)).block).toBe("");
    }
  });
});
