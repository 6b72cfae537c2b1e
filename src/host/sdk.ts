// The running host's plugin SDK (`openclaw/plugin-sdk/core`), imported from the host's own files so
// that what we call shares the host's module state. The plugin has no `openclaw` dependency of its own.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { hostPackageOf } from "./version.ts";

/** The parts of the SDK the context engine uses. */
export type HostSdk = {
  /** OpenClaw's own compaction, for an engine that does not own compaction. */
  delegateCompactionToRuntime(params: Record<string, unknown>): Promise<unknown>;
  /** The `## Memory Recall` section OpenClaw leaves out for a non-default engine. */
  buildMemorySystemPromptAddition?(params: Record<string, unknown>): string | undefined;
};

export async function loadHostSdk(entryScript: string | undefined = process.argv[1]): Promise<HostSdk> {
  const host = hostPackageOf(entryScript);
  if (!host) throw new Error("the running openclaw package was not found (process.argv[1])");
  const sdk = (await import(pathToFileURL(path.join(host.dir, "dist", "plugin-sdk", "core.js")).href)) as Partial<HostSdk>;
  if (typeof sdk.delegateCompactionToRuntime !== "function") throw new Error("openclaw/plugin-sdk/core has no delegateCompactionToRuntime");
  return sdk as HostSdk;
}
