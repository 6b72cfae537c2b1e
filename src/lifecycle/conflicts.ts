import { changeOf, isRepeat } from "../capture/relation.ts";
import { contentHash } from "../fs/atomic.ts";
import { appendLogEntry, CONFLICTS_FILE } from "./audit-log.ts";
import { dayOfFile, MEMORY_DIR, MEMORY_FILE, memoryFacts, replaceFactLine, supersededLine, termOverlap } from "./memory-facts.ts";
import type { MemoryFact } from "./memory-facts.ts";
import { DAY_MS, isoDay } from "./step.ts";
import type { PassContext } from "./step.ts";

// The Conflict Detector's daily scan (persistent memory spec §5.4), Core tier (flat files, no
// vector DB): every fact of the day files and MEMORY.md dated within the last 24 hours (or since
// the previous pass, when that is longer ago) is compared with every other live fact. Two facts
// contradict when one changes the other by the capture's own rule (src/capture/relation.ts: another
// value for the same attribute, "my locker code is 4312" / "my locker code is 5580", "the wifi
// password is sunflower" / "… is moonlight", or the same statement negated), or when one is an
// operator correction sharing at least half its content words with the other.
//
// Auto-resolution:
//   1. one side is an operator correction → it wins, always;
//   2. both come from direct conversation (source: operator or correction), are tagged #event,
//      #knowledge or #decision, and one is newer by 30 days or more → the newer wins;
//   3. otherwise → flagged for the operator (status: open).
// The losing fact is marked `status: superseded` in its file (retrieval leaves it out), never
// deleted. Every finding goes to CONFLICTS.md once (its id is a hash of the two statements).

const RESOLVE_AFTER_DAYS = 30;
const DIRECT_SOURCES = new Set(["operator", "correction"]);
const DATED_TAGS = new Set(["#event", "#knowledge", "#decision"]);
/** Share of content words an operator correction needs with another fact to count as correcting it (capture's rule). */
const CORRECTION_OVERLAP = 0.5;

export type Resolution = { winner: MemoryFact; loser: MemoryFact; rule: string } | { flagged: true; rule: string };

/** Do the two facts contradict each other? */
function contradicts(a: MemoryFact, b: MemoryFact): boolean {
  // Cheap first: facts sharing no content word cannot be about the same thing.
  if (termOverlap(a.terms, b.terms) === 0 || isRepeat(a.shape, b.shape)) return false;
  if (changeOf(a.shape, b.shape, false) || changeOf(b.shape, a.shape, false)) return true;
  return (a.correction || b.correction) && termOverlap(a.terms, b.terms) >= CORRECTION_OVERLAP;
}

const isDirect = (fact: MemoryFact) => fact.meta?.source !== undefined && DIRECT_SOURCES.has(fact.meta.source);

/** The spec's three rules, in order. */
export function resolve(a: MemoryFact, b: MemoryFact): Resolution {
  if (a.correction !== b.correction) {
    const [winner, loser] = a.correction ? [a, b] : [b, a];
    return { winner, loser, rule: "an operator correction wins" };
  }
  if (isDirect(a) && isDirect(b) && a.tag && b.tag && DATED_TAGS.has(a.tag) && DATED_TAGS.has(b.tag) && a.date && b.date) {
    const days = Math.abs(a.date.getTime() - b.date.getTime()) / DAY_MS;
    if (days >= RESOLVE_AFTER_DAYS) {
      const [winner, loser] = a.date > b.date ? [a, b] : [b, a];
      return { winner, loser, rule: `the newer direct statement wins (${Math.floor(days)} days newer, ${RESOLVE_AFTER_DAYS} needed)` };
    }
    return { flagged: true, rule: `both direct statements, ${Math.floor(days)} days apart (under ${RESOLVE_AFTER_DAYS}): for the operator` };
  }
  return { flagged: true, rule: "not an operator correction, and not two dated direct statements: for the operator" };
}

function conflictId(a: MemoryFact, b: MemoryFact): string {
  const pair = [a.statement.toLowerCase(), b.statement.toLowerCase()].sort();
  return `k-${contentHash(pair.join("\n")).slice(0, 12)}`;
}

function describe(fact: MemoryFact): string {
  const when = fact.date ? isoDay(fact.date) : "undated";
  const source = fact.meta?.source ?? (fact.correction ? "correction" : "no source");
  return `${fact.file} line ${fact.lineIndex + 1}: "${fact.statement}" (${when}, ${source}${fact.tag ? `, ${fact.tag}` : ""})`;
}

