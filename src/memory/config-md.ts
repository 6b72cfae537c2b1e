import fs from "node:fs/promises";
import path from "node:path";
import YAML, { CST, Lexer } from "yaml";
import { z } from "zod";
import { parseConfigOrDefaults } from "../core/config.ts";
import { getLogger } from "../core/log.ts";
import type { LockOptions } from "../fs/lock.ts";
import { readRegularFile } from "../fs/safe-read.ts";

// CONFIG.md of the persistent memory spec (§13): a Markdown file whose settings sit in a YAML block
// (a ```yaml fence as in the spec's template, or front matter). Defaults are exactly §13's, so a
// missing file, a missing key or an invalid file all behave like the spec's template.

const CONFIG_FILE_NAME = "CONFIG.md";
/** CONFIG.md is a small settings file; anything bigger is not read (bounded reads in handlers). */
const MAX_CONFIG_BYTES = 64 * 1024;

const tokens = (fallback: number) => z.number().int().min(0).default(fallback);
const positive = (fallback: number) => z.number().positive().default(fallback);
const fraction = (fallback: number) => z.number().min(0).max(1).default(fallback);
const hhmm = (fallback: string) => z.string().regex(/^\d{1,2}:\d{2}$/, 'expected "HH:MM"').default(fallback);

const customPatternSchema = z.union([
  z.string().min(1),
  z.object({
    pattern: z.string().min(1),
    flags: z.string().regex(/^[imsu]*$/, "allowed flags: i, m, s, u").optional(),
    name: z.string().min(1).optional(),
    class: z.string().regex(/^[\w-]{1,40}$/, "class must be a short id").default("custom"),
    /** Set to route matches to the Recall Validator (a CORRECTIONS.md entry) like the built-in recall triggers. */
    trigger_confidence: z.enum(["high", "medium"]).optional(),
  }),
]);
export type CustomPatternConfig = z.output<typeof customPatternSchema>;

const hygieneConfigSchema = z.object({
  // ── Context Assembler ──
  context_budget_tokens: tokens(6000),
  identity_tokens: tokens(800),
  user_profile_tokens: tokens(600),
  corrections_tokens: tokens(400),
  recent_memory_tokens: tokens(1200),
  semantic_recall_tokens: tokens(1500),
  crm_tokens: tokens(1000),
  longterm_memory_tokens: tokens(500),
  headroom_reserve_tokens: tokens(500),
  // ── Memory ──
  memory_retention_hours: positive(48),
  compaction_age_days: positive(30),
  correction_archive_days: positive(14),
  correction_overflow_strategy: z.enum(["prioritize_unverified", "newest_first"]).default("prioritize_unverified"),
  corrected_embedding_grace_days: positive(7),
  confidence_decay_interval_days: positive(30),
  confidence_decay_amount: fraction(0.05),
  confidence_floor: fraction(0.2),
  confidence_boost_per_mention: fraction(0.05),
  correction_relevance_boost: z.number().min(1).default(1.5),
  // ── Capture (openclaw-context; not in §13) ──
  /** "Remember that …" in the operator's own sessions becomes a fact line in memory/YYYY-MM-DD.md. */
  memory_capture: z.boolean().default(true),
  /**
   * Passwords, PINs, API keys, card and account numbers in a captured fact are withheld by default
   * ("my PIN is [PIN withheld]"); true keeps the value in the day file (docs/memory-hygiene.md, "Secrets").
   */
  memory_keep_secrets: z.boolean().default(false),
  // ── Corrections (v4.1) ──
  correction_cooldown_hours: z.number().min(0).default(24),
  correction_retraction_confidence: fraction(0.3),
  // ── Soul Keeper ──
  soul_max_tokens: tokens(800),
  soul_history_retention_days: positive(90),
  soul_encoding_min_occurrences: z.number().int().min(1).default(2),
  // ── Advisory File Locking (v4.1) ──
  lock_retry_interval_seconds: positive(2),
  lock_max_retries: z.number().int().min(1).default(5),
  lock_stale_threshold_seconds: z.number().min(2, "proper-lockfile needs at least 2 seconds").default(3600),
  // ── Schedule ──
  cron_soul_keeper: hhmm("02:30"),
  cron_memory_miner: hhmm("06:00"),
  cron_conflict_detector: hhmm("07:00"),
  cron_compactor_weekly: z.string().min(1).default("Sunday 03:00"),
  // ── Extension Points ──
  external_context_budget: tokens(0),
  external_context_source: z.string().default(""),
  recall_external_handler: z.string().default(""),
  heartbeat_custom_patterns: z.array(customPatternSchema).max(64, "at most 64 custom patterns").default([]),
});

