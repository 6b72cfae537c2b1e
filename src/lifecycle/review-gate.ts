import path from "node:path";
import { detectEol } from "../core/markdown.ts";

// The review gate every proposal to change SOUL.md goes through (the ACI spec's wisdom compression,
// the persistent memory spec's Soul Keeper): a draft in the initiative folder, an open
// "REVIEW NEEDED" item in DAILY_EXECUTION_QUEUE.md, and a promote step the operator runs, which
// ticks the item. These are the queue edits as pure text functions, so each writer keeps its own
// locked write (and the maintenance pass its undo record).

/** Where the ACI initiative keeps its operator artefacts, relative to the workspace root (spec §7, appendix B). */
export const INITIATIVE_DIR = path.join("initiatives", "adaptive-context-injection");
export const QUEUE_NAME = "DAILY_EXECUTION_QUEUE.md";
const NEW_QUEUE_TEXT = "# Daily execution queue\n";

export function initiativeDir(workspace: string): string {
  return path.join(workspace, INITIATIVE_DIR);
}

/** The open review item of a draft: an unticked `- [ ]` line naming it and REVIEW NEEDED. */
function isOpenItemFor(line: string, draftName: string): boolean {
  return line.includes("REVIEW NEEDED") && line.includes(draftName) && /^\s*-\s*\[ \]/.test(line);
}

/** Does the queue hold an open review item for this draft? */
export function hasOpenReview(queueText: string, draftName: string): boolean {
  return queueText.split(/\r?\n/).some((line) => isOpenItemFor(line, draftName));
}

/** The queue with the draft's open item set to `flagLine` (replaced in place, else added at the end). */
export function withReviewFlag(queueText: string, draftName: string, flagLine: string): string {
  const text = queueText === "" ? NEW_QUEUE_TEXT : queueText;
  const lines = text.split(/\r?\n/);
  const existing = lines.findIndex((line) => isOpenItemFor(line, draftName));
  if (existing >= 0) lines[existing] = flagLine;
  else {
    while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    lines.push(flagLine, "");
  }
  return lines.join(detectEol(text));
}

/** The queue with the draft's open item ticked as `doneLine`, or null when there is none. */
export function withReviewTicked(queueText: string, draftName: string, doneLine: string): string | null {
  const lines = queueText.split(/\r?\n/);
  const index = lines.findIndex((line) => isOpenItemFor(line, draftName));
  if (index < 0) return null;
  lines[index] = doneLine;
  return lines.join(detectEol(queueText));
}
