import { isRepeat } from "../capture/relation.ts";
import { effectiveConfidence, withMetadataKeys } from "../memory/confidence.ts";
import { appendLogEntry, COMPACTION_LOG_FILE } from "./audit-log.ts";
import { dayOfFile, MEMORY_DIR, MEMORY_FILE, memoryFacts } from "./memory-facts.ts";
import type { MemoryFact } from "./memory-facts.ts";
import { DAY_MS, isoDay } from "./step.ts";
import type { PassContext } from "./step.ts";

// The Memory Compactor (persistent memory spec §5.5), Core tier, without an LLM:
//   - day files older than compaction_age_days move into Archive/Chronicles/YYYY-Month.md,
//     extractive: the whole file, verbatim, under a heading with its date and its path (the spec's
//     narrative summary needs an LLM; an extract loses nothing and needs none);
//   - MEMORY.md entries under 0.3 confidence and unmentioned for 60 days move to
//     Archive/Memory/YYYY-Month.md; entries another fact superseded (the Conflict Detector's mark)
//     follow after corrected_embedding_grace_days (the Core-tier form of the spec's vector-DB
//     hygiene for `status: corrected` embeddings);
//   - near-duplicates in MEMORY.md (the same content words, order, case and filler aside) merge into
//     the first, which takes the mention count, the latest date and the higher confidence.
// An operator correction (#correction, source: correction) is never removed or merged. Every
// removal is logged in COMPACTION_LOG.md with its text; the archive folder is indexed for
// retrieval (src/memory/sources.ts), so archived facts are still found.

const CHRONICLES_DIR = "Archive/Chronicles";
const MEMORY_ARCHIVE_DIR = "Archive/Memory";
/** §5.5: "Remove entries with confidence < 0.3 and no mentions in 60 days." */
const LOW_CONFIDENCE = 0.3;
const UNMENTIONED_DAYS = 60;

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** `2026-11-03` → `Archive/Chronicles/2026-November.md`. */
export function monthFile(dir: string, day: string): string {
  return `${dir}/${day.slice(0, 4)}-${MONTHS[Number(day.slice(5, 7)) - 1]}.md`;
}

