import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { openClawStateDir } from "../core/paths.ts";
import { readRegularFile } from "./safe-read.ts";

// Sealed text: what must be kept to undo something, but never in plain text inside the workspace
// (a forgotten fact's exact line can hold a password the operator opted to keep). AES-256-GCM with
// a key kept outside the workspace, in the state dir (`<state dir>/openclaw-context/seal.key`,
// mode 0600, made on first use). It protects copies of the workspace (git, sync, backups of the
// workspace folder); whoever can read the state dir can unseal (docs/memory-hygiene.md, "Forget").

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const PREFIX = "aes-256-gcm:";

export function sealKeyPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(openClawStateDir(env), "openclaw-context", "seal.key");
}

async function readKey(file: string): Promise<Buffer | undefined> {
  const read = await readRegularFile(file, { maxBytes: KEY_BYTES });
  if (!read.ok) return undefined;
  if (read.bytes.length !== KEY_BYTES) throw new Error(`${file} is not a ${KEY_BYTES}-byte key`);
  return read.bytes;
}

/** The key, made once (exclusive create, so two processes end up with the same key). */
async function sealKey(env: NodeJS.ProcessEnv): Promise<Buffer> {
  const file = sealKeyPath(env);
  const existing = await readKey(file);
  if (existing) return existing;
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    await fs.writeFile(file, crypto.randomBytes(KEY_BYTES), { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const made = await readKey(file);
  if (!made) throw new Error(`could not read ${file}`);
  return made;
}

/** `plain` sealed with the state dir's key: `aes-256-gcm:<base64 of iv, tag, ciphertext>`. */
export async function sealText(plain: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const key = await sealKey(env);
  const iv = crypto.randomBytes(IV_BYTES);
  const cipher = crypto.createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64");
}

/** The text `sealText` sealed; throws when the key is missing or another one (the message says which file). */
export async function unsealText(sealed: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (!sealed.startsWith(PREFIX)) throw new Error("not sealed text");
  const key = await readKey(sealKeyPath(env));
  if (!key) throw new Error(`the key that sealed it is gone (${sealKeyPath(env)})`);
  const data = Buffer.from(sealed.slice(PREFIX.length), "base64");
  const decipher = crypto.createDecipheriv("aes-256-gcm", key, data.subarray(0, IV_BYTES));
  decipher.setAuthTag(data.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(data.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    throw new Error(`sealed with another key than ${sealKeyPath(env)}`);
  }
}
