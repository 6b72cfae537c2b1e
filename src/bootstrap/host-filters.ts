// What the real host does to bootstrap records, so the decision log and explain can report files
// that a set asks for but that can never reach the model. We do NOT work around these filters
// (no renaming records to AGENTS.md): the gap is reported, nothing more.
//
// Source: observed on real gateways by the e2e suite (HOOK_ASSUMPTIONS.md); for 2026.9.6 also
// dist/workspace-*.mjs filterBootstrapFilesForSession, applied before AND after hooks. The e2e test
// "explain … predicts the files each real prompt got" fails when a row is wrong: edit HOST_FILTERS.
import type { SessionClassification } from "../session/types.ts";

/** The six names core loads from the workspace by itself (WORKSPACE_BOOTSTRAP_FILENAMES). */
const CORE_BOOTSTRAP_FILES = ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "BOOTSTRAP.md", "MEMORY.md"] as const;

type HostFilterTable = {
  /** Files core loads from the workspace by itself, in its order. */
  coreFiles: readonly string[];
  /** Names core hands the hook for `…:subagent:…` / `…:cron:…` keys (its pre-hook filter); null = all. */
  subagentPreHook: readonly string[] | null;
  cronPreHook: readonly string[] | null;
  /** Names kept after hooks for `…:subagent:…` keys; null = no allowlist. */
  subagentAllow: readonly string[] | null;
  /** Names kept after hooks for `…:cron:…` keys (cron runs and isolated webhook runs). */
  cronAllow: readonly string[] | null;
  /** Group/channel/subagent/cron sessions lose the root MEMORY.md (privacy filter by path). */
  dropsRootMemoryOutsideDm: boolean;
  /** Whether this row was checked on a real gateway or is carried over. */
  verified: boolean;
};

const HOST_FILTERS: Record<string, HostFilterTable> = {
  "2026.9.6": {
    coreFiles: CORE_BOOTSTRAP_FILES,
    subagentPreHook: ["AGENTS.md"],
    cronPreHook: ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md"],
    subagentAllow: ["AGENTS.md"],
    cronAllow: ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md"],
    dropsRootMemoryOutsideDm: true,
    verified: true,
  },
  // Observed by the e2e suite (HOOK_ASSUMPTIONS.md: hostFileNames, hostNames_*, postHookKeeps_*,
  // groupGetsMemory): TOOLS.md and HEARTBEAT.md are still core files, subagent and cron runs are
  // cut to a minimal set before hooks only, and nothing is filtered after hooks.
  "2026.3.13": {
    coreFiles: ["AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "BOOTSTRAP.md", "MEMORY.md"],
    subagentPreHook: ["AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md"],
    cronPreHook: ["AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md"],
    subagentAllow: null,
    cronAllow: null,
    dropsRootMemoryOutsideDm: false,
    verified: true,
  },
};

function versionParts(version: string): number[] {
  return version.split(/[.-]/).slice(0, 3).map((part) => Number.parseInt(part, 10) || 0);
}

function compareVersions(a: string, b: string): number {
  const [pa, pb] = [versionParts(a), versionParts(b)];
  for (let i = 0; i < 3; i += 1) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

const KNOWN_HOST_VERSIONS = Object.keys(HOST_FILTERS).sort(compareVersions);
const LATEST_KNOWN_HOST_VERSION = KNOWN_HOST_VERSIONS[KNOWN_HOST_VERSIONS.length - 1];

/** The newest known row not newer than `version`; unknown or missing → the newest known. */
function resolveHostVersion(version: string | undefined): string {
  if (!version || !/^\d{4}\.\d{1,2}\.\d{1,2}/.test(version)) return LATEST_KNOWN_HOST_VERSION;
  const candidates = KNOWN_HOST_VERSIONS.filter((known) => compareVersions(known, version) <= 0);
  return candidates[candidates.length - 1] ?? KNOWN_HOST_VERSIONS[0];
}

/**
 * The host version to assume: the operator's `hostVersion`, else `meta.lastTouchedVersion` (the
 * OpenClaw version that last wrote openclaw.json), else the newest known row.
 */
export function hostVersionFor(configured: string | undefined, cfg: Record<string, unknown> | undefined): string {
  const meta = cfg?.meta;
  const touched = typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>).lastTouchedVersion : undefined;
  return resolveHostVersion(configured ?? (typeof touched === "string" ? touched : undefined));
}

export type HostSessionKind = "subagent" | "cron" | "group" | "direct";

/**
 * How core sees the key. Core's predicates differ from our types: `acp:`, `spawn:`, `hook:`,
 * `boot:` and `:heartbeat` keys are not filtered by core, whatever type we give them.
 */
export function hostSessionKind(classification: SessionClassification): HostSessionKind {
  if (classification.rule === "subagent" || classification.rule === "subagent-incognito") return "subagent";
  if (classification.rule === "cron" || classification.rule === "cron-run") return "cron";
  // An orchestration session is what its key is for the host (a topic stays a group).
  const shapeType = classification.baseType ?? classification.type;
  if (shapeType === "GROUP_CHAT" || shapeType === "FORUM_TOPIC") return "group";
  return "direct";
}

type NamedRecord = { name: string; path: string };

/** Names the host drops after hooks for this session (the "host-filter gap"). */
export function hostDroppedNames(
  records: readonly NamedRecord[],
  classification: SessionClassification,
  workspaceDir: string | undefined,
  version?: string,
): string[] {
  const table = HOST_FILTERS[resolveHostVersion(version)];
  const kind = hostSessionKind(classification);
  const allow = kind === "subagent" ? table.subagentAllow : kind === "cron" ? table.cronAllow : null;
  const dropped: string[] = [];
  for (const record of records) {
    if (allow && !allow.includes(record.name)) dropped.push(record.name);
    else if (kind !== "direct" && table.dropsRootMemoryOutsideDm && isRootMemoryPath(record.path, workspaceDir)) {
      dropped.push(record.name);
    }
  }
  return dropped;
}

function isRootMemoryPath(filePath: string, workspaceDir: string | undefined): boolean {
  if (!workspaceDir) return false;
  const normalized = filePath.replaceAll("\\", "/");
  const root = workspaceDir.replaceAll("\\", "/").replace(/\/+$/, "");
  return normalized === `${root}/MEMORY.md`;
}

/** The files core loads by itself on this host version. */
export function hostCoreFiles(version?: string): readonly string[] {
  return HOST_FILTERS[resolveHostVersion(version)].coreFiles;
}

/** The records core itself hands to hooks for this session (its pre-hook filter). */
export function hostPreHookNames(classification: SessionClassification, version?: string): readonly string[] {
  const table = HOST_FILTERS[resolveHostVersion(version)];
  const kind = hostSessionKind(classification);
  if (kind === "subagent" && table.subagentPreHook) return table.subagentPreHook;
  if (kind === "cron" && table.cronPreHook) return table.cronPreHook;
  if (kind === "group" && table.dropsRootMemoryOutsideDm) return table.coreFiles.filter((name) => name !== "MEMORY.md");
  return table.coreFiles;
}