/** Headings of an archived day file go two levels down (under its `## date` heading); fenced code untouched. */
export function demoteHeadings(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split("\n")
    .map((line) => {
      const fenceMatch = /^\s{0,3}(```|~~~)/.exec(line);
      if (fenceMatch) {
        if (!fence) fence = fenceMatch[1];
        else if (fence === fenceMatch[1]) fence = undefined;
        return line;
      }
      if (fence) return line;
      return line.replace(/^(\s{0,3})(#{1,6})(?=\s|$)/, (_all, indent: string, hashes: string) => `${indent}${"#".repeat(Math.min(6, hashes.length + 2))}`);
    })
    .join("\n");
}

/** The chronicle section of one day file: its date and path as the heading, its text verbatim below. */
export function chronicleSection(rel: string, day: string, text: string): string {
  return `## ${day} · ${rel}\n\n${demoteHeadings(text).trimEnd()}\n`;
}

const chronicleHeader = (month: string) =>
  `# Chronicle: ${month}\n\nDay files archived by the maintenance pass after compaction_age_days (persistent memory spec §5.5): each one verbatim under its date and path, nothing summarised or left out.\n`;

/** Day files older than compaction_age_days → the month's chronicle, then the day file goes. */
async function archiveDayFiles(ctx: PassContext): Promise<void> {
  const { run, now, config } = ctx;
  const cutoff = isoDay(new Date(now.getTime() - config.compaction_age_days * DAY_MS));
  const archived: string[] = [];
  for (const name of await run.list(MEMORY_DIR)) {
    const day = dayOfFile(name);
    if (!day || day >= cutoff) continue;
    const rel = `${MEMORY_DIR}/${name}`;
    const text = await run.read(rel);
    if (text === undefined) continue;
    const chronicle = monthFile(CHRONICLES_DIR, day);
    const section = chronicleSection(rel, day, text);
    await run.append(chronicle, (current) => (current.includes(section) ? null : current.trim() === "" ? `${chronicleHeader(chronicle.slice(CHRONICLES_DIR.length + 1, -3))}\n${section}` : `\n${section}`), {
      step: "compaction",
      what: `archived ${rel} into ${chronicle}`,
    });
    // The day file goes only once its text is in the chronicle (a crash in between leaves both).
    if (!((await run.read(chronicle)) ?? "").includes(section)) continue;
    if (await run.remove(rel, text, { step: "compaction", what: `removed ${rel} (now in ${chronicle})` })) archived.push(`- ${rel} → ${chronicle} (${memoryFacts(rel, text, day).length} entries, ${Buffer.byteLength(text)} bytes, verbatim)`);
    await new Promise((resolve) => setImmediate(resolve)); // many files: let turns run in between
  }
  if (archived.length > 0) await appendLogEntry(run, COMPACTION_LOG_FILE, [`## ${isoDay(now)} · run ${run.id} · day files archived`, ...archived].join("\n"), { step: "compaction", what: `logged the archival of ${archived.length} day file(s)` });
}

/** When a superseded mark was set (the Conflict Detector writes `superseded_on:`), else undefined. */
function supersededOn(fact: MemoryFact): Date | undefined {
  const value = /<!--[^>]*\bsuperseded_on:[ \t]*(\d{4}-\d{2}-\d{2})/.exec(fact.text)?.[1];
  return value ? new Date(`${value}T00:00:00.000Z`) : undefined;
}

type Removal = { fact: MemoryFact; why: string };

/** MEMORY.md entries to move to the archive, and why. Never an operator correction. */
function removalsFromMemory(facts: readonly MemoryFact[], now: Date, config: PassContext["config"]): Removal[] {
  const removals: Removal[] = [];
  for (const fact of facts) {
    if (fact.correction || !fact.meta) continue;
    const marked = fact.superseded ? supersededOn(fact) : undefined;
    if (marked && now.getTime() - marked.getTime() >= config.corrected_embedding_grace_days * DAY_MS) {
      removals.push({ fact, why: `superseded since ${isoDay(marked)} (over corrected_embedding_grace_days, ${config.corrected_embedding_grace_days})` });
      continue;
    }
    const last = fact.meta.last;
    if (!last || now.getTime() - last.getTime() < UNMENTIONED_DAYS * DAY_MS) continue;
    const confidence = effectiveConfidence(fact.meta, now, config);
    if (confidence < LOW_CONFIDENCE) removals.push({ fact, why: `confidence ${confidence} < ${LOW_CONFIDENCE}, no mention since ${isoDay(last)}` });
  }
  return removals;
}

type Merge = { kept: MemoryFact; removed: MemoryFact; keptLine: string };

const isListItem = (fact: MemoryFact) => /^\s*(?:[-*+]|\d+[.)])\s/.test(fact.firstLine);

/** Near-duplicate list items of MEMORY.md: each later one merges into the first with the same content words. */
function duplicatesInMemory(facts: readonly MemoryFact[]): Merge[] {
  const merges: Merge[] = [];
  const kept: { fact: MemoryFact; line: string; mentions: number; last?: Date; confidence?: number }[] = [];
  for (const fact of facts) {
    if (fact.correction || fact.superseded || !isListItem(fact) || fact.terms.size === 0) continue;
    const first = kept.find((candidate) => isRepeat(candidate.fact.shape, fact.shape));
    if (!first) {
      kept.push({ fact, line: fact.firstLine.replace(/\r$/, ""), mentions: fact.meta?.mentions ?? 1, last: fact.meta?.last, confidence: fact.meta?.confidence });
      continue;
    }
    if (first.fact.meta || fact.meta) {
      first.mentions += fact.meta?.mentions ?? 1;
      if (fact.meta?.last && (!first.last || fact.meta.last > first.last)) first.last = fact.meta.last;
      if (fact.meta?.confidence !== undefined && (first.confidence === undefined || fact.meta.confidence > first.confidence)) first.confidence = fact.meta.confidence;
      const pairs: Record<string, string> = { mentions: String(first.mentions) };
      if (first.last) pairs.last = isoDay(first.last);
      if (first.confidence !== undefined) pairs.confidence = String(first.confidence);
      first.line = withMetadataKeys(first.fact.firstLine.replace(/\r$/, ""), pairs);
    }
    merges.push({ kept: first.fact, removed: fact, keptLine: first.line });
  }
  // Each kept line carries every merge into it: the last merge's line is the one to write.
  return merges.map((merge) => ({ ...merge, keptLine: kept.find((k) => k.fact === merge.kept)?.line ?? merge.keptLine }));
}

/** MEMORY.md with the given facts' lines removed and the kept lines rewritten (bottom up, so indexes hold). */
function editMemory(markdown: string, remove: readonly MemoryFact[], rewrite: ReadonlyMap<MemoryFact, string>): string {
  const lines = markdown.split("\n");
  for (const [fact, line] of rewrite) lines[fact.lineIndex] = line + (lines[fact.lineIndex]?.endsWith("\r") ? "\r" : "");
  for (const fact of [...remove].sort((a, b) => b.lineIndex - a.lineIndex)) lines.splice(fact.lineIndex, fact.lineCount);
  return lines.join("\n");
}

/** MEMORY.md hygiene (§5.5 task 3): low-confidence and superseded entries to the archive, near-duplicates merged. */
async function memoryHygiene(ctx: PassContext): Promise<void> {
  const { run, now, config } = ctx;
  const text = await run.read(MEMORY_FILE);
  if (text === undefined) return;
  const facts = memoryFacts(MEMORY_FILE, text);
  const removals = removalsFromMemory(facts, now, config);
  const merges = duplicatesInMemory(facts.filter((fact) => !removals.some((r) => r.fact === fact)));
  if (removals.length === 0 && merges.length === 0) return;

  // First the archive (a removed entry is kept there, verbatim), then MEMORY.md.
  if (removals.length > 0) {
    const archive = monthFile(MEMORY_ARCHIVE_DIR, isoDay(now));
    const section = [`## Removed from ${MEMORY_FILE} on ${isoDay(now)} (run ${run.id})`, "", ...removals.map((r) => r.fact.text)].join("\n") + "\n";
    await run.append(
      archive,
      (current) => (current.includes(section) ? null : current.trim() === "" ? `# Archived memories, ${archive.slice(MEMORY_ARCHIVE_DIR.length + 1, -3)}\n\nEntries the maintenance pass took out of ${MEMORY_FILE} (persistent memory spec §5.5), verbatim.\n\n${section}` : `\n${section}`),
      { step: "compaction", what: `archived ${removals.length} ${MEMORY_FILE} entr${removals.length === 1 ? "y" : "ies"} into ${archive}` },
    );
    if (!((await run.read(archive)) ?? "").includes(section)) return;
  }
  const rewrite = new Map(merges.map((merge) => [merge.kept, merge.keptLine]));
  const changed = await run.rewrite(
    MEMORY_FILE,
    (current) => (current === text ? editMemory(current, [...removals.map((r) => r.fact), ...merges.map((m) => m.removed)], rewrite) : null),
    { step: "compaction", what: `${MEMORY_FILE}: ${removals.length} entr${removals.length === 1 ? "y" : "ies"} archived, ${merges.length} near-duplicate(s) merged` },
  );
  if (!changed) {
    run.note(`${MEMORY_FILE} changed while the pass read it: its hygiene waits for the next pass`);
    return;
  }
  const lines = [
    ...removals.map((r) => `- removed from ${MEMORY_FILE} (${r.why}), kept in ${monthFile(MEMORY_ARCHIVE_DIR, isoDay(now))}: ${r.fact.text.replace(/\n/g, " ")}`),
    ...merges.map((m) => `- merged into "${m.kept.statement}" (${MEMORY_FILE} line ${m.kept.lineIndex + 1}), near-duplicate removed: ${m.removed.text.replace(/\n/g, " ")}`),
  ];
  await appendLogEntry(run, COMPACTION_LOG_FILE, [`## ${isoDay(now)} · run ${run.id} · ${MEMORY_FILE} hygiene`, ...lines].join("\n"), { step: "compaction", what: `logged ${lines.length} ${MEMORY_FILE} removal(s)` });
}

/** The compaction step: day files, then MEMORY.md. */
export async function runCompactionStep(ctx: PassContext): Promise<void> {
  ctx.run.step("compaction");
  await archiveDayFiles(ctx);
  await memoryHygiene(ctx);
}
