import { CORRECTIONS_FILE_NAME, correctionStatement, parseCorrections } from "../capture/corrections.ts";
import type { CorrectionEntry } from "../capture/corrections.ts";
import { analyse } from "../capture/relation.ts";
import { tidyStatement } from "../capture/statement.ts";
import { detectEol, findSections, splitLines } from "../core/markdown.ts";
import { estimateTokens } from "../core/tokens.ts";
import type { HygieneConfig } from "../memory/config-md.ts";
import { appendLogEntry, CHANGELOG_FILE } from "./audit-log.ts";
import { cooldownOver, CORRECTIONS_ARCHIVE_DIR } from "./correction-maturation.ts";
import { termOverlap } from "./memory-facts.ts";
import { INITIATIVE_DIR, QUEUE_NAME, withReviewFlag, withReviewTicked } from "./review-gate.ts";
import type { Run } from "./run-log.ts";
import { snapshotSoul, SOUL_FILE } from "./soul-history.ts";
import { HOUR_MS, isoDay } from "./step.ts";
import type { PassContext } from "./step.ts";

// The Soul Keeper's Correction Verification Gate (persistent memory spec §5.2, §9), without an LLM:
// a correction pattern becomes a SOUL.md proposal only when every correction in it is verified
// (`verified: true`, set by the pass after the cool-down), past correction_cooldown_hours, not
// retracted, and the pattern occurred at least soul_encoding_min_occurrences times. Corrections
// saying the same thing (half their content words shared, trigger phrase aside) are one pattern.
//
// The proposal goes through the same review gate as wisdom compression: a draft in the initiative
// folder listing the corrections (one bullet per pattern, in the operator's words, with the ids of
// every occurrence, and the evidence below), a REVIEW NEEDED line in DAILY_EXECUTION_QUEUE.md, and
// `maintain promote --approve`, which snapshots SOUL.md, adds the bullets to its
// "## Learned from corrections" section and writes the CHANGELOG.md entry citing every occurrence.
// The operator may reword a bullet in the draft before promoting (the ids must stay).

export const SOUL_DRAFT_NAME = "SOUL_KEEPER_DRAFT.md";
export const SOUL_DRAFT = `${INITIATIVE_DIR.split("\\").join("/")}/${SOUL_DRAFT_NAME}`;
const LEARNED_SECTION = "Learned from corrections";
const EVIDENCE_SECTION = "Evidence (stays in this draft)";
/** Corrections sharing this share of content words say the same thing (capture's rule for corrections). */
const SAME_PATTERN = 0.5;

export type SourcedCorrection = { entry: CorrectionEntry; file: string };
export type Pattern = { principle: string; occurrences: SourcedCorrection[] };

/** Every correction the gate may look at: CORRECTIONS.md and the archived ones. */
export async function allCorrections(run: Run): Promise<SourcedCorrection[]> {
  const files = [CORRECTIONS_FILE_NAME, ...(await run.list(CORRECTIONS_ARCHIVE_DIR)).filter((name) => name.endsWith(".md")).map((name) => `${CORRECTIONS_ARCHIVE_DIR}/${name}`)];
  const found = new Map<string, SourcedCorrection>();
  for (const file of files) {
    const text = await run.read(file);
    if (text === undefined) continue;
    // The live file wins over an archived copy of the same entry (it is read first).
    for (const entry of parseCorrections(text)) if (!found.has(entry.id)) found.set(entry.id, { entry, file });
  }
  return [...found.values()];
}

/** What the correction says, without its trigger phrase ("You forgot: I'm vegetarian" → "I'm vegetarian"). */
export function correctionPoint(entry: CorrectionEntry): string {
  let text = correctionStatement(entry);
  const trigger = entry.triggerPhrase?.trim();
  if (trigger) {
    const at = text.toLowerCase().indexOf(trigger.toLowerCase());
    if (at >= 0) text = `${text.slice(0, at)} ${text.slice(at + trigger.length)}`;
  }
  return tidyStatement(text.replace(/^[\s,.:;!-]+/, ""));
}

