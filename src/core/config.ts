import { closest, distance as levenshtein } from "fastest-levenshtein";
import type { z } from "zod";
import { getLogger } from "./log.ts";

// Config of every hook: validated with zod, strict on unknown keys, and forgiving per key. A bad
// key (unknown, wrong type, out of range) is dropped and logged with its full key path; every valid
// key is kept. So a typo in one setting never throws away the others (an operator's `ownerIds`
// survive a misspelt `fileSet`), and a typo never goes unnoticed.

export type ConfigIssue = { key: string; reason: string };
export type ConfigResult<T> = {
  config: T;
  ok: boolean;
  error?: string;
  issues: ConfigIssue[];
  /** What the operator wrote, minus every dropped key: parsing it again finds no issue (and logs nothing). */
  input: unknown;
};

export type ParseOptions = {
  /** false: return the issues without logging them (status, doctor, the doctor contract). Default true. */
  report?: boolean;
};

/** The `event` field of the log record written for each dropped key (what `npm run status` looks for). */
export const CONFIG_ISSUE_EVENT = "config.invalid-key";

type Path = (string | number)[];

/** Human-readable "key.path: reason" list for a zod error. */
export function describeZodError(error: z.ZodError, rootLabel: string): string {
  return error.issues.map((issue) => `${keyPath(rootLabel, issue.path as Path)}: ${issue.message}`).join("; ");
}

function keyPath(rootLabel: string, path: Path): string {
  return [rootLabel, ...path.map(String)].filter(Boolean).join(".");
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

type SchemaDef = { type: string; innerType?: z.ZodType; in?: z.ZodType; out?: z.ZodType; shape?: Record<string, z.ZodType>; catchall?: z.ZodType; element?: z.ZodType };

function defOf(schema: z.ZodType): SchemaDef {
  return (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
}

/** The object schema under wrappers (default, optional, transform, …), if there is one. */
function objectUnder(schema: z.ZodType): { shape: Record<string, z.ZodType>; open: boolean } | undefined {
  let current: z.ZodType | undefined = schema;
  for (let depth = 0; current && depth < 20; depth += 1) {
    const def = defOf(current);
    if (def.type === "object") return { shape: def.shape ?? {}, open: def.catchall !== undefined && defOf(def.catchall).type !== "never" };
    current = def.innerType ?? (def.type === "pipe" ? def.in : undefined);
  }
  return undefined;
}

function arrayElementUnder(schema: z.ZodType): z.ZodType | undefined {
  let current: z.ZodType | undefined = schema;
  for (let depth = 0; current && depth < 20; depth += 1) {
    const def = defOf(current);
    if (def.type === "array") return def.element;
    current = def.innerType ?? (def.type === "pipe" ? def.in : undefined);
  }
  return undefined;
}

/** "did you mean X?" for a misspelt key: the nearest valid key, when it is close enough to be a typo. */
export function suggestKey(key: string, valid: string[]): string | undefined {
  if (valid.length === 0) return undefined;
  const lower = key.toLowerCase();
  const exactCase = valid.find((candidate) => candidate.toLowerCase() === lower);
  if (exactCase) return exactCase;
  const nearest = closest(lower, valid.map((candidate) => candidate.toLowerCase()));
  const match = valid.find((candidate) => candidate.toLowerCase() === nearest)!;
  // Levenshtein distance up to a third of the key's length (at least 2): a typo, not another word.
  const budget = Math.max(2, Math.floor(match.length / 3));
  return editDistanceWithin(lower, nearest, budget) ? match : undefined;
}

function editDistanceWithin(a: string, b: string, budget: number): boolean {
  return Math.abs(a.length - b.length) <= budget && levenshtein(a, b) <= budget;
}

/** Later array elements first, so splicing one does not shift the index of another. */
function deepestLastFirst(a: Path, b: Path): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    if (a[i] === b[i]) continue;
    if (typeof a[i] === "number" && typeof b[i] === "number") return (b[i] as number) - (a[i] as number);
    return String(a[i]) < String(b[i]) ? -1 : 1;
  }
  return b.length - a.length;
}

/** Remove unknown keys (recursively, following the schema), reporting each one. */
function dropUnknownKeys(schema: z.ZodType, value: unknown, path: Path, issues: { path: Path; reason: string }[]): void {
  const object = objectUnder(schema);
  if (object && isPlainObject(value)) {
    const valid = Object.keys(object.shape);
    for (const key of Object.keys(value)) {
      const child = object.shape[key];
      if (child) {
        dropUnknownKeys(child, value[key], [...path, key], issues);
      } else if (!object.open) {
        const suggestion = suggestKey(key, valid);
        issues.push({ path: [...path, key], reason: `unknown key${suggestion ? ` (did you mean ${suggestion}?)` : ""}` });
        delete value[key];
      }
    }
    return;
  }
  const element = arrayElementUnder(schema);
  if (element && Array.isArray(value)) value.forEach((item, index) => dropUnknownKeys(element, item, [...path, index], issues));
}

