import { defineConfig } from "vitest/config";

const E2E_FILES = "test/e2e/**/*.e2e.test.ts";

export default defineConfig({
  test: {
    // A bound no busy machine reaches (CI is a 2-core machine, at times at load 15): tests wait for
    // events and count progress, so this only ends a test that hangs. The e2e suite boots real
    // gateways; every wait inside it is bounded too.
    testTimeout: 300_000,
    hookTimeout: 600_000,
    pool: "forks",
    // Hook code under test must not append to the real ~/.openclaw/openclaw-context/logs file.
    env: { OPENCLAW_CONTEXT_LOG_FILE: "off" },
    // The JSON report lets .ci/run print one plain "N passed, N failed" line for CI.
    reporters: ["default", ["json", { outputFile: ".cache/test-results.json" }]],
    projects: [
      { extends: true, test: { name: "unit", include: ["test/**/*.test.ts"], exclude: ["**/node_modules/**", E2E_FILES] } },
      // Real gateways: one e2e file at a time (2-core CI), after the unit tests have finished.
      { extends: true, test: { name: "e2e", include: [E2E_FILES], fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
