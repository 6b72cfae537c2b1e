import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveBytes, SIM_CONFIG, simulateVault } from "../../bench/maintenance.ts";
import type { Ledger } from "../../bench/maintenance.ts";
import { setLogDestination } from "../../src/core/log.ts";
import { defaultEthosContextConfig } from "../../src/context/config.ts";
import { runContextPipeline } from "../../src/context/pipeline.ts";
import { COMPACTION_LOG_FILE, CONFLICTS_FILE } from "../../src/lifecycle/audit-log.ts";
import { runMaintenancePass } from "../../src/lifecycle/pass.ts";
import { MAINTENANCE_DIR, undoRun } from "../../src/lifecycle/run-log.ts";
import type { RunRecord } from "../../src/lifecycle/run-log.ts";
import { SOUL_DRAFT } from "../../src/lifecycle/soul-keeper.ts";
import { buildMemoryIndex } from "../../src/memory/memory-index.ts";
import { createEmbeddedRetriever } from "../../src/memory/retriever.ts";
import { workspaceMemorySources } from "../../src/memory/sources.ts";

// The "done when": 90 days of a generated vault (bench/maintenance.ts: daily captures,
// repeats, corrections, reminders, the agent's notes, hand edits), one maintenance pass a night on
// a fake clock. Every night the pass is also undone (the files must be byte for byte as before it)
// and run again (the same files, run ids aside: the pass is deterministic). Then: nothing the
// operator said is lost and retrieval still answers, the live files are smaller than in the same
// vault without passes, and every file a pass changed is in its run's record.

const DAYS = 90;
const SEED = 7;
const LOCK = { retryIntervalSeconds: 0.01, maxRetries: 200 };

/** Every file of the workspace but the run log's folder, with its bytes. */
function snapshot(ws: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, entry.name);
      const rel = path.relative(ws, abs).split(path.sep).join("/");
      if (rel === MAINTENANCE_DIR.split(path.sep).join("/")) continue;
      if (entry.isDirectory()) walk(abs);
      else files.set(rel, fs.readFileSync(abs));
    }
  };
  walk(ws);
  return files;
}

function changedFiles(before: Map<string, Buffer>, after: Map<string, Buffer>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((name) => !(before.get(name)?.equals(after.get(name) ?? Buffer.alloc(0)) && after.has(name) === before.has(name))).sort();
}

/** The files' text with run ids taken out (the redo of a pass has the id `<clock>-2`). */
function withoutRunIds(files: Map<string, Buffer>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, bytes] of files) out[name] = bytes.toString("utf8").replace(/\b\d{8}T\d{6}Z(?:-\d+)?\b/g, "<run>");
  return out;
}

function allText(ws: string, under: string): string {
  const dir = path.join(ws, under);
  if (!fs.existsSync(dir)) return "";
  if (fs.statSync(dir).isFile()) return fs.readFileSync(dir, "utf8");
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => !entry.name.startsWith("."))
    .map((entry) => allText(ws, path.join(under, entry.name)))
    .join("\n");
}