/** §5.2 checks 2 and 3: verified, past the cool-down, not retracted or resolved. */
function passesGate(entry: CorrectionEntry, now: Date, config: HygieneConfig): boolean {
  return entry.verified && entry.status !== "retracted" && entry.status !== "resolved" && cooldownOver(entry, now, config);
}

/** Eligible corrections grouped into patterns (single link, oldest first), each with its principle (the newest wording). */
export function correctionPatterns(corrections: readonly SourcedCorrection[], now: Date, config: HygieneConfig): Pattern[] {
  const eligible = corrections
    .filter((c) => passesGate(c.entry, now, config))
    .sort((a, b) => (a.entry.loggedAt?.getTime() ?? 0) - (b.entry.loggedAt?.getTime() ?? 0) || a.entry.id.localeCompare(b.entry.id));
  const groups: { terms: Set<string>[]; members: SourcedCorrection[] }[] = [];
  for (const correction of eligible) {
    const terms = new Set(analyse(correctionPoint(correction.entry)).keys);
    if (terms.size === 0) continue;
    const group = groups.find((g) => g.terms.some((t) => termOverlap(t, terms) >= SAME_PATTERN));
    if (group) {
      group.terms.push(terms);
      group.members.push(correction);
    } else groups.push({ terms: [terms], members: [correction] });
  }
  return groups.map((group) => ({ principle: correctionPoint(group.members[group.members.length - 1].entry), occurrences: group.members }));
}

/** §5.2 check 1, and not encoded yet (no occurrence cited in CHANGELOG.md). */
export function proposals(patterns: readonly Pattern[], config: HygieneConfig, changelog: string): Pattern[] {
  return patterns.filter((p) => p.occurrences.length >= config.soul_encoding_min_occurrences && !p.occurrences.some((o) => changelog.includes(o.entry.id)));
}

const ids = (pattern: Pattern) => pattern.occurrences.map((o) => o.entry.id);

function citation(o: SourcedCorrection): string {
  const when = o.entry.loggedAt?.toISOString() ?? "undated";
  return `${when.slice(0, 10)} (${o.file} ${o.entry.id}, session ${o.entry.session ?? "unknown"})`;
}

/** The draft: the section to promote, then the evidence of each bullet. Independent of the clock, so a pass with nothing new leaves it as it is. */
function renderDraft(patterns: readonly Pattern[], config: HygieneConfig): string {
  const out = [
    `## ${LEARNED_SECTION}`,
    `_Soul Keeper proposal: ${patterns.length} principle(s) from verified corrections (gate: verified, ${config.correction_cooldown_hours} h cool-down, at least ${config.soul_encoding_min_occurrences} occurrences). Reword a bullet if you like, keep its [ids], then promote._`,
    "",
    ...patterns.map((p) => `- ${p.principle} [${ids(p).join(", ")}]`),
    "",
    `## ${EVIDENCE_SECTION}`,
    "",
  ];
  for (const pattern of patterns) {
    out.push(`### ${pattern.principle}`, `Occurrences: ${pattern.occurrences.length} (threshold ${config.soul_encoding_min_occurrences})`);
    for (const o of pattern.occurrences) out.push(`- ${citation(o)}: "${correctionStatement(o.entry).replace(/\s+/g, " ").slice(0, 300)}"`);
    out.push("");
  }
  return out.join("\n");
}

function reviewFlag(count: number): string {
  return `- [ ] REVIEW NEEDED: Soul Keeper proposal ${SOUL_DRAFT} (${count} principle(s) from verified corrections). Approve with: openclaw context maintain promote --approve (in a clone: npm run maintain -- promote --approve)`;
}

