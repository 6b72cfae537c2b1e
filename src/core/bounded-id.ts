import crypto from "node:crypto";

/**
 * Longer session keys (and turn keys, message ids, agent ids) are kept as a hash: a hostile 1 MB
 * key must cost neither 1 MB of heap nor 1 MB on disk. Shorter ones stay readable as they are.
 */
export const MAX_STORED_KEY_CHARS = 256;

export function boundedId(id: string): string {
  if (id.length <= MAX_STORED_KEY_CHARS) return id;
  return `sha256:${crypto.createHash("sha256").update(id).digest("hex")}`;
}

/** A session key as sessions keep and write it (the bound above). */
export function storedSessionKey(sessionKey: string): string {
  return boundedId(sessionKey);
}

/**
 * A short, stable tag for a session in log records: the turns of one session can be told apart and
 * put together (status --last) without writing its key, which holds peer ids, into any log.
 */
export function sessionTag(sessionKey: string | undefined): string | undefined {
  return sessionKey ? crypto.createHash("sha256").update(sessionKey).digest("hex").slice(0, 10) : undefined;
}
