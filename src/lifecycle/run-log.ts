import fs from "node:fs/promises";
import path from "node:path";
import { contentHash, MAX_LOCKED_FILE_BYTES, writeFileAtomic } from "../fs/atomic.ts";
import { withFileLock } from "../fs/lock.ts";
import { appendFileLocked, appendText, ContentChangedError, updateFileLocked } from "../fs/locked-writes.ts";
import type { LockOptions } from "../fs/lock.ts";
import { readRegularFile } from "../fs/safe-read.ts";

// The maintenance pass's run log, and the one way the pass touches a workspace file. Every change
// goes through a Run: it takes the file's §4.1 lock, writes, and records what it did, with the
// bytes needed to put the file back:
//   - rewrite / delete: the file's bytes before, saved as a numbered image in the run's folder;
//   - create: nothing (undo removes the file);
//   - append: the size and hash before and after (undo cuts our bytes out; the log files are long).
// One JSON line per run goes to `Archive/.maintenance/runs.jsonl`, so `maintain --undo <run>`
// restores byte for byte and `status` shows the last pass. The folder starts with a dot, so the
// memory index (dot: false) never reads the images as memories.
//
// A dry run records the same changes against an in-memory overlay: later steps read what earlier
// steps would have written, and nothing reaches the disk.

export const MAINTENANCE_DIR = path.join("Archive", ".maintenance");
export const RUNS_FILE = "runs.jsonl";
/** Attempts of a compare-and-swap write when someone else edits the file between our read and our write. */
const MAX_CAS_ATTEMPTS = 3;

type ChangeKind = "create" | "rewrite" | "append" | "delete";

export type FileChange = {
  /** Workspace-relative path with `/` separators. */
  file: string;
  kind: ChangeKind;
  /** Which step of the pass made it (corrections, conflicts, compaction, soul-history, soul-keeper, promote). */
  step: string;
  /** One line for the operator: what changed and why. */
  what: string;
  beforeHash?: string;
  beforeSize?: number;
  afterHash?: string;
  afterSize?: number;
  /** rewrite / delete: the before-image, a file name inside the run's folder. */
  image?: string;
};

export type RunRecord = {
  run: string;
  /** The pass's clock (what it judged ages by). */
  clock: string;
  startedAt: string;
  finishedAt: string;
  trigger: string;
  steps: string[];
  changes: FileChange[];
  /** Things the operator should know that are not changes (a file skipped, a lock not taken). */
  notes: string[];
};

export type UndoRecord = { undo: string; at: string; restored: string[] };

type LogLine = RunRecord | UndoRecord;

export type RunOptions = {
  workspaceDir: string;
  clock: Date;
  trigger: string;
  lock: LockOptions;
  dryRun?: boolean;
  /** Wall clock for startedAt / finishedAt (tests pass the fake clock). */
  wallClock?: () => Date;
};

export type ChangeLabel = { step: string; what: string };

function runsFile(workspaceDir: string): string {
  return path.join(workspaceDir, MAINTENANCE_DIR, RUNS_FILE);
}

