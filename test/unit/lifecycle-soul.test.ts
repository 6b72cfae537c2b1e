import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { CORRECTIONS_HEADER, formatCorrection, parseCorrections, withCorrectionField } from "../../src/capture/corrections.ts";
import { promoteSoulProposal, runMaintenancePass } from "../../src/lifecycle/pass.ts";
import { undoRun } from "../../src/lifecycle/run-log.ts";
import { snapshotsToThin } from "../../src/lifecycle/soul-history.ts";
import { correctionPoint, draftBullets, SOUL_DRAFT, soulWithPrinciples } from "../../src/lifecycle/soul-keeper.ts";
import { HYGIENE_CONFIG_DEFAULTS } from "../../src/memory/config-md.ts";
import type { HygieneConfig } from "../../src/memory/config-md.ts";

const FAST: HygieneConfig = { ...HYGIENE_CONFIG_DEFAULTS, lock_retry_interval_seconds: 0.01, lock_max_retries: 50 };
const LOCK = { retryIntervalSeconds: 0.01, maxRetries: 50 };
const SOUL = "# Soul\n\nI am Jules, a careful assistant.\n";

let ws: string;
beforeEach(() => {
  ws = fs.mkdtempSync(path.join(os.tmpdir(), "soul-"));
  fs.writeFileSync(path.join(ws, "SOUL.md"), SOUL);
  setLogDestination({ write: () => true } as never);
});
afterEach(() => {
  setLogDestination(undefined);
  fs.rmSync(ws, { recursive: true, force: true });
});

const get = (rel: string) => (fs.existsSync(path.join(ws, rel)) ? fs.readFileSync(path.join(ws, rel), "utf8") : "");
const history = () => (fs.existsSync(path.join(ws, "SOUL_HISTORY")) ? fs.readdirSync(path.join(ws, "SOUL_HISTORY")).sort() : []);
const pass = (now: string, config: HygieneConfig = FAST, steps?: ("soul-history" | "corrections" | "soul-keeper")[]) =>
  runMaintenancePass({ workspaceDir: ws, now: new Date(now), config, steps, wallClock: () => new Date(now) });

function correction(key: string, loggedAt: string, trigger: string, excerpt: string, extra: Record<string, string> = {}): string {
  let block = formatCorrection({ loggedAt: new Date(loggedAt), triggerPhrase: trigger, triggerConfidence: "high", patternClass: "recall_failure", sessionKey: "agent:main:main", excerpt, cooldownHours: 24, dedupeKey: key });
  for (const [field, value] of Object.entries(extra)) block = withCorrectionField(block.trimEnd(), field, value) + "\n";
  return block;
}
const writeCorrections = (...entries: string[]) => fs.writeFileSync(path.join(ws, "CORRECTIONS.md"), `${CORRECTIONS_HEADER}\n${entries.join("\n")}`);

describe("SOUL_HISTORY/: a copy a day when SOUL.md changed, thinned to one a month after the retention", () => {
  it("copies SOUL.md once, again only after it changed", async () => {
    await pass("2026-11-01T02:30:00.000Z", FAST, ["soul-history"]);
    await pass("2026-11-02T02:30:00.000Z", FAST, ["soul-history"]);
    expect(history()).toEqual(["2026-11-01.md"]);
    fs.appendFileSync(path.join(ws, "SOUL.md"), "Be brief.\n");
    await pass("2026-11-03T02:30:00.000Z", FAST, ["soul-history"]);
    expect(history()).toEqual(["2026-11-01.md", "2026-11-03.md"]);
    expect(get("SOUL_HISTORY/2026-11-03.md")).toBe(`${SOUL}Be brief.\n`);
  });

  it("soul_history_retention_days acts: older copies keep one per month (the newest), the removals are logged", async () => {
    fs.mkdirSync(path.join(ws, "SOUL_HISTORY"));
    for (const day of ["2026-05-02", "2026-05-20", "2026-06-01", "2026-06-30", "2026-08-10", "2026-08-11"]) fs.writeFileSync(path.join(ws, "SOUL_HISTORY", `${day}.md`), `soul of ${day}\n`);
    await pass("2026-09-01T02:30:00.000Z", { ...FAST, soul_history_retention_days: 30 }, ["soul-history"]);
    expect(history()).toEqual(["2026-05-20.md", "2026-06-30.md", "2026-08-10.md", "2026-08-11.md", "2026-09-01.md"]);
    expect(get("COMPACTION_LOG.md")).toContain("- SOUL_HISTORY/2026-05-02.md");
    await pass("2026-09-02T02:30:00.000Z", { ...FAST, soul_history_retention_days: 10 }, ["soul-history"]);
    expect(history()).toEqual(["2026-05-20.md", "2026-06-30.md", "2026-08-11.md", "2026-09-01.md"]);
  });

  it("the thinning rule, on names", () => {
    expect(snapshotsToThin(["2026-01-05.md", "2026-01-20.md", "2026-01-20T101500Z.md", "2026-03-01.md"], new Date("2026-06-01T00:00:00Z"), 90)).toEqual(["2026-01-05.md", "2026-01-20.md"]);
  });
});

