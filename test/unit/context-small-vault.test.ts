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
const MEMORY = `# Memory

- I live in Lisbon with my partner Ana.
- My cat is called Miso; she is a grey tabby.
- I work as a backend engineer at a logistics startup.
- Favourite coffee: cortado, no sugar.
- Allergic to penicillin.
- My bike is a blue Brompton.
- Dentist: Dr. Ferreira, every six months.
- I run on Tuesdays and Saturdays.
- My sister Joana lives in Porto.
- Prefer window seats on flights.
- Learning Japanese on weekday mornings.
- The home wifi router is in the hallway closet.
- My car is a 2015 Honda Jazz.
- Birthday: 14 March.
- Ana's birthday is 2 September.
- I keep the spare key with the neighbour in 3B.
- Gym membership renews in January.
`;

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
