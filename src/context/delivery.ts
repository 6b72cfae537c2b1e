import { isObject } from "../host/events.ts";
import type { OpenClawConfig } from "../host/events.ts";
import { PLUGIN_ID } from "../host/ids.ts";

// The delivery rule: which channel carries this turn's memory block, decided in one place for the
// plugin's context engine, its before_prompt_build, status, explain and doctor.
//   runtime-carrier  the plugin's context engine is the selected one (plugins.slots.contextEngine):
//                    the block is OpenClaw's own runtime-context carrier, after this turn's user
//                    message, off Anthropic's message breakpoint (carrier-engine.ts);
//   prepend-context  otherwise (another engine holds the slot, or a model keeps runtime context
//                    append-only): before_prompt_build's prependContext on this turn's user message.
// With another engine in the slot no host-supported channel keeps the block off Anthropic's
// message breakpoint (HOOK_ASSUMPTIONS.md `otherEngineNoCarrier`). The two left are prependContext
// and appendSystemContext (after the cache boundary, before every message); the bench measured
// both next to lossless-claw (docs/benchmarks.md) and the cheaper one, prependContext, is kept.

export type MemoryDelivery = "runtime-carrier" | "prepend-context" | "append-system-context";

/**
 * The delivery next to another engine: prependContext. The bench's comparison arm starts its
 * gateway with OPENCLAW_CONTEXT_OTHER_ENGINE_DELIVERY=append-system-context to measure the other.
 */
function otherEngineDelivery(env: NodeJS.ProcessEnv = process.env): MemoryDelivery {
  return env.OPENCLAW_CONTEXT_OTHER_ENGINE_DELIVERY === "append-system-context" ? "append-system-context" : "prepend-context";
}

function normalizedClaudeId(modelId: string): string {
  const lower = modelId.trim().toLowerCase();
  const bare = (lower.startsWith("anthropic/") ? lower.slice("anthropic/".length) : lower).replace(/[._\s]+/g, "-");
  return /(?:^|[-/])(claude-[^/]+)$/.exec(bare)?.[1] ?? bare;
}

/**
 * Models for which OpenClaw 2026.9.6 keeps runtime context append-only (`bindsClaudeThinkingPrefix`:
 * Claude Opus 5.5 and Fable 5.1): there carriers are not moved after the user message and our
 * carrier, which is never persisted, would vanish from the middle of the next request. prependContext
 * changes nothing before the previous user message, so it is the cheaper delivery for them.
 */
export function keepsCarriersInHistory(modelId: string | undefined): boolean {
  if (!modelId) return false;
  const id = normalizedClaudeId(modelId);
  return id === "opus-5-5" || /^claude-opus-5-5(?=$|[^a-z0-9])/.test(id) || /^claude-fable-5-1(?=$|[^a-z0-9])/.test(id);
}

/** The delivery rule, shared by the engine's assemble() and the plugin's before_prompt_build. */
export function memoryDeliveryFor(input: { engineSelected: boolean; modelId: string | undefined; otherEngine?: boolean }): MemoryDelivery {
  if (input.engineSelected) return keepsCarriersInHistory(input.modelId) ? "prepend-context" : "runtime-carrier";
  return input.otherEngine ? otherEngineDelivery() : "prepend-context";
}

/** `plugins.slots.contextEngine` as configured ("legacy" when unset). */
export function configuredContextEngine(cfg: OpenClawConfig | undefined): string {
  const plugins = isObject(cfg?.plugins) ? cfg.plugins : undefined;
  const slots = isObject(plugins?.slots) ? plugins.slots : undefined;
  const value = slots?.contextEngine;
  return typeof value === "string" && value.trim() ? value.trim() : "legacy";
}

export type EngineSelection =
  | { kind: "ours"; engineId: string }
  | { kind: "not-selected"; engineId: "legacy" }
  | { kind: "other"; engineId: string };

export function engineSelection(cfg: OpenClawConfig | undefined, ourEngineId: string): EngineSelection {
  const engineId = configuredContextEngine(cfg);
  if (engineId === ourEngineId) return { kind: "ours", engineId };
  if (engineId === "legacy") return { kind: "not-selected", engineId: "legacy" };
  return { kind: "other", engineId };
}

/** How an operator selects the plugin's engine (the fix `doctor` and the delivery line name). */
export const SELECT_ENGINE_COMMAND = `openclaw config set plugins.slots.contextEngine ${PLUGIN_ID}`;

/** One line for logs, status, explain and doctor: which channel carries the memory block, and why. */
export function describeDelivery(selection: EngineSelection): string {
  switch (selection.kind) {
    case "ours":
      return `runtime-context carrier through context engine ${PLUGIN_ID} (prependContext for Claude Opus 5.5 / Fable 5.1)`;
    case "not-selected":
      return `prependContext (plugins.slots.contextEngine is not ${PLUGIN_ID}; select it with: ${SELECT_ENGINE_COMMAND})`;
    case "other":
      return `${otherEngineDelivery() === "append-system-context" ? "appendSystemContext" : "prependContext"} (context engine ${selection.engineId} is configured; only one engine can be active, so the plugin stands aside: openclaw context doctor explains the cost)`;
  }
}

/** `plugins.entries.<pluginId>` of openclaw.json, when it is an object. */
export function pluginEntry(cfg: OpenClawConfig | undefined, pluginId: string = PLUGIN_ID): Record<string, unknown> | undefined {
  const plugins = isObject(cfg?.plugins) ? cfg.plugins : undefined;
  const entries = isObject(plugins?.entries) ? plugins.entries : undefined;
  return isObject(entries?.[pluginId]) ? entries[pluginId] : undefined;
}
