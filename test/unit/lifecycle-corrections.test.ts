import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CORRECTIONS_HEADER, formatCorrection, parseCorrections, withCorrectionField } from "../../src/capture/corrections.ts";
import { runMaintenancePass } from "../../src/lifecycle/pass.ts";
import { undoRun } from "../../src/lifecycle/run-log.ts";
import type { HygieneConfig } from "../../src/memory/config-md.ts";
import { FAST, temporaryWorkspace } from "./lifecycle-fixtures.ts";

const workspace = temporaryWorkspace("corrections");

const DAY = 86_400_000;

/** A CORRECTIONS.md entry as triage writes it (the operator's), or one an agent proposed. */
function entry(key: string, loggedAt: string, text: string, extra: Record<string, string> = {}): string {
  let block = formatCorrection({ loggedAt: new Date(loggedAt), triggerPhrase: "you forgot", triggerConfidence: "high", patternClass: "recall_failure", sessionKey: "agent:main:main", excerpt: text, cooldownHours: 24, dedupeKey: key });
  for (const [field, value] of Object.entries(extra)) block = withCorrectionField(block.trimEnd(), field, value) + "\n";
  return block;
}
const writeCorrections = (...entries: string[]) => fs.writeFileSync(path.join(workspace(), "CORRECTIONS.md"), `${CORRECTIONS_HEADER}\n${entries.join("\n")}`);
const corrections = () => parseCorrections(fs.readFileSync(path.join(workspace(), "CORRECTIONS.md"), "utf8"));
const pass = (now: string, config: HygieneConfig = FAST) => runMaintenancePass({ workspaceDir: workspace(), now: new Date(now), config, steps: ["corrections"], wallClock: () => new Date(now) });
const readIf = (rel: string) => (fs.existsSync(path.join(workspace(), rel)) ? fs.readFileSync(path.join(workspace(), rel), "utf8") : "");

describe("the cool-down: logged (verified: false) → verified: true", () => {
  it("verifies an entry once its cool-down is over, and not before", async () => {
    writeCorrections(entry("m1", "2026-11-25T10:00:00.000Z", "You forgot: I'm vegetarian"));
    await pass("2026-11-26T09:59:00.000Z");
    expect(corrections()[0].verified).toBe(false);
    const { record } = await pass("2026-11-26T10:00:00.000Z");
    expect(corrections()[0].verified).toBe(true);
    expect(readIf("CORRECTIONS.md")).toContain("- verified_at: 2026-11-26T10:00:00.000Z");
    expect(record.changes.map((c) => c.what)).toEqual([expect.stringMatching(/^verified c-[0-9a-f]+ \(cool-down over\)$/)]);
  });

  it("correction_cooldown_hours acts on the pass: a longer cool-down in CONFIG.md holds the entry back", async () => {
    writeCorrections(entry("m1", "2026-11-25T10:00:00.000Z", "You forgot: I'm vegetarian"));
    await pass("2026-11-26T12:00:00.000Z", { ...FAST, correction_cooldown_hours: 48 });
    expect(corrections()[0].verified).toBe(false);
    await pass("2026-11-27T10:00:00.000Z", { ...FAST, correction_cooldown_hours: 48 });
    expect(corrections()[0].verified).toBe(true);
  });

  it("a second pass at the same clock changes nothing (idempotent)", async () => {
    writeCorrections(entry("m1", "2026-11-25T10:00:00.000Z", "You forgot: I'm vegetarian"));
    await pass("2026-11-27T00:00:00.000Z");
    const after = readIf("CORRECTIONS.md");
    const { record } = await pass("2026-11-27T00:00:00.000Z");
    expect(record.changes).toEqual([]);
    expect(readIf("CORRECTIONS.md")).toBe(after);
  });
});

