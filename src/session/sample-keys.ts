import { applyOrchestrationRule, isEmptyRule } from "./orchestration.ts";
import type { OrchestrationRule } from "./orchestration.ts";
import { classifySession } from "./classify.ts";
import type { SessionType } from "./types.ts";

const SAMPLE_GROUP_KEY = "agent:main:telegram:group:-1001234567890";
/** The forum topic that stands for an orchestration session when no rule is configured. */
export const SAMPLE_ORCHESTRATION_TOPIC = "77";

/**
 * One representative key per session type, in the shapes the real gateway builds. Used by
 * `npm run explain` and the baseline script; fixed values keep their reports reproducible.
 * ORCHESTRATION has no shape of its own: pass the rule in use (sampleOrchestration).
 */
export function sampleSessionKeys(ownerId: string, ownerChannel = "telegram", orchestrationKey = `${SAMPLE_GROUP_KEY}:topic:${SAMPLE_ORCHESTRATION_TOPIC}`): Record<SessionType, string> {
  return {
    MAIN_SESSION: "agent:main:main",
    PRIVATE_DM: `agent:main:${ownerChannel}:direct:${ownerId}`,
    EXTERNAL_DM: "agent:main:telegram:direct:4242424242",
    FORUM_TOPIC: `${SAMPLE_GROUP_KEY}:topic:15`,
    GROUP_CHAT: SAMPLE_GROUP_KEY,
    ORCHESTRATION: orchestrationKey,
    SUBAGENT: "agent:main:subagent:0b7c2a4e-2f7d-4c1e-9d6a-3f1e2d4c5b6a",
    HEARTBEAT_CRON: "agent:main:cron:daily-digest:run:1ffbdd69",
    FALLBACK: "agent:main:webchat:lobby",
  };
}

export type SampleOrchestration = { rule: OrchestrationRule; key: string; /** true: no configured rule names a sample key, a sample topic stands in. */ sample: boolean };

/**
 * The orchestration rule and key a report uses: the operator's rule with a key it names (its first
 * topic, agent id, or key pattern with `*` filled in), else a sample rule naming one forum topic.
 */
export function sampleOrchestration(rule: OrchestrationRule | undefined): SampleOrchestration {
  if (rule && !isEmptyRule(rule)) {
    const candidates = [
      ...rule.topics.map((topic) => `${SAMPLE_GROUP_KEY}:topic:${topic}`),
      ...rule.agentIds.map((id) => `agent:${id}:main`),
      ...rule.sessionKeys.map((pattern) => pattern.replace(/[*?]/g, "x")),
    ];
    for (const key of candidates) {
      if (applyOrchestrationRule(key, classifySession(key, { ownerIds: [] }), rule).type === "ORCHESTRATION") return { rule, key, sample: false };
    }
  }
  const topics = [...(rule?.topics ?? []), SAMPLE_ORCHESTRATION_TOPIC];
  return {
    rule: { sessionKeys: rule?.sessionKeys ?? [], agentIds: rule?.agentIds ?? [], topics },
    key: `${SAMPLE_GROUP_KEY}:topic:${SAMPLE_ORCHESTRATION_TOPIC}`,
    sample: true,
  };
}
