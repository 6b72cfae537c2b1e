import fs from "node:fs/promises";
import path from "node:path";
import { estimateTokens } from "../core/tokens.ts";
import { applyBootstrapPolicy } from "../bootstrap/apply.ts";
import { estimateInjection, resolveBootstrapLimits } from "../bootstrap/budget.ts";
import type { BootstrapLimits, InjectedEstimate } from "../bootstrap/budget.ts";
import { simulateHostRecords } from "./explain-workspace.ts";
import { hostDroppedNames, hostVersionFor } from "../bootstrap/host-filters.ts";
import { sessionContextFor } from "../bootstrap/run.ts";
import type { BootstrapFileRecord, OpenClawConfig } from "../host/events.ts";
import { classifySession } from "../session/classify.ts";
import { sampleOrchestration, sampleSessionKeys } from "../session/sample-keys.ts";
import type { SessionType } from "../session/types.ts";

// Appendix A baseline: what OpenClaw 2026.9.6 injects today, per file and per session type, and what
// the bundle injects with its policy. Host behaviour (default set, session filters, budgets) and the
// policy both come from src/bootstrap, the same code the aci-bootstrap hook runs.

/** Core's bootstrap basenames in load order (BOOTSTRAP.md is first-run only and left out here). */
const HOST_BOOTSTRAP_FILES = ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md"] as const;
/** Files the spec talks about that OpenClaw 2026.9.6 does not load, or that only the bundle adds. */
const REFERENCE_FILES = ["TOOLS.md", "HEARTBEAT.md", "TOOLS_COMPACT.md"] as const;
const ALWAYS_PRESENT = new Set(["AGENTS.md", "SOUL.md", "IDENTITY.md"]); // core emits missing:true for these
const MAX_READ_BYTES = 8 * 1024 * 1024;
const OWNER_PLACEHOLDER = "100000001";


export type FileRow = { name: string; present: boolean; rawChars: number; injectedChars: number; truncated: boolean; tokens: number; loadedByHost: boolean };
type Totals = { files: string[]; chars: number; tokens: number };
export type SessionRow = {
  type: SessionType;
  classifiedAs: SessionType;
  sessionKey: string;
  today: Totals;
  /** `hostFiltered`: names the policy asks for that the host drops after the hook. */
  bundle?: Totals & { hostFiltered: string[]; error?: string };
};

async function readBounded(file: string): Promise<string | undefined> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(file, "r");
    const buffer = Buffer.alloc(Math.min(MAX_READ_BYTES, (await handle.stat()).size));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

/** The records core builds for a main session (USER.md/MEMORY.md omitted when absent). */
async function loadHostBootstrapRecords(workspace: string): Promise<BootstrapFileRecord[]> {
  const records: BootstrapFileRecord[] = [];
  for (const name of HOST_BOOTSTRAP_FILES) {
    const file = path.join(workspace, name);
    const content = await readBounded(file);
    if (content !== undefined) records.push({ name, path: file, content, missing: false });
    else if (ALWAYS_PRESENT.has(name)) records.push({ name, path: file, missing: true });
  }
  return records;
}

/** Tokens of what is actually injected: the trimmed head of each record (or its [MISSING] marker). */
function injectedTokens(records: readonly BootstrapFileRecord[], estimates: readonly InjectedEstimate[]): number {
  let total = 0;
  for (const estimate of estimates) {
    const record = records.find((candidate) => candidate.name === estimate.name);
    const text = record?.missing ? `[MISSING] Expected at: ${record.path}` : (record?.content ?? "").trimEnd();
    total += estimateTokens(text.slice(0, estimate.injectedChars));
  }
  return total;
}

function totalsOf(records: readonly BootstrapFileRecord[], limits: BootstrapLimits): Totals {
  const estimates = estimateInjection(records, limits).filter((estimate) => estimate.injectedChars > 0);
  return {
    files: estimates.map((estimate) => estimate.name),
    chars: estimates.reduce((sum, estimate) => sum + estimate.injectedChars, 0),
    tokens: injectedTokens(records, estimates),
  };
}

