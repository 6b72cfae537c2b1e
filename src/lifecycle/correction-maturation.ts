import { CLOSED_CORRECTION_STATUSES, CORRECTIONS_FILE_NAME, parseCorrections, splitCorrectionBlocks, withCorrectionField } from "../capture/corrections.ts";
import type { CorrectionEntry } from "../capture/corrections.ts";
import { effectiveConfidence, isRetractionCandidate } from "../memory/confidence.ts";
import type { MemoryMetadata, MemorySource } from "../memory/confidence.ts";
import type { HygieneConfig } from "../memory/config-md.ts";
import { appendLogEntry, CHANGELOG_FILE, COMPACTION_LOG_FILE, CONFLICTS_FILE } from "./audit-log.ts";
import { QUEUE_NAME, withReviewFlag } from "./review-gate.ts";
import { DAY_MS, HOUR_MS, isoDay } from "./step.ts";
import type { PassContext } from "./step.ts";

// The correction lifecycle of the persistent memory spec (§5.3, §5.4, §5.5), on CORRECTIONS.md:
//
//   logged (verified: false) → cool-down over → verified: true → eligible for the Soul Keeper
//   a non-operator correction whose confidence decayed below correction_retraction_confidence → status: retracted
//   older than correction_archive_days (and past its cool-down) → moved to Archive/Corrections/YYYY-MM.md
//
// Triage's entries are the operator's own corrections (no `source:` field, confidence 1.0): they
// never decay and are never retracted. An entry an agent proposed carries `source: agent-correction`
// (or `inferred`) and decays from `last_seen`, else `logged_at`. Nothing is ever deleted: archival
// appends the entry to the archive first, then takes it out of CORRECTIONS.md.

export const CORRECTIONS_ARCHIVE_DIR = "Archive/Corrections";
const SOURCES = new Set<string>(["operator", "correction", "inferred", "agent-correction"]);

/** The entry's §8 metadata: no `source:` means the operator's own correction (what triage writes). */
function correctionMeta(entry: CorrectionEntry): MemoryMetadata {
  const source = entry.source && SOURCES.has(entry.source) ? (entry.source as MemorySource) : "correction";
  return { source, confidence: entry.confidence, last: entry.lastSeen ?? entry.loggedAt };
}

/** The cool-down is over: past the entry's own `cooldown_expires` and past logged_at + correction_cooldown_hours now. */
export function cooldownOver(entry: CorrectionEntry, now: Date, config: Pick<HygieneConfig, "correction_cooldown_hours">): boolean {
  if (!entry.loggedAt) return false;
  const configured = entry.loggedAt.getTime() + config.correction_cooldown_hours * HOUR_MS;
  return now.getTime() >= Math.max(configured, entry.cooldownExpires?.getTime() ?? configured);
}

export function isOpenCorrection(entry: CorrectionEntry): boolean {
  return !CLOSED_CORRECTION_STATUSES.has(entry.status);
}

type Decision = { id: string; verify: boolean; retract: boolean };

function decide(entries: readonly CorrectionEntry[], now: Date, config: HygieneConfig): Decision[] {
  return entries
    .filter(isOpenCorrection)
    .map((entry) => ({ id: entry.id, verify: !entry.verified && cooldownOver(entry, now, config), retract: isRetractionCandidate(correctionMeta(entry), now, config) }))
    .filter((decision) => decision.verify || decision.retract);
}

/** CORRECTIONS.md with the decisions applied to their entries (matched by id); everything else byte for byte. */
function applyDecisions(markdown: string, decisions: readonly Decision[], now: Date): string {
  const byId = new Map(decisions.map((decision) => [decision.id, decision]));
  const { preamble, blocks } = splitCorrectionBlocks(markdown);
  const parsed = parseCorrections(markdown);
  return (
    preamble +
    blocks
      .map((block, index) => {
        const decision = byId.get(parsed[index]?.id ?? "");
        if (!decision) return block;
        const tail = block.slice(block.trimEnd().length);
        let text = block.trimEnd();
        if (decision.verify) text = withCorrectionField(withCorrectionField(text, "verified", "true"), "verified_at", now.toISOString());
        if (decision.retract) text = withCorrectionField(withCorrectionField(text, "status", "retracted"), "retracted_at", now.toISOString());
        return text + tail;
      })
      .join("")
  );
}

