import path from "node:path";
import { contentHash } from "../fs/atomic.ts";
import { appendLineGrouped } from "../fs/locked-writes.ts";
import { canWriteIntoWorkspace } from "../fs/workspace-guard.ts";
import { getLogger } from "../core/log.ts";
import { boundedId, storedSessionKey } from "../core/bounded-id.ts";
import { HYGIENE_CONFIG_DEFAULTS, lockOptionsFromConfig } from "../memory/config-md.ts";
import type { HygieneConfig } from "../memory/config-md.ts";
import { appendCorrection } from "./corrections.ts";
import { captureFact } from "./capture.ts";
import type { CaptureOutcome } from "./capture.ts";
import { factToWrite } from "./capture-guard.ts";
import { forgetOnRequest } from "./forget.ts";
import type { ForgetOutcome } from "./forget.ts";
import { redactSecrets } from "../memory/secrets.ts";
import { extractFacts } from "./statement.ts";
import { compileCustomPatterns, scanMessage } from "./patterns.ts";
import type { CompiledCustomPatterns, ScanOptions, TriageMatch, TriggerConfidence } from "./patterns.ts";

// Heartbeat triage for `message:received` (persistent memory spec §7): regex scan, then
//  - any match → one line in the per-day queue `memory/.triage/YYYY-MM-DD.jsonl` (priority: true)
//    for the Memory Miner;
//  - a recall failure or soft correction → a CORRECTIONS.md entry (§5.3), verified: false with a
//    cool-down;
//  - in the operator's own sessions (`capture: true`), a memory trigger, or a correction of a
//    captured fact, → one fact line in `memory/YYYY-MM-DD.md` (capture.ts; CONFIG.md memory_capture).
// Every write takes the file's §4.1 lock. No network, no LLM, never throws.

const TRIAGE_DIR = path.join("memory", ".triage");
const TRIAGE_AGENT_NAME = "heartbeat-triage";
const CAPTURE_AGENT_NAME = "memory-capture";
const EXCERPT_CHARS = 500;

export type TriageInput = {
  /** The message text (`event.context.content`); non-text content is ignored. */
  content: unknown;
  sessionKey?: string;
  messageId?: string;
  channelId?: string;
  workspaceDir: string;
  now?: Date;
  config?: HygieneConfig;
  scan?: ScanOptions;
  /**
   * The message is the operator's, in the operator's own session (MAIN_SESSION, owner PRIVATE_DM),
   * as the caller's one classification of the turn says: only then may a fact be captured.
   */
  capture?: boolean;
};

export type TriageOutcome = {
  flagged: boolean;
  matches: TriageMatch[];
  /** Queue file written (absolute), when flagged and the write succeeded. */
  queueFile?: string;
  correction?: { id: string; file: string; confidence: TriggerConfidence; written: boolean };
  /** The explicit capture of the message's first fact, when one was attempted. */
  capture?: CaptureOutcome;
  /** The owner's "forget that …" (forget.ts), when the message was one: nothing else is done with it. */
  forget?: ForgetOutcome;
  /** Every fact's capture, in the message's order (most messages have one: then it is `capture`). */
  captures?: CaptureOutcome[];
  /** CONFIG.md custom patterns that were skipped, and why. */
  patternProblems: string[];
  scannedChars: number;
  truncated: boolean;
  customSkipped: number;
  /** Write failures (lock unavailable, disk errors). The turn goes on regardless. */
  errors: string[];
};

type TriageQueueRecord = {
  ts: string;
  priority: true;
  classes: string[];
  patterns: string[];
  trigger_confidence?: TriggerConfidence;
  /** The session key; one longer than 256 chars as `sha256:<hex>` (session-state's storedSessionKey). Same bound for the ids. */
  session?: string;
  message_id?: string;
  channel?: string;
  /** sha256 of the full message, so the Memory Miner can find it in the transcript. */
  content_hash: string;
  excerpt: string;
};

const log = () => getLogger("openclaw-context.hygiene");

/** Text of a message `content`: a string, or the text parts of a content array. */
export function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === "string" ? part : typeof part === "object" && part && typeof (part as { text?: unknown }).text === "string" ? (part as { text: string }).text : ""))
      .filter(Boolean)
      .join("\n");
  }
  return "";
}

// Compiling is cheap but not free; handlers call triage once per message with the same config.
const compiledCache = new Map<string, CompiledCustomPatterns>();
function customPatternsFor(config: HygieneConfig): CompiledCustomPatterns {
  const key = JSON.stringify(config.heartbeat_custom_patterns);
  let compiled = compiledCache.get(key);
  if (!compiled) {
    compiled = compileCustomPatterns(config.heartbeat_custom_patterns);
    for (const problem of compiled.problems) log().warn({ configKey: "CONFIG.md.heartbeat_custom_patterns" }, problem);
    if (compiledCache.size > 16) compiledCache.clear();
    compiledCache.set(key, compiled);
  }
  return compiled;
}

function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function triageQueuePath(workspaceDir: string, now: Date): string {
  return path.join(workspaceDir, TRIAGE_DIR, `${utcDay(now)}.jsonl`);
}

/** The strongest Recall Validator routing among the matches: high beats medium. */
function correctionTrigger(matches: readonly TriageMatch[]): TriageMatch | undefined {
  return matches.find((m) => m.confidence === "high") ?? matches.find((m) => m.confidence === "medium");
}

/**
 * Triage one inbound message. Never throws; everything it did or failed to do is in the outcome.
 * The regex part is synchronous and bounded; the writes are two small locked appends.
 */