describe("retraction below correction_retraction_confidence (§5.4)", () => {
  // An agent's correction: 0.6, −0.05 per 30 days without a mention → under 0.3 after 210 days.
  const agentEntry = entry("a1", "2026-01-01T00:00:00.000Z", "the printer is on floor 3", { source: "agent-correction", confidence: "0.6" });

  it("retracts an agent's correction whose confidence decayed below the threshold, logs it in CONFLICTS.md", async () => {
    writeCorrections(agentEntry, entry("m1", "2026-01-01T00:00:00.000Z", "You forgot: I'm vegetarian"));
    await pass("2026-08-01T00:00:00.000Z", { ...FAST, correction_archive_days: 3650 });
    const [agent, operator] = corrections();
    expect(agent.status).toBe("retracted");
    expect(operator.status).toBe("active"); // the operator's own correction is immune
    expect(readIf("CONFLICTS.md")).toMatch(new RegExp(`## Retraction ${agent.id} · 2026-08-01\\n- status: resolved\\n- reason: confidence decayed below threshold \\(0.25 < 0.3\\)`));
    expect(readIf("CONFLICTS.md")).toContain("- soul: not encoded in SOUL.md");
  });

  it("correction_retraction_confidence acts: at 0.2 the same entry stays", async () => {
    writeCorrections(agentEntry);
    await pass("2026-08-01T00:00:00.000Z", { ...FAST, correction_retraction_confidence: 0.2, correction_archive_days: 3650 });
    expect(corrections()[0].status).toBe("active");
  });

  it("a retracted correction encoded in SOUL.md flags its principle for review", async () => {
    writeCorrections(agentEntry);
    const id = corrections()[0].id;
    fs.writeFileSync(path.join(workspace(), "CHANGELOG.md"), `# Changelog\n\n## 2026-02-01 — Soul Keeper\n- Added principle: "printer on floor 3"\n  Evidence: Correction 2026-01-01 (CORRECTIONS.md ${id})\n`);
    await pass("2026-08-01T00:00:00.000Z", { ...FAST, correction_archive_days: 3650 });
    expect(readIf("DAILY_EXECUTION_QUEUE.md")).toContain(`- [ ] REVIEW NEEDED: SOUL.md principle from retracted correction ${id}`);
    expect(readIf("CONFLICTS.md")).toContain("- soul: encoded in SOUL.md (see CHANGELOG.md); flagged for review");
  });
});

describe("archival to Archive/Corrections/ after correction_archive_days (§5.5)", () => {
  it("moves old entries verbatim, never deletes one, logs each in COMPACTION_LOG.md", async () => {
    const old = entry("m1", "2026-10-01T10:00:00.000Z", "You forgot: I'm vegetarian");
    const young = entry("m2", "2026-11-20T10:00:00.000Z", "You forgot: the cat is called Miso");
    writeCorrections(old, young);
    const [oldId, youngId] = corrections().map((c) => c.id);
    await pass("2026-11-26T00:00:00.000Z");
    expect(corrections().map((c) => c.id)).toEqual([youngId]);
    const archived = readIf("Archive/Corrections/2026-10.md");
    expect(archived).toContain(`## Correction ${oldId} · 2026-10-01T10:00:00.000Z`);
    expect(archived).toContain("> You forgot: I'm vegetarian");
    expect(parseCorrections(archived)[0].verified).toBe(true);
    expect(readIf("COMPACTION_LOG.md")).toContain(`- CORRECTIONS.md ${oldId} (logged 2026-10-01, active, verified) → Archive/Corrections/2026-10.md`);
  });

  it("correction_archive_days acts: 60 keeps a 56-day-old entry in CORRECTIONS.md", async () => {
    writeCorrections(entry("m1", "2026-10-01T10:00:00.000Z", "You forgot: I'm vegetarian"));
    await pass("2026-11-26T00:00:00.000Z", { ...FAST, correction_archive_days: 60 });
    expect(corrections()).toHaveLength(1);
    expect(readIf("Archive/Corrections/2026-10.md")).toBe("");
  });

  it("retracted entries are archived too, and undo brings everything back byte for byte", async () => {
    writeCorrections(entry("a1", "2026-01-01T00:00:00.000Z", "the printer is on floor 3", { source: "agent-correction", confidence: "0.6" }));
    const before = readIf("CORRECTIONS.md");
    const { record } = await pass("2026-08-01T00:00:00.000Z");
    expect(corrections()).toHaveLength(0);
    expect(parseCorrections(readIf("Archive/Corrections/2026-01.md"))[0].status).toBe("retracted");
    await undoRun(workspace(), record.run, { lock: { retryIntervalSeconds: 0.01, maxRetries: 50 } });
    expect(readIf("CORRECTIONS.md")).toBe(before);
    for (const gone of ["Archive/Corrections/2026-01.md", "CONFLICTS.md", "COMPACTION_LOG.md"]) expect(fs.existsSync(path.join(workspace(), gone))).toBe(false);
  });

  it("an entry still in its cool-down stays, however old (a cool-down longer than the archive age)", async () => {
    writeCorrections(entry("m1", "2026-11-01T10:00:00.000Z", "You forgot: I'm vegetarian"));
    await pass("2026-11-20T00:00:00.000Z", { ...FAST, correction_cooldown_hours: 24 * 30 });
    expect(corrections()).toHaveLength(1);
    expect(Date.parse("2026-11-20") - Date.parse("2026-11-01")).toBeGreaterThan(14 * DAY);
  });
});
