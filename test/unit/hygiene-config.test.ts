import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { HYGIENE_CONFIG_DEFAULTS, KNOWN_CONFIG_KEYS, loadHygieneConfig, lockOptionsFromConfig, parseHygieneConfigText } from "../../src/memory/config-md.ts";

// The spec lives beside the repo (../shared in CI and on dev machines); the check is skipped without it.
// §13 of the persistent memory spec (../shared/specs/004_…), as the spec prints it: CI has no ../shared.
const SPEC_TEMPLATE_PATH = fileURLToPath(new URL("../../fixtures/config/spec-13-config-template.md", import.meta.url));

// §13 of the persistent memory spec, copied by value so a drifting default fails this test.
const SPEC_SECTION_13 = {
  context_budget_tokens: 6000, identity_tokens: 800, user_profile_tokens: 600, corrections_tokens: 400,
  recent_memory_tokens: 1200, semantic_recall_tokens: 1500, crm_tokens: 1000, longterm_memory_tokens: 500,
  headroom_reserve_tokens: 500, memory_retention_hours: 48, compaction_age_days: 30, correction_archive_days: 14,
  correction_overflow_strategy: "prioritize_unverified", corrected_embedding_grace_days: 7,
  confidence_decay_interval_days: 30, confidence_decay_amount: 0.05, confidence_floor: 0.2,
  confidence_boost_per_mention: 0.05, correction_relevance_boost: 1.5, correction_cooldown_hours: 24,
  correction_retraction_confidence: 0.3, soul_max_tokens: 800, soul_history_retention_days: 90,
  soul_encoding_min_occurrences: 2, lock_retry_interval_seconds: 2, lock_max_retries: 5,
  lock_stale_threshold_seconds: 3600, cron_soul_keeper: "02:30", cron_memory_miner: "06:00",
  cron_conflict_detector: "07:00", cron_compactor_weekly: "Sunday 03:00", external_context_budget: 0,
  external_context_source: "", recall_external_handler: "", heartbeat_custom_patterns: [],
};
// Keys of this bundle that §13 does not have (documented in docs/memory-hygiene.md).
const BUNDLE_KEYS = { memory_capture: true, memory_keep_secrets: false };
const SECTION_13 = { ...SPEC_SECTION_13, ...BUNDLE_KEYS };

let logs: Array<{ level: number; msg: string }>;
beforeEach(() => {
  logs = [];
  setLogDestination({ write: (line: string) => void logs.push(JSON.parse(line)) });
});
afterEach(() => setLogDestination(undefined));

