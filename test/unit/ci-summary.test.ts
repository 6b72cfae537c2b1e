import { describe, expect, it } from "vitest";
import { summaryLine } from "../../.ci/summary.ts";

// Issue 20: CI went red on a teardown failure while its summary said "750 passed, 0 failed".

const file = (status: string, tests: string[]) => ({ name: "/x.test.ts", status, assertionResults: tests.map((s) => ({ status: s })) });

describe(".ci summary line", () => {
  it("counts a file that failed with no failing test (a teardown threw) as a failure", () => {
    // The shape vitest 4 writes when afterAll throws after every test passed.
    const report = { numPassedTests: 750, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0, numFailedTestSuites: 2, success: false, testResults: [file("failed", ["passed"]), file("passed", ["passed"])] };
    expect(summaryLine(report, 1)).toBe("tests: 750 passed, 1 failed, 0 skipped; suites: 1 failed");
  });

  it("does not count a file twice when its failure is a failing test", () => {
    const report = { numPassedTests: 3, numFailedTests: 2, numPendingTests: 1, numTodoTests: 1, success: false, testResults: [file("failed", ["passed", "failed", "failed"])] };
    expect(summaryLine(report, 1)).toBe("tests: 3 passed, 2 failed, 2 skipped; suites: 1 failed");
  });

  it("a red exit the report does not explain is still a failure", () => {
    const report = { numPassedTests: 5, numFailedTests: 0, success: true, testResults: [file("passed", ["passed"])] };
    expect(summaryLine(report, 1)).toBe("tests: 5 passed, 1 failed, 0 skipped; suites: 0 failed (npm test exited 1)");
  });

  it("a green run says 0 failed", () => {
    const report = { numPassedTests: 5, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0, success: true, testResults: [file("passed", ["passed"])] };
    expect(summaryLine(report, 0)).toBe("tests: 5 passed, 0 failed, 0 skipped; suites: 0 failed");
  });
});
