// One agent:bootstrap event, end to end: config → owners → classify → apply → decision log.
// The hook's handler.ts is a thin wrapper around runAciBootstrap.
import { sessionTag } from "../core/bounded-id.ts";
import { getLogger } from "../core/log.ts";
import { HOOK_KEYS } from "../host/ids.ts";
import { loadOpenClawConfigFile } from "../host/config-file.ts";
import type { AgentBootstrapEvent, BootstrapFileRecord, OpenClawConfig } from "../host/events.ts";
import { sessionKeyOf } from "../host/events.ts";
import { resolveHookConfig } from "../host/hook-config.ts";
import { resolveMainKeys, resolveOwners } from "../session/owners.ts";
import type { ResolvedOwners } from "../session/owners.ts";
import type { SessionClassification } from "../session/types.ts";
import { applyBootstrapPolicy } from "./apply.ts";
import type { BootstrapDecision } from "./apply.ts";
import { resolveBootstrapPolicy } from "./policy.ts";
import type { BootstrapPolicy } from "./policy.ts";

const log = () => getLogger(HOOK_KEYS.aciBootstrap);

// Parsed policies by the JSON of their entry: an invalid entry logs its error once, not every turn.
const policyCache = new Map<string, BootstrapPolicy>();
const MAX_CACHED_POLICIES = 16;

export function policyForConfig(cfg: OpenClawConfig | undefined): BootstrapPolicy {
  const entry = resolveHookConfig(cfg, HOOK_KEYS.aciBootstrap);
  let cacheKey: string;
  try {
    cacheKey = JSON.stringify(entry);
  } catch {
    return resolveBootstrapPolicy(entry);
  }
  let policy = policyCache.get(cacheKey);
  if (!policy) {
    policy = resolveBootstrapPolicy(entry);
    if (policyCache.size >= MAX_CACHED_POLICIES) policyCache.clear();
    policyCache.set(cacheKey, policy);
  }
  return policy;
}

export type SessionContext = { policy: BootstrapPolicy; owners: ResolvedOwners; mainKeys: string[] };

/** Everything that depends on config alone (explain, baseline): the policy, owners and main keys. */
export function sessionContextFor(cfg: OpenClawConfig | undefined): SessionContext {
  const policy = policyForConfig(cfg);
  return { policy, owners: resolveOwners(cfg, policy.ownerIds), mainKeys: resolveMainKeys(cfg) };
}

let startupConfig: OpenClawConfig | undefined;
let startupLoaded = false;

/** openclaw.json as read when the hook started (for events without cfg). */
export function startupOpenClawConfig(): OpenClawConfig | undefined {
  if (!startupLoaded) {
    startupLoaded = true;
    startupConfig = loadOpenClawConfigFile();
  }
  return startupConfig;
}

export type RunResult = { files: BootstrapFileRecord[]; decision: BootstrapDecision };

/**
 * The file set for one agent:bootstrap event. `cfg` is the config the turn was classified with
 * (the event's, else openclaw.json as read at start), `classification` the turn's one
 * classification (src/context/turn.ts), `ownerSource` where its owners came from (for the log).
 */
export async function runAciBootstrap(input: { event: AgentBootstrapEvent; files: readonly unknown[]; cfg: OpenClawConfig | undefined; classification: SessionClassification; ownerSource: string }): Promise<RunResult> {
  const { event, files, cfg, classification } = input;
  const policy = policyForConfig(cfg);
  const agentId = typeof event.context.agentId === "string" ? event.context.agentId : classification.agentId;
  const workspaceDir = typeof event.context.workspaceDir === "string" ? event.context.workspaceDir : undefined;
  const { files: next, decision } = await applyBootstrapPolicy({ files, workspaceDir, classification, policy, cfg, agentId });

  for (const skip of decision.skipped) {
    const level = skip.reason === "missing" || skip.reason === "empty" || skip.reason === "private-core-file" ? "debug" : "warn";
    log()[level]({ file: skip.name, reason: skip.reason }, `aci-bootstrap: ${skip.name} not added (${skip.reason})`);
  }
  // The decision log: names and counts only, never contents or peer ids.
  log().info(
    {
      event: "aci-bootstrap.decision",
      session: sessionTag(sessionKeyOf(event)),
      ...decision,
      skipped: decision.skipped.map((skip) => `${skip.name}:${skip.reason}`),
      ownerSource: input.ownerSource,
      configOk: policy.configOk,
    },
    `aci-bootstrap: ${decision.sessionType} (${decision.rule}) kept=${decision.kept.length} dropped=${decision.dropped.length} added=${decision.added.length} tokens ${decision.tokensBefore}→${decision.tokensAfter}`,
  );
  return { files: next, decision };
}
