// Child process for hardening-config.test.ts: load each hostile CONFIG.md twice, with an edit in
// between, the way the gateway re-reads it after an operator edit. Before the fix the second parse
// aborted Node (exit 134) inside the YAML parser; the parent asserts a clean exit.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadHygieneConfig } from "../../../src/memory/config-md.ts";

export const PAYLOADS: Record<string, string> = {
  "1,000 nested [": "[".repeat(1000),
  "1,000 nested {": "{".repeat(1000),
  "2,000 compact - items": "- ".repeat(2000),
  "nested inside a yaml fence": "```yaml\na: " + "[{".repeat(600) + "\n```\n",
};

if (process.argv[2] === "run") {
  const workspace = await fs.mkdtemp(path.join(os.tmpdir(), "cfg-bomb-"));
  const file = path.join(workspace, "CONFIG.md");
  const report: Record<string, Array<{ ok: boolean; error?: string }>> = {};
  for (const [name, payload] of Object.entries(PAYLOADS)) {
    report[name] = [];
    for (const suffix of ["", "\n# edited\n"]) {
      await fs.writeFile(file, payload + suffix);
      const { ok, error } = await loadHygieneConfig(workspace);
      report[name].push({ ok, error });
    }
  }
  // A valid config still parses afterwards: the process is healthy, not just alive.
  await fs.writeFile(file, "```yaml\ncontext_budget_tokens: 4000\n```\n");
  const after = await loadHygieneConfig(workspace);
  await fs.rm(workspace, { recursive: true, force: true });
  process.stdout.write(JSON.stringify({ report, after: after.config.context_budget_tokens }) + "\n");
}