describe("the Soul Keeper's verification gate (§5.2)", () => {
  const vegetarian = [
    correction("m1", "2026-11-01T10:00:00.000Z", "you forgot", "You forgot: I'm vegetarian"),
    correction("m2", "2026-11-10T10:00:00.000Z", "I already told you", "I already told you I'm vegetarian"),
  ];

  it("a verified pattern past the cool-down with enough occurrences becomes a proposal citing every occurrence", async () => {
    writeCorrections(...vegetarian, correction("m3", "2026-11-12T10:00:00.000Z", "you forgot", "You forgot: my sister lives in Porto"));
    const ids = parseCorrections(get("CORRECTIONS.md")).map((c) => c.id);
    await pass("2026-11-20T02:30:00.000Z", FAST, ["corrections", "soul-keeper"]);
    const draft = get(SOUL_DRAFT);
    expect(draftBullets(draft)).toEqual([{ text: "I'm vegetarian", ids: [ids[0], ids[1]] }]);
    expect(draft).toContain(`- 2026-11-01 (Archive/Corrections/2026-11.md ${ids[0]}, session agent:main:main): "You forgot: I'm vegetarian"`);
    expect(draft).toContain(`- 2026-11-10 (CORRECTIONS.md ${ids[1]}, session agent:main:main): "I already told you I'm vegetarian"`);
    expect(draft).not.toContain("Porto"); // one occurrence is noise
    expect(get("DAILY_EXECUTION_QUEUE.md")).toContain(`- [ ] REVIEW NEEDED: Soul Keeper proposal ${SOUL_DRAFT} (1 principle(s)`);
    expect(get("SOUL.md")).toBe(SOUL); // never touched without the operator
  });

  it("soul_encoding_min_occurrences acts: at 3, two occurrences are not enough; at 1, one is", async () => {
    writeCorrections(...vegetarian, correction("m3", "2026-11-12T10:00:00.000Z", "you forgot", "You forgot: my sister lives in Porto"));
    await pass("2026-11-20T02:30:00.000Z", { ...FAST, soul_encoding_min_occurrences: 3 }, ["corrections", "soul-keeper"]);
    expect(get(SOUL_DRAFT)).toBe("");
    await pass("2026-11-21T02:30:00.000Z", { ...FAST, soul_encoding_min_occurrences: 1 }, ["corrections", "soul-keeper"]);
    expect(draftBullets(get(SOUL_DRAFT)).map((b) => b.text)).toEqual(["I'm vegetarian", "my sister lives in Porto"]);
  });

  it("unverified corrections, or ones still in their cool-down, wait", async () => {
    writeCorrections(...vegetarian);
    // The soul-keeper step alone: nothing verified them yet.
    await pass("2026-11-20T02:30:00.000Z", FAST, ["soul-keeper"]);
    expect(get(SOUL_DRAFT)).toBe("");
    // Verified, but a 30-day cool-down in CONFIG.md holds the newer one back at the gate.
    writeCorrections(...vegetarian.map((c) => withCorrectionField(c.trimEnd(), "verified", "true") + "\n"));
    await pass("2026-11-20T02:30:00.000Z", { ...FAST, correction_cooldown_hours: 24 * 30 }, ["soul-keeper"]);
    expect(get(SOUL_DRAFT)).toBe("");
  });

  it("a retracted correction does not count", async () => {
    writeCorrections(vegetarian[0], correction("m2", "2026-11-10T10:00:00.000Z", "I already told you", "I already told you I'm vegetarian", { status: "retracted" }));
    await pass("2026-11-20T02:30:00.000Z", FAST, ["corrections", "soul-keeper"]);
    expect(get(SOUL_DRAFT)).toBe("");
  });

  it("promote: a snapshot first, the principle into SOUL.md, CHANGELOG.md cites every occurrence, the review item ticked; undo takes it back", async () => {
    writeCorrections(...vegetarian);
    const ids = parseCorrections(get("CORRECTIONS.md")).map((c) => c.id);
    await pass("2026-11-20T02:30:00.000Z");
    const soulHistory = history();
    const refused = await promoteSoulProposal({ workspaceDir: ws, approve: false, now: new Date("2026-11-20T09:00:00.000Z"), config: FAST });
    expect(refused.record).toBeUndefined();
    expect(get("SOUL.md")).toBe(SOUL);

    const { plan, record } = await promoteSoulProposal({ workspaceDir: ws, approve: true, now: new Date("2026-11-20T09:00:00.000Z"), config: FAST, wallClock: () => new Date("2026-11-20T09:00:00.000Z") });
    expect(plan.problems).toEqual([]);
    expect(get("SOUL.md")).toBe(`${SOUL}\n## Learned from corrections\n\n- I'm vegetarian\n`);
    const changelog = get("CHANGELOG.md");
    expect(changelog).toContain('## 2026-11-20 — Soul Keeper (maintenance promote)\n- Added principle: "I\'m vegetarian"');
    expect(changelog).toContain(`Evidence: Correction 2026-11-01 (Archive/Corrections/2026-11.md ${ids[0]}, session agent:main:main), repeated 2026-11-10 (CORRECTIONS.md ${ids[1]}, session agent:main:main)`);
    expect(changelog).toContain("Occurrences: 2 (meets threshold of 2)");
    expect(changelog).toContain("Cool-down: 239h elapsed since the latest (meets 24h threshold)");
    expect(get("DAILY_EXECUTION_QUEUE.md")).toContain("- [x] REVIEWED: Soul Keeper proposal promoted into SOUL.md on 2026-11-20");
    // The pass's daily copy already held this SOUL.md: the copy before the change is there.
    expect(soulHistory).toHaveLength(1);
    expect(get(`SOUL_HISTORY/${soulHistory[0]}`)).toBe(SOUL);

    // Encoded: the next pass proposes it no more.
    await pass("2026-11-21T02:30:00.000Z");
    expect(draftBullets(get(SOUL_DRAFT))).toHaveLength(1); // the draft is left as it was
    expect(get("DAILY_EXECUTION_QUEUE.md")).not.toContain("- [ ] REVIEW NEEDED: Soul Keeper");

    // Undo the later pass first (it copied the new SOUL.md), then the promote.
    const runs = fs.readFileSync(path.join(ws, "Archive/.maintenance/runs.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { run: string });
    await undoRun(ws, runs.at(-1)!.run, { lock: LOCK });
    await undoRun(ws, record!.run, { lock: LOCK });
    expect(get("SOUL.md")).toBe(SOUL);
    expect(get("CHANGELOG.md")).toBe("");
  });

  it("soul_max_tokens acts: a SOUL.md that would grow past it is refused, unchanged", async () => {
    writeCorrections(...vegetarian);
    await pass("2026-11-20T02:30:00.000Z");
    const { plan, record } = await promoteSoulProposal({ workspaceDir: ws, approve: true, now: new Date("2026-11-20T09:00:00.000Z"), config: { ...FAST, soul_max_tokens: 20 } });
    expect(record).toBeUndefined();
    expect(plan.problems.join("\n")).toMatch(/SOUL.md would be \d+ tokens, over soul_max_tokens \(20\)/);
    expect(get("SOUL.md")).toBe(SOUL);
  });

  it("a reworded bullet is promoted as the operator wrote it; its ids are checked again", async () => {
    writeCorrections(...vegetarian);
    await pass("2026-11-20T02:30:00.000Z");
    fs.writeFileSync(path.join(ws, SOUL_DRAFT), get(SOUL_DRAFT).replace("- I'm vegetarian [", "- Never suggest meat: the operator is vegetarian [").replace(/, c-[0-9a-f]+\]/, ", c-000000000000]"));
    const { plan } = await promoteSoulProposal({ workspaceDir: ws, approve: true, now: new Date("2026-11-20T09:00:00.000Z"), config: FAST });
    expect(plan.problems.join("\n")).toMatch(/no correction c-000000000000/);
    expect(get("SOUL.md")).toBe(SOUL);
  });

  it("the principle is the correction without its trigger phrase; bullets join an existing section", () => {
    const [entry] = parseCorrections(`${CORRECTIONS_HEADER}\n${vegetarian[1]}`);
    expect(correctionPoint(entry)).toBe("I'm vegetarian");
    expect(soulWithPrinciples("# S\n\n## Learned from corrections\n\n- a\n\n## Other\nx\n", ["b", "a"])).toBe("# S\n\n## Learned from corrections\n\n- a\n- b\n\n## Other\nx\n");
  });
});
