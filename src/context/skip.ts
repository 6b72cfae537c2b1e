import { analyzeText } from "../memory/tokenize.ts";
import { parseForgetRequest } from "../capture/forget-trigger.ts";

// Skip rules: messages that must not trigger a memory search (story 007 + hardening plan §"skip").

export type SkipReason = "empty" | "too-short" | "command" | "heartbeat" | "ping" | "small-talk" | "technical" | "forget-request";

export type SkipOptions = { minQueryChars: number; skipTechnicalPrompts: boolean };

const COMMAND = /^\/[a-z][\w-]*(\s|$)/i;
const HEARTBEAT = [/^\s*heartbeat(_ok)?\b/i, /\bHEARTBEAT_OK\b/, /\bread HEARTBEAT\.md\b/i, /^\s*\[?heartbeat\]?\s*[.!]*\s*$/i];
const PING = /^\s*(ping|pong|ping\s*pong)\s*[.!?]*\s*$/i;

// Hardening plan's "technical prompt without personal or project words" heuristic, with word
// boundaries so "terror" is not "error" and "bash" is not "abash".
const TECHNICAL_WORDS = new RegExp(
  "\\b(" +
    [
      "error", "errors", "exception", "stack ?trace", "traceback", "segfault", "stderr", "stdout", "null pointer", "undefined is not",
      "npm", "pnpm", "yarn", "pip", "docker", "dockerfile", "kubectl", "kubernetes", "bash", "zsh", "shell script", "compile", "compiler",
      "regex", "python", "javascript", "typescript", "node\\.?js", "react(\\.?js| native| hooks?| components?| router| props)", "css", "html", "sql", "postgresql", "mysql", "sqlite",
      "git", "rebase", "rust", "golang", "java", "json", "yaml", "curl", "eslint", "prettier", "vitest", "jest", "pandas", "numpy",
      "async", "await", "function", "algorithm", "time complexity", "big-o", "cors", "express server", "tcp", "udp", "http post",
      "uuid", "lru cache", "unit test", "monorepo", "github actions", "linked list", "binary search", "hash index", "b-tree",
      "linux", "concurrency", "promises", "memoization", "paginate", "csv", "weakmap", "cron job", "dependency injection",
      "tail call", "race condition", "tuples", "refactor", "inner join", "left join", "command line", "rest api", "cap theorem",
      "solid principles", "squash(ing)? (\\w+ ){0,3}commits?", "feature branch", "array\\.prototype\\.\\w+", "jest",
    ].join("|") +
    ")\\b",
  "i",
);
// Pasted logs: "ModuleNotFoundError: …", "fatal: …", "TS2345: …", "Segmentation fault", "E: Unable to …".
const LOG_SHAPES =
  /\b[A-Z]\w*(Error|Exception)\b|\b\w+Warning\b|\b(Error|Exception):|^\s*(fatal|error|E|panic):|\bTS\d{3,5}\b|Segmentation fault|OOMKilled|Permission denied|[A-Z]{2,}_[A-Z_]{3,}|\bline \d+, in\b/m;
// An operator in an inline code span (`==`, `&&`, `?.`) is code too.
const CODE_SHAPES = /[{};<>]=|=>|function\s*\(|\bclass\s+[A-Z]\w*|\w+\(\)|\bimport\s+[\w{]|\bconst\s+\w+\s*=|`[^\w\s`]{1,4}`/;
// A fenced block: the query leaves it out, but "what does this mean?" under a pasted stack trace
// asks about the paste, not about memory.
const FENCE = /(^|\n)[ \t]*(`{3,}|~{3,})/;
const PERSONAL_OR_PROJECT = /\b(my|mine|we|our|ours|us|project|team|customer|product|repo|deployment)\b/i;

// Greetings, thanks and pleasantries: a message made only of these words asks nothing of memory.
const SMALL_TALK_WORDS = [
  "good", "morning", "afternoon", "evening", "night", "day", "today", "tonight", "going", "how", "hope", "having",
  "great", "thank", "thanks", "thx", "ty", "cheers", "appreciate", "awesome", "perfect", "cool", "nice", "lovely",
  "back", "again", "ready", "start", "started", "get", "work", "worked", "long", "time", "see", "quick", "one", "new",
  "task", "tasks", "friend", "happy", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
  "weekend", "greetings", "howdy", "hiya", "sup", "yo", "gm", "gn", "bonjour", "hola", "assistant", "around", "hear",
  "wait", "waiting", "welcome", "sorry", "bye", "goodbye", "later", "soon", "fine", "well", "up", "sure", "yeah", "yep",
  "nope", "lol", "haha", "hmm", "wow", "congrats", "help", "buddy", "pal", "mate", "lot", "much", "man",
  "go", "have", "perfectly", "really", "so", "very", "glad", "exactly", "need", "needed", "sounds", "fixed", "brilliant",
  "makes", "sense", "worries", "ahead", "alright", "wonderful", "tomorrow", "ping", "excellent", "amazing", "fantastic",
];
const SMALL_TALK_TERMS = new Set(analyzeText(SMALL_TALK_WORDS.join(" ")));

function isSmallTalk(query: string): boolean {
  return analyzeText(query).every((term) => SMALL_TALK_TERMS.has(term));
}

// "react" and "squash" are everyday words ("How do Audrey's dogs react to snow?" is a memory
// question in LoCoMo): the framework counts as a phrase above, or capitalised inside a sentence.
const REACT_FRAMEWORK = /\S\s+React\b/;

function looksTechnical(text: string): boolean {
  return TECHNICAL_WORDS.test(text) || REACT_FRAMEWORK.test(text) || CODE_SHAPES.test(text) || LOG_SHAPES.test(text);
}

/**
 * Technical vocabulary, code or a log, and no personal or project word in the query. `body`, when
 * given, is the whole message: a fenced paste that looks technical counts even though the query
 * leaves it out.
 */
export function isTechnicalPrompt(query: string, body?: string): boolean {
  if (PERSONAL_OR_PROJECT.test(query)) return false;
  return looksTechnical(query) || (body !== undefined && FENCE.test(body) && looksTechnical(body));
}

/** Why this message gets no memory search, or undefined when it should search. `raw` is the unmodified body. */
export function skipReason(raw: unknown, query: string, options: SkipOptions): SkipReason | undefined {
  const body = typeof raw === "string" ? raw.trim() : "";
  if (!body || !query) return "empty";
  if (COMMAND.test(body)) return "command";
  if (HEARTBEAT.some((pattern) => pattern.test(body))) return "heartbeat";
  if (PING.test(body)) return "ping";
  // "Forget that my locker code …" must not bring the locker code back in its own turn.
  if (parseForgetRequest(body)) return "forget-request";
  if (query.length < options.minQueryChars) return "too-short";
  if (isSmallTalk(query)) return "small-talk";
  if (options.skipTechnicalPrompts && isTechnicalPrompt(query, body)) return "technical";
  return undefined;
}