/** Cool-down → verified, and retraction below the threshold (§5.3, §5.4). */
async function verifyAndRetract(ctx: PassContext): Promise<void> {
  const { run, now, config } = ctx;
  const text = await run.read(CORRECTIONS_FILE_NAME);
  if (text === undefined) return;
  const decisions = decide(parseCorrections(text), now, config);
  if (decisions.length === 0) return;
  const verified = decisions.filter((d) => d.verify).map((d) => d.id);
  const retracted = decisions.filter((d) => d.retract).map((d) => d.id);
  const what = [verified.length ? `verified ${verified.join(", ")} (cool-down over)` : "", retracted.length ? `retracted ${retracted.join(", ")} (confidence below ${config.correction_retraction_confidence})` : ""].filter(Boolean).join("; ");
  // Decided again from the file as it is at the write (the agent may have appended an entry meanwhile).
  await run.rewrite(CORRECTIONS_FILE_NAME, (current) => applyDecisions(current, decide(parseCorrections(current), now, config), now), { step: "corrections", what });
  const entries = new Map(parseCorrections(text).map((entry) => [entry.id, entry]));
  const changelog = (await run.read(CHANGELOG_FILE)) ?? "";
  for (const id of retracted) {
    const entry = entries.get(id);
    if (!entry) continue;
    const encoded = changelog.includes(id);
    const confidence = effectiveConfidence(correctionMeta(entry), now, config);
    await appendLogEntry(
      run,
      CONFLICTS_FILE,
      [
        `## Retraction ${id} · ${isoDay(now)}`,
        "- status: resolved",
        `- reason: confidence decayed below threshold (${confidence} < ${config.correction_retraction_confidence})`,
        `- correction: ${CORRECTIONS_FILE_NAME} ${id} (source: ${entry.source ?? "correction"}, logged ${entry.loggedAt?.toISOString() ?? "undated"})`,
        `- soul: ${encoded ? `encoded in SOUL.md (see ${CHANGELOG_FILE}); flagged for review in ${QUEUE_NAME}` : "not encoded in SOUL.md"}`,
        `- run: ${run.id}`,
      ].join("\n"),
      { step: "corrections", what: `logged the retraction of ${id}` },
      `## Retraction ${id} `,
    );
    if (encoded) {
      const flag = `- [ ] REVIEW NEEDED: SOUL.md principle from retracted correction ${id} (see ${CHANGELOG_FILE}, ${CONFLICTS_FILE}): revise or remove it, then tick this line.`;
      await run.rewrite(QUEUE_NAME, (queue) => withReviewFlag(queue, `retracted correction ${id}`, flag), { step: "corrections", what: `flagged the SOUL.md principle of retracted ${id} for review` });
    }
  }
}

function archiveFileFor(entry: CorrectionEntry): string {
  return `${CORRECTIONS_ARCHIVE_DIR}/${entry.loggedAt ? entry.loggedAt.toISOString().slice(0, 7) : "undated"}.md`;
}

const ARCHIVE_HEADER = (month: string) => `# Archived corrections, ${month}\n\nEntries moved out of CORRECTIONS.md by the maintenance pass after correction_archive_days (persistent memory spec §5.5), verbatim.\n`;

/** Entries old enough to leave CORRECTIONS.md: logged more than correction_archive_days ago and past their cool-down. */
function archivable(entries: readonly CorrectionEntry[], now: Date, config: HygieneConfig): CorrectionEntry[] {
  const cutoff = now.getTime() - config.correction_archive_days * DAY_MS;
  return entries.filter((entry) => entry.loggedAt && entry.loggedAt.getTime() <= cutoff && (entry.verified || !isOpenCorrection(entry) || cooldownOver(entry, now, config)));
}

/** Archival (§5.5 task 5): append to the archive first, then take the entries out of CORRECTIONS.md. */
async function archiveOld(ctx: PassContext): Promise<void> {
  const { run, now, config } = ctx;
  const text = await run.read(CORRECTIONS_FILE_NAME);
  if (text === undefined) return;
  const { blocks } = splitCorrectionBlocks(text);
  const entries = parseCorrections(text);
  const old = archivable(entries, now, config);
  if (old.length === 0) return;
  const blockOf = new Map(entries.map((entry, index) => [entry.id, blocks[index]]));
  const byFile = new Map<string, CorrectionEntry[]>();
  for (const entry of old) byFile.set(archiveFileFor(entry), [...(byFile.get(archiveFileFor(entry)) ?? []), entry]);
  const archived = new Set<string>();
  for (const [file, group] of [...byFile].sort(([a], [b]) => a.localeCompare(b))) {
    const month = file.slice(-10, -3);
    await run.append(
      file,
      (current) => {
        const missing = group.filter((entry) => !current.includes(`## Correction ${entry.id} `) && !current.includes(`## ${entry.id} `));
        if (missing.length === 0) return null;
        const body = missing.map((entry) => (blockOf.get(entry.id) ?? entry.text).trimEnd()).join("\n\n");
        return current.trim() === "" ? `${ARCHIVE_HEADER(month)}\n${body}\n` : `\n${body}\n`;
      },
      { step: "corrections", what: `archived ${group.map((e) => e.id).join(", ")} (older than ${config.correction_archive_days} days)` },
    );
    // Only what is in the archive now leaves CORRECTIONS.md (a dry run's overlay counts).
    const archive = (await run.read(file)) ?? "";
    for (const entry of group) if (archive.includes(`## Correction ${entry.id} `) || archive.includes(`## ${entry.id} `)) archived.add(entry.id);
  }
  if (archived.size === 0) return;
  const removed = await run.rewrite(
    CORRECTIONS_FILE_NAME,
    (current) => {
      const split = splitCorrectionBlocks(current);
      const ids = parseCorrections(current).map((entry) => entry.id);
      return split.preamble + split.blocks.filter((_block, index) => !archived.has(ids[index])).join("");
    },
    { step: "corrections", what: `took ${[...archived].join(", ")} out of CORRECTIONS.md (archived)` },
  );
  if (!removed) return;
  const lines = old.filter((entry) => archived.has(entry.id)).map((entry) => `- ${CORRECTIONS_FILE_NAME} ${entry.id} (logged ${entry.loggedAt ? isoDay(entry.loggedAt) : "undated"}, ${entry.status}${entry.verified ? ", verified" : ""}) → ${archiveFileFor(entry)}`);
  await appendLogEntry(run, COMPACTION_LOG_FILE, [`## ${isoDay(now)} · run ${run.id} · corrections archived`, ...lines].join("\n"), { step: "corrections", what: `logged the archival of ${archived.size} correction(s)` });
}

/** The corrections step: maturation, retraction, then archival. */
export async function runCorrectionsStep(ctx: PassContext): Promise<void> {
  ctx.run.step("corrections");
  await verifyAndRetract(ctx);
  await archiveOld(ctx);
}
