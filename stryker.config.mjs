// Mutation testing of the privacy-critical files: `npm run mutation` (not part of CI).
// Reports go to .mutation/ (gitignored); docs/architecture.md quotes the scores.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts", related: false },
  plugins: ["@stryker-mutator/vitest-runner"],
  mutate: [
    "src/session/**/*.ts",
    "src/context/scope.ts",
    "src/context/gate.ts",
    "src/bootstrap/policy.ts",
    "src/bootstrap/fail-closed.ts",
    "src/fs/lock.ts",
    "src/fs/locked-writes.ts",
    "src/context/turn.ts",
    // The capture (issue 24): what a message asks to keep, how facts relate, the index, the writes.
    // Not src/capture/language.ts: it is data (word lists and patterns), measured by bench/capture.
    "src/capture/capture.ts",
    "src/capture/pending-edits.ts",
    "src/capture/statement.ts",
    "src/capture/sentences.ts",
    "src/capture/relation.ts",
    "src/capture/fact-index.ts",
    "src/capture/fact-line.ts",
    "src/capture/corrections.ts",
  ],
  coverageAnalysis: "perTest",
  // Stryker rewrites tsconfig.json paths with the TypeScript JS API, which TypeScript 7 (native)
  // no longer has; our tsconfig has no `extends`/`references` to rewrite, so point it at nothing.
  tsconfigFile: "no-tsconfig-rewrite.json",
  // The machine is shared (2 cores, several jobs): two test processes at most.
  concurrency: 2,
  timeoutMS: 20_000,
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: ".mutation/report.html" },
  jsonReporter: { fileName: ".mutation/report.json" },
  // `npm run mutation -- --incremental` reuses this file's results for unchanged code and tests.
  incrementalFile: ".mutation/incremental.json",
  tempDirName: ".mutation/tmp",
  cleanTempDir: true,
  thresholds: { high: 90, low: 90, break: 90 },
};
