// What each session type gets from the workspace, before and after aci-bootstrap.
// Uses the same applyBootstrapPolicy as the hook, on an incoming list built the way core builds it.
import { estimateTokens } from "../core/tokens.ts";
import type { BootstrapFileRecord, OpenClawConfig } from "../host/events.ts";
import { classifySession } from "../session/classify.ts";
import { SAMPLE_ORCHESTRATION_TOPIC, sampleOrchestration, sampleSessionKeys } from "../session/sample-keys.ts";
import { SESSION_TYPES } from "../session/types.ts";
import type { SessionClassification, SessionType } from "../session/types.ts";
import { applyBootstrapPolicy } from "../bootstrap/apply.ts";
import type { BootstrapDecision } from "../bootstrap/apply.ts";
import { estimateInjection, resolveBootstrapLimits } from "../bootstrap/budget.ts";
import type { BootstrapLimits } from "../bootstrap/budget.ts";
import { hostCoreFiles, hostDroppedNames, hostPreHookNames, hostVersionFor } from "../bootstrap/host-filters.ts";
import { sessionContextFor } from "../bootstrap/run.ts";
import { onDemandLine } from "../bootstrap/on-demand.ts";
import { asHeartbeatRun } from "../bootstrap/heartbeat-run.ts";
import { readWorkspaceFile } from "../bootstrap/workspace-read.ts";
import { channelsFor, currentSetup, formatChannels } from "../context/channels.ts";
import type { ChannelRow, HostSetup } from "../context/channels.ts";

