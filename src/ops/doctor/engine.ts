// Who holds the context-engine slot (OpenClaw 2026.9+), whether the gateway fell back to its legacy
// engine, and what that costs. Only the slot holder's assemble() can put this turn's memory in a
// runtime-context carrier, the one message Anthropic's breakpoint skips; without the slot the plugin
// delivers it as prependContext (HOOK_ASSUMPTIONS.md "Next to another context engine").
import { configuredContextEngine, engineSelection, pluginEntry, SELECT_ENGINE_COMMAND } from "../../context/delivery.ts";
import { parsePluginConfig } from "../../context/plugin-config.ts";
import { isObject } from "../../host/events.ts";
import { PLUGIN_ID } from "../../host/ids.ts";
import { pluginServesHost } from "../../host/version.ts";
import type { DoctorCheck, DoctorContext, DoctorFinding } from "./check.ts";

/**
 * What the host logs when a selected engine does not run: for the process (registry:
 * recordContextEngineQuarantine, "falling back to default engine") or for one turn
 * (context-engine-turn-attempt: `degraded to "legacy" for this logical turn`).
 */
export function engineFallbackLine(lines: readonly string[], engineId: string): string | undefined {
  const quoted = `Context engine "${engineId}"`;
  return [...lines].reverse().find((line) => line.includes(quoted) && (line.includes("falling back to default engine") || line.includes("degraded to")));
}

/** Our own line when the engine's factory failed in this gateway (src/plugin/turns.ts engineUnavailable). */
function ourEngineUnavailable(ctx: DoctorContext): string | undefined {
  const records = ctx.records();
  const last = [...records].reverse().find((record) => typeof record.msg === "string" && record.msg.startsWith("context engine unavailable"));
  return last ? `${String(last.msg)}${last.reason ? ` (${String(last.reason)})` : ""}` : undefined;
}

/** The trade-off of another engine in the slot, in the words doctor prints (figures: docs/benchmarks.md, "another context engine"). */
const OTHER_ENGINE_TRADE_OFF = [
  "Only one context engine can be active. The plugin stands aside and delivers this turn's memory as prependContext on the user message.",
  "With Anthropic's prompt cache that message carries the breakpoint, and the next request replays it without the block: the cache entry a memory turn writes is never read.",
  "OpenClaw offers a plugin no other way to keep the block off that message without owning the slot (HOOK_ASSUMPTIONS.md, otherEngineNoCarrier).",
  "Measured (docs/benchmarks.md, \"Next to another context engine\", Anthropic's cache, 40 turns): next to an engine that keeps the history as sent, about 1.15x that engine alone; next to lossless-claw 1.0.0-beta.4 nothing more (0.99x), as it already loses that entry every turn.",
  "Keep your engine if what it does matters more; the bundle's files and memory work either way.",
];

export const engineCheck: DoctorCheck = {
  id: "context engine",
  run(ctx): DoctorFinding[] {
    if (!ctx.installed.plugin || (ctx.hostVersion && !pluginServesHost(ctx.hostVersion))) return [];
    const entry = pluginEntry(ctx.cfg);
    const { config } = parsePluginConfig(entry?.config, { report: false });
    if (!config.enabled || !config.memory) return [{ level: "ok", message: `memory is switched off (plugins.entries.${PLUGIN_ID}.config.${config.enabled ? "memory" : "enabled"} false): the slot does not matter` }];
    const selection = engineSelection(ctx.cfg, PLUGIN_ID);
    const access = isObject(entry?.hooks) && entry.hooks.allowConversationAccess === true;
    const findings: DoctorFinding[] = [];
    if (selection.kind === "ours") {
      const unavailable = ourEngineUnavailable(ctx) ?? engineFallbackLine(ctx.hostLogLines(), PLUGIN_ID);
      if (unavailable) {
        findings.push({
          level: "fail",
          message: `plugins.slots.contextEngine is ${PLUGIN_ID}, but the gateway fell back to OpenClaw's legacy engine: memory rides prependContext`,
          detail: [unavailable.slice(0, 400)],
          fix: "openclaw gateway restart, then openclaw logs (look for [openclaw-context] and [context-engine] lines)",
        });
      } else findings.push({ level: "ok", message: `the plugin holds the context-engine slot: memory goes as OpenClaw's runtime-context carrier (off the cached prompt)` });
    } else if (selection.kind === "not-selected") {
      findings.push({
        level: "warn",
        message: "plugins.slots.contextEngine is legacy (OpenClaw's default): memory goes as prependContext on the user message, which Anthropic's prompt cache cannot reuse on memory turns",
        fix: `${SELECT_ENGINE_COMMAND}, then openclaw gateway restart`,
      });
    } else {
      const fellBack = engineFallbackLine(ctx.hostLogLines(), selection.engineId);
      findings.push({
        level: "warn",
        message: `context engine ${selection.engineId} holds plugins.slots.contextEngine${fellBack ? ", and the gateway fell back to legacy from it" : ""}: memory goes as prependContext`,
        detail: [...OTHER_ENGINE_TRADE_OFF, ...(fellBack ? [`OpenClaw logged: ${fellBack.slice(0, 300)}`] : [])],
        fix: `keep ${selection.engineId}, or: ${SELECT_ENGINE_COMMAND}, then openclaw gateway restart (${selection.engineId} stops)`,
      });
    }
    if (selection.kind !== "ours" && !access) {
      findings.push({
        level: "fail",
        message: `plugins.entries.${PLUGIN_ID}.hooks.allowConversationAccess is not true: OpenClaw blocks the plugin's before_prompt_build, so no memory is delivered (the engine is not ${configuredContextEngine(ctx.cfg) === "legacy" ? "selected" : "ours"})`,
        fix: `openclaw config set plugins.entries.${PLUGIN_ID}.hooks.allowConversationAccess true, then openclaw gateway restart`,
      });
    }
    return findings;
  },
};
