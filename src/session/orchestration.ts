// Orchestration sessions (ACI spec §3: "Orchestration (running agents): SOUL.md, AGENTS.md"). No
// key shape says that a session runs other agents, so the operator names them in the aci-bootstrap
// entry: `orchestration: { sessionKeys, agentIds, topics }`. Both hooks classify with the same rule
// (src/bootstrap/run.ts parses it once), so ethos-context never treats such a session as the
// operator's main session.
//
// The rule never turns a subagent or a cron/heartbeat run into an orchestration session: those
// types come from the host's own key builders, and the host filters them after hooks by key.
import picomatch from "picomatch";
import { z } from "zod";
import type { SessionClassification, SessionType } from "./types.ts";

const listOf = <T extends z.ZodType>(item: T) => z.array(item).max(64, "at most 64 entries");

export const orchestrationRuleSchema = z.strictObject({
  /** Glob patterns over the whole session key; `*` matches any run of characters, case-insensitive. */
  sessionKeys: listOf(z.string().trim().min(1, "empty pattern").max(512, "pattern longer than 512 characters")).default([]),
  /** Agent ids (`agent:<id>:…`): every conversation of these agents. */
  agentIds: listOf(z.string().trim().min(1, "empty agent id").max(128, "agent id longer than 128 characters")).default([]),
  /** Forum topic ids (`…:topic:<id>`), in any group. */
  topics: listOf(z.union([z.string().trim().regex(/^-?[\w.-]{1,64}$/, "topic id must be a short id"), z.number().int()]).transform(String)).default([]),
});

export type OrchestrationRule = z.output<typeof orchestrationRuleSchema>;

/** Types the rule may override; subagents and automation keep theirs. */
const OVERRIDABLE: ReadonlySet<SessionType> = new Set(["MAIN_SESSION", "PRIVATE_DM", "EXTERNAL_DM", "FORUM_TOPIC", "GROUP_CHAT", "FALLBACK"]);

type CompiledRule = { keys: ((key: string) => boolean)[]; agentIds: Set<string>; topics: Set<string> };
const compiled = new WeakMap<OrchestrationRule, CompiledRule>();

function compile(rule: OrchestrationRule): CompiledRule {
  let found = compiled.get(rule);
  if (!found) {
    found = {
      keys: rule.sessionKeys.map((pattern) => picomatch(pattern, { dot: true, nocase: true })),
      agentIds: new Set(rule.agentIds.map((id) => id.toLowerCase())),
      topics: new Set(rule.topics),
    };
    compiled.set(rule, found);
  }
  return found;
}

export function isEmptyRule(rule: OrchestrationRule | undefined): boolean {
  return !rule || rule.sessionKeys.length + rule.agentIds.length + rule.topics.length === 0;
}

/**
 * The classification with the orchestration rule applied: a session the rule names becomes
 * ORCHESTRATION (its shape's type is kept as `baseType`), anything else is returned unchanged.
 */
export function applyOrchestrationRule(
  key: string,
  classification: SessionClassification,
  rule: OrchestrationRule | undefined,
): SessionClassification {
  if (isEmptyRule(rule) || !OVERRIDABLE.has(classification.type)) return classification;
  const { keys, agentIds, topics } = compile(rule!);
  let by: string | undefined;
  if (keys.some((matches) => matches(key.trim()))) by = "key";
  else if (classification.agentId !== undefined && agentIds.has(classification.agentId)) by = "agent";
  else if (classification.type === "FORUM_TOPIC" && classification.topicId !== undefined && topics.has(classification.topicId)) by = "topic";
  if (!by) return classification;
  return { ...classification, type: "ORCHESTRATION", rule: `orchestration-${by}`, baseType: classification.type };
}
