// One plain summary line for CI from vitest's JSON report (written by the reporter in vitest.config.ts):
//   npx tsx .ci/summary.ts <report.json> <npm test exit status>
//   tests: 750 passed, 1 failed, 0 skipped; suites: 1 failed
// A test file can fail with no failing test in it (a beforeAll/afterAll or teardown threw, the file
// did not import): vitest marks the file "failed" and counts it in numFailedTestSuites, but not in
// numFailedTests. Each such file counts as one failure here, so a red run never says "0 failed".
// "suites" is the number of test files that failed.
import fs from "node:fs";
import { pathToFileURL } from "node:url";

/** The fields of vitest's JSON report that the line uses. */
export type VitestReport = {
  numPassedTests?: number;
  numFailedTests?: number;
  numPendingTests?: number;
  numTodoTests?: number;
  numFailedTestSuites?: number;
  success?: boolean;
  testResults?: { name?: string; status?: string; assertionResults?: { status?: string }[] }[];
};

export function summaryLine(report: VitestReport, exitStatus = 0): string {
  const files = Array.isArray(report.testResults) ? report.testResults : [];
  const failedFiles = files.filter((file) => file.status === "failed");
  const failedWithoutFailedTest = failedFiles.filter((file) => !(file.assertionResults ?? []).some((test) => test.status === "failed")).length;
  let failed = (report.numFailedTests ?? 0) + failedWithoutFailedTest;
  const notes: string[] = [];
  // Red for a reason the report does not name (an unhandled error after the run): still a failure.
  if (failed === 0 && (report.success === false || exitStatus !== 0)) {
    failed = 1;
    notes.push(`npm test exited ${exitStatus}${report.success === false ? ", report says unsuccessful" : ""}`);
  }
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  return `tests: ${report.numPassedTests ?? 0} passed, ${failed} failed, ${skipped} skipped; suites: ${failedFiles.length} failed${notes.length ? ` (${notes.join("; ")})` : ""}`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [file, status] = process.argv.slice(2);
  const exitStatus = Number(status ?? 0);
  let report: VitestReport;
  try {
    report = JSON.parse(fs.readFileSync(file!, "utf8")) as VitestReport;
  } catch {
    console.log(`tests: 0 passed, ${exitStatus === 0 ? 0 : 1} failed (no report written; npm test exited ${exitStatus})`);
    process.exit(0);
  }
  console.log(summaryLine(report, exitStatus));
}
