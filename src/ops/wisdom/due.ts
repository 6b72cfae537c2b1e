import fs from "node:fs/promises";
import path from "node:path";
import { DEFAULT_COLLECT_OPTIONS, collectLessons } from "./sources.ts";

// Is wisdom compression due? The ACI spec's cadence: monthly, or once 10 or more new lessons came
// in since the last compression. The last one is the `_Last compressed: YYYY-MM-DD | Source
// lessons: N_` line the promote puts into SOUL.md; "new lessons" is the lesson count of the same
// sources compress-wisdom reads now, minus N (an estimate: the daily-notes window moves).

const WISDOM_INTERVAL_DAYS = 30;
const WISDOM_NEW_LESSONS = 10;

export type WisdomDue = { due: boolean; why: string; lastCompressed?: string; lessonsThen?: number; lessonsNow: number };

export function lastCompression(soul: string): { date: string; lessons: number } | undefined {
  const match = /_Last compressed:\s*(\d{4}-\d{2}-\d{2})\s*\|\s*Source lessons:\s*(\d+)\s*_/i.exec(soul);
  return match ? { date: match[1], lessons: Number(match[2]) } : undefined;
}

export async function wisdomCompressionDue(workspace: string, now: Date): Promise<WisdomDue> {
  const soul = await fs.readFile(path.join(workspace, "SOUL.md"), "utf8").catch(() => "");
  const lessonsNow = await collectLessons(workspace, { ...DEFAULT_COLLECT_OPTIONS, today: now }).then(
    (collected) => collected.lessons.length,
    () => 0,
  );
  const last = lastCompression(soul);
  if (!last) {
    return lessonsNow > 0 ? { due: true, why: `never compressed, ${lessonsNow} lesson(s) to compress`, lessonsNow } : { due: false, why: "never compressed, and no lessons yet", lessonsNow };
  }
  const days = Math.floor((now.getTime() - Date.parse(`${last.date}T00:00:00Z`)) / 86_400_000);
  const fresh = lessonsNow - last.lessons;
  const base = { lastCompressed: last.date, lessonsThen: last.lessons, lessonsNow };
  if (days >= WISDOM_INTERVAL_DAYS) return { due: true, why: `last compressed ${days} days ago (monthly)`, ...base };
  if (fresh >= WISDOM_NEW_LESSONS) return { due: true, why: `${fresh} new lesson(s) since ${last.date} (${WISDOM_NEW_LESSONS} or more)`, ...base };
  return { due: false, why: `last compressed ${days} day(s) ago, ${Math.max(0, fresh)} new lesson(s): due in ${WISDOM_INTERVAL_DAYS - days} day(s) or after ${WISDOM_NEW_LESSONS - Math.max(0, fresh)} more`, ...base };
}
