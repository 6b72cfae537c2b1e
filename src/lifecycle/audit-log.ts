import type { ChangeLabel, Run } from "./run-log.ts";

// The Markdown logs the spec's agents keep (§12 file manifest), written by the maintenance pass:
// CONFLICTS.md (Conflict Detector: contradictions, retractions), COMPACTION_LOG.md (Memory
// Compactor: every removal), CHANGELOG.md (Soul Keeper: every SOUL.md change, with its evidence).
// Entries are appended under the file's lock, never rewritten; an entry whose marker is already
// in the file is not written again, which keeps the pass idempotent.

export const CONFLICTS_FILE = "CONFLICTS.md";
export const COMPACTION_LOG_FILE = "COMPACTION_LOG.md";
export const CHANGELOG_FILE = "CHANGELOG.md";

const HEADERS: Record<string, string> = {
  [CONFLICTS_FILE]: "# Conflicts\n\nContradictions between memories, and retracted corrections, found by the maintenance pass (persistent memory spec §5.4). Set `status: resolved` on an entry once you have dealt with it. Newest last.\n",
  [COMPACTION_LOG_FILE]: "# Compaction log\n\nEvery removal the maintenance pass made (persistent memory spec §5.5), with where the text went. Newest last.\n",
  [CHANGELOG_FILE]: "# Changelog\n\nEvery change to SOUL.md, with its evidence (persistent memory spec §5.2). Newest last.\n",
};

/**
 * Append one entry to a log file (its header first when the file is new or blank). `marker`: the
 * entry is skipped when the file already holds that text (a heading with an id).
 */
export async function appendLogEntry(run: Run, file: string, entry: string, label: ChangeLabel, marker?: string): Promise<boolean> {
  const body = entry.endsWith("\n") ? entry : `${entry}\n`;
  return run.append(
    file,
    (current) => {
      if (marker !== undefined && current.includes(marker)) return null;
      return current.trim() === "" ? `${HEADERS[file] ?? `# ${file}\n`}\n${body}` : `\n${body}`;
    },
    label,
  );
}