export async function triageInboundMessage(input: TriageInput): Promise<TriageOutcome> {
  const outcome: TriageOutcome = { flagged: false, matches: [], patternProblems: [], scannedChars: 0, truncated: false, customSkipped: 0, errors: [] };
  try {
    // Each message's scan is a task of its own: a burst of messages arriving together must not
    // run all its scans in one go while a turn's timers wait.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const text = messageText(input.content);
    if (!text.trim()) return outcome;
    const config = input.config ?? HYGIENE_CONFIG_DEFAULTS;
    const now = input.now ?? new Date();
    // "Forget that …" in the owner's session: forgotten everywhere; the request itself is not queued.
    if (input.capture) {
      const forget = await forgetOnRequest({ workspaceDir: input.workspaceDir, message: text, now, config });
      if (forget) return { ...outcome, forget, errors: forget.errors };
    }
    const custom = customPatternsFor(config);
    outcome.patternProblems = custom.problems;
    const scan = scanMessage(text, custom.patterns, input.scan);
    Object.assign(outcome, { matches: scan.matches, scannedChars: scan.scannedChars, truncated: scan.truncated, customSkipped: scan.customSkipped });
    // What the operator asks to keep is read from their own words, pattern or not: a correction
    // such as "Actually, my locker code is 5580 now" matches no triage pattern.
    const facts = input.capture && config.memory_capture ? extractFacts(text) : [];
    if (scan.matches.length === 0 && facts.length === 0) return outcome;
    outcome.flagged = scan.matches.length > 0;
    if (!(await canWriteIntoWorkspace(input.workspaceDir, "triage"))) {
      outcome.errors.push("triage: workspace missing or relative, nothing written");
      return outcome;
    }

    const lock = lockOptionsFromConfig(config, TRIAGE_AGENT_NAME);
    // What goes to disk (and into the dedupe key) is the bounded form the session state uses: a
    // short key as is, readable; a hostile megabyte-long one as its sha256.
    const sessionKey = input.sessionKey === undefined ? undefined : storedSessionKey(input.sessionKey);
    const messageId = input.messageId === undefined ? undefined : boundedId(input.messageId);
    const trigger = correctionTrigger(scan.matches);
    // A secret's value never reaches the queue or CORRECTIONS.md, not even as a hash one could guess
    // (a PIN's); a forgotten fact not even its words.
    const window = text.slice(0, EXCERPT_CHARS + 200);
    const redacted = redactSecrets(window);
    const hash = contentHash(redacted === window ? text : redactSecrets(text));
    const guarded = await Promise.all(facts.map((fact) => factToWrite(input.workspaceDir, fact, config)));
    const excerpt = guarded.some((g) => "skipped" in g) ? "(a forgotten fact; excerpt withheld)" : redacted;
    const record: TriageQueueRecord = {
      ts: now.toISOString(),
      priority: true,
      classes: [...new Set(scan.matches.map((m) => m.class))],
      patterns: scan.matches.map((m) => m.id),
      trigger_confidence: trigger?.confidence,
      session: sessionKey,
      message_id: messageId,
      channel: input.channelId === undefined ? undefined : boundedId(input.channelId),
      content_hash: hash,
      excerpt: excerpt.length > EXCERPT_CHARS ? `${excerpt.slice(0, EXCERPT_CHARS - 1)}…` : excerpt,
    };
    const queueFile = triageQueuePath(input.workspaceDir, now);
    const writes: Promise<void>[] = [];
    if (outcome.flagged) {
      writes.push(
        // Grouped: the queue lines of messages triaged together go out in one locked write.
        appendLineGrouped(queueFile, JSON.stringify(record), { ...lock, containWithin: input.workspaceDir }).then(
          () => void (outcome.queueFile = queueFile),
          (error: Error) => void outcome.errors.push(`triage queue: ${error.message}`),
        ),
      );
    }
    if (trigger?.confidence) {
      const confidence = trigger.confidence;
      writes.push(
        appendCorrection(
          input.workspaceDir,
          {
            loggedAt: now,
            triggerPhrase: redactSecrets(trigger.phrase),
            triggerConfidence: confidence,
            patternClass: trigger.class,
            sessionKey,
            excerpt: excerpt.slice(0, EXCERPT_CHARS),
            cooldownHours: config.correction_cooldown_hours,
            dedupeKey: `${sessionKey ?? ""}\u0000${messageId ?? hash}`,
          },
          lock,
        ).then(
          ({ id, file, result }) => void (outcome.correction = { id, file, confidence, written: result.written }),
          (error: Error) => void outcome.errors.push(`corrections: ${error.message}`),
        ),
      );
    }
    const skipped = guarded.find((g): g is { skipped: string } => "skipped" in g);
    const toWrite = guarded.flatMap((g) => ("fact" in g ? [g.fact] : []));
    if (skipped && toWrite.length === 0) outcome.capture = { action: "ignored", reason: skipped.skipped };
    if (toWrite.length > 0) {
      writes.push(
        (async () => {
          // One after another: a later fact of the message may repeat or change an earlier one.
          for (const fact of toWrite) {
            try {
              const capture = await captureFact({ workspaceDir: input.workspaceDir, fact, now, config, lock: lockOptionsFromConfig(config, CAPTURE_AGENT_NAME) });
              (outcome.captures ??= []).push(capture);
              outcome.capture ??= capture;
            } catch (error) {
              outcome.errors.push(`capture: ${(error as Error).message}`);
            }
          }
        })(),
      );
    }
    await Promise.all(writes);
    if (outcome.errors.length > 0) log().warn({ errors: outcome.errors, session: sessionKey }, "triage writes failed");
  } catch (error) {
    outcome.errors.push(`triage: ${(error as Error).message}`);
    log().warn({ error: (error as Error).message }, "triage failed");
  }
  return outcome;
}
