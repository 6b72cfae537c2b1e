import path from "node:path";
import { isInside } from "../memory/sources.ts";
import { expandHome } from "../core/paths.ts";
import { realPathOrResolvedSync } from "../fs/safe-read.ts";
import { comparableId } from "../session/owners.ts";
import type { SessionClassification, SessionType } from "../session/types.ts";
import type { EthosContextConfig, GroupScope } from "./config.ts";

// Privacy scope of retrieval. Workspace memories are personal: they reach MAIN_SESSION and
// PRIVATE_DM prompts only (configurable down, never up). A group or forum topic gets memories only
// when the operator lists it with its own memory folder, and then only from that folder.
// Subagents, external DMs, orchestration sessions, cron/heartbeat runs and unrecognised keys get nothing.

export type RetrievalSource = { kind: "workspace" } | { kind: "group"; memoryDir: string };

export type RetrievalScope =
  | { allowed: true; sessionType: SessionType; source: RetrievalSource }
  | { allowed: false; sessionType: SessionType; reason: string };

function matchGroup(classification: SessionClassification, groups: readonly GroupScope[]): GroupScope | undefined {
  if (classification.peerId === undefined) return undefined;
  const peer = comparableId(classification.peerId);
  if (!peer.trim()) return undefined;
  return groups.find(
    (group) =>
      comparableId(group.peerId) === peer &&
      (group.channel === undefined || group.channel.toLowerCase() === classification.channel?.toLowerCase()),
  );
}

export function resolveRetrievalScope(classification: SessionClassification, config: EthosContextConfig): RetrievalScope {
  const sessionType = classification.type;
  // An operator session whose sender is not an owner (session/identity.ts): never personal memory.
  if (classification.rule === "sender-not-owner") return { allowed: false, sessionType, reason: "not-owner" };
  if ((config.scope.sessionTypes as readonly string[]).includes(sessionType)) {
    return { allowed: true, sessionType, source: { kind: "workspace" } };
  }
  if (sessionType === "GROUP_CHAT" || sessionType === "FORUM_TOPIC") {
    const group = matchGroup(classification, config.scope.groups);
    if (group) return { allowed: true, sessionType, source: { kind: "group", memoryDir: group.memoryDir } };
    return { allowed: false, sessionType, reason: "group-not-enabled" };
  }
  return { allowed: false, sessionType, reason: "session-type-out-of-scope" };
}

/**
 * A group folder must hold only that group's memories: it may not be the workspace itself, its
 * memory/ folder, anything inside memory/, or a folder that contains either of them.
 */
export function isSafeGroupMemoryDir(memoryDir: string, workspaceDir: string | undefined): boolean {
  if (!workspaceDir) return true;
  const unsafe = (dir: string, workspace: string, workspaceMemory: string) => isInside(workspace, dir) || isInside(dir, workspaceMemory);
  const dir = path.resolve(expandHome(memoryDir));
  const workspace = path.resolve(workspaceDir);
  if (unsafe(dir, workspace, path.join(workspace, "memory"))) return false;
  // Symlinks resolved: a link to the workspace (or a workspace whose memory/ links here) is the same folder.
  const realWorkspace = realPathOrResolvedSync(workspace);
  return !unsafe(realPathOrResolvedSync(dir), realWorkspace, realPathOrResolvedSync(path.join(realWorkspace, "memory")));
}
