import type { AgentBootstrapEvent } from "../../src/host/events.ts";

// Events shaped like the ones the real gateway emits (fixtures/events/<version>/), for handler tests.

export const bootstrapEventFor = (workspaceDir: string, sessionKey: string, bootstrapFiles: unknown): AgentBootstrapEvent => ({
  type: "agent",
  action: "bootstrap",
  sessionKey,
  context: { workspaceDir, bootstrapFiles, cfg: {}, sessionKey, agentId: "main" },
  messages: [],
});

/** A webchat `message:received` (chat.send): top-level sessionKey only, no cfg, no workspaceDir. */
export const webchatMessageEvent = (sessionKey: string, content: string, messageId: string) => ({
  type: "message",
  action: "received",
  sessionKey,
  context: { from: "", content, channelId: "webchat", conversationId: sessionKey, messageId, metadata: { provider: "webchat" } },
  timestamp: new Date(),
  messages: [],
});