describe(`a ${DAYS}-day vault with a maintenance pass every night`, () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "simulation-"));
  const ws = path.join(root, "with");
  const bare = path.join(root, "without");
  let ledger: Ledger;
  const runs: RunRecord[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    setLogDestination({ write: () => true } as never);
    fs.mkdirSync(ws);
    fs.mkdirSync(bare);
    ledger = await simulateVault({
      workspaceDir: ws,
      days: DAYS,
      seed: SEED,
      nightly: async (clock, day) => {
        const before = snapshot(ws);
        const pass = () => runMaintenancePass({ workspaceDir: ws, now: clock, config: SIM_CONFIG, wallClock: () => clock });
        const { record } = await pass();
        const after = snapshot(ws);
        // Every file that changed is in the run's record, and every record entry is a real change.
        const recorded = [...new Set(record.changes.map((change) => change.file))].sort();
        if (JSON.stringify(changedFiles(before, after)) !== JSON.stringify(recorded)) problems.push(`day ${day}: changed ${changedFiles(before, after).join(", ")}; recorded ${recorded.join(", ")}`);
        if (record.changes.length > 0) {
          await undoRun(ws, record.run, { lock: LOCK });
          const undone = snapshot(ws);
          if (changedFiles(before, undone).length > 0) problems.push(`day ${day}: undo left ${changedFiles(before, undone).join(", ")} different`);
          const again = await pass();
          if (JSON.stringify(withoutRunIds(snapshot(ws))) !== JSON.stringify(withoutRunIds(after))) problems.push(`day ${day}: the pass run again made other files`);
          runs.push(again.record);
        } else runs.push(record);
        // Idempotent: a second pass at the same clock finds nothing to do.
        const idle = await pass();
        if (idle.record.changes.length > 0) problems.push(`day ${day}: a second pass changed ${idle.record.changes.map((c) => c.file).join(", ")}`);
      },
    });
    await simulateVault({ workspaceDir: bare, days: DAYS, seed: SEED });
  }, 1_800_000);

  afterAll(() => {
    setLogDestination(undefined);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("every night: the record names every file the pass changed, undo restores them byte for byte, the same pass again gives the same files, a second pass changes nothing", () => {
    expect(problems).toEqual([]);
    expect(runs).toHaveLength(DAYS);
    // The vault gave the passes work of every kind.
    const steps = new Set(runs.flatMap((run) => run.changes.map((change) => change.step)));
    expect([...steps].sort()).toEqual(["compaction", "conflicts", "corrections", "soul-history", "soul-keeper"]);
    expect(ledger.promoted).toBe(true);
  });

  it("nothing the operator said is lost: each statement is in a live file or the archive", () => {
    const kept = [allText(ws, "MEMORY.md"), allText(ws, "memory"), allText(ws, "Archive")].join("\n");
    const missing = ledger.said.filter((s) => !ledger.removedByHand.has(s.statement) && !kept.includes(s.statement));
    expect(missing).toEqual([]);
    expect(ledger.said.length).toBeGreaterThan(3 * DAYS);
    // The reminders too: archived corrections keep the operator's words.
    expect(kept).toContain("I already told you I'm vegetarian");
  });

  it("retrieval still answers a question about every fact the operator holds true, archived ones included", async () => {
    const index = await buildMemoryIndex(workspaceMemorySources(ws), { cacheDir: false });
    const retriever = createEmbeddedRetriever(index);
    const unanswered: string[] = [];
    for (const fact of ledger.current.values()) {
      const { block } = await runContextPipeline({ message: fact.question, retriever, config: defaultEthosContextConfig(), sessionType: "MAIN_SESSION" });
      if (!block.includes(fact.value)) unanswered.push(`${fact.question} (${fact.statement})`);
    }
    expect(unanswered).toEqual([]);
    const archived = [...ledger.current.values()].filter((fact) => allText(ws, "Archive/Chronicles").includes(fact.statement) && !allText(ws, "memory").includes(fact.statement));
    expect(archived.length).toBeGreaterThan(DAYS);
  });

  it("the live files are smaller than in the same vault without the passes", () => {
    const withPasses = liveBytes(ws);
    const without = liveBytes(bare);
    expect(withPasses.bytes).toBeLessThan(without.bytes);
    expect(withPasses.files).toBeLessThan(without.files);
  });

  it("every removal is in COMPACTION_LOG.md, every conflict in CONFLICTS.md, the proposal in the review gate", () => {
    const log = allText(ws, COMPACTION_LOG_FILE);
    const removed = runs.flatMap((run) => run.changes.filter((change) => change.kind === "delete").map((change) => change.file));
    expect(removed.length).toBeGreaterThan(50);
    for (const file of removed) expect(log).toContain(file);
    const conflicts = allText(ws, CONFLICTS_FILE);
    for (const change of runs.flatMap((run) => run.changes.filter((c) => c.step === "conflicts" && c.kind === "rewrite"))) expect(conflicts).toContain(/k-[0-9a-f]{12}/.exec(change.what)![0]);
    expect(allText(ws, SOUL_DRAFT)).toContain("I'm vegetarian");
    expect(allText(ws, "SOUL.md")).toContain("## Learned from corrections");
    expect(allText(ws, "CHANGELOG.md")).toContain("Occurrences:");
  });
});
