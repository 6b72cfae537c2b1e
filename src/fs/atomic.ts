import fs from "node:fs/promises";
import path from "node:path";
import writeFileAtomicLib from "write-file-atomic";

/** temp file + fsync + rename, so readers never see a half-written file. */
export async function writeFileAtomic(file: string, data: string | Buffer): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomicLib(file, data, { fsync: true });
}
