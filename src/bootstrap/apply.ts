// Keep, drop and add bootstrap records for one session. Shared by the hook and by `npm run explain`.
// Never mutates the incoming array or its records: kept records are the same objects (core tracks
// their source identity), added records are new objects with inline content.
import { estimateTokens } from "../core/tokens.ts";
import type { BootstrapFileRecord, OpenClawConfig } from "../host/events.ts";
import type { SessionClassification } from "../session/types.ts";
import { estimateInjection, MIN_BOOTSTRAP_FILE_BUDGET_CHARS, resolveBootstrapLimits } from "./budget.ts";
import type { BootstrapLimits } from "./budget.ts";
import { hostDroppedNames, hostVersionFor } from "./host-filters.ts";
import { withOnDemandIndex } from "./on-demand.ts";
import { ALWAYS_KEPT, fileSetFor } from "./policy.ts";
import type { BootstrapPolicy } from "./policy.ts";
import { readWorkspaceFile } from "./workspace-read.ts";
import type { WorkspaceReadFailure } from "./workspace-read.ts";

/**
 * Core files we may read ourselves when the incoming list lacks them (a subagent gets AGENTS.md only).
 * USER.md and MEMORY.md are never read by us: when core left them out, that was a privacy decision.
 */
const NEVER_READ_BY_HOOK = new Set(["USER.md", "MEMORY.md", "IDENTITY.md", "BOOTSTRAP.md"]);

type SkippedFile = { name: string; reason: WorkspaceReadFailure | "empty" | "budget" | "private-core-file" | "no-workspace" };

export type BootstrapDecision = {
  sessionType: SessionClassification["type"];
  rule: string;
  keyShape: string;
  topicId?: string;
  fileSet: string[];
  kept: string[];
  dropped: string[];
  added: string[];
  skipped: SkippedFile[];
  /** Names in our output that the host drops after hooks (not worked around, only reported). */
  hostFiltered: string[];
  /** Files the on-demand line names (on-demand.ts), the record it rides on, and what it costs. */
  onDemand: string[];
  onDemandCarrier?: string;
  onDemandTokens?: number;
  hostVersion: string;
  /** Core's lightweight mode (cron/heartbeat `lightContext`): the list is left exactly as received. */
  lightContext: boolean;
  tokensBefore: number;
  tokensAfter: number;
};

export type ApplyInput = {
  files: readonly unknown[];
  workspaceDir: string | undefined;
  classification: SessionClassification;
  policy: BootstrapPolicy;
  cfg?: OpenClawConfig;
  agentId?: string;
};

export type ApplyResult = { files: BootstrapFileRecord[]; decision: BootstrapDecision; limits: BootstrapLimits };

function recordTokens(records: readonly unknown[]): number {
  let total = 0;
  for (const record of records) {
    const content = (record as { content?: unknown } | null)?.content;
    if (typeof content === "string") total += estimateTokens(content);
  }
  return total;
}

function recordName(record: unknown): string | undefined {
  const name = (record as { name?: unknown } | null)?.name;
  return typeof name === "string" ? name : undefined;
}

/**
 * Core's lightweight mode (`lightContext`), seen in the list it hands us: empty for cron runs (and
 * heartbeats on 2026.9.6), HEARTBEAT.md alone for a heartbeat run (`applyContextModeFilter` keeps
 * only that name; 2026.3.13's gateway does not pass the mode on, so there it does not happen). A
 * normal list always holds AGENTS.md and SOUL.md records, present or missing.
 */
function isLightweightList(files: readonly unknown[]): boolean {
  return files.every((record) => recordName(record) === "HEARTBEAT.md");
}

export async function applyBootstrapPolicy(input: ApplyInput): Promise<ApplyResult> {
  const { classification, policy } = input;
  const fileSet = fileSetFor(policy, classification);
  const wanted = new Set(fileSet);
  const kept: unknown[] = [];
  const dropped: string[] = [];
  // Core's lightweight mode is what the operator asked for: nothing added, nothing taken away.
  const lightContext = isLightweightList(input.files);

  // Unknown entries (not records) are dropped too: core would skip them anyway.
  for (const record of input.files) {
    const name = recordName(record);
    if (name !== undefined && (lightContext || wanted.has(name) || ALWAYS_KEPT.has(name))) kept.push(record);
    else dropped.push(name ?? "<invalid record>");
  }

  const present = new Set(kept.map(recordName));
  const limits = resolveBootstrapLimits(input.cfg, input.agentId);
  // Budget already spent by the kept records, which core processes first.
  let remaining = limits.totalMaxChars - estimateInjection(kept as BootstrapFileRecord[], limits).reduce((sum, f) => sum + f.injectedChars, 0);

  const added: BootstrapFileRecord[] = [];
  const skipped: SkippedFile[] = [];
  for (const name of lightContext ? [] : fileSet) {
    if (present.has(name)) continue;
    if (NEVER_READ_BY_HOOK.has(name)) {
      skipped.push({ name, reason: "private-core-file" });
      continue;
    }
    if (!input.workspaceDir) {
      skipped.push({ name, reason: "no-workspace" });
      continue;
    }
    const read = await readWorkspaceFile(input.workspaceDir, name, policy.maxFileBytes);
    if (!read.ok) {
      skipped.push({ name, reason: read.reason });
      continue;
    }
    const chars = read.content.trimEnd().length;
    // Core renders nothing for empty content, so an empty file is not worth a record.
    if (chars === 0) {
      skipped.push({ name, reason: "empty" });
      continue;
    }
    // Core skips every file once fewer than 64 chars remain: don't add what can never be injected.
    if (remaining < MIN_BOOTSTRAP_FILE_BUDGET_CHARS) {
      skipped.push({ name, reason: "budget" });
      continue;
    }
    remaining -= Math.min(chars, limits.maxChars, remaining);
    added.push({ name, path: read.path, content: read.content, missing: false });
  }

  const listed = [...(kept as BootstrapFileRecord[]), ...added];
  const hostVersion = hostVersionFor(policy.hostVersion, input.cfg);
  const hostFiltered = hostDroppedNames(listed, classification, input.workspaceDir, hostVersion);
  const index =
    policy.onDemandIndex && !lightContext
      ? await withOnDemandIndex({ files: listed, sessionType: classification.type, workspaceDir: input.workspaceDir, hostDropped: hostFiltered })
      : { files: listed, names: [], tokens: 0 };
  const files = index.files;
  const decision: BootstrapDecision = {
    sessionType: classification.type,
    rule: classification.rule,
    keyShape: classification.keyShape,
    ...(classification.topicId !== undefined ? { topicId: classification.topicId } : {}),
    fileSet,
    kept: kept.map((record) => recordName(record) ?? "<invalid record>"),
    dropped,
    added: added.map((record) => record.name),
    skipped,
    hostFiltered,
    onDemand: index.names,
    ...(index.carrier ? { onDemandCarrier: index.carrier, onDemandTokens: index.tokens } : {}),
    hostVersion,
    lightContext,
    tokensBefore: recordTokens(input.files),
    tokensAfter: recordTokens(files),
  };
  return { files, decision, limits };
}
