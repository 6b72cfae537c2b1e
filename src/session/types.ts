export const SESSION_TYPES = [
  "MAIN_SESSION",
  "PRIVATE_DM",
  "EXTERNAL_DM",
  "FORUM_TOPIC",
  "GROUP_CHAT",
  "ORCHESTRATION",
  "SUBAGENT",
  "HEARTBEAT_CRON",
  "FALLBACK",
] as const;

export type SessionType = (typeof SESSION_TYPES)[number];

export type SessionClassification = {
  type: SessionType;
  /** Name of the ordered rule that matched, for the decision log. */
  rule: string;
  /** The type the key's shape alone gives, when a configured rule overrode it (ORCHESTRATION). */
  baseType?: SessionType;
  agentId?: string;
  channel?: string;
  peerId?: string;
  /** Forum topic id (Telegram `:topic:<n>`), as a string because ids are not always numeric. */
  topicId?: string;
  /** Key with ids replaced by placeholders, e.g. `agent:<id>:telegram:group:<id>` (safe to log). */
  keyShape: string;
};
