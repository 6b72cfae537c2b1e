import fs from "node:fs";
import path from "node:path";
import fg from "fast-glob";
import picomatch from "picomatch";
import { RETRIEVED_MEMORY_RECORD_NAME } from "../host/ids.ts";

// Tells the index whether anything in its folders may have changed since its last full check, so
// a turn need not stat every memory file (2,225 files at 100k chunks: ~12 ms of every turn).
//
// - After each full check the index names the folders that matter: the root, each pattern's
//   static base folder, and every folder holding an indexed file with its parents up to the root.
//   Each is watched with fs.watch (inotify, FSEvents…; `persistent: false`, so it never keeps a
//   process alive). An event about a name the patterns could match (a file they match, or a
//   folder they could descend into) marks the index dirty: the next turn checks in full. Other
//   names are ignored: ETHOS_CONTEXT.md, rewritten every turn in the workspace root, hidden files
//   (never indexed; atomic writes' temp files, editor swap files), AGENTS.md and the like.
// - The answer is only "quiet" after a full check that added no new watch (a folder watched only
//   from now on may have changed unseen), and while every watch is healthy.
// - A file system that delivers no events (some network mounts) is covered by a background check
//   every `verifyEveryMs`: the turn that starts it does not wait for it.
// - Too many folders, or fs.watch unsupported or out of watches (ENOSPC, EMFILE): the index falls
//   back to checking every file on every turn, as without this module.

export type ChangeWatchOptions = {
  /** More folders than this to watch: give up watching (each is one inotify watch). */
  maxDirs: number;
  /** A quiet index is still checked in full, in the background, at least this often. */
  verifyEveryMs: number;
};

const DEFAULT_CHANGE_WATCH: ChangeWatchOptions = { maxDirs: 128, verifyEveryMs: 10_000 };

export class ChangeWatch {
  private readonly rootDir: string;
  private readonly options: ChangeWatchOptions;
  private readonly watchers = new Map<string, fs.FSWatcher>();
  private dirty = true;
  private disabled = false;
  private checkedAt = 0;
  private matters: (rel: string) => boolean = () => true;

  constructor(rootDir: string, options: ChangeWatchOptions = DEFAULT_CHANGE_WATCH) {
    this.rootDir = rootDir;
    this.options = options;
  }

  /** Folders are being watched now (not just allowed to be): events, not polling, decide. */
  get watching(): boolean {
    return !this.disabled && this.watchers.size > 0;
  }

  /** Nothing changed in a watched folder since the last full check started. */
  quiet(): boolean {
    return this.watching && !this.dirty;
  }

  /** A quiet index's background check is due. */
  verifyDue(now = Date.now()): boolean {
    return now - this.checkedAt >= this.options.verifyEveryMs;
  }

  /** A full check starts: events from now on make the next turn check again. */
  beginCheck(now = Date.now()): void {
    this.dirty = false;
    this.checkedAt = now;
  }

  /**
   * After a full check: watch the folders that matter for these patterns and indexed files
   * (paths relative to the root). Stops watching folders that no longer matter.
   */
  watchFor(patterns: readonly string[], indexedFiles: Iterable<string>): void {
    if (this.disabled) return;
    const dirs = foldersToWatch(this.rootDir, patterns, indexedFiles);
    if (dirs.size > this.options.maxDirs) return this.disable();
    this.matters = relevantTo(patterns);
    for (const [dir, watcher] of this.watchers) {
      if (dirs.has(dir)) continue;
      watcher.close();
      this.watchers.delete(dir);
    }
    for (const dir of dirs) {
      if (this.watchers.has(dir)) continue;
      let watcher: fs.FSWatcher;
      try {
        watcher = fs.watch(dir, { persistent: false }, (_event, name) => {
          // No name (some platforms), or a name that cannot be matched: assume it matters. A
          // throw here would be an uncaught exception in the gateway.
          try {
            if (!name || this.matters(path.relative(this.rootDir, path.join(dir, String(name))).split(path.sep).join("/"))) this.dirty = true;
          } catch {
            this.dirty = true;
          }
        });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // Not there (yet): its parent is watched and sees it appear. (Marking the index dirty here
        // would keep a vault without, say, Archive/ from ever being quiet.)
        if (code === "ENOENT" || code === "ENOTDIR") continue;
        return this.disable();
      }
      // A folder watched only from now on may have changed during the check: check once more.
      this.dirty = true;
      watcher.on("error", () => {
        // The folder went away, or the watch broke: forget it; the next full check re-decides.
        this.dirty = true;
        watcher.close();
        if (this.watchers.get(dir) === watcher) this.watchers.delete(dir);
      });
      this.watchers.set(dir, watcher);
    }
  }

  /** The next refresh checks in full. */
  markDirty(): void {
    this.dirty = true;
  }

  /** Stop watching for good: every refresh checks in full. */
  disable(): void {
    this.disabled = true;
    this.dirty = true;
    this.close();
  }

  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }
}

/** The root, each pattern's static base folder, and every indexed file's folder with its parents. */
function foldersToWatch(rootDir: string, patterns: readonly string[], indexedFiles: Iterable<string>): Set<string> {
  const dirs = new Set<string>([rootDir]);
  const addWithParents = (relDir: string) => {
    for (let dir = relDir; dir && dir !== "." && dir !== "/"; dir = path.posix.dirname(dir)) {
      const abs = path.join(rootDir, dir);
      if (dirs.has(abs)) break;
      dirs.add(abs);
    }
  };
  for (const pattern of patterns) addWithParents(staticBase(pattern));
  for (const rel of indexedFiles) addWithParents(path.posix.dirname(rel));
  return dirs;
}

/**
 * Whether a change to `rel` (a path relative to the root, file or folder: an event does not say)
 * can matter to an index over `patterns`: a file they match, or a folder they could descend into.
 */
function relevantTo(patterns: readonly string[]): (rel: string) => boolean {
  const files = patterns.map((pattern) => picomatch(pattern, { dot: false }));
  const segments = patterns.map((pattern) => pattern.split("/").map((segment) => (segment === "**" ? "**" : picomatch(segment, { dot: false }))));
  const couldHold = (relSegments: string[]) =>
    segments.some((pattern) => {
      for (let i = 0; i < relSegments.length; i++) {
        const segment = pattern[i];
        if (segment === "**") return true;
        // A folder cannot sit where the pattern names the file itself.
        if (segment === undefined || i >= pattern.length - 1 || !segment(relSegments[i])) return false;
      }
      return true;
    });
  return (rel) => {
    const parts = rel.split("/");
    const name = parts[parts.length - 1];
    if (name === RETRIEVED_MEMORY_RECORD_NAME || name.startsWith(".")) return false;
    return files.some((match) => match(rel)) || couldHold(parts);
  };
}

/** The folder part of a pattern before its first glob segment ("notes/**\/*.md" → "notes"). */
function staticBase(pattern: string): string {
  const segments = pattern.split("/");
  const base: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    if (fg.isDynamicPattern(segment)) break;
    base.push(segment);
  }
  return base.join("/");
}
