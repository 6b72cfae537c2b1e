import type { SessionType } from "./types.ts";

/**
 * One representative key per session type, in the shapes the real gateway builds. Used by
 * `npm run explain` and the baseline script; fixed values keep their reports reproducible.
 */
export function sampleSessionKeys(ownerId: string, ownerChannel = "telegram"): Record<SessionType, string> {
  return {
    MAIN_SESSION: "agent:main:main",
    PRIVATE_DM: `agent:main:${ownerChannel}:direct:${ownerId}`,
    EXTERNAL_DM: "agent:main:telegram:direct:4242424242",
    FORUM_TOPIC: "agent:main:telegram:group:-1001234567890:topic:15",
    GROUP_CHAT: "agent:main:telegram:group:-1001234567890",
    SUBAGENT: "agent:main:subagent:0b7c2a4e-2f7d-4c1e-9d6a-3f1e2d4c5b6a",
    HEARTBEAT_CRON: "agent:main:cron:daily-digest:run:1ffbdd69",
    FALLBACK: "agent:main:webchat:lobby",
  };
}
