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

// A new operator's 20-line MEMORY.md: one fact per question. The hook's defaults must inject it
// (it used to be `single-below-high`, nothing injected) and still stay quiet for prompts that are
// not about the operator's memory.
const MEMORY = fs.readFileSync(path.join(import.meta.dirname, "..", "..", "fixtures", "small-vault", "MEMORY.md"), "utf8");

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "small-vault-"));
let index: MemoryIndex;
beforeAll(async () => {
  fs.writeFileSync(path.join(tmp, "MEMORY.md"), MEMORY);
  index = await buildMemoryIndex(workspaceMemorySources(tmp), { cacheDir: false });
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const ask = (message: string) =>
  runContextPipeline({ message, retriever: createEmbeddedRetriever(index), config: defaultEthosContextConfig(), sessionType: "MAIN_SESSION" });

describe("small vault (20-line MEMORY.md) at the hook's defaults", () => {
  it.each([
    ["What is the name of my cat again?", "My cat is called Miso"],
    ["What's my dentist's name?", "Dr. Ferreira"],
    ["What kind of car do I drive?", "Honda Jazz"],
    ["Where does my sister live?", "Joana lives in Porto"],
  ])("injects the one fact that answers %s", async (question, fact) => {
    const result = await ask(question);
    expect(result.block).toContain(fact);
    expect(result.injected.length).toBeGreaterThanOrEqual(1);
  });

  it.each(["How do I fix a segfault in my C code?", "Can you summarise this article about interest rates?", "Good morning! How's it going?"])(
    "injects nothing for %s",
    async (prompt) => {
      expect((await ask(prompt)).block).toBe("");
    },
  );
});
