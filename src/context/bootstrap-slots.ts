import path from "node:path";
import { estimateInjection, resolveBootstrapLimits } from "../bootstrap/budget.ts";
import type { BootstrapLimits } from "../bootstrap/budget.ts";
import { hostPreHookNames, hostVersionFor } from "../bootstrap/host-filters.ts";
import { fileSetFor } from "../bootstrap/policy.ts";
import { policyForConfig } from "../bootstrap/run.ts";
import { CHARS_PER_TOKEN } from "../core/tokens.ts";
import { readKeptText } from "../fs/kept-text.ts";
import type { OpenClawConfig } from "../host/events.ts";
import { hookEnabled } from "../host/hook-config.ts";
import { HOOK_KEYS } from "../host/ids.ts";
import type { SessionClassification } from "../session/types.ts";

// Slots 1, 2 and 7 of the §6 assembler (Identity: SOUL.md, Operator profile: USER.md, Long-term
// memory: MEMORY.md) are files OpenClaw's bootstrap injects into the system prompt when the
// session's file set lists them (by default SOUL.md and USER.md for the operator's sessions;
// MEMORY.md is searched, not injected). The block does not repeat them: it counts them, so that
// they take their share of `context_budget_tokens` before the per-turn slots get theirs.

export type BootstrapSlot = "identity" | "operator_profile" | "longterm_memory";

const SLOT_FILES: Record<BootstrapSlot, string> = { identity: "SOUL.md", operator_profile: "USER.md", longterm_memory: "MEMORY.md" };

/** What this session's bootstrap injects: the file names of its set and OpenClaw's size limits. */
export type BootstrapShape = { files: readonly string[]; limits: BootstrapLimits };

/** The session's file set (ours when aci-bootstrap is on, else OpenClaw's own) and the host's limits. Never throws. */
export function bootstrapShapeFor(cfg: OpenClawConfig | undefined, classification: SessionClassification): BootstrapShape {
  try {
    const files = hookEnabled(cfg, HOOK_KEYS.aciBootstrap)
      ? fileSetFor(policyForConfig(cfg), classification)
      : [...hostPreHookNames(classification, hostVersionFor(undefined, cfg))];
    return { files, limits: resolveBootstrapLimits(cfg, classification.agentId) };
  } catch {
    return { files: [], limits: resolveBootstrapLimits(undefined, undefined) };
  }
}

/** A bootstrap file is never read past this (OpenClaw's own per-file cap is 20,000 chars by default). */
const MAX_BOOTSTRAP_READ_BYTES = 256 * 1024;

/** Tokens OpenClaw injects for slots 1, 2 and 7 this turn (0 for a file the set leaves out or the workspace lacks). */
export async function bootstrapSlotTokens(workspaceDir: string, shape: BootstrapShape): Promise<Record<BootstrapSlot, number>> {
  const slots = Object.keys(SLOT_FILES) as BootstrapSlot[];
  const records = await Promise.all(
    slots.map(async (slot) => {
      const name = SLOT_FILES[slot];
      if (!shape.files.includes(name)) return { name, path: "" };
      const file = path.join(workspaceDir, name);
      // Unchanged files are answered by a stat (kept-text.ts): this runs on every turn.
      const read = await readKeptText(file, { root: workspaceDir, maxBytes: MAX_BOOTSTRAP_READ_BYTES });
      return read.ok ? { name, path: file, content: read.text } : { name, path: "" };
    }),
  );
  // Core's per-file caps (USER.md 4,000 chars) and its total cap, as it injects them.
  const injected = new Map(estimateInjection(records, shape.limits).map((estimate) => [estimate.name, estimate.injectedChars]));
  const tokens = {} as Record<BootstrapSlot, number>;
  for (const slot of slots) tokens[slot] = Math.ceil((injected.get(SLOT_FILES[slot]) ?? 0) / CHARS_PER_TOKEN);
  return tokens;
}
