// File-set policy: which workspace files each session type gets, and the operator's overrides
// from hooks.internal.entries["aci-bootstrap"] (validated with zod; a bad entry means defaults).
import path from "node:path";
import { z } from "zod";
import { parseConfigOrDefaults } from "../core/config.ts";
import { HOOK_KEYS, RETRIEVED_MEMORY_RECORD_NAME } from "../host/ids.ts";
import { orchestrationRuleSchema } from "../session/orchestration.ts";
import { SESSION_TYPES } from "../session/types.ts";
import type { SessionClassification, SessionType } from "../session/types.ts";

/** Defaults from the ACI spec §10. MEMORY.md and IDENTITY.md are in no set, on purpose. */
export const SESSION_FILE_SETS: Readonly<Record<SessionType, readonly string[]>> = {
  MAIN_SESSION: ["SOUL.md", "USER.md", "TOOLS_COMPACT.md"],
  PRIVATE_DM: ["SOUL.md", "USER.md", "TOOLS_COMPACT.md"],
  EXTERNAL_DM: ["SOUL.md", "TOOLS_COMPACT.md"],
  FORUM_TOPIC: ["SOUL.md", "TOOLS_COMPACT.md"],
  GROUP_CHAT: ["SOUL.md", "TOOLS_COMPACT.md"],
  ORCHESTRATION: ["SOUL.md", "AGENTS.md"],
  SUBAGENT: ["SOUL.md"],
  HEARTBEAT_CRON: ["SOUL.md", "HEARTBEAT.md"],
  FALLBACK: ["SOUL.md", "USER.md", "AGENTS.md", "TOOLS_COMPACT.md"],
};

/** Records that pass through whatever the set says. */
const FIRST_RUN_FILE = "BOOTSTRAP.md";
export const ALWAYS_KEPT = new Set([FIRST_RUN_FILE, RETRIEVED_MEMORY_RECORD_NAME]);

/**
 * Never in a set, even if configured: MEMORY.md grows without bound and is read on demand
 * (privacy rule in docs/architecture.md); IDENTITY.md is metadata SOUL.md already covers.
 * BOOTSTRAP.md and ETHOS_CONTEXT.md are owned by core and by the ethos-context hook.
 */
const REFUSED_NAMES: Record<string, string> = {
  "memory.md": "MEMORY.md is never bulk-injected; the agent reads it on demand",
  "identity.md": "IDENTITY.md is never bulk-injected; SOUL.md covers identity",
  "bootstrap.md": "BOOTSTRAP.md passes through untouched; do not list it",
  [RETRIEVED_MEMORY_RECORD_NAME.toLowerCase()]: `${RETRIEVED_MEMORY_RECORD_NAME} is managed by the ethos-context hook`,
};

const DEFAULT_MAX_FILE_BYTES = 64 * 1024;

/** A workspace-relative Markdown file: no absolute path, no `..`, no home shortcut. */
const fileNameSchema = z
  .string()
  .trim()
  .min(1, "empty file name")
  .max(255, "file name longer than 255 characters")
  .refine((name) => name.toLowerCase().endsWith(".md"), "must be a .md file")
  .refine((name) => !path.isAbsolute(name) && !path.win32.isAbsolute(name) && !name.startsWith("~"), "must be relative to the workspace, not an absolute path")
  .refine((name) => !name.split(/[\\/]/).includes(".."), "must not contain '..'")
  .refine((name) => !name.includes("\0"), "must not contain NUL")
  .superRefine((name, ctx) => {
    const refused = REFUSED_NAMES[path.posix.basename(name.replaceAll("\\", "/")).toLowerCase()];
    if (refused) ctx.addIssue({ code: "custom", message: refused });
  });

const fileListSchema = z.array(fileNameSchema).max(32, "at most 32 files per set");

const fileSetsSchema = z.strictObject(
  Object.fromEntries(SESSION_TYPES.map((type) => [type, fileListSchema.optional()])) as Record<
    SessionType,
    z.ZodOptional<typeof fileListSchema>
  >,
);

export const aciBootstrapConfigSchema = z.strictObject({
  /** Per-type overrides; a type not listed keeps its default set. */
  fileSets: fileSetsSchema.default({}),
  /** TOPIC_FILE_MAP: forum topic id → extra files for that topic (added to the FORUM_TOPIC set). */
  topicFiles: z.record(z.string().regex(/^-?[\w.-]{1,64}$/, "topic id must be a short id"), fileListSchema).default({}),
  /** Operator peer ids; when empty, commands.ownerAllowFrom then channels.*.allowFrom are used. */
  ownerIds: z.array(z.union([z.string().min(1), z.number().int()]).transform(String)).default([]),
  /** Files we read ourselves (TOOLS_COMPACT.md, HEARTBEAT.md, topic extras) above this are skipped. */
  maxFileBytes: z.number().int().min(1).max(2 * 1024 * 1024).default(DEFAULT_MAX_FILE_BYTES),
  /** Which sessions get the ORCHESTRATION set (session-key globs, agent ids, forum topic ids); none by default. */
  orchestration: orchestrationRuleSchema.optional(),
  /** The on-demand line naming the files a session's set left out (on-demand.ts); false switches it off. */
  onDemandIndex: z.boolean().default(true),
  /** Host version whose post-hook filters to assume (see host-filters.ts); default: newest known. */
  hostVersion: z.string().regex(/^\d{4}\.\d{1,2}\.\d{1,2}/, "expected a version like 2026.9.6").optional(),
});

export type AciBootstrapConfig = z.output<typeof aciBootstrapConfigSchema>;

export type BootstrapPolicy = AciBootstrapConfig & {
  /** Effective sets: defaults with the operator's per-type overrides applied. */
  sets: Record<SessionType, readonly string[]>;
  configOk: boolean;
  configError?: string;
};

export function policyFromConfig(config: AciBootstrapConfig, configOk = true, configError?: string): BootstrapPolicy {
  const sets = { ...SESSION_FILE_SETS } as Record<SessionType, readonly string[]>;
  for (const type of SESSION_TYPES) {
    const override = config.fileSets[type];
    if (override) sets[type] = [...new Set(override)];
  }
  return { ...config, sets, configOk, ...(configError ? { configError } : {}) };
}

/** Parse the hook's entry; an invalid entry logs one error naming the key, then uses the defaults. */
export function resolveBootstrapPolicy(rawEntry: unknown): BootstrapPolicy {
  const { config, ok, error } = parseConfigOrDefaults(
    aciBootstrapConfigSchema,
    rawEntry,
    `hooks.internal.entries.${HOOK_KEYS.aciBootstrap}`,
    HOOK_KEYS.aciBootstrap,
  );
  return policyFromConfig(config, ok, error);
}

export const DEFAULT_POLICY: BootstrapPolicy = policyFromConfig(aciBootstrapConfigSchema.parse({}));

/** The files one session gets: its type's set, plus topic extras for a configured forum topic. */
export function fileSetFor(policy: BootstrapPolicy, classification: SessionClassification): string[] {
  const files = [...policy.sets[classification.type]];
  if (classification.type === "FORUM_TOPIC" && classification.topicId !== undefined) {
    // The topic id comes from the session key: never look it up through the prototype ("constructor", "__proto__").
    const extras = Object.hasOwn(policy.topicFiles, classification.topicId) ? policy.topicFiles[classification.topicId] : undefined;
    for (const extra of Array.isArray(extras) ? extras : []) if (!files.includes(extra)) files.push(extra);
  }
  return files;
}
