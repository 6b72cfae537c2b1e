import { z } from "zod";
import { HOOK_KEYS } from "../host/ids.ts";
import { parseConfigOrDefaults } from "../core/config.ts";
import type { ConfigResult } from "../core/config.ts";
import type { SessionType } from "../session/types.ts";

// Config of the ethos-context hook: `hooks.internal.entries["ethos-context"]` in openclaw.json.
// Every field has a default; see docs/runbooks/context-injection.md for the operator view.

/** Session types whose prompt may receive the workspace's (personal) memories. Nothing else can be listed. */
const WORKSPACE_MEMORY_SESSION_TYPES = ["MAIN_SESSION", "PRIVATE_DM"] as const;

const DEFAULT_TOKEN_CEILINGS: Record<SessionType, number> = {
  MAIN_SESSION: 1000,
  PRIVATE_DM: 1000,
  GROUP_CHAT: 500,
  FORUM_TOPIC: 500,
  EXTERNAL_DM: 0,
  ORCHESTRATION: 0,
  SUBAGENT: 0,
  HEARTBEAT_CRON: 0,
  FALLBACK: 0,
};

const tokenCeilingsSchema = z
  .object({
    MAIN_SESSION: z.number().int().min(0),
    PRIVATE_DM: z.number().int().min(0),
    GROUP_CHAT: z.number().int().min(0),
    FORUM_TOPIC: z.number().int().min(0),
    EXTERNAL_DM: z.number().int().min(0),
    ORCHESTRATION: z.number().int().min(0),
    SUBAGENT: z.number().int().min(0),
    HEARTBEAT_CRON: z.number().int().min(0),
    FALLBACK: z.number().int().min(0),
  })
  .partial()
  .prefault({})
  .transform((given) => ({ ...DEFAULT_TOKEN_CEILINGS, ...given }));

const groupScopeSchema = z.object({
  /** Group/channel peer id as it appears in the session key (`agent:<id>:<channel>:group:<peerId>`). */
  peerId: z.string().min(1),
  /** Optional channel name (telegram, discord, …) to disambiguate equal peer ids. */
  channel: z.string().min(1).optional(),
  /** Folder holding ONLY this group's memories (never the workspace or its memory/ folder). */
  memoryDir: z.string().min(1),
});

/**
 * An extension point of the block (persistent memory spec §10): a file or a command whose output
 * fills the CRM slot (6) or the external slot (8) of a turn that gets memory, in the operator's
 * own sessions only (docs/memory-hygiene.md, "Extension point").
 */
const contextSourceSchema = z
  .object({
    /** A file read each turn (absolute, `~/`, or relative to the workspace). */
    file: z.string().min(1).optional(),
    /** A program and its arguments (no shell): gets `{ slot, query, sessionType }` as JSON on stdin, answers on stdout. */
    command: z.array(z.string().min(1)).min(1).max(64).optional(),
    /** Longest wait for the command (also bounded by the turn's own wait), ms. */
    timeoutMs: z.number().int().min(10).max(5000).default(300),
    /** Most characters read from the file or the command's output. */
    maxChars: z.number().int().min(100).max(64_000).default(4000),
  })
  .strict()
  .refine((source) => (source.file === undefined) !== (source.command === undefined), { message: "set exactly one of file or command" });
export type ContextSourceConfig = z.output<typeof contextSourceSchema>;

