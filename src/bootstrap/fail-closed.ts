// What aci-bootstrap leaves in the list when it fails (an exception anywhere in the run).
//
// The rule, in one sentence: in an owner session (MAIN_SESSION, PRIVATE_DM) the list stays exactly
// as OpenClaw built it; in every other session (group, forum topic, external DM, subagent,
// cron/heartbeat, unrecognised key) USER.md and MEMORY.md are removed and everything else stays.
// Leaving the list alone is the least harmful edit when privacy is not at stake; removing the two
// private files is the one safe edit when it is. This code must not fail itself, so every step that
// touches event data is guarded, and doubt counts as "not an owner session".
import path from "node:path";
import type { AgentBootstrapEvent, OpenClawConfig } from "../host/events.ts";
import { sessionKeyOf } from "../host/events.ts";
import { HOOK_KEYS } from "../host/ids.ts";
import { resolveHookConfig } from "../host/hook-config.ts";
import { classifySession } from "../session/classify.ts";
import { resolveMainKeys, resolveOwners } from "../session/owners.ts";
import { SESSION_TYPES } from "../session/types.ts";
import type { SessionType } from "../session/types.ts";
import { policyForConfig } from "./run.ts";

/** Files that never reach a non-owner session, even when we fail. */
const PRIVATE_BOOTSTRAP_FILES: ReadonlySet<string> = new Set(["USER.md", "MEMORY.md", "memory.md"]);
const OWNER_SESSION_TYPES: ReadonlySet<string> = new Set(["MAIN_SESSION", "PRIVATE_DM"]);

export type FailureOutcome = { files: unknown[]; sessionType: SessionType | "unknown"; action: "left-as-received" | "private-files-removed" | "emptied" };

function safely<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

/** The session type with the fewest assumptions: any doubt about cfg or the key gives a non-owner answer. */
function sessionTypeAfterFailure(event: AgentBootstrapEvent, fallbackCfg: () => OpenClawConfig | undefined): SessionType | "unknown" {
  return safely(() => {
    const cfg = safely(() => event.context.cfg ?? fallbackCfg(), undefined) ?? safely(fallbackCfg, undefined);
    const ownerIds = safely(() => resolveOwners(cfg).owners, []);
    // Stryker disable next-line ArrayDeclaration,StringLiteral: classifySession always counts "main" itself
    const mainKeys = safely(() => resolveMainKeys(cfg), ["main"]);
    // An orchestration session is not an owner session: without its rule a named main key would keep
    // USER.md, so a rule that is configured but unusable makes every session a non-owner one.
    const orchestration = safely(() => policyForConfig(cfg).orchestration, undefined);
    if (orchestration === undefined && safely(() => resolveHookConfig(cfg, HOOK_KEYS.aciBootstrap).orchestration !== undefined, false)) return "unknown";
    return classifySession(sessionKeyOf(event), { ownerIds, mainKeys, orchestration }).type;
  }, "unknown" as const);
}

function isPrivateRecord(record: unknown): boolean {
  // Stryker disable next-line OptionalChaining: a throw on null is caught by the caller's safely(…, true), the same answer
  const name = (record as { name?: unknown } | null)?.name;
  // Stryker disable next-line OptionalChaining: as above
  const file = (record as { path?: unknown } | null)?.path;
  if (typeof name !== "string") return true; // not a record we can vouch for
  return PRIVATE_BOOTSTRAP_FILES.has(name) || (typeof file === "string" && PRIVATE_BOOTSTRAP_FILES.has(path.basename(file)));
}

/**
 * The list to hand back after a failure (see the rule above). Never throws. `knownType` is the
 * turn's own classification when it was made before the failure (the sender rule included: a
 * non-owner sender in the main session is not an owner session); otherwise the key decides.
 */
export function filesAfterFailure(
  event: AgentBootstrapEvent,
  received: readonly unknown[],
  fallbackCfg: () => OpenClawConfig | undefined = () => undefined,
  knownType?: string,
): FailureOutcome {
  const sessionType = knownType === undefined ? sessionTypeAfterFailure(event, fallbackCfg) : ((SESSION_TYPES as readonly string[]).includes(knownType) ? (knownType as SessionType) : "unknown");
  if (OWNER_SESSION_TYPES.has(sessionType)) {
    return { files: received as unknown[], sessionType, action: "left-as-received" };
  }
  try {
    const files: unknown[] = [];
    for (const record of received) if (!safely(() => isPrivateRecord(record), true)) files.push(record);
    return { files, sessionType, action: "private-files-removed" };
  } catch {
    return { files: [], sessionType, action: "emptied" };
  }
}
