// Shapes of the internal hook events as observed on the real gateway (see HOOK_ASSUMPTIONS.md).
// OpenClaw types `context` as Record<string, unknown>, so we type-guard everything we read.

/** One record of `context.bootstrapFiles`. `name` is typed loosely: hooks may add custom names. */
export type BootstrapFileRecord = {
  name: string;
  path: string;
  content?: string;
  missing: boolean;
  [extra: string]: unknown;
};

export type OpenClawConfig = Record<string, unknown>;

export type InternalHookEvent = {
  type: string;
  action: string;
  sessionKey?: string;
  context: Record<string, unknown>;
  timestamp?: Date | string | number;
  messages?: unknown[];
};

export type AgentBootstrapEvent = InternalHookEvent & {
  type: "agent";
  action: "bootstrap";
  context: {
    workspaceDir?: string;
    bootstrapFiles?: unknown;
    cfg?: OpenClawConfig;
    sessionKey?: string;
    sessionId?: string;
    agentId?: string;
    [key: string]: unknown;
  };
};

export type MessageReceivedEvent = InternalHookEvent & {
  type: "message";
  action: "received";
  context: {
    from?: string;
    content?: unknown;
    channelId?: string;
    accountId?: string;
    conversationId?: string;
    messageId?: string;
    metadata?: Record<string, unknown>;
    [key: string]: unknown;
  };
};

/** `gateway:startup` (OpenClaw 2026.3.13: after channels start and hooks are loaded, not awaited). */
export type GatewayStartupEvent = InternalHookEvent & {
  type: "gateway";
  action: "startup";
  context: { cfg?: OpenClawConfig; workspaceDir?: string; [key: string]: unknown };
};

/** A plain JSON-style object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isAgentBootstrapEvent(event: unknown): event is AgentBootstrapEvent {
  return isObject(event) && event.type === "agent" && event.action === "bootstrap" && isObject(event.context);
}

export function isMessageReceivedEvent(event: unknown): event is MessageReceivedEvent {
  return isObject(event) && event.type === "message" && event.action === "received" && isObject(event.context);
}

export function isGatewayStartupEvent(event: unknown): event is GatewayStartupEvent {
  return isObject(event) && event.type === "gateway" && event.action === "startup" && isObject(event.context);
}

export function isBootstrapFileRecord(value: unknown): value is BootstrapFileRecord {
  return isObject(value) && typeof value.name === "string" && typeof value.path === "string";
}

/** The top-level key is authoritative; `context.sessionKey` may be undefined on bootstrap. */
export function sessionKeyOf(event: InternalHookEvent): string | undefined {
  if (typeof event.sessionKey === "string" && event.sessionKey !== "unknown" && event.sessionKey.length > 0) {
    return event.sessionKey;
  }
  const fromContext = event.context?.sessionKey;
  return typeof fromContext === "string" && fromContext.length > 0 ? fromContext : undefined;
}

/**
 * Who sent a message:received event: `context.metadata.senderId`, else `context.from`, on
 * `context.channelId` (else `metadata.provider`). Undefined when the host names no sender.
 * HOOK_ASSUMPTIONS.md `receivedSenderFields` records what each version carries.
 */
export function senderOfMessage(event: MessageReceivedEvent): { channel?: string; id: string } | undefined {
  const metadata = isObject(event.context.metadata) ? event.context.metadata : undefined;
  const id = [metadata?.senderId, event.context.from].find((value): value is string => typeof value === "string" && value.length > 0);
  if (id === undefined) return undefined;
  const channel = [event.context.channelId, metadata?.provider].find((value): value is string => typeof value === "string" && value.length > 0);
  return channel === undefined ? { id } : { channel: channel.toLowerCase(), id };
}
