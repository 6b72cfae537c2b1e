import { appendLogEntry, COMPACTION_LOG_FILE } from "./audit-log.ts";
import type { Run } from "./run-log.ts";
import { DAY_MS, isoDay } from "./step.ts";
import type { PassContext } from "./step.ts";

// SOUL_HISTORY/ (persistent memory spec §5.2 rule 4, §5.5 task 6): a copy of SOUL.md before every
// change the bundle makes to it (the Soul Keeper's promote), and one a day from the maintenance
// pass when SOUL.md differs from the newest copy (so the operator's own edits are kept too).
// Copies older than soul_history_retention_days thin out to one per month (the newest of it).

export const SOUL_FILE = "SOUL.md";
const SOUL_HISTORY_DIR = "SOUL_HISTORY";
const SNAPSHOT = /^(\d{4}-\d{2}-\d{2})(T\d{6}Z)?\.md$/;

/** Snapshot names sort by time: `2026-11-26.md`, then `2026-11-26T143000Z.md` for a second one that day. */
function snapshotName(now: Date, taken: ReadonlySet<string>): string {
  const daily = `${isoDay(now)}.md`;
  if (!taken.has(daily)) return daily;
  return `${isoDay(now)}T${now.toISOString().slice(11, 19).replace(/:/g, "")}Z.md`;
}

async function snapshots(run: Run): Promise<string[]> {
  return (await run.list(SOUL_HISTORY_DIR)).filter((name) => SNAPSHOT.test(name)).sort();
}

/**
 * Copy SOUL.md into SOUL_HISTORY/ unless the newest copy already holds exactly this text. Returns
 * the copy's workspace-relative path, or undefined (no SOUL.md, or nothing new).
 */
export async function snapshotSoul(run: Run, now: Date, step: string, why: string): Promise<string | undefined> {
  const soul = await run.read(SOUL_FILE);
  if (soul === undefined) return undefined;
  const names = await snapshots(run);
  const newest = names.at(-1);
  if (newest !== undefined && (await run.read(`${SOUL_HISTORY_DIR}/${newest}`)) === soul) return undefined;
  const rel = `${SOUL_HISTORY_DIR}/${snapshotName(now, new Set(names))}`;
  const written = await run.rewrite(rel, (_text, exists) => (exists ? null : soul), { step, what: `snapshot of ${SOUL_FILE} (${why})` });
  return written ? rel : undefined;
}

/** Copies to delete: older than the retention, all but the newest of each month. */
export function snapshotsToThin(names: readonly string[], now: Date, retentionDays: number): string[] {
  const cutoff = isoDay(new Date(now.getTime() - retentionDays * DAY_MS));
  const newestOfMonth = new Map<string, string>();
  for (const name of [...names].sort()) newestOfMonth.set(name.slice(0, 7), name);
  return names.filter((name) => name.slice(0, 10) < cutoff && newestOfMonth.get(name.slice(0, 7)) !== name);
}

/** The soul-history step: today's copy, then the monthly thinning of old copies. */
export async function runSoulHistoryStep(ctx: PassContext): Promise<void> {
  const { run, now, config } = ctx;
  run.step("soul-history");
  await snapshotSoul(run, now, "soul-history", "daily copy");
  const thinned: string[] = [];
  for (const name of snapshotsToThin(await snapshots(run), now, config.soul_history_retention_days)) {
    const rel = `${SOUL_HISTORY_DIR}/${name}`;
    const text = await run.read(rel);
    if (text !== undefined && (await run.remove(rel, text, { step: "soul-history", what: `removed ${rel} (older than ${config.soul_history_retention_days} days; the month keeps its newest copy)` }))) thinned.push(`- ${rel}`);
  }
  if (thinned.length > 0) {
    await appendLogEntry(run, COMPACTION_LOG_FILE, [`## ${isoDay(now)} · run ${run.id} · ${SOUL_HISTORY_DIR} thinned to one copy a month after ${config.soul_history_retention_days} days`, ...thinned].join("\n"), { step: "soul-history", what: `logged ${thinned.length} removed snapshot(s)` });
  }
}
