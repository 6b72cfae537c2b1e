import { getLogger } from "../core/log.ts";
import type { HygieneConfig } from "../memory/config-md.ts";
import { redactSecrets, secretKinds } from "../memory/secrets.ts";
import { isForgotten } from "./forget.ts";
import type { ExtractedFact } from "./statement.ts";

// What the capture may write for a fact "remember that …" asked to keep: a secret's value is
// withheld unless the operator keeps secrets (CONFIG.md memory_keep_secrets), and a fact the owner
// had forgotten is not written again (its tombstone in memory/.forgotten.jsonl).

export type GuardedFact = { fact: ExtractedFact; withheld: string[] } | { skipped: string };

const log = () => getLogger("openclaw-context.hygiene");

export async function factToWrite(workspaceDir: string, fact: ExtractedFact, config: HygieneConfig): Promise<GuardedFact> {
  const kinds = secretKinds(fact.statement);
  const statement = kinds.length > 0 && !config.memory_keep_secrets ? redactSecrets(fact.statement) : fact.statement;
  if (await isForgotten(workspaceDir, statement)) {
    log().info({ event: "capture.forgotten", reason: "tombstone" }, "capture: this fact was forgotten; not written again (undo the forget to bring it back)");
    return { skipped: "forgotten (a tombstone in memory/.forgotten.jsonl)" };
  }
  if (statement !== fact.statement) log().info({ event: "capture.secret-withheld", kinds }, "capture: secret value withheld from the fact (CONFIG.md memory_keep_secrets: true keeps it)");
  return { fact: { ...fact, statement }, withheld: statement !== fact.statement ? kinds : [] };
}