/** The live facts: MEMORY.md and memory/YYYY-MM-DD*.md, superseded ones left out. */
async function liveFacts(ctx: PassContext): Promise<MemoryFact[]> {
  const facts: MemoryFact[] = [];
  const memory = await ctx.run.read(MEMORY_FILE);
  if (memory !== undefined) facts.push(...memoryFacts(MEMORY_FILE, memory));
  for (const name of await ctx.run.list(MEMORY_DIR)) {
    const day = dayOfFile(name);
    if (!day) continue;
    const rel = `${MEMORY_DIR}/${name}`;
    const text = await ctx.run.read(rel);
    if (text !== undefined) facts.push(...memoryFacts(rel, text, day));
  }
  return facts.filter((fact) => !fact.superseded && fact.statement.length > 0);
}

/** Start of the scan window: 24 hours back, or the previous pass's clock when that is earlier. */
function scanSince(now: Date, previousClock: Date | undefined): Date {
  const day = new Date(now.getTime() - DAY_MS);
  return previousClock && previousClock < day ? previousClock : day;
}

export type ConflictFinding = { id: string; a: MemoryFact; b: MemoryFact; resolution: Resolution };

/** Contradictions between a recent fact and any other live fact, each pair once, in a stable order. */
export function findConflicts(facts: readonly MemoryFact[], since: Date, now: Date): ConflictFinding[] {
  const findings = new Map<string, ConflictFinding>();
  // By day: `last:` is a date, so a fact of the window's first day counts (a fact checked twice is found once).
  const recent = facts.filter((fact) => fact.date && isoDay(fact.date) >= isoDay(since) && fact.date <= now);
  for (const fresh of recent) {
    for (const other of facts) {
      if (other === fresh || !contradicts(fresh, other)) continue;
      const id = conflictId(fresh, other);
      if (!findings.has(id)) findings.set(id, { id, a: fresh, b: other, resolution: resolve(fresh, other) });
    }
  }
  return [...findings.values()].sort((x, y) => x.id.localeCompare(y.id));
}

/** The conflicts step. */
export async function runConflictsStep(ctx: PassContext): Promise<void> {
  const { run, now } = ctx;
  run.step("conflicts");
  const logged = (await run.read(CONFLICTS_FILE)) ?? "";
  const findings = findConflicts(await liveFacts(ctx), scanSince(now, ctx.previousClock), now).filter((finding) => !logged.includes(`## Conflict ${finding.id} `));
  // A fact marked superseded by one finding is no longer live: its other findings are moot.
  const marked = new Set<MemoryFact>();
  for (const finding of findings) {
    const { resolution } = finding;
    if (marked.has(finding.a) || marked.has(finding.b)) continue;
    let action = "";
    if ("loser" in resolution) {
      const { loser } = resolution;
      marked.add(loser);
      const changed = await run.rewrite(loser.file, (text) => replaceFactLine(text, loser, supersededLine(loser, { superseded_by: finding.id, superseded_on: isoDay(now) })), {
        step: "conflicts",
        what: `marked "${loser.statement}" superseded in ${loser.file} (${finding.id}: ${resolution.rule})`,
      });
      action = changed ? `marked \`status: superseded\` in ${loser.file} (kept, left out of retrieval)` : `not marked: ${loser.file} changed meanwhile, check by hand`;
    }
    const lines =
      "loser" in resolution
        ? [`- status: resolved`, `- rule: ${resolution.rule}`, `- winner: ${describe(resolution.winner)}`, `- loser: ${describe(resolution.loser)}`, `- action: ${action}`]
        : [`- status: open`, `- rule: ${resolution.rule}`, `- fact: ${describe(finding.a)}`, `- fact: ${describe(finding.b)}`, "- action: none: keep the right one, mark the other `status: superseded` (or edit it), then set this entry's status to resolved"];
    await appendLogEntry(run, CONFLICTS_FILE, [`## Conflict ${finding.id} · ${isoDay(now)}`, ...lines, `- run: ${run.id}`].join("\n"), { step: "conflicts", what: `logged conflict ${finding.id} (${"loser" in resolution ? "resolved" : "open"})` }, `## Conflict ${finding.id} `);
  }
}

/** Entries of CONFLICTS.md still open (status: open), for status. */
export function openConflicts(conflictsMarkdown: string): { id: string; heading: string }[] {
  return conflictsMarkdown
    .split(/^(?=## )/m)
    .filter((block) => /^## Conflict k-[0-9a-f]+ /.test(block) && /^- status:[ \t]*open\b/im.test(block))
    .map((block) => ({ id: /k-[0-9a-f]+/.exec(block)?.[0] ?? "", heading: block.split("\n", 1)[0].replace(/^## /, "") }));
}