export type HygieneConfig = z.output<typeof hygieneConfigSchema>;

export const HYGIENE_CONFIG_DEFAULTS: HygieneConfig = Object.freeze(hygieneConfigSchema.parse({})) as HygieneConfig;

export const KNOWN_CONFIG_KEYS: readonly string[] = Object.keys(hygieneConfigSchema.shape);

export type ConfigLoadResult = {
  config: HygieneConfig;
  /** false when the file was invalid and defaults are in force. */
  ok: boolean;
  /** "missing" | "fence" | "front-matter" | "document": where the settings were read from. */
  source: "missing" | "fence" | "front-matter" | "document";
  warnings: string[];
  error?: string;
};

const log = () => getLogger("openclaw-context.hygiene");

/** The YAML text of CONFIG.md: front matter, else every ```yaml / ```yml fence joined, else the whole file. */
function extractConfigYaml(markdown: string): { yaml: string; source: ConfigLoadResult["source"] } {
  const frontMatter = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(markdown);
  if (frontMatter && frontMatter[1].trim()) return { yaml: frontMatter[1], source: "front-matter" };
  const fences = [...markdown.matchAll(/^[ \t]*(`{3,}|~{3,})[ \t]*ya?ml[^\n]*\n([\s\S]*?)^[ \t]*\1[ \t]*$/gim)].map((m) => m[2]);
  if (fences.length > 0) return { yaml: fences.join("\n"), source: "fence" };
  return { yaml: markdown, source: "document" };
}

/** Deepest nesting a CONFIG.md may use: its settings are flat, a custom pattern list is depth 3. */
export const MAX_CONFIG_NESTING = 32;

/**
 * Why the YAML text must not reach the parser, or undefined when it may. The yaml package builds
 * nested collections recursively; on Node 20/22 a stack overflow inside it can leave a regular
 * expression half-compiled, and the next parse then aborts the whole process ("RegExpCompiler
 * Allocation failed", uncatchable). So nesting is measured first with yaml's own lexer, which is
 * iterative and knows quoting: open flow collections (`[`, `{`) plus the block indicators
 * (`- `, `? `, `: `) on one line bound the depth the parser would recurse to.
 */
export function yamlTooDeep(yaml: string, limit = MAX_CONFIG_NESTING): string | undefined {
  let flowDepth = 0;
  let lineIndicators = 0;
  for (const token of new Lexer().lex(yaml)) {
    const type = CST.tokenType(token);
    if (type === "flow-seq-start" || type === "flow-map-start") flowDepth++;
    else if (type === "flow-seq-end" || type === "flow-map-end") flowDepth = Math.max(0, flowDepth - 1);
    else if (type === "newline") lineIndicators = 0;
    else if (type === "seq-item-ind" || type === "explicit-key-ind" || type === "map-value-ind") lineIndicators++;
    if (flowDepth + lineIndicators > limit) return `nested deeper than ${limit} levels`;
  }
  return undefined;
}

/** Parse CONFIG.md text. Never throws: problems come back as `error` (defaults used) or `warnings`. */
export function parseHygieneConfigText(markdown: string, label = CONFIG_FILE_NAME): ConfigLoadResult {
  const { yaml, source } = extractConfigYaml(markdown);
  const warnings: string[] = [];
  let raw: unknown;
  const tooDeep = yamlTooDeep(yaml);
  if (tooDeep) {
    const reason = `${label}: not read (${tooDeep})`;
    log().error({ configKey: label, error: reason }, `invalid config, using defaults: ${reason}`);
    return { config: HYGIENE_CONFIG_DEFAULTS, ok: false, source, warnings, error: reason };
  }
  try {
    const doc = YAML.parseDocument(yaml, { uniqueKeys: true, prettyErrors: false });
    if (doc.errors.length > 0) throw doc.errors[0];
    raw = doc.toJS() ?? {};
  } catch (error) {
    const reason = `${label}: not valid YAML (${(error as Error).message.split("\n")[0]})`;
    log().error({ configKey: label, error: reason }, `invalid config, using defaults: ${reason}`);
    return { config: HYGIENE_CONFIG_DEFAULTS, ok: false, source, warnings, error: reason };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    const reason = `${label}: expected key: value settings, found ${Array.isArray(raw) ? "a list" : typeof raw}`;
    log().error({ configKey: label, error: reason }, `invalid config, using defaults: ${reason}`);
    return { config: HYGIENE_CONFIG_DEFAULTS, ok: false, source, warnings, error: reason };
  }
  const settings: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!KNOWN_CONFIG_KEYS.includes(key)) {
      warnings.push(`${label}.${key}: unknown key, ignored`);
    } else if (value === null) {
      // `key:` with no value reads as "not set" rather than as a type error.
      warnings.push(`${label}.${key}: empty value, using the default`);
    } else {
      settings[key] = value;
    }
  }
  for (const warning of warnings) log().warn({ configKey: label }, warning);
  const { config, ok, error } = parseConfigOrDefaults(hygieneConfigSchema, settings, label, "openclaw-context.hygiene");
  return { config, ok, source, warnings, error };
}

/** Read `<workspace>/CONFIG.md`. A missing file means the §13 defaults; never throws. */
export async function loadHygieneConfig(workspaceDir: string): Promise<ConfigLoadResult> {
  const file = path.join(workspaceDir, CONFIG_FILE_NAME);
  const read = await readRegularFile(file, { maxBytes: MAX_CONFIG_BYTES, root: workspaceDir });
  if (read.ok) return parseHygieneConfigText(read.bytes.toString("utf8"));
  if (read.reason === "missing") return { config: HYGIENE_CONFIG_DEFAULTS, ok: true, source: "missing", warnings: [] };
  const why: Record<typeof read.reason, string> = {
    "over-cap": `larger than ${MAX_CONFIG_BYTES} bytes`,
    "not-a-file": "not a regular file",
    "outside-root": "a link that leaves the workspace",
    unreadable: `cannot read (${read.detail ?? "error"})`,
  };
  const reason = `${CONFIG_FILE_NAME}: ${why[read.reason]}, not read`;
  log().error({ configKey: CONFIG_FILE_NAME, error: reason }, `invalid config, using defaults: ${reason}`);
  return { config: HYGIENE_CONFIG_DEFAULTS, ok: false, source: "missing", warnings: [], error: reason };
}

const cachedLoads = new Map<string, { stamp: string; result: ConfigLoadResult }>();

/**
 * `loadHygieneConfig` for per-message callers: re-parses only when CONFIG.md's mtime or size
 * changed (one stat per call), so warnings are logged once per change, not once per message.
 */
export async function loadHygieneConfigCached(workspaceDir: string): Promise<ConfigLoadResult> {
  const file = path.join(workspaceDir, CONFIG_FILE_NAME);
  const stat = await fs.stat(file).catch(() => null);
  const stamp = stat ? `${stat.mtimeMs}:${stat.size}` : "missing";
  const cached = cachedLoads.get(file);
  if (cached && cached.stamp === stamp) return cached.result;
  const result = await loadHygieneConfig(workspaceDir);
  if (cachedLoads.size > 64) cachedLoads.clear();
  cachedLoads.set(file, { stamp, result });
  return result;
}

/** The §4.1 lock settings of a CONFIG.md, for withFileLock / appendFileLocked. */
export function lockOptionsFromConfig(config: HygieneConfig, agentName: string): LockOptions {
  return {
    retryIntervalSeconds: config.lock_retry_interval_seconds,
    maxRetries: config.lock_max_retries,
    staleThresholdSeconds: config.lock_stale_threshold_seconds,
    agentName,
  };
}