export async function measureFiles(workspace: string, cfg?: OpenClawConfig): Promise<FileRow[]> {
  const limits = resolveBootstrapLimits(cfg, "main");
  const records = await loadHostBootstrapRecords(workspace);
  const estimates = estimateInjection(records, limits);
  const rows: FileRow[] = [];
  for (const name of HOST_BOOTSTRAP_FILES) {
    const record = records.find((candidate) => candidate.name === name && !candidate.missing);
    const estimate = estimates.find((candidate) => candidate.name === name);
    if (!record || !estimate) {
      rows.push({ name, present: Boolean(record), rawChars: record?.content?.trimEnd().length ?? 0, injectedChars: 0, truncated: Boolean(record), tokens: 0, loadedByHost: true });
      continue;
    }
    rows.push({
      name,
      present: true,
      rawChars: estimate.rawChars,
      injectedChars: estimate.injectedChars,
      truncated: estimate.truncated,
      tokens: injectedTokens([record], [estimate]),
      loadedByHost: true,
    });
  }
  for (const name of REFERENCE_FILES) {
    const content = (await readBounded(path.join(workspace, name)))?.trimEnd();
    rows.push({ name, present: content !== undefined, rawChars: content?.length ?? 0, injectedChars: 0, truncated: false, tokens: estimateTokens(content), loadedByHost: false });
  }
  return rows;
}

/** The host version the per-session columns model: `hostVersion` in the hook entry, else meta.lastTouchedVersion, else the newest known. */
export function baselineHostVersion(cfg?: OpenClawConfig): string {
  return hostVersionFor(sessionContextFor(cfg).policy.hostVersion, cfg);
}

export async function measureSessions(params: { workspace: string; types: readonly SessionType[]; cfg?: OpenClawConfig; withBundle: boolean }): Promise<SessionRow[]> {
  const { policy, owners, mainKeys } = sessionContextFor(params.cfg);
  // A PRIVATE_DM needs an owner id; without one configured, a placeholder stands in for it.
  const ownerId = owners.owners[0]?.id.toLowerCase() ?? OWNER_PLACEHOLDER;
  const ownerIds = owners.owners.length > 0 ? owners.owners : [{ id: OWNER_PLACEHOLDER }];
  const orchestration = sampleOrchestration(policy.orchestration);
  const keys = sampleSessionKeys(ownerId, owners.owners[0]?.channel, orchestration.key);
  const limits = resolveBootstrapLimits(params.cfg, "main");
  const hostVersion = baselineHostVersion(params.cfg);
  const rows: SessionRow[] = [];
  for (const type of params.types) {
    const sessionKey = keys[type];
    const classification = classifySession(sessionKey, { ownerIds, mainKeys, orchestration: orchestration.rule });
    // The same per-version model of the host's record list as `npm run explain`.
    const hostInput = await simulateHostRecords(params.workspace, classification, hostVersion);
    const row: SessionRow = { type, classifiedAs: classification.type, sessionKey, today: totalsOf(hostInput, limits) };
    if (params.withBundle) {
      try {
        const { files } = await applyBootstrapPolicy({ files: hostInput, workspaceDir: params.workspace, classification, policy, cfg: params.cfg, agentId: classification.agentId });
        // Core re-applies its session filter after hooks: count only what survives it.
        const dropped = new Set(hostDroppedNames(files, classification, params.workspace, hostVersion));
        row.bundle = { ...totalsOf(files.filter((record) => !dropped.has(record.name)), limits), hostFiltered: [...dropped] };
      } catch (error) {
        row.bundle = { files: [], chars: 0, tokens: 0, hostFiltered: [], error: (error as Error).message };
      }
    }
    rows.push(row);
  }
  return rows;
}
