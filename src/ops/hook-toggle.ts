import { cliEnvForConfig, runOpenClaw } from "./openclaw-cli.ts";
import { readHookEnabled, setHookEntries } from "./openclaw-json.ts";

export type HookToggleResult = { via: "openclaw-cli" | "file"; notes: string[] };

/**
 * Enable or disable hooks: through `openclaw hooks enable|disable` when the CLI is available (it
 * validates against the real hook inventory), else by editing openclaw.json. Either way the result
 * is verified by reading the file back; a mismatch throws.
 */
export async function setHooksEnabled(params: { configPath: string; hookKeys: string[]; enabled: boolean; cli?: string }): Promise<HookToggleResult> {
  const { configPath, hookKeys, enabled, cli } = params;
  const notes: string[] = [];
  let via: HookToggleResult["via"] = "file";
  if (cli) {
    let cliOk = true;
    for (const key of hookKeys) {
      const result = await runOpenClaw(cli, ["hooks", enabled ? "enable" : "disable", key], { env: cliEnvForConfig(configPath) });
      if (result.code !== 0) {
        cliOk = false;
        notes.push(`openclaw hooks ${enabled ? "enable" : "disable"} ${key} failed (exit ${result.code}): ${firstLine(result.stderr || result.stdout)}; falling back to editing ${configPath}`);
        break;
      }
      notes.push(`openclaw hooks ${enabled ? "enable" : "disable"} ${key}: ok`);
    }
    if (cliOk) via = "openclaw-cli";
  }
  if (via === "file") {
    const edit = await setHookEntries(configPath, hookKeys.map((hookKey) => ({ hookKey, enabled })));
    notes.push(...edit.notes);
  }
  for (const key of hookKeys) {
    const actual = await readHookEnabled(configPath, key);
    const ok = enabled ? actual === true : actual !== true;
    if (!ok) throw new Error(`verification failed: hooks.internal.entries.${key}.enabled is ${String(actual)} in ${configPath}, expected ${enabled}`);
  }
  return { via, notes };
}

function firstLine(text: string): string {
  return text.trim().split(/\r?\n/)[0] ?? "";
}
