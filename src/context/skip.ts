// Skip rules: messages that must not trigger a memory search (story 007 + hardening plan §"skip").

export type SkipReason = "empty" | "too-short" | "command" | "heartbeat" | "ping" | "technical";

export type SkipOptions = { minQueryChars: number; skipTechnicalPrompts: boolean };

const COMMAND = /^\/[a-z][\w-]*(\s|$)/i;
const HEARTBEAT = [/^\s*heartbeat(_ok)?\b/i, /\bHEARTBEAT_OK\b/, /\bread HEARTBEAT\.md\b/i, /^\s*\[?heartbeat\]?\s*[.!]*\s*$/i];
const PING = /^\s*(ping|pong|ping\s*pong)\s*[.!?]*\s*$/i;

// Hardening plan's "technical prompt without personal or project words" heuristic, with word
// boundaries so "terror" is not "error" and "bash" is not "abash".
const TECHNICAL_WORDS =
  /\b(error|errors|exception|stack ?trace|traceback|segfault|npm|pnpm|yarn|pip|docker|kubectl|bash|zsh|compile|compiler|regex|stderr|stdout|null pointer|undefined is not)\b/i;
const CODE_SHAPES = /[{};<>]=|=>|function\s*\(|\bclass\s+[A-Z]\w*|\w+\(\)|\bimport\s+[\w{]|\bconst\s+\w+\s*=/;
const PERSONAL_OR_PROJECT = /\b(my|mine|we|our|ours|us|project|team|customer|product|repo|deployment)\b/i;

export function isTechnicalPrompt(query: string): boolean {
  const looksTechnical = TECHNICAL_WORDS.test(query) || CODE_SHAPES.test(query);
  return looksTechnical && !PERSONAL_OR_PROJECT.test(query);
}

/** Why this message gets no memory search, or undefined when it should search. `raw` is the unmodified body. */
export function skipReason(raw: unknown, query: string, options: SkipOptions): SkipReason | undefined {
  const body = typeof raw === "string" ? raw.trim() : "";
  if (!body || !query) return "empty";
  if (COMMAND.test(body)) return "command";
  if (HEARTBEAT.some((pattern) => pattern.test(body))) return "heartbeat";
  if (PING.test(body)) return "ping";
  if (query.length < options.minQueryChars) return "too-short";
  if (options.skipTechnicalPrompts && isTechnicalPrompt(query)) return "technical";
  return undefined;
}
