// Shared fixtures for the ops-* tests: a workspace with wisdom sources, and canned model answers.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export type Theme = { name: string; wisdom: string; lessons: string[] };

/** Eleven themes, three raw lessons each; each lesson shares a word with its theme's entry. */
export const THEMES: Theme[] = [
  { name: "Verify first.", wisdom: "Check names first.", lessons: ["Mission Control is on 3100, not 3000; check before blaming the app.", "Ollama model names are case-sensitive: check the exact tag.", "Check the embedding model is loaded before calling embeddings."] },
  { name: "Bound waits.", wisdom: "Set timeouts.", lessons: ["Default 30 s timeouts killed long scrapes.", "Set timeouts per task, not globally.", "A missing timeouts setting hung the worker overnight."] },
  { name: "Back up.", wisdom: "Backup before edits.", lessons: ["Take a backup of openclaw.json before editing it.", "The SOUL.md backup saved the identity rewrite.", "No backup meant a lost TOOLS.md section."] },
  { name: "Small steps.", wisdom: "Change one thing.", lessons: ["Two config changes at once hid which change broke the gateway.", "Change one file per deploy.", "Revert the last change first when something breaks."] },
  { name: "Ask early.", wisdom: "Escalate when stuck.", lessons: ["Spent four hours stuck instead of asking; escalate after one.", "Escalate money questions to Jeff.", "Workers should escalate when the brief is unclear."] },
  { name: "Read logs.", wisdom: "Logs beat guesses.", lessons: ["The gateway logs named the broken hook immediately.", "Read worker logs before retrying.", "Guessing cost an hour; the logs had the answer."] },
  { name: "Scope workers.", wisdom: "Give minimal context.", lessons: ["Workers with full context wandered off task.", "Never pass USER.md to workers; minimal context only.", "Smaller context made Melody faster."] },
  { name: "Guard secrets.", wisdom: "Never paste secrets.", lessons: ["A token pasted in a chat had to be rotated: never paste secrets.", "Secrets go in env vars, not briefs.", "Scrub secrets from logs before sharing."] },
  { name: "Test live.", wisdom: "Use the real host.", lessons: ["The mock passed but the real gateway failed.", "Docs were wrong; the real host behaved differently.", "Only a real run showed the filter."] },
  { name: "Write it down.", wisdom: "Note decisions daily.", lessons: ["Decisions not written down were argued twice.", "Write decisions in the daily note.", "Record decisions with the reason."] },
  { name: "Retry once.", wisdom: "Then stop.", lessons: ["Retry a failed job once, then stop.", "Endless retry loops burned the quota.", "One retry catches flakes; more hides bugs."] },
];

export const REQUIRED = "**When context feels incomplete, check your memory.** Read memory/YYYY-MM-DD.md and MEMORY.md when historical knowledge is needed.";

function isoDay(date: Date, offsetDays: number): string {
  return new Date(date.getTime() + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

export const TODAY = new Date("2026-11-22T00:00:00Z");

/**
 * Sources in the order the collector reads them: AGENTS.md lessons (theme 0), LESSONS_LEARNED.md
 * (themes 1-8), MEMORY.md decisions (theme 9), a recent daily note (theme 10), an old note (ignored).
 * Lesson ids therefore run L1..L33 theme by theme.
 */
export function makeWisdomWorkspace(options: { eol?: string } = {}): string {
  const eol = options.eol ?? "\n";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ops-wisdom-"));
  const list = (items: string[]) => items.map((item) => `- ${item}`).join("\n");
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text.split("\n").join(eol));
  };
  write("AGENTS.md", `# AGENTS\n\n## Roster\n- Forge: build lead\n\n## Operational Lessons (earned the hard way)\n${list(THEMES[0].lessons)}\n\n## Security\nNever paste secrets.\n`);
  write("LESSONS_LEARNED.md", `# Lessons learned\n\n${THEMES.slice(1, 9).map((theme) => list(theme.lessons)).join("\n")}\n`);
  write("MEMORY.md", `# MEMORY\n\n## People\n- Jeff likes short answers\n\n## Decisions\n${list(THEMES[9].lessons)}\n`);
  write(`memory/${isoDay(TODAY, -2)}.md`, `# ${isoDay(TODAY, -2)}\n\n## Done\nShipped the hook.\n\n## Lessons\n${list(THEMES[10].lessons)}\n`);
  write(`memory/${isoDay(TODAY, -60)}.md`, `# old\n\n## Lessons\n- This lesson is too old to count.\n`);
  write("SOUL.md", `# SOUL\n\nI am Jules.\n\n## Wisdom\n_Last compressed: 2026-03-21 | Source lessons: 3_\n\n${REQUIRED}\n\n## Vibe\nShort answers.\n`);
  return dir;
}

/** A valid answer: eleven themed entries citing their three lessons, plus the required entry. */
export function goodAnswer(): string {
  const lines = THEMES.map((theme, index) => `**${theme.name}** ${theme.wisdom} [L${index * 3 + 1}, L${index * 3 + 2}, L${index * 3 + 3}]`);
  return [...lines.slice(0, 5), REQUIRED, ...lines.slice(5)].join("\n");
}

/** Breaks several rules: a port, a model name, too many words, too few citations, no required entry. */
export function badAnswer(): string {
  const lines = THEMES.map((theme, index) => `**${theme.name}** ${theme.wisdom} [L${index * 3 + 1}, L${index * 3 + 2}, L${index * 3 + 3}]`);
  lines[0] = "**Verify first.** Mission Control runs on port 3100, check it. [L1, L2, L3]";
  lines[1] = "**Bound waits.** Use qwen3-coder:30b with timeouts. [L4, L5, L6]";
  lines[2] = "**Back up.** Always take a backup before you edit anything at all because it saves hours later on. [L7, L8, L9]";
  lines[3] = "**Small steps.** Change one thing. [L10]";
  return lines.join("\n");
}

export const GARBAGE_ANSWER = "I'm sorry, as a language model I cannot help with lessons.\n{\"oops\": true}";
