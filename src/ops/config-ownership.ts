import { isDeepStrictEqual } from "node:util";
import JSON5 from "json5";
import { isObject } from "../host/events.ts";

// When may uninstall write openclaw.json's pre-install text back verbatim? When nothing but our own
// keys changed since install. Our switches (the rollback, `config.enabled false`), OpenClaw's
// `plugins uninstall` (it drops our entry's settings and the slot) and OpenClaw's write bookkeeping
// (`meta`) all change the file after install; an operator's edit anywhere else does not count as
// ours, and then only our keys are undone (src/ops/install.ts restoreConfig).

type JsonObject = Record<string, unknown>;

/** One key path openclaw-context owns; `when` narrows it to the values that are ours. */
export type OwnedKey = { path: string[]; when?: (value: unknown) => boolean };

const OUR_ENGINES = new Set(["openclaw-context", "openclaw-context-companion"]);

/** Every key the hook pack, the companion plugin or the plugin package writes (or OpenClaw writes for them). */
const OWNED_KEYS: OwnedKey[] = [
  // OpenClaw's own record of its writes (lastTouchedVersion, lastTouchedAt, migrations): rewritten on every write.
  { path: ["meta"] },
  { path: ["plugins", "entries", "openclaw-context"] },
  { path: ["plugins", "entries", "openclaw-context-companion"] },
  { path: ["plugins", "installs", "openclaw-context"] },
  { path: ["plugins", "installs", "openclaw-context-companion"] },
  { path: ["plugins", "slots", "contextEngine"], when: (value) => typeof value === "string" && OUR_ENGINES.has(value) },
  { path: ["hooks", "internal", "enabled"] },
  { path: ["hooks", "internal", "entries", "aci-bootstrap", "enabled"] },
  { path: ["hooks", "internal", "entries", "ethos-context", "enabled"] },
  { path: ["hooks", "internal", "installs", "openclaw-context"] },
];

function dropKey(node: JsonObject, [head, ...rest]: string[], when?: OwnedKey["when"]): void {
  if (head === undefined || !(head in node)) return;
  if (rest.length === 0) {
    if (!when || when(node[head])) delete node[head];
    return;
  }
  const child = node[head];
  if (isObject(child)) dropKey(child, rest, when);
}

/** Objects left empty by the removal count as absent (`plugins: {}` after OpenClaw's uninstall). */
function pruneEmpty(node: JsonObject): void {
  for (const [key, value] of Object.entries(node)) {
    if (!isObject(value)) continue;
    pruneEmpty(value);
    if (Object.keys(value).length === 0) delete node[key];
  }
}

/** The parsed config without the keys we own (a fresh copy; `text` is JSON5, comments allowed). */
export function withoutOwnedKeys(text: string, owned: OwnedKey[] = OWNED_KEYS): JsonObject {
  const parsed: unknown = JSON5.parse(text);
  if (!isObject(parsed)) throw new Error("openclaw.json does not hold a JSON object");
  for (const key of owned) dropKey(parsed, key.path, key.when);
  pruneEmpty(parsed);
  return parsed;
}

/** True when the two texts differ only in keys we own (comments, order and formatting do not count). */
export function differsOnlyInOwnedKeys(current: string, installed: string, owned: OwnedKey[] = OWNED_KEYS): boolean {
  try {
    return isDeepStrictEqual(withoutOwnedKeys(current, owned), withoutOwnedKeys(installed, owned));
  } catch {
    return false;
  }
}