/** Delete the value at `path` (an array element is spliced out, so the rest of the list stays). */
function deleteAt(root: Record<string, unknown>, path: Path): boolean {
  if (path.length === 0) return false;
  let parent: unknown = root;
  for (const segment of path.slice(0, -1)) {
    if (parent === null || typeof parent !== "object") return false;
    parent = (parent as Record<string | number, unknown>)[segment];
  }
  const last = path[path.length - 1];
  if (Array.isArray(parent) && typeof last === "number" && last < parent.length) {
    parent.splice(last, 1);
    // A list whose every entry was bad is dropped as a whole (its default applies), never left empty:
    // an empty file set or owner list would mean something the operator did not write.
    if (parent.length === 0) deleteAt(root, path.slice(0, -1));
    return true;
  }
  if (isPlainObject(parent) && Object.hasOwn(parent, String(last))) {
    delete parent[String(last)];
    return true;
  }
  return false;
}

/** zod reports a bad record key only as "Invalid key in record"; the key schema's own message says why. */
function issueReason(issue: z.core.$ZodIssue): string {
  const nested = issue.code === "invalid_key" ? issue.issues.map((inner) => inner.message) : [];
  return nested.length > 0 ? nested.join("; ") : issue.message;
}

// The issues last logged per config entry, per logger: the same entry parsed again (a second
// registration of the plugin, another adapter reading the same settings) logs nothing new, so each
// load of a config reports its problems once. A changed entry logs its (new) set again; a logger
// sent somewhere else (a test's sink, the host's logger) starts afresh.
const lastReported = new WeakMap<object, Map<string, string>>();

/**
 * Validate a raw config object, keeping every valid key. Each bad key is dropped and logged once
 * per load (error level, its key path and the reason, with "did you mean …?" for unknown keys); the
 * schema default takes its place. Only when nothing can be salvaged does the whole entry fall back
 * to the defaults. Never throws.
 */
export function parseConfigOrDefaults<S extends z.ZodType>(schema: S, raw: unknown, rootLabel: string, logName = "openclaw-context", options: ParseOptions = {}): ConfigResult<z.output<S>> {
  const found: { path: Path; reason: string }[] = [];
  let candidate: unknown = raw ?? {};
  try {
    candidate = structuredClone(candidate);
  } catch {
    // Not cloneable (functions, …): validation below reports it.
  }
  dropUnknownKeys(schema, candidate, [], found);

  let result = schema.safeParse(candidate);
  // Each round drops the keys zod rejected; nested errors inside one key only cost that key.
  for (let round = 0; !result.success && round < 10; round += 1) {
    let dropped = false;
    for (const issue of [...result.error.issues].sort((a, b) => deepestLastFirst(a.path as Path, b.path as Path))) {
      const path = issue.path as Path;
      found.push({ path, reason: issueReason(issue) });
      if (isPlainObject(candidate) && deleteAt(candidate, path)) dropped = true;
    }
    if (!dropped) break;
    result = schema.safeParse(candidate);
  }

  const issues = dedupe(found.map((issue) => ({ key: keyPath(rootLabel, issue.path), reason: issue.reason })));
  let config: z.output<S>;
  let fellBack = false;
  if (result.success) config = result.data;
  else {
    config = schema.parse({});
    fellBack = true;
  }
  if (options.report !== false) reportOnce(logName, rootLabel, issues, fellBack);
  const input = fellBack ? {} : candidate;
  if (issues.length === 0) return { config, ok: true, issues, input };
  return { config, ok: false, error: issues.map((issue) => `${issue.key}: ${issue.reason}`).join("; "), issues, input };
}

function reportOnce(logName: string, rootLabel: string, issues: ConfigIssue[], fellBack: boolean): void {
  const log = getLogger(logName);
  let reported = lastReported.get(log);
  if (!reported) lastReported.set(log, (reported = new Map()));
  const signature = JSON.stringify(issues);
  if ((reported.get(rootLabel) ?? "[]") === signature) return;
  reported.set(rootLabel, signature);
  for (const issue of issues) {
    log.error(
      { event: CONFIG_ISSUE_EVENT, configKey: rootLabel, key: issue.key, reason: issue.reason },
      `invalid config ${issue.key}: ${issue.reason}; ${fellBack ? "using the defaults for the whole entry" : "this key is ignored, the other settings are kept"}`,
    );
  }
}

function dedupe(issues: ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const id = `${issue.key}\u0000${issue.reason}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
