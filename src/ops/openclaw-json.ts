import fs from "node:fs/promises";
import path from "node:path";
import commentJson from "comment-json";
import JSON5 from "json5";
import { isObject } from "../host/events.ts";
import { replaceFileWithBackup } from "./safe-write.ts";

// Edits of openclaw.json (JSON5) that keep the operator's other settings and, whenever possible,
// their comments: comment-json round-trips JSON with comments and trailing commas; files that use
// JSON5-only syntax (unquoted keys, single quotes, ...) fall back to json5, which loses comments,
// so a timestamped backup is always written first and the caller is told.

export type HookEntryChange = { hookKey: string; enabled: boolean };
export type ConfigEditResult = {
  changed: boolean;
  method: "comment-json" | "json5" | "created" | "none";
  backup?: string;
  notes: string[];
};

type JsonObject = Record<string, unknown>;

/** `parent[key]` as an object, created (and attached) when it is missing or not an object. */
export function childObject(parent: JsonObject, key: string): JsonObject {
  const current = parent[key];
  if (isObject(current)) return current;
  const created: JsonObject = {};
  parent[key] = created;
  return created;
}

/** Read and parse openclaw.json (JSON5). Undefined when the file does not exist. */
export async function readOpenClawJson(configPath: string): Promise<JsonObject | undefined> {
  let text: string;
  try {
    text = await fs.readFile(configPath, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const parsed: unknown = JSON5.parse(text);
  if (!isObject(parsed)) throw new Error(`${configPath} does not hold a JSON object`);
  return parsed;
}

/** `hooks.internal.entries.<key>.enabled` as written in the file (undefined when unset). */
export async function readHookEnabled(configPath: string, hookKey: string): Promise<boolean | undefined> {
  const config = await readOpenClawJson(configPath);
  const entry = (config as { hooks?: { internal?: { entries?: Record<string, { enabled?: unknown }> } } } | undefined)?.hooks?.internal?.entries?.[hookKey];
  return typeof entry?.enabled === "boolean" ? entry.enabled : undefined;
}

type Mutation = (config: JsonObject) => boolean;

/** Apply `mutate` to openclaw.json, preserving comments when the syntax allows it. */
export async function editOpenClawJson(configPath: string, mutate: Mutation, options: { createIfMissing?: boolean } = {}): Promise<ConfigEditResult> {
  // Backups sit next to the config (openclaw.json.<timestamp>.bak), where an operator looks first.
  const backupDir = path.dirname(configPath);
  let text: string | undefined;
  try {
    text = await fs.readFile(configPath, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  if (text === undefined) {
    if (!options.createIfMissing) return { changed: false, method: "none", notes: [`${configPath} does not exist: nothing to change`] };
    const config: JsonObject = {};
    mutate(config);
    await replaceFileWithBackup(configPath, JSON.stringify(config, null, 2) + "\n", backupDir);
    return { changed: true, method: "created", notes: [`created ${configPath}`] };
  }

  let parsed: unknown;
  let method: "comment-json" | "json5" = "comment-json";
  try {
    parsed = commentJson.parse(text);
  } catch {
    method = "json5";
    try {
      parsed = JSON5.parse(text);
    } catch (error) {
      throw new Error(`${configPath} is neither JSON-with-comments nor JSON5: ${(error as Error).message}`);
    }
  }
  if (!isObject(parsed)) throw new Error(`${configPath} does not hold a JSON object`);
  if (!mutate(parsed)) return { changed: false, method: "none", notes: ["already in the requested state: file left untouched"] };

  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? "  ";
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const output = method === "comment-json" ? commentJson.stringify(parsed, null, indent) : JSON.stringify(parsed, null, indent);
  const backup = await replaceFileWithBackup(configPath, output.replace(/\r?\n/g, eol) + eol, backupDir);
  const notes = [`backup written: ${backup}`];
  if (method === "json5") {
    notes.push(`${configPath} uses JSON5-only syntax; rewritten as plain JSON with json5: comments and JSON5 formatting were NOT preserved (originals in the backup above)`);
  }
  return { changed: true, method, backup, notes };
}

/** Set `hooks.internal.entries.<key>.enabled` for each change; enabling also turns on `hooks.internal.enabled`. */
export function setHookEntries(configPath: string, changes: HookEntryChange[]): Promise<ConfigEditResult> {
  const anyEnable = changes.some((change) => change.enabled);
  return editOpenClawJson(
    configPath,
    (config) => {
      const internal = childObject(childObject(config, "hooks"), "internal");
      let changed = false;
      if (anyEnable && internal.enabled !== true) {
        internal.enabled = true;
        changed = true;
      }
      const entries = childObject(internal, "entries");
      for (const { hookKey, enabled } of changes) {
        const entry = childObject(entries, hookKey);
        if (entry.enabled !== enabled) {
          entry.enabled = enabled;
          changed = true;
        }
      }
      return changed;
    },
    { createIfMissing: anyEnable },
  );
}

/** What install changed in hooks.internal, so uninstall can put it back exactly. */
export type HookStateRecord = { internalEnabled?: boolean; entries: Record<string, { existed: boolean; enabled?: boolean }> };

export async function captureHookState(configPath: string, hookKeys: string[]): Promise<HookStateRecord> {
  const config = await readOpenClawJson(configPath).catch(() => undefined);
  const internal = (config?.hooks as JsonObject | undefined)?.internal as JsonObject | undefined;
  const entries = isObject(internal?.entries) ? internal.entries : {};
  const record: HookStateRecord = { entries: {} };
  if (typeof internal?.enabled === "boolean") record.internalEnabled = internal.enabled;
  for (const key of hookKeys) {
    const entry = entries[key];
    record.entries[key] = isObject(entry) ? { existed: true, ...(typeof entry.enabled === "boolean" ? { enabled: entry.enabled } : {}) } : { existed: false };
  }
  return record;
}

/**
 * Undo install's hook edits in a parsed config: entries that did not exist go, others get their old
 * `enabled` back. Without a record: entries holding only `enabled` go, others are disabled.
 */
export function revertHookState(config: JsonObject, record: HookStateRecord | undefined, hookKeys: string[]): boolean {
  const hooks = isObject(config.hooks) ? config.hooks : undefined;
  const internal = isObject(hooks?.internal) ? hooks.internal : undefined;
  if (!internal) return false;
  let changed = false;
  const entries = isObject(internal.entries) ? internal.entries : undefined;
  for (const key of hookKeys) {
    const entry = entries?.[key];
    if (!entries || !isObject(entry)) continue;
    const before = record?.entries[key] ?? { existed: false };
    const onlyEnabled = Object.keys(entry).every((k) => k === "enabled");
    if (!before.existed && onlyEnabled) delete entries[key];
    else if (!record) entry.enabled = false;
    else if (before.enabled === undefined) delete entry.enabled;
    else entry.enabled = before.enabled;
    changed = true;
  }
  if (!record) return changed;
  if (entries && Object.keys(entries).length === 0) {
    delete internal.entries;
    changed = true;
  }
  if (record.internalEnabled === undefined) {
    if ("enabled" in internal) {
      delete internal.enabled;
      changed = true;
    }
  } else if (internal.enabled !== record.internalEnabled) {
    internal.enabled = record.internalEnabled;
    changed = true;
  }
  if (Object.keys(internal).length === 0 && hooks) delete hooks.internal;
  if (hooks && Object.keys(hooks).length === 0) delete config.hooks;
  return changed;
}
