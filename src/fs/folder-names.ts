import fs from "node:fs/promises";
import { TIMESTAMP_TICK_MS } from "./timestamp-tick.ts";

// The names in a folder, listed again only when the folder changed: a turn looks for recent day
// files, and a capture for the day files it compares with, in a memory folder that can hold
// thousands of notes. Adding, removing or renaming an entry changes a folder's mtime, so a listing
// is reused while the folder's inode and mtime are what they were. A file system with whole-second
// timestamps could hide a change made in the same second as the listing: a listing is kept only
// when the folder's mtime was at least TIMESTAMP_TICK_MS old when it was made.

const MAX_KEPT_FOLDERS = 64;

type Listing = { ino: number; mtimeMs: number; names: readonly string[] };
const listings = new Map<string, Listing>();

/** What fs.readdir(dir) gives (and throws: a missing folder), reused while the folder is unchanged. Do not modify. */
export async function folderNames(dir: string): Promise<readonly string[]> {
  const stat = await fs.stat(dir);
  const known = listings.get(dir);
  if (known && known.ino === stat.ino && known.mtimeMs === stat.mtimeMs) return known.names;
  const listedAt = Date.now();
  const names = await fs.readdir(dir);
  listings.delete(dir);
  if (listedAt - stat.mtimeMs >= TIMESTAMP_TICK_MS) {
    listings.set(dir, { ino: stat.ino, mtimeMs: stat.mtimeMs, names });
    if (listings.size > MAX_KEPT_FOLDERS) listings.delete(listings.keys().next().value as string);
  }
  return names;
}
