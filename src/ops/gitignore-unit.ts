// ETHOS_CONTEXT.md is regenerated on every memory turn (Ethos story 007: "should be gitignored"), and
// OpenClaw keeps the workspace in git. Install adds it to the workspace's .gitignore; uninstall
// takes it out again: the file's exact bytes when nobody touched it since, else our line only.
import fs from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../fs/atomic.ts";
import { RETRIEVED_MEMORY_RECORD_NAME } from "../host/ids.ts";
import type { InstallUnit } from "./install-unit.ts";
import { readTextIfExists } from "./safe-write.ts";

export const GITIGNORE_UNIT_ID = "workspace-gitignore";
/** What install adds: the generated memory file at the workspace root, and the hidden temp file a crash mid-write can leave (src/fs/atomic.ts). */
export const GITIGNORE_LINES = [`/${RETRIEVED_MEMORY_RECORD_NAME}`, `/.${RETRIEVED_MEMORY_RECORD_NAME}.*.tmp`] as const;

/** Lines of GITIGNORE_LINES the text does not hold yet (the bare name counts for the first). */
function missingLines(text: string): string[] {
  const present = new Set(text.split(/\r?\n/).map((line) => line.trim()));
  if (present.has(RETRIEVED_MEMORY_RECORD_NAME)) present.add(GITIGNORE_LINES[0]);
  return GITIGNORE_LINES.filter((line) => !present.has(line));
}

export const gitignoreUnit: InstallUnit = {
  id: GITIGNORE_UNIT_ID,
  async install(params, previous) {
    const file = path.join(params.workspace, ".gitignore");
    if (!(await fs.stat(params.workspace).catch(() => undefined))?.isDirectory()) {
      params.log(`no workspace at ${params.workspace} yet: ${RETRIEVED_MEMORY_RECORD_NAME} not added to a .gitignore`);
      return { path: file, lines: [] };
    }
    const before = await readTextIfExists(file);
    // A re-run keeps the first run's record while our lines are still there: it knows the file before us.
    if (previous?.path === file && before !== undefined && missingLines(before).length === 0 && Array.isArray(previous.lines)) return previous;
    const missing = missingLines(before ?? "");
    if (missing.length === 0) {
      params.log(`${file} already ignores ${RETRIEVED_MEMORY_RECORD_NAME}`);
      return { path: file, lines: [] };
    }
    const eol = before?.includes("\r\n") ? "\r\n" : "\n";
    const separator = before === undefined || before === "" || before.endsWith("\n") ? "" : eol;
    const after = `${before ?? ""}${separator}${missing.map((line) => line + eol).join("")}`;
    await writeFileAtomic(file, after);
    params.log(`${before === undefined ? "created" : "added to"} ${file}: ${missing.join(", ")} (regenerated on every memory turn)`);
    return { path: file, lines: missing, existed: before !== undefined, ...(before !== undefined ? { before } : {}), after };
  },
  async uninstall(_params, record) {
    const added = Array.isArray(record?.lines) ? (record.lines as string[]) : [];
    if (added.length === 0 || typeof record?.path !== "string") return { steps: [], leftovers: [] };
    const file = record.path;
    const current = await readTextIfExists(file);
    if (current === undefined) return { steps: [`${file} is already gone`], leftovers: [] };
    if (current === record.after) {
      if (record.existed === true && typeof record.before === "string") {
        await writeFileAtomic(file, record.before);
        return { steps: [`${file} restored exactly as it was before install`], leftovers: [] };
      }
      await fs.rm(file, { force: true });
      return { steps: [`removed ${file} (install created it)`], leftovers: [] };
    }
    // Edited since: take out our lines only (one each), keep everything else as it is now.
    const lines = current.split(/(?<=\n)/);
    const removed: string[] = [];
    for (const ours of added) {
      const index = lines.findIndex((line) => line.trim() === ours);
      if (index < 0) continue;
      lines.splice(index, 1);
      removed.push(ours);
    }
    if (removed.length === 0) return { steps: [`${file} no longer holds our lines; left as it is`], leftovers: [] };
    await writeFileAtomic(file, lines.join(""));
    return { steps: [`${file} changed since install: removed our line(s) ${removed.join(", ")} only`], leftovers: [] };
  },
};