/** The soul-keeper step: the gate, then the draft and its review item when something passes. */
export async function runSoulKeeperStep(ctx: PassContext): Promise<void> {
  const { run, now, config } = ctx;
  run.step("soul-keeper");
  const changelog = (await run.read(CHANGELOG_FILE)) ?? "";
  const proposed = proposals(correctionPatterns(await allCorrections(run), now, config), config, changelog);
  if (proposed.length === 0) return;
  await run.rewrite(SOUL_DRAFT, () => renderDraft(proposed, config), { step: "soul-keeper", what: `SOUL.md proposal: ${proposed.length} principle(s) from ${proposed.reduce((n, p) => n + p.occurrences.length, 0)} verified corrections` });
  await run.rewrite(QUEUE_NAME, (queue) => withReviewFlag(queue, SOUL_DRAFT_NAME, reviewFlag(proposed.length)), { step: "soul-keeper", what: `REVIEW NEEDED for ${SOUL_DRAFT}` });
}

// ── promote ────────────────────────────────────────────────────────────────────────────────────

export type DraftBullet = { text: string; ids: string[] };

/** The bullets of the draft's first "## Learned from corrections" section: `- <principle> [c-…, c-…]`. */
export function draftBullets(draft: string): DraftBullet[] {
  const section = findSections(draft).find((s) => s.level === 2 && s.title.trim() === LEARNED_SECTION);
  if (!section) return [];
  const bullets: DraftBullet[] = [];
  for (const line of splitLines(draft).slice(section.startLine + 1, section.endLine)) {
    const match = /^\s*[-*+]\s+(.+?)\s*\[((?:\s*c-[0-9a-f]{6,}\s*,?)+)\]\s*$/.exec(line);
    if (match) bullets.push({ text: match[1].trim(), ids: match[2].split(/[\s,]+/).filter(Boolean) });
  }
  return bullets;
}

export type SoulPromotionPlan = {
  before: string;
  after: string;
  bullets: DraftBullet[];
  /** The CHANGELOG.md entry (without the header). */
  changelog: string;
  problems: string[];
};

/** SOUL.md with the bullets added to its "## Learned from corrections" section (created at the end when missing). */
export function soulWithPrinciples(soul: string, principles: readonly string[]): string {
  const eol = detectEol(soul);
  const lines = splitLines(soul);
  const section = findSections(soul).find((s) => s.level === 2 && s.title.trim() === LEARNED_SECTION);
  const fresh = principles.filter((p) => !lines.some((line) => line.replace(/^\s*[-*+]\s+/, "").trim() === p));
  if (fresh.length === 0) return soul;
  if (!section) return `${soul.replace(/\s*$/, "")}${eol}${eol}## ${LEARNED_SECTION}${eol}${eol}${fresh.map((p) => `- ${p}`).join(eol)}${eol}`;
  let end = section.endLine;
  while (end > section.startLine + 1 && lines[end - 1].trim() === "") end--;
  lines.splice(end, 0, ...fresh.map((p) => `- ${p}`));
  return lines.join(eol);
}

