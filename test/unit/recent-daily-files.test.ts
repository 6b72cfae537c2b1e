import { describe, expect, it } from "vitest";
import { MAX_RECENT_FILES, recentDailyFiles } from "../../src/context/memory-block.ts";
import { seededRandom } from "../../bench/scale/vault.ts";

// Recent memory picks its day files from a cached, sorted copy of the folder listing and stops at
// the first file older than the window. Checked against the selection written plainly (filter the
// day files in the window, sort by name, newest first, the first MAX_RECENT_FILES), on random listings.

function plainRecentDailyFiles(names: readonly string[], oldestDay: string, today: string): string[] {
  return names
    .filter((name) => {
      const day = /^(\d{4}-\d{2}-\d{2})(?:-[^/\\]*)?\.md$/.exec(name)?.[1];
      return day !== undefined && day >= oldestDay && day <= today;
    })
    .sort()
    .reverse()
    .slice(0, MAX_RECENT_FILES);
}

const day = (offset: number) => new Date(Date.UTC(2026, 10, 27) + offset * 86_400_000).toISOString().slice(0, 10);

describe("recentDailyFiles", () => {
  it("picks the day files of the window as the plain selection does, from the same listing again and again", () => {
    const random = seededRandom(21);
    let picked = 0;
    for (let round = 0; round < 200; round++) {
      const names = new Set<string>();
      for (let i = 0, n = Math.floor(random() * 80); i < n; i++) {
        const date = day(Math.floor(random() * 60) - 40);
        const roll = random();
        names.add(roll < 0.5 ? `${date}.md` : roll < 0.7 ? `${date}-${["notes", "a", "zz", "call"][Math.floor(random() * 4)]}.md` : roll < 0.8 ? `${date}.txt` : roll < 0.9 ? `${date}x.md` : "README.md");
      }
      const listing = [...names];
      // One listing, several windows (a turn's "now" moves on while the folder is unchanged).
      for (let turn = 0; turn < 3; turn++) {
        const today = day(Math.floor(random() * 30) - 20);
        const oldestDay = day(Math.floor(random() * 30) - 30);
        const expected = plainRecentDailyFiles(listing, oldestDay, today);
        picked += expected.length;
        expect(recentDailyFiles(listing, oldestDay, today)).toEqual(expected.map((name) => ({ name, day: name.slice(0, 10) })));
      }
    }
    expect(picked).toBeGreaterThan(1000); // windows with files in them, up to the cap
  });
});
