import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../fs/atomic.ts";
import { withFileLock } from "../fs/lock.ts";
import { timestamp } from "./paths.ts";

export async function sha256File(file: string): Promise<string> {
  return crypto.createHash("sha256").update(await fs.readFile(file)).digest("hex");
}

/** The file's text, or undefined when it does not exist (any other error is thrown). */
export async function readTextIfExists(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

export async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Copy `file` to `<backupDir>/<basename>.<timestamp>.bak` (verified by hash) before anything
 * changes it. Returns the backup path, or undefined when the file does not exist yet.
 */
export async function backupBeforeChange(file: string, backupDir: string): Promise<string | undefined> {
  if (!(await exists(file))) return undefined;
  await fs.mkdir(backupDir, { recursive: true });
  let target = path.join(backupDir, `${path.basename(file)}.${timestamp()}.bak`);
  for (let n = 1; await exists(target); n += 1) {
    target = path.join(backupDir, `${path.basename(file)}.${timestamp()}-${n}.bak`);
  }
  await fs.copyFile(file, target);
  if ((await sha256File(file)) !== (await sha256File(target))) {
    throw new Error(`backup of ${file} does not match the original (hash mismatch): ${target}`);
  }
  return target;
}

/** Back the file up (if it exists), then replace it atomically under the bundle's advisory lock. */
export async function replaceFileWithBackup(file: string, content: string, backupDir: string): Promise<string | undefined> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  return withFileLock(file, async () => {
    const backup = await backupBeforeChange(file, backupDir);
    await writeFileAtomic(file, content);
    return backup;
  });
}
