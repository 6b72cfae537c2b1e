import path from "node:path";

// The files the write side keeps for itself inside a workspace, next to the memory files it edits.
// Both are hidden (a dot name): the memory index and its folder watch never take them as memory.

/** The triage queue: one `YYYY-MM-DD.jsonl` per UTC day (triage.ts). */
export const TRIAGE_DIR = path.join("memory", ".triage");
/** The forget audit log: one JSON line per forget and per undo (forget.ts). */
export const FORGET_LOG = path.join("memory", ".forgotten.jsonl");