/** Run ids sort by time: the clock in compact UTC, plus a counter when a run of the same second exists. */
function runIdFor(clock: Date, taken: ReadonlySet<string>): string {
  const base = clock.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

/** Every line of runs.jsonl (runs and undos), oldest first; a torn or foreign line is skipped. */
async function readRunLog(workspaceDir: string): Promise<LogLine[]> {
  const read = await readRegularFile(runsFile(workspaceDir), { maxBytes: 64 * 1024 * 1024, root: workspaceDir });
  if (!read.ok) return [];
  const lines: LogLine[] = [];
  for (const line of read.bytes.toString("utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      const parsed = JSON.parse(line) as LogLine;
      if (typeof (parsed as RunRecord).run === "string" || typeof (parsed as UndoRecord).undo === "string") lines.push(parsed);
    } catch {
      // a line cut by a crash mid-append
    }
  }
  return lines;
}

export type RunSummary = RunRecord & { undone?: string };

/** The runs, oldest first, each with the time it was undone (if it was). */
export async function listRuns(workspaceDir: string): Promise<RunSummary[]> {
  const lines = await readRunLog(workspaceDir);
  const undone = new Map<string, string>();
  for (const line of lines) if ("undo" in line) undone.set(line.undo, line.at);
  return lines.filter((line): line is RunRecord => "run" in line).map((run) => (undone.has(run.run) ? { ...run, undone: undone.get(run.run) } : run));
}

type Snapshot = { text: string; bytes: Buffer } | null;

/** A workspace file the pass may edit: a regular UTF-8 file inside the workspace, at most 16 MiB; null when missing. */
async function readEditable(workspaceDir: string, file: string): Promise<Snapshot | { refused: string }> {
  const read = await readRegularFile(file, { maxBytes: MAX_LOCKED_FILE_BYTES, root: workspaceDir });
  if (!read.ok) return read.reason === "missing" ? null : { refused: `${read.reason}${read.detail ? ` (${read.detail})` : ""}` };
  const text = read.bytes.toString("utf8");
  // The pass edits text; a file that does not survive decoding byte for byte is left alone.
  if (!Buffer.from(text, "utf8").equals(read.bytes)) return { refused: "not valid UTF-8" };
  return { text, bytes: read.bytes };
}

export type Run = ReturnType<typeof startRun>;

/**
 * Start a run. Writes happen one file at a time, each under its own lock (never two at once), and
 * each is recorded; `finish()` appends the run's line to runs.jsonl (not in a dry run).
 */
export function startRun(options: RunOptions, takenIds: ReadonlySet<string> = new Set()) {
  const { workspaceDir } = options;
  const wall = options.wallClock ?? (() => new Date());
  const id = runIdFor(options.clock, takenIds);
  const startedAt = wall().toISOString();
  const changes: FileChange[] = [];
  const notes: string[] = [];
  const steps: string[] = [];
  const overlay = new Map<string, string | null>();
  const lock = { ...options.lock, containWithin: workspaceDir };
  const runDir = path.join(workspaceDir, MAINTENANCE_DIR, id);
  let images = 0;

  const abs = (rel: string) => path.join(workspaceDir, ...rel.split("/"));

  async function saveImage(bytes: Buffer): Promise<string> {
    images += 1;
    const name = `${String(images).padStart(4, "0")}.orig`;
    await writeFileAtomic(path.join(runDir, name), bytes);
    return name;
  }

  async function snapshot(rel: string): Promise<Snapshot | { refused: string }> {
    if (options.dryRun && overlay.has(rel)) {
      const text = overlay.get(rel) ?? null;
      return text === null ? null : { text, bytes: Buffer.from(text, "utf8") };
    }
    return readEditable(workspaceDir, abs(rel));
  }

  const run = {
    id,
    clock: options.clock,
    dryRun: Boolean(options.dryRun),
    changes,
    notes,
    workspaceDir,

    /** The step now running (recorded in the run's line). */
    step(name: string): void {
      if (!steps.includes(name)) steps.push(name);
    },

    note(message: string): void {
      notes.push(message);
    },

    /** A file's text as this run sees it (its own writes included); undefined when missing or not editable. */
    async read(rel: string): Promise<string | undefined> {
      const snap = await snapshot(rel);
      if (snap === null) return undefined;
      if ("refused" in snap) {
        notes.push(`${rel}: left alone (${snap.refused})`);
        return undefined;
      }
      return snap.text;
    },

    /** Names in a workspace folder as this run sees it (files it deleted gone, files it created there). */
    async list(relDir: string): Promise<string[]> {
      const names = new Set(await fs.readdir(abs(relDir)).catch(() => [] as string[]));
      if (options.dryRun) {
        const prefix = relDir === "" ? "" : `${relDir}/`;
        for (const [rel, text] of overlay) {
          if (!rel.startsWith(prefix) || rel.slice(prefix.length).includes("/")) continue;
          const name = rel.slice(prefix.length);
          if (text === null) names.delete(name);
          else names.add(name);
        }
      }
      return [...names].sort();
    },

    /**
     * Replace a file's text with `transform(text)` (text "" and `exists: false` for a missing file;
     * null or the same text: no change). Compare-and-swap under the lock: when the file changed
     * between our read and the write, it is read and transformed again (bounded).
     */
    async rewrite(rel: string, transform: (text: string, exists: boolean) => string | null, label: ChangeLabel): Promise<boolean> {
      for (let attempt = 1; ; attempt++) {
        const snap = await snapshot(rel);
        if (snap !== null && "refused" in snap) {
          notes.push(`${rel}: not changed (${snap.refused})`);
          return false;
        }
        const before = snap?.text ?? "";
        const next = transform(before, snap !== null);
        if (next === null || (snap !== null && next === before)) return false;
        const change: FileChange = { file: rel, kind: snap === null ? "create" : "rewrite", ...label, afterHash: contentHash(next) };
        if (snap !== null) change.beforeHash = contentHash(snap.bytes);
        if (options.dryRun) {
          overlay.set(rel, next);
          changes.push(change);
          return true;
        }
        if (snap !== null) change.image = await saveImage(snap.bytes);
        try {
          await fs.mkdir(path.dirname(abs(rel)), { recursive: true });
          await updateFileLocked(abs(rel), () => next, { ...lock, expectedHash: contentHash(before) });
          changes.push(change);
          return true;
        } catch (error) {
          if (!(error instanceof ContentChangedError) || attempt >= MAX_CAS_ATTEMPTS) throw error;
        }
      }
    },

    /**
     * Append to a file (O_APPEND under its lock, the way every shared file is appended to). `entry`
     * may be a function of the current text, returning null to append nothing (already there).
     */
    async append(rel: string, entry: string | ((current: string) => string | null), label: ChangeLabel): Promise<boolean> {
      const decide = (current: string) => (typeof entry === "function" ? entry(current) : entry);
      if (options.dryRun) {
        const snap = await snapshot(rel);
        if (snap !== null && "refused" in snap) return false;
        const current = snap?.text ?? "";
        const text = decide(current);
        if (text === null) return false;
        const next = current === "" ? (text.endsWith("\n") ? text : `${text}\n`) : `${current}${current.endsWith("\n") ? "" : "\n"}${text.endsWith("\n") ? text : `${text}\n`}`;
        overlay.set(rel, next);
        changes.push({ file: rel, kind: snap === null ? "create" : "append", ...label });
        return true;
      }
      await fs.mkdir(path.dirname(abs(rel)), { recursive: true });
      const existed = await fs.stat(abs(rel)).then(() => true, () => false);
      let appended: { before: string; bytes: string } | undefined;
      const result = await appendFileLocked(
        abs(rel),
        (current) => {
          const text = decide(current);
          // What appendFileLocked writes: a newline when the file does not end in one, the entry, its newline.
          if (text !== null) appended = { before: current, bytes: `${current !== "" && !current.endsWith("\n") ? "\n" : ""}${appendText("", text)}` };
          return text;
        },
        lock,
      );
      if (!result.written || !appended) return false;
      const beforeSize = Buffer.byteLength(appended.before);
      // Someone else's bytes landed next to ours (conflicts): the size is what is on disk now.
      const afterSize = result.conflicts === 0 ? beforeSize + Buffer.byteLength(appended.bytes) : ((await fs.stat(abs(rel)).catch(() => undefined))?.size ?? beforeSize);
      changes.push(
        existed
          ? { file: rel, kind: "append", ...label, beforeSize, beforeHash: contentHash(appended.before), afterSize, afterHash: result.hashAfter }
          : { file: rel, kind: "create", ...label, afterHash: result.hashAfter },
      );
      return true;
    },

    /** Delete a file, only if it still holds `expectedText` (decided under its lock). */
    async remove(rel: string, expectedText: string, label: ChangeLabel): Promise<boolean> {
      const expected = contentHash(expectedText);
      if (options.dryRun) {
        const snap = await snapshot(rel);
        if (snap === null || "refused" in snap || contentHash(snap.bytes) !== expected) return false;
        overlay.set(rel, null);
        changes.push({ file: rel, kind: "delete", ...label, beforeHash: expected });
        return true;
      }
      return withFileLock(
        abs(rel),
        async () => {
          const snap = await readEditable(workspaceDir, abs(rel));
          if (snap === null || "refused" in snap || contentHash(snap.bytes) !== expected) {
            notes.push(`${rel}: not removed (changed since it was read)`);
            return false;
          }
          const image = await saveImage(snap.bytes);
          await fs.unlink(abs(rel));
          changes.push({ file: rel, kind: "delete", ...label, beforeHash: expected, image });
          return true;
        },
        lock,
      );
    },

    /** The run's record; appended to runs.jsonl unless this is a dry run. */
    async finish(): Promise<RunRecord> {
      const record: RunRecord = { run: id, clock: options.clock.toISOString(), startedAt, finishedAt: wall().toISOString(), trigger: options.trigger, steps, changes, notes };
      if (!options.dryRun) {
        await fs.mkdir(path.join(workspaceDir, MAINTENANCE_DIR), { recursive: true });
        await appendFileLocked(runsFile(workspaceDir), `${JSON.stringify(record)}\n`, lock);
      }
      return record;
    },
  };
  return run;
}

/** Start a run with an id no earlier run has. */
export async function beginRun(options: RunOptions): Promise<Run> {
  const taken = new Set((await listRuns(options.workspaceDir)).map((run) => run.run));
  return startRun(options, taken);
}

// ── undo ───────────────────────────────────────────────────────────────────────────────────────

export type UndoPlan = {
  run: RunSummary;
  /** Files whose current bytes are not what the run left (changed since): undo refuses them all. */
  blocked: { file: string; why: string }[];
  /** The restore steps, newest change first. */
  steps: { file: string; action: "restore" | "remove" | "cut-append"; what: string }[];
};

async function currentBytes(workspaceDir: string, rel: string): Promise<Buffer | null> {
  const read = await readRegularFile(path.join(workspaceDir, ...rel.split("/")), { maxBytes: MAX_LOCKED_FILE_BYTES, root: workspaceDir });
  if (read.ok) return read.bytes;
  if (read.reason === "missing") return null;
  throw new Error(`${rel}: ${read.reason}, cannot undo`);
}

/**
 * What undoing `runId` would do, checked against the files as they are now. A file the run changed
 * must still hold exactly what the run left (a later run, the agent or the operator may have
 * changed it since: undo the later run first, or restore by hand from the image). An appended log
 * may have grown after our append: only our bytes are cut out.
 */
export async function planUndo(workspaceDir: string, runId: string): Promise<UndoPlan> {
  const runs = await listRuns(workspaceDir);
  const run = runs.find((candidate) => candidate.run === runId);
  if (!run) throw new Error(`no maintenance run "${runId}" in ${path.join(MAINTENANCE_DIR, RUNS_FILE)} (runs: ${runs.slice(-5).map((r) => r.run).join(", ") || "none"})`);
  if (run.undone) throw new Error(`run ${runId} was undone already (${run.undone})`);
  const blocked: UndoPlan["blocked"] = [];
  const steps: UndoPlan["steps"] = [];
  // What each file holds before the next (older) change is undone: its bytes now, then the
  // "before" of each change undone (a hash, or null for no file).
  const state = new Map<string, string | null>();
  for (const change of [...run.changes].reverse()) {
    const newest = !state.has(change.file);
    const now = newest ? await currentBytes(workspaceDir, change.file) : undefined;
    const hash = newest ? (now ? contentHash(now) : null) : state.get(change.file);
    if (change.kind === "append" && newest && now) {
      // An appended log may have grown since: our bytes must still be there, as we left them.
      const ours = change.afterSize ?? now.length;
      if (now.length < ours || contentHash(now.subarray(0, ours)) !== change.afterHash) blocked.push({ file: change.file, why: "changed since the run (not only appended to)" });
      steps.push({ file: change.file, action: "cut-append", what: change.what });
    } else if (change.kind === "delete") {
      if (hash !== null) blocked.push({ file: change.file, why: "exists again since the run deleted it" });
      steps.push({ file: change.file, action: "restore", what: change.what });
    } else {
      if (hash !== change.afterHash) blocked.push({ file: change.file, why: "changed since the run" });
      steps.push({ file: change.file, action: change.kind === "create" ? "remove" : change.kind === "append" ? "cut-append" : "restore", what: change.what });
    }
    state.set(change.file, change.kind === "create" ? null : (change.beforeHash ?? null));
  }
  return { run, blocked, steps };
}

/** Undo a run: every file it changed back to its bytes before the run, newest change first. */
export async function undoRun(workspaceDir: string, runId: string, options: { lock: LockOptions; wallClock?: () => Date }): Promise<UndoRecord> {
  const plan = await planUndo(workspaceDir, runId);
  if (plan.blocked.length > 0) {
    throw new Error(`cannot undo run ${runId}: ${plan.blocked.map((b) => `${b.file} ${b.why}`).join("; ")}. Undo the later runs that changed these files first (maintain --list).`);
  }
  const lock = { ...options.lock, containWithin: workspaceDir };
  const runDir = path.join(workspaceDir, MAINTENANCE_DIR, runId);
  const restored: string[] = [];
  for (const change of [...plan.run.changes].reverse()) {
    const file = path.join(workspaceDir, ...change.file.split("/"));
    await withFileLock(
      file,
      async () => {
        if (change.kind === "create") {
          await fs.rm(file, { force: true });
        } else if (change.kind === "append") {
          const now = (await currentBytes(workspaceDir, change.file)) ?? Buffer.alloc(0);
          const ours = change.afterSize ?? now.length;
          await writeFileAtomic(file, Buffer.concat([now.subarray(0, change.beforeSize ?? 0), now.subarray(ours)]));
        } else {
          const image = await fs.readFile(path.join(runDir, change.image ?? "missing-image"));
          if (change.beforeHash && contentHash(image) !== change.beforeHash) throw new Error(`image ${change.image} of ${change.file} does not match its recorded hash`);
          await writeFileAtomic(file, image);
        }
      },
      lock,
    );
    // After the lock is gone (its folder sat beside the file).
    if (change.kind === "create") await removeEmptyParents(path.dirname(file), workspaceDir);
    if (!restored.includes(change.file)) restored.push(change.file);
  }
  const record: UndoRecord = { undo: runId, at: (options.wallClock ?? (() => new Date()))().toISOString(), restored };
  await appendFileLocked(runsFile(workspaceDir), `${JSON.stringify(record)}\n`, lock);
  return record;
}

/** Folders the run created (Archive/Chronicles/ on a first archival) go again when they are empty. */
async function removeEmptyParents(dir: string, workspaceDir: string): Promise<void> {
  let current = dir;
  while (current.startsWith(workspaceDir + path.sep) && current !== workspaceDir) {
    try {
      await fs.rmdir(current);
    } catch {
      return; // not empty (or gone): stop
    }
    current = path.dirname(current);
  }
}
