// Shared by the maintenance-pass and triage-queue tests: CONFIG.md settings with short lock waits, and a fresh
// temporary workspace per test (logs silenced, folder removed afterwards).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { HYGIENE_CONFIG_DEFAULTS } from "../../src/memory/config-md.ts";
import type { HygieneConfig } from "../../src/memory/config-md.ts";

export const FAST: HygieneConfig = { ...HYGIENE_CONFIG_DEFAULTS, lock_retry_interval_seconds: 0.01, lock_max_retries: 50 };
export const LOCK = { retryIntervalSeconds: 0.01, maxRetries: 50 };

/** Registers beforeEach/afterEach: each test gets a new workspace (with `folders` made in it); the getter returns it. */
export function temporaryWorkspace(prefix: string, folders: readonly string[] = []): () => string {
  let ws = "";
  beforeEach(() => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
    for (const folder of folders) fs.mkdirSync(path.join(ws, folder), { recursive: true });
    setLogDestination({ write: () => true } as never);
  });
  afterEach(() => {
    setLogDestination(undefined);
    fs.rmSync(ws, { recursive: true, force: true });
  });
  return () => ws;
}
