// Runs the LoCoMo benchmark: every conversation (or one in smoke mode) through the bundle and the
// baseline. Returns undefined with a reason when the data folder is absent.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { locomoDir, locomoNotesDir } from "../lib/paths.ts";
import type { RetrieverUnderTest } from "../lib/retriever-under-test.ts";
import { listConversations, loadConversation } from "./data.ts";
import { evaluateConversation, summarise } from "./evaluate.ts";
import type { ConversationRun, LocomoSummary, NonMemoryPrompt } from "./evaluate.ts";
import { renderLocomo } from "./report.ts";
import type { LocomoSetName } from "./report.ts";
import { renderSmallVault, runSmallVault } from "./small-vault.ts";
import type { SmallVaultResult } from "./small-vault.ts";

export function loadNonMemoryPrompts(): NonMemoryPrompt[] {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), "non-memory-prompts.json");
  return (JSON.parse(fs.readFileSync(file, "utf8")) as { prompts: NonMemoryPrompt[] }).prompts;
}

export type LocomoOutcome =
  | { skipped: true; reason: string }
  | { skipped: false; summary: LocomoSummary; markdown: string; runs: ConversationRun[]; smallVault?: SmallVaultResult };

/** Where each LoCoMo set is read from (never copied into the repository). */
export function locomoSetDir(set: LocomoSetName): string {
  return set === "notes" ? locomoNotesDir() : locomoDir();
}

const ENV_OF_SET: Record<LocomoSetName, string> = { dialog: "OPENCLAW_CONTEXT_LOCOMO_DIR", notes: "OPENCLAW_CONTEXT_LOCOMO_NOTES_DIR" };

/**
 * One LoCoMo set through the bundle and the baseline; the small vault runs with the dialog set only
 * (`smallVault: false` leaves it out).
 */
export async function runLocomo(
  bundle: RetrieverUnderTest,
  options: { smoke: boolean; configuredGate: number; log: (line: string) => void; set?: LocomoSetName; smallVault?: boolean },
): Promise<LocomoOutcome> {
  const set = options.set ?? "dialog";
  const root = locomoSetDir(set);
  const names = listConversations(root);
  if (names.length === 0) {
    return { skipped: true, reason: `LoCoMo ${set} data not found at ${root} (set ${ENV_OF_SET[set]} to its folder)` };
  }
  const prompts = loadNonMemoryPrompts();
  const chosen = options.smoke ? names.slice(0, 1) : names;
  const runs: ConversationRun[] = [];
  for (const name of chosen) {
    const conversation = loadConversation(root, name);
    const started = Date.now();
    runs.push(await evaluateConversation(conversation, bundle, options.smoke ? prompts.filter((_, i) => i % 4 === 0) : prompts, { questionStride: options.smoke ? 3 : 1 }));
    options.log(`locomo ${set}: ${name} done (${conversation.queries.length} questions, ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
  const summary = summarise(runs, options.configuredGate);
  const markdown = renderLocomo(summary, set);
  if (options.smallVault === false) return { skipped: false, summary, markdown, runs };
  const smallVault = await runSmallVault(bundle, options.smoke ? prompts.filter((_, i) => i % 4 === 0) : prompts);
  return { skipped: false, summary, markdown: `${markdown}\n\n${renderSmallVault(smallVault)}`, runs, smallVault };
}
