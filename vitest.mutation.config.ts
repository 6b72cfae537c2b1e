import { defineConfig } from "vitest/config";

// Unit tests that exercise the files `npm run mutation` mutates (stryker.config.mjs): the privacy files and the capture.
// Only these run per mutant, so a full mutation run fits a busy 2-core machine. No e2e, no
// lock-concurrency (multi-process, long), no fuzz (slow; its keys are covered by named cases).
const MUTATION_TEST_FILES = [
  "test/unit/session-classify.test.ts",
  "test/unit/session-owners.test.ts",
  "test/unit/session-identity.test.ts",
  "test/unit/session-orchestration.test.ts",
  "test/unit/session-shared-main.test.ts",
  "test/unit/hardening-owners.test.ts",
  "test/unit/bootstrap-policy.test.ts",
  "test/unit/hardening-bootstrap.test.ts",
  "test/unit/hardening-files.test.ts",
  "test/unit/privacy-scope.test.ts",
  "test/unit/context-gate.test.ts",
  "test/unit/lock-atomic.test.ts",
  "test/unit/lock-defaults.test.ts",
  "test/unit/privacy-mutants.test.ts",
  "test/unit/mutation-kills.test.ts",
  "test/unit/mutation-kills-append.test.ts",
  "test/unit/locked-writes-hashes.test.ts",
  "test/unit/locked-writes-seen.test.ts",
  "test/unit/lock-line-end.test.ts",
  "test/unit/triage-queue.test.ts",
  "test/unit/bootstrap-apply.test.ts",
  "test/unit/capture-statement.test.ts",
  "test/unit/capture-language.test.ts",
  "test/unit/capture-index.test.ts",
  "test/unit/capture-index-incremental.test.ts",
  "test/unit/capture-index-work.test.ts",
  "test/unit/capture-corrections.test.ts",
  "test/unit/hygiene-capture.test.ts",
  "test/unit/capture-pending-edits.test.ts",
  "test/unit/capture-pending-edits-links.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    pool: "forks",
    env: { OPENCLAW_CONTEXT_LOG_FILE: "off" },
    include: MUTATION_TEST_FILES,
  },
});
