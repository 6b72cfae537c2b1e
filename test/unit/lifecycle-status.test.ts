// What `status` says about maintenance: the last pass and its changes, open conflicts, corrections
// in their cool-down and waiting for review, and whether wisdom compression is due.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CORRECTIONS_HEADER, formatCorrection } from "../../src/capture/corrections.ts";
import { maintenanceStatus } from "../../src/lifecycle/maintenance-status.ts";
import { runMaintenancePass } from "../../src/lifecycle/pass.ts";
import { collectStatus, formatStatus } from "../../src/ops/status.ts";
import { lastCompression, wisdomCompressionDue } from "../../src/ops/wisdom/due.ts";
import { FAST, temporaryWorkspace } from "./lifecycle-fixtures.ts";

const workspace = temporaryWorkspace("status", ["memory"]);
const NOW = new Date("2026-11-26T03:00:00.000Z");
const correction = (key: string, at: string, excerpt: string) =>
  formatCorrection({ loggedAt: new Date(at), triggerPhrase: "you forgot", triggerConfidence: "high", patternClass: "recall_failure", sessionKey: "agent:main:main", excerpt, cooldownHours: 24, dedupeKey: key });

describe("status: maintenance", () => {
  it("before any pass: none; after one: the pass, the open conflict, the corrections waiting", async () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws, "CORRECTIONS.md"), `${CORRECTIONS_HEADER}\n${correction("a", "2026-11-20T10:00:00.000Z", "You forgot: I'm vegetarian")}\n${correction("b", "2026-11-22T10:00:00.000Z", "You forgot: I'm vegetarian")}\n${correction("c", "2026-11-26T01:00:00.000Z", "You forgot: the cat is Miso")}`);
    fs.writeFileSync(path.join(ws, "MEMORY.md"), "- my locker code is 4312\n");
    fs.writeFileSync(path.join(ws, "memory", "2026-11-25.md"), "- my locker code is 7777 #knowledge <!-- confidence: 0.95 source: operator mentions: 1 last: 2026-11-25 -->\n");
    expect((await maintenanceStatus(ws, NOW, FAST)).lastRun).toBeUndefined();

    const { record } = await runMaintenancePass({ workspaceDir: ws, now: NOW, config: FAST, wallClock: () => NOW });
    const status = await maintenanceStatus(ws, NOW, FAST);
    expect(status.lastRun?.run).toBe(record.run);
    expect(status.openConflicts).toHaveLength(1);
    expect(status.corrections).toMatchObject({ coolingDown: 1, awaitingReview: 2, proposals: 1, reviewOpen: true });

    const text = formatStatus(await collectStatus({ configPath: path.join(ws, "absent.json"), workspace: ws, now: NOW, env: { OPENCLAW_CONTEXT_LOG_FILE: "off", OPENCLAW_STATE_DIR: ws } }), NOW.getTime());
    expect(text).toContain(`  last pass: ${record.run} (manual, `);
    expect(text).toContain(`  open conflicts: 1 in CONFLICTS.md (${status.openConflicts[0].id})`);
    expect(text).toContain("  corrections in their cool-down: 1");
    expect(text).toContain("  corrections waiting for review: 2 in 1 SOUL.md proposal(s)");
  });
});

describe("wisdom compression is due monthly or after 10 new lessons (ACI spec cadence)", () => {
  const soul = (line: string) => fs.writeFileSync(path.join(workspace(), "SOUL.md"), `# Soul\n\n## Wisdom\n${line}\n`);
  const lessons = (n: number) => fs.writeFileSync(path.join(workspace(), "LESSONS_LEARNED.md"), Array.from({ length: n }, (_, i) => `- lesson number ${i} about timeouts`).join("\n"));

  it("reads the last compression from SOUL.md", () => {
    expect(lastCompression("_Last compressed: 2026-10-01 | Source lessons: 12_")).toEqual({ date: "2026-10-01", lessons: 12 });
    expect(lastCompression("no line")).toBeUndefined();
  });

  it("due after 30 days, or with 10 new lessons; not due otherwise", async () => {
    lessons(12);
    soul("_Last compressed: 2026-10-20 | Source lessons: 12_");
    expect(await wisdomCompressionDue(workspace(), NOW)).toMatchObject({ due: true, why: "last compressed 37 days ago (monthly)" });
    soul("_Last compressed: 2026-11-20 | Source lessons: 12_");
    expect(await wisdomCompressionDue(workspace(), NOW)).toMatchObject({ due: false });
    lessons(22);
    expect(await wisdomCompressionDue(workspace(), NOW)).toMatchObject({ due: true, why: "10 new lesson(s) since 2026-11-20 (10 or more)" });
  });
});