/** Core reads its own files with a 2 MiB guard; we mirror it for the simulation. */
const CORE_READ_CAP_BYTES = 2 * 1024 * 1024;
/** The ACI spec's "bulk injection" baseline (Appendix A): every file, every turn. */
const BULK_FILES = ["AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "MEMORY.md"];

/**
 * The list core hands to hooks for this session: the six core files after its pre-hook session
 * filter. USER.md and MEMORY.md are omitted when absent; a missing AGENTS/SOUL/IDENTITY becomes a
 * `missing:true` record. BOOTSTRAP.md is included only when it exists (a set-up workspace has none).
 */
export async function simulateHostRecords(
  workspaceDir: string,
  classification: SessionClassification,
  hostVersion?: string,
): Promise<BootstrapFileRecord[]> {
  const allowed = new Set(hostPreHookNames(classification, hostVersion));
  const records: BootstrapFileRecord[] = [];
  for (const name of hostCoreFiles(hostVersion)) {
    if (!allowed.has(name)) continue;
    const read = await readWorkspaceFile(workspaceDir, name, CORE_READ_CAP_BYTES);
    if (read.ok) records.push({ name, path: read.path, content: read.content, missing: false });
    else if (read.reason === "missing" && (name === "AGENTS.md" || name === "SOUL.md" || name === "IDENTITY.md")) {
      records.push({ name, path: read.path, missing: true });
    }
  }
  return records;
}

type InjectedFile = { name: string; tokens: number; truncated: boolean };
export type SessionExplanation = {
  sessionType: SessionType;
  sessionKey: string;
  rule: string;
  topicId?: string;
  /** What the host injects with no hook (after its own filters and budgets). */
  before: InjectedFile[];
  tokensBefore: number;
  /** What reaches the model with aci-bootstrap (after the host's post-hook filters). */
  injected: InjectedFile[];
  tokensAfter: number;
  dropped: string[];
  added: string[];
  skipped: string[];
  /** Files the set asks for that the host drops after hooks. */
  hostGaps: string[];
  /** The on-demand line this session gets (on-demand.ts), the record it rides on, and its cost. */
  onDemand?: { names: string[]; carrier: string; text: string; tokens: number };
  bulkTokens: number;
  reductionVsBeforePct: number;
  reductionVsBulkPct: number;
};

export type Explanation = {
  workspaceDir: string;
  hostVersion: string;
  limits: BootstrapLimits;
  ownerSource: string;
  /** Set when no configured rule names a session: the sample that stands in for ORCHESTRATION. */
  orchestrationSource?: string;
  configOk: boolean;
  configError?: string;
  sessions: SessionExplanation[];
  /** Which channel carries what, per session type and host setup (absent for per-version sub-runs). */
  channels?: { current: HostSetup; rows: ChannelRow[] };
};

function injectedFiles(records: readonly BootstrapFileRecord[], limits: BootstrapLimits): InjectedFile[] {
  const estimates = estimateInjection(records, limits);
  return estimates.map((estimate) => {
    const record = records.find((candidate) => candidate.name === estimate.name);
    const text = record?.missing ? `[MISSING] Expected at: ${record.path}` : (record?.content ?? "").trimEnd();
    return { name: estimate.name, tokens: estimateTokens(text.slice(0, estimate.injectedChars)), truncated: estimate.truncated };
  });
}

function sum(files: readonly InjectedFile[]): number {
  return files.reduce((total, file) => total + file.tokens, 0);
}

function reduction(from: number, to: number): number {
  return from > 0 ? Math.round(((from - to) / from) * 1000) / 10 : 0;
}


const SAMPLE_OWNER_ID = "100000001";

export type ExplainOptions = {
  workspaceDir: string;
  cfg?: OpenClawConfig;
  sessionKey?: string;
  /** Explain for this host version instead of the configured one (the channel report runs both). */
  hostVersion?: string;
  /** Add the channel report (default true). */
  channels?: boolean;
  /** The run is a heartbeat the host announced (2026.3.13's message:preprocessed): the heartbeat set, whatever the key. */
  heartbeatRun?: boolean;
};

export async function explainWorkspace(options: ExplainOptions): Promise<Explanation> {
  const context = sessionContextFor(options.cfg);
  const { owners, mainKeys } = context;
  const policy = options.hostVersion ? { ...context.policy, hostVersion: options.hostVersion } : context.policy;
  // Without configured owners, a sample owner id stands in so PRIVATE_DM can be shown.
  const ownerIds = owners.owners.length > 0 ? owners.owners : [{ id: SAMPLE_OWNER_ID }];
  const hostVersion = options.hostVersion ?? hostVersionFor(policy.hostVersion, options.cfg);
  // Without a configured orchestration rule, a sample forum topic stands in so ORCHESTRATION can be shown.
  const orchestration = options.sessionKey ? { rule: policy.orchestration, key: "", sample: false } : sampleOrchestration(policy.orchestration);
  const classify = (key: string) => {
    const byKey = classifySession(key, { ownerIds, mainKeys, orchestration: orchestration.rule });
    return options.heartbeatRun ? asHeartbeatRun(byKey) : byKey;
  };
  const keys = options.sessionKey
    ? [options.sessionKey]
    : SESSION_TYPES.map((type) => sampleSessionKeys(ownerIds[0]!.id.toLowerCase(), ownerIds[0]!.channel, orchestration.key)[type]);

  const sessions: SessionExplanation[] = [];
  let limits = resolveBootstrapLimits(options.cfg, "main");
  for (const sessionKey of keys) {
    const classification = classify(sessionKey);
    limits = resolveBootstrapLimits(options.cfg, classification.agentId);
    const incoming = await simulateHostRecords(options.workspaceDir, classification, hostVersion);
    const hostDropsBefore = new Set(hostDroppedNames(incoming, classification, options.workspaceDir, hostVersion));
    const before = injectedFiles(incoming.filter((record) => !hostDropsBefore.has(record.name)), limits);

    const { files, decision } = await applyBootstrapPolicy({
      files: incoming,
      workspaceDir: options.workspaceDir,
      classification,
      policy,
      cfg: options.cfg,
      agentId: classification.agentId,
    });
    const gaps = new Set(decision.hostFiltered);
    const injected = injectedFiles(files.filter((record) => !gaps.has(record.name)), limits);

    const bulkRecords: BootstrapFileRecord[] = [];
    for (const name of BULK_FILES) {
      const read = await readWorkspaceFile(options.workspaceDir, name, CORE_READ_CAP_BYTES);
      if (read.ok) bulkRecords.push({ name, path: read.path, content: read.content, missing: false });
    }
    const bulkTokens = sum(injectedFiles(bulkRecords, limits));
    sessions.push(toExplanation(sessionKey, decision, before, injected, bulkTokens));
  }
  let channels: Explanation["channels"];
  if (options.channels !== false) {
    const perVersion = async (version: string) => (await explainWorkspace({ ...options, hostVersion: version, channels: false })).sessions;
    const [old, nine] = [await perVersion("2026.3.13"), await perVersion("2026.9.6")];
    const names = (files: readonly InjectedFile[]) => files.map((file) => file.name);
    const rows = sessions.map((session, i) =>
      channelsFor({
        classification: classify(session.sessionKey),
        sessionKey: session.sessionKey,
        cfg: options.cfg,
        filesByVersion: { "2026.3.13": names(old[i]!.injected), "2026.9.6": names(nine[i]!.injected) },
      }),
    );
    channels = { current: currentSetup(hostVersion), rows };
  }
  return {
    workspaceDir: options.workspaceDir,
    hostVersion,
    limits,
    ownerSource: owners.owners.length > 0 ? owners.source : `none (sample owner id ${SAMPLE_OWNER_ID} used for PRIVATE_DM)`,
    ...(orchestration.sample ? { orchestrationSource: `none configured (sample topic ${SAMPLE_ORCHESTRATION_TOPIC} used for ORCHESTRATION)` } : {}),
    configOk: policy.configOk,
    ...(policy.configError ? { configError: policy.configError } : {}),
    sessions,
    ...(channels ? { channels } : {}),
  };
}

function toExplanation(
  sessionKey: string,
  decision: BootstrapDecision,
  before: InjectedFile[],
  injected: InjectedFile[],
  bulkTokens: number,
): SessionExplanation {
  const tokensBefore = sum(before);
  const tokensAfter = sum(injected);
  return {
    sessionType: decision.sessionType,
    sessionKey,
    rule: decision.rule,
    ...(decision.topicId !== undefined ? { topicId: decision.topicId } : {}),
    before,
    tokensBefore,
    injected,
    tokensAfter,
    dropped: decision.dropped,
    added: decision.added,
    skipped: decision.skipped.map((skip) => `${skip.name} (${skip.reason})`),
    hostGaps: decision.hostFiltered,
    ...(decision.onDemandCarrier ? { onDemand: { names: decision.onDemand, carrier: decision.onDemandCarrier, text: onDemandLine(decision.onDemand), tokens: decision.onDemandTokens ?? 0 } } : {}),
    bulkTokens,
    reductionVsBeforePct: reduction(tokensBefore, tokensAfter),
    reductionVsBulkPct: reduction(bulkTokens, tokensAfter),
  };
}

function pct(value: number): string {
  if (value > 0) return `-${value}%`;
  if (value < 0) return `+${-value}%`;
  return "0%";
}

function names(files: readonly InjectedFile[]): string {
  return files.length ? files.map((file) => `${file.name}${file.truncated ? " (truncated)" : ""}`).join(", ") : "(none)";
}

/** Markdown report: one summary table, then the host-filter gaps. */
export function formatExplanation(explanation: Explanation): string {
  const lines = [
    `# aci-bootstrap explain: ${explanation.workspaceDir}`,
    "",
    `host filters: openclaw ${explanation.hostVersion} · budgets: ${explanation.limits.maxChars} chars/file, ${explanation.limits.totalMaxChars} total · owners: ${explanation.ownerSource}` +
      (explanation.orchestrationSource ? ` · orchestration: ${explanation.orchestrationSource}` : "") +
      (explanation.configOk ? "" : ` · CONFIG ERROR (defaults used): ${explanation.configError}`),
    "tokens = ceil(chars / 4), the bundle's one estimator (src/core/tokens.ts)",
    "",
    "| session type | rule | injected (after host filters) | dropped | tokens before → after | vs host default | vs bulk |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const session of explanation.sessions) {
    lines.push(
      `| ${session.sessionType}${session.topicId !== undefined ? ` (topic ${session.topicId})` : ""} | ${session.rule} | ${names(session.injected)} | ${session.dropped.join(", ") || "(none)"} | ${session.tokensBefore} → ${session.tokensAfter} | ${pct(session.reductionVsBeforePct)} | ${pct(session.reductionVsBulkPct)} (bulk ${session.bulkTokens}) |`,
    );
  }
  const gaps = explanation.sessions.filter((session) => session.hostGaps.length > 0);
  lines.push("", "## Host-filter gaps", "");
  if (gaps.length === 0) lines.push("none: every file in every set reaches the model.");
  for (const session of gaps) {
    lines.push(
      `- ${session.sessionType}: the set asks for ${session.hostGaps.join(", ")}, but openclaw ${explanation.hostVersion} drops ${session.hostGaps.length > 1 ? "them" : "it"} after hooks (${session.sessionKey.split(":").slice(0, 3).join(":")}:… keys). Injected instead: ${names(session.injected)}.`,
    );
  }
  lines.push("", "## On-demand index", "", "One line appended to the record named, byte-identical on every turn: the files the set left out and when to read them (tokens included above).", "");
  const indexed = explanation.sessions.filter((session) => session.onDemand);
  if (indexed.length === 0) lines.push("none: no session type left out a file that exists here, or the index is off (onDemandIndex: false).");
  for (const session of explanation.sessions) {
    if (session.onDemand) lines.push(`- ${session.sessionType} (on ${session.onDemand.carrier}, +${session.onDemand.tokens} tokens): ${session.onDemand.text}`);
    else if (session.dropped.length > 0 && session.injected.length === 0) lines.push(`- ${session.sessionType}: none (no record of its set reaches the model on openclaw ${explanation.hostVersion} to carry it)`);
  }
  const skipped = explanation.sessions.filter((session) => session.skipped.length > 0);
  if (skipped.length > 0) {
    lines.push("", "## Not added", "");
    for (const session of skipped) lines.push(`- ${session.sessionType}: ${session.skipped.join(", ")}`);
  }
  if (explanation.channels) {
    lines.push(
      "",
      "## Channels: which channel carries what",
      "",
      "record = bootstrap record in Project Context (the cached system prompt); runtime-context carrier = a hidden message after this turn's user message, for this model call only (the plugin's context engine); prependContext = this turn's user message only; appendSystemContext = after the cache boundary, the same text on every run. The plugin serves 2026.9 and later; on 2026.3.13 the hook pack does the work (prependContext would be written into the visible chat history there).",
      "",
      formatChannels(explanation.channels.rows, explanation.channels.current),
    );
  }
  lines.push(
    "",
    "before = what OpenClaw injects by default for that session (after its own filters and budgets); bulk = AGENTS, SOUL, TOOLS, IDENTITY, USER and MEMORY every turn (ACI spec baseline).",
  );
  return lines.join("\n");
}