export const EthosContextConfigSchema = z.object({
  /** `embedded`: BM25 over the workspace memory files (no server). `ethos`: the Ethos server. */
  backend: z.enum(["embedded", "ethos"]).default("embedded"),
  /** How long agent:bootstrap waits for this turn's retrieval before injecting nothing. */
  awaitTimeoutMs: z.number().int().min(0).max(5000).default(250),
  /** A repeated identical message within this window reuses the retrieval already running. */
  debounceMs: z.number().int().min(0).max(60_000).default(500),
  /** A second bootstrap for the same turn (fallback attempt, second workspace) within this window re-injects the same block. */
  sameTurnWindowMs: z.number().int().min(0).max(3_600_000).default(60_000),
  /** At most this many memories in the block; unset (default) = the session type's token budget decides. */
  searchTopK: z.number().int().min(1).max(20).optional(),
  maxInjectedCharsTotal: z.number().int().min(0).max(60_000).default(4000),
  maxSnippetCharsEach: z.number().int().min(40).max(20_000).default(800),
  /** Token ceiling of the injected block per session type (estimateTokens: ceil(chars/4)). */
  maxTokensBySessionType: tokenCeilingsSchema,
  /** Minimum calibrated score (0.15: the LoCoMo gate sweep in docs/retrieval.md; story 007 said 0.12); overridden by ethos.toml [retrieval].confidence_gate when ethos.configPath is set. */
  confidenceGate: z.number().min(0).max(1).default(0.15),
  /** Top score at or above which one result is enough (story 007: 0.75). */
  highConfidence: z.number().min(0).max(1).default(0.75),
  minQueryChars: z.number().int().min(1).max(280).default(10),
  maxQueryChars: z.number().int().min(10).max(4000).default(280),
  /** Hardening-plan heuristic: skip technical prompts that carry no personal or project words. */
  skipTechnicalPrompts: z.boolean().default(true),
  /** Never inject the same memory twice in one session (across turns). */
  dedupeAcrossTurns: z.boolean().default(true),
  /** De-duplication forgets a memory this many turns after it was shown (history may have been compacted away). */
  dedupeExpiryTurns: z.number().int().min(1).max(10_000).default(50),
  /** …or this long after it was shown, whichever comes first. */
  dedupeExpiryMs: z.number().int().min(1000).max(7 * 24 * 3_600_000).default(4 * 3_600_000),
  /** Also write <workspace>/ETHOS_CONTEXT.md (story 007 format) each turn, for observability. */
  writeContextFile: z.boolean().default(true),
  /** Let open corrections and the last memory_retention_hours of daily notes share the block (CONFIG.md §6 assembler). */
  assembleBlock: z.boolean().default(true),
  /** Triage the operator's own messages (spec 004 §7): memory/.triage queue and CORRECTIONS.md. */
  triage: z.boolean().default(true),
  /** Extension points of the block: slot 6 (CRM profiles) and slot 8 (external context). */
  contextSources: z.object({ crm: contextSourceSchema.optional(), external: contextSourceSchema.optional() }).prefault({}),
  /** The maintenance pass on the CONFIG.md schedule inside the gateway, started on gateway:startup (src/lifecycle). */
  maintenance: z.boolean().default(true),
  memory: z
    .object({
      /** Extra fast-glob patterns, relative to the workspace (no absolute paths, no `..`). */
      extraGlobs: z.array(z.string().min(1)).default([]),
      /** Index cache folder (default <stateDir>/openclaw-context/memory-index). */
      indexCacheDir: z.string().min(1).optional(),
      persistIndex: z.boolean().default(true),
      maxChunkChars: z.number().int().min(100).max(20_000).default(1200),
      maxFileBytes: z.number().int().min(1024).default(2 * 1024 * 1024),
      maxFiles: z.number().int().min(1).default(5000),
      /** Re-stat the memory files at most this often (ms). */
      minRefreshIntervalMs: z.number().int().min(0).default(1000),
    })
    .prefault({}),
  scope: z
    .object({
      /** Session types that get workspace memories; only MAIN_SESSION and PRIVATE_DM are allowed. */
      sessionTypes: z.array(z.enum(WORKSPACE_MEMORY_SESSION_TYPES)).default([...WORKSPACE_MEMORY_SESSION_TYPES]),
      /** Groups the operator opted in, each with its own memory folder. */
      groups: z.array(groupScopeSchema).default([]),
      /** Owner ids for the session classifier (PRIVATE_DM vs EXTERNAL_DM), added to those resolved from config. */
      ownerIds: z.array(z.string().min(1)).default([]),
    })
    .prefault({}),
  ethos: z
    .object({
      /** Path to ethos.toml; when set, its [retrieval]/[service]/[http] sections are used. */
      configPath: z.string().min(1).optional(),
      transport: z.enum(["socket", "http"]).default("socket"),
      socketPath: z.string().min(1).optional(),
      host: z.string().min(1).optional(),
      port: z.number().int().min(1).max(65_535).optional(),
      timeoutMs: z.number().int().min(1).max(60_000).default(3000),
      maxFrameBytes: z.number().int().min(1024).default(8 * 1024 * 1024),
      /** Sent as `agent_id`, which the server uses as a FILTER: set it only if your memories carry one. */
      agentId: z.string().min(1).optional(),
    })
    .prefault({}),
});

export type EthosContextConfig = z.output<typeof EthosContextConfigSchema>;
export type GroupScope = z.output<typeof groupScopeSchema>;

export function parseEthosContextConfig(raw: unknown): ConfigResult<EthosContextConfig> {
  return parseConfigOrDefaults(EthosContextConfigSchema, raw, `hooks.internal.entries.${HOOK_KEYS.ethosContext}`, "ethos-context");
}

export function defaultEthosContextConfig(): EthosContextConfig {
  return EthosContextConfigSchema.parse({});
}
