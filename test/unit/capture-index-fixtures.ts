import fs from "node:fs";
import { formatCapturedLine } from "../../src/capture/fact-line.ts";
import { identityOf } from "../../src/fs/file-identity.ts";

// Day-file lines and file times for the capture index tests.

let capturedAt = 0;
/** A captured line (each with its own capture time, so no two lines are the same). */
export function factLine(statement: string, superseded = false, mentions = 1): string {
  const at = new Date(Date.UTC(2026, 10, 1) + capturedAt++ * 1000);
  return formatCapturedLine(statement, "#knowledge", { confidence: 0.95, source: "operator", mentions, last: at, ...(superseded ? { status: "superseded" } : {}) }, at.toISOString());
}

let mtime = 0;
/** Give the file a modification time no earlier write had (a same-size edit must show). */
export function touch(file: string): void {
  const at = new Date(Date.UTC(2026, 0, 1) + ++mtime * 1000);
  fs.utimesSync(file, at, at);
}

/** The file's identity as the index records it. */
export const observedOf = (file: string) => identityOf(fs.statSync(file));
