// Small vaults: a new operator's 20-line MEMORY.md (written here, not LoCoMo data) and questions
// whose answer is one line of it. Run through the same bundle path as LoCoMo at the hook's
// defaults: does the one fact reach the block, and do the 200 non-memory prompts stay out?
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO_ROOT } from "../lib/paths.ts";
import { markdownTable } from "../lib/table.ts";
import { pct } from "../lib/metrics.ts";
import type { RetrieverUnderTest } from "../lib/retriever-under-test.ts";
import type { NonMemoryPrompt } from "./evaluate.ts";

/** A new operator's 20-line MEMORY.md (fixtures/small-vault, shared with the unit test). */
const MEMORY = fs.readFileSync(path.join(REPO_ROOT, "fixtures", "small-vault", "MEMORY.md"), "utf8");

/** Question → the words of the one line that answers it. */
export const SMALL_VAULT_QUESTIONS: readonly [string, string][] = [
  ["What is the name of my cat again?", "My cat is called Miso"],
  ["What's my dentist's name?", "Dr. Ferreira"],
  ["What kind of car do I drive?", "Honda Jazz"],
  ["Where does my sister live?", "Joana lives in Porto"],
  ["Which bike do I have?", "blue Brompton"],
  ["When is Ana's birthday?", "2 September"],
  ["Am I allergic to any medication?", "penicillin"],
  ["How do I take my coffee?", "cortado"],
  ["Where is the wifi router?", "hallway closet"],
  ["Who has my spare key?", "neighbour in 3B"],
  ["When does my gym membership renew?", "renews in January"],
  ["Which days do I go running?", "Tuesdays and Saturdays"],
];

export type SmallVaultResult = { questions: number; answered: number; injected: number; failures: string[]; nonMemory: number; nonMemoryInjected: number };

export async function runSmallVault(bundle: RetrieverUnderTest, prompts: readonly NonMemoryPrompt[]): Promise<SmallVaultResult> {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), "occ-small-vault-"));
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), "occ-small-vault-cache-"));
  try {
    fs.writeFileSync(path.join(ws, "MEMORY.md"), MEMORY);
    const index = await bundle.openIndex(ws, { cacheDir });
    const result: SmallVaultResult = { questions: 0, answered: 0, injected: 0, failures: [], nonMemory: 0, nonMemoryInjected: 0 };
    for (const [question, fact] of SMALL_VAULT_QUESTIONS) {
      const turn = await index.runTurn(question, 1000);
      result.questions++;
      if (turn.injected) result.injected++;
      if (turn.block.includes(fact)) result.answered++;
      else result.failures.push(`${question} (${turn.gate})`);
    }
    for (const prompt of prompts) {
      result.nonMemory++;
      if ((await index.runTurn(prompt.text, 1000)).injected) result.nonMemoryInjected++;
    }
    await index.flush();
    return result;
  } finally {
    fs.rmSync(ws, { recursive: true, force: true });
    fs.rmSync(cacheDir, { recursive: true, force: true });
  }
}

export function renderSmallVault(result: SmallVaultResult): string {
  const lines = [
    "#### Small vault (a 20-line MEMORY.md, one fact per question, hook defaults, 1,000-token budget)",
    "",
    markdownTable(
      ["questions", "the fact reached the block", "anything injected", "non-memory prompts injected"],
      [[result.questions, `${result.answered} (${pct(result.answered / result.questions)})`, pct(result.injected / result.questions), `${result.nonMemoryInjected} of ${result.nonMemory} (${pct(result.nonMemoryInjected / Math.max(1, result.nonMemory))})`]],
    ),
  ];
  if (result.failures.length) lines.push("", `Missed: ${result.failures.join("; ")}.`);
  return lines.join("\n");
}