describe("CONFIG.md parsing", () => {
  it("defaults are exactly §13 plus the bundle's own keys", () => {
    expect(HYGIENE_CONFIG_DEFAULTS).toEqual(SECTION_13);
    expect([...KNOWN_CONFIG_KEYS].sort()).toEqual(Object.keys(SECTION_13).sort());
  });

  it("the spec's own §13 template parses to the defaults with no warnings", () => {
    const section = fs.readFileSync(SPEC_TEMPLATE_PATH, "utf8");
    expect(section).toMatch(/^## 13\. CONFIG\.md Template/);
    const result = parseHygieneConfigText(section);
    expect(result).toMatchObject({ ok: true, source: "fence", warnings: [] });
    expect(result.config).toEqual(SECTION_13);
  });

  it("reads a yaml fence inside prose and overrides only what it sets", () => {
    const md = "# My settings\n\nTuned for a small model.\n\n```yaml\nsemantic_recall_tokens: 900\nlock_max_retries: 8\nheartbeat_custom_patterns:\n  - /deploy freeze/i\n  - pattern: 'wrong again'\n    class: recall_failure\n    trigger_confidence: high\n```\n";
    const result = parseHygieneConfigText(md);
    expect(result.ok).toBe(true);
    expect(result.config).toEqual({
      ...SECTION_13,
      semantic_recall_tokens: 900,
      lock_max_retries: 8,
      heartbeat_custom_patterns: ["/deploy freeze/i", { pattern: "wrong again", class: "recall_failure", trigger_confidence: "high" }],
    });
  });

  it("reads front matter too", () => {
    const result = parseHygieneConfigText("---\nmemory_retention_hours: 24\n---\n# notes\n");
    expect(result).toMatchObject({ ok: true, source: "front-matter" });
    expect(result.config.memory_retention_hours).toBe(24);
  });

  it("an unknown key warns and is ignored; the rest applies", () => {
    const result = parseHygieneConfigText("```yaml\nidentity_tokens: 700\nidentiy_tokens: 9\n```");
    expect(result.ok).toBe(true);
    expect(result.warnings).toEqual(["CONFIG.md.identiy_tokens: unknown key, ignored"]);
    expect(result.config.identity_tokens).toBe(700);
    expect(logs.some((l) => l.level === 40 && l.msg.includes("identiy_tokens"))).toBe(true);
  });

  it.each([
    ["lock_max_retries: five", "CONFIG.md.lock_max_retries"],
    ["correction_overflow_strategy: drop_all", "CONFIG.md.correction_overflow_strategy"],
    ["identity_tokens: -1", "CONFIG.md.identity_tokens"],
    ["heartbeat_custom_patterns:\n  - pattern: 'x'\n    flags: g", "CONFIG.md.heartbeat_custom_patterns.0"],
    ["lock_stale_threshold_seconds: 1", "CONFIG.md.lock_stale_threshold_seconds"],
  ])("a wrong type errors with its key path; that key takes its default, the valid ones are kept: %s", (yaml, keyPath) => {
    const result = parseHygieneConfigText(`\`\`\`yaml\nsemantic_recall_tokens: 900\n${yaml}\n\`\`\``);
    expect(result.ok).toBe(false);
    expect(result.error).toContain(`${keyPath}`);
    // An unknown key inside a list entry (`flags`) costs that key only: the pattern itself is kept.
    const kept = keyPath.endsWith("heartbeat_custom_patterns.0") ? { heartbeat_custom_patterns: [{ class: "custom", pattern: "x" }] } : {};
    expect(result.config).toEqual({ ...SECTION_13, semantic_recall_tokens: 900, ...kept });
    expect(logs.filter((l) => l.level === 50)).toHaveLength(1);
  });

  it("invalid YAML and non-mapping YAML error, then defaults", () => {
    expect(parseHygieneConfigText("```yaml\na: [1,\n```")).toMatchObject({ ok: false, config: SECTION_13 });
    expect(parseHygieneConfigText("```yaml\nidentity_tokens: 1\nidentity_tokens: 2\n```")).toMatchObject({ ok: false });
    expect(parseHygieneConfigText("```yaml\n- a\n- b\n```").error).toMatch(/expected key: value settings, found a list/);
  });

  it("an empty value means the default", () => {
    const result = parseHygieneConfigText("```yaml\nexternal_context_source:\n```");
    expect(result.ok).toBe(true);
    expect(result.config.external_context_source).toBe("");
    expect(result.warnings).toEqual(["CONFIG.md.external_context_source: empty value, using the default"]);
  });

  describe("from a workspace", () => {
    let dir: string;
    beforeEach(() => void (dir = fs.mkdtempSync(path.join(os.tmpdir(), "cfg-"))));
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("a missing file means defaults, no error", async () => {
      expect(await loadHygieneConfig(dir)).toEqual({ config: SECTION_13, ok: true, source: "missing", warnings: [] });
    });

    it("reads CONFIG.md and maps the lock settings", async () => {
      fs.writeFileSync(path.join(dir, "CONFIG.md"), "```yaml\nlock_retry_interval_seconds: 0.5\nlock_max_retries: 3\nlock_stale_threshold_seconds: 60\n```\n");
      const { config } = await loadHygieneConfig(dir);
      expect(lockOptionsFromConfig(config, "memory-miner")).toEqual({ retryIntervalSeconds: 0.5, maxRetries: 3, staleThresholdSeconds: 60, agentName: "memory-miner" });
    });

    it("refuses an oversized file", async () => {
      fs.writeFileSync(path.join(dir, "CONFIG.md"), "#".repeat(300_000));
      expect(await loadHygieneConfig(dir)).toMatchObject({ ok: false, config: SECTION_13 });
    });
  });
});

describe("loadHygieneConfigCached", () => {
  it("re-reads only after CONFIG.md changes", async () => {
    const { loadHygieneConfigCached } = await import("../../src/memory/config-md.ts");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cfg-cache-"));
    try {
      const file = path.join(dir, "CONFIG.md");
      expect((await loadHygieneConfigCached(dir)).source).toBe("missing");
      fs.writeFileSync(file, "```yaml\ncrm_tokens: 10\n```\n");
      const first = await loadHygieneConfigCached(dir);
      expect(first.config.crm_tokens).toBe(10);
      expect(await loadHygieneConfigCached(dir)).toBe(first);
      fs.writeFileSync(file, "```yaml\ncrm_tokens: 20000\n```\n");
      fs.utimesSync(file, new Date(Date.now() + 5000), new Date(Date.now() + 5000));
      expect((await loadHygieneConfigCached(dir)).config.crm_tokens).toBe(20000);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