/** Compute the new SOUL.md and the CHANGELOG.md entry from the reviewed draft, with every check; writes nothing. */
export async function planSoulPromotion(run: Run, now: Date, config: HygieneConfig): Promise<SoulPromotionPlan> {
  const problems: string[] = [];
  const draft = await run.read(SOUL_DRAFT);
  if (draft === undefined) throw new Error(`no Soul Keeper draft at ${SOUL_DRAFT}: the maintenance pass writes one when verified corrections pass the gate`);
  const before = await run.read(SOUL_FILE);
  if (before === undefined) throw new Error(`no ${SOUL_FILE} in the workspace`);
  const bullets = draftBullets(draft);
  if (bullets.length === 0) problems.push(`the draft has no "- <principle> [c-…]" bullets under "## ${LEARNED_SECTION}"`);
  const byId = new Map((await allCorrections(run)).map((c) => [c.entry.id, c]));
  const changelog = (await run.read(CHANGELOG_FILE)) ?? "";
  const entry = [`## ${isoDay(now)} — Soul Keeper (maintenance promote)`];
  for (const bullet of bullets) {
    const occurrences = bullet.ids.map((id) => byId.get(id));
    const missing = bullet.ids.filter((_id, i) => !occurrences[i]);
    if (missing.length > 0) problems.push(`"${bullet.text}": no correction ${missing.join(", ")} in ${CORRECTIONS_FILE_NAME} or ${CORRECTIONS_ARCHIVE_DIR}/`);
    const found = occurrences.filter((o): o is SourcedCorrection => o !== undefined);
    const failing = found.filter((o) => !passesGate(o.entry, now, config)).map((o) => o.entry.id);
    if (failing.length > 0) problems.push(`"${bullet.text}": ${failing.join(", ")} no longer pass the gate (not verified, in cool-down, or retracted)`);
    if (found.length < config.soul_encoding_min_occurrences) problems.push(`"${bullet.text}": ${found.length} occurrence(s), soul_encoding_min_occurrences is ${config.soul_encoding_min_occurrences}`);
    const encoded = bullet.ids.filter((id) => changelog.includes(id));
    if (encoded.length > 0) problems.push(`"${bullet.text}": ${encoded.join(", ")} already encoded (${CHANGELOG_FILE})`);
    const newest = Math.max(...found.map((o) => o.entry.loggedAt?.getTime() ?? 0));
    const [first, ...repeats] = found;
    entry.push(
      `- Added principle: "${bullet.text}"`,
      `  Evidence: Correction ${first ? citation(first) : "none"}${repeats.length ? `, repeated ${repeats.map(citation).join(", ")}` : ""}`,
      `  Occurrences: ${found.length} (meets threshold of ${config.soul_encoding_min_occurrences})`,
      `  Cool-down: ${Math.floor((now.getTime() - newest) / HOUR_MS)}h elapsed since the latest (meets ${config.correction_cooldown_hours}h threshold)`,
    );
  }
  const after = soulWithPrinciples(before, bullets.map((b) => b.text));
  const tokens = estimateTokens(after);
  if (tokens > config.soul_max_tokens) problems.push(`${SOUL_FILE} would be ${tokens} tokens, over soul_max_tokens (${config.soul_max_tokens}): shorten it or the proposal first`);
  if (after === before && bullets.length > 0) problems.push(`${SOUL_FILE} already holds every proposed principle`);
  return { before, after, bullets, changelog: entry.join("\n"), problems };
}

/** Apply a plan without problems: snapshot, SOUL.md, CHANGELOG.md, tick the review item (each its own lock). */
export async function applySoulPromotion(run: Run, plan: SoulPromotionPlan, now: Date): Promise<void> {
  if (plan.problems.length > 0) throw new Error("refusing to promote: the plan has problems");
  await snapshotSoul(run, now, "promote", "before the Soul Keeper's promote");
  const written = await run.rewrite(SOUL_FILE, (current) => {
    if (current !== plan.before) throw new Error(`${SOUL_FILE} changed since the plan was made; run promote again`);
    return plan.after;
  }, { step: "promote", what: `added ${plan.bullets.length} principle(s) to ${SOUL_FILE} (## ${LEARNED_SECTION})` });
  if (!written) throw new Error(`${SOUL_FILE} was not changed`);
  await appendLogEntry(run, CHANGELOG_FILE, plan.changelog, { step: "promote", what: `${CHANGELOG_FILE}: the promote with its evidence` });
  await run.rewrite(QUEUE_NAME, (queue) => withReviewTicked(queue, SOUL_DRAFT_NAME, `- [x] REVIEWED: Soul Keeper proposal promoted into ${SOUL_FILE} on ${isoDay(now)}`), { step: "promote", what: `ticked the review item of ${SOUL_DRAFT}` });
}
