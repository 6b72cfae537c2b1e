import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { beginRun, listRuns, planUndo, undoRun } from "../../src/lifecycle/run-log.ts";

const CLOCK = new Date("2026-11-26T03:00:00.000Z");
const LOCK = { retryIntervalSeconds: 0.01, maxRetries: 50 };

let ws: string;
beforeEach(() => {
  ws = fs.mkdtempSync(path.join(os.tmpdir(), "run-log-"));
  setLogDestination({ write: () => true } as never);
});
afterEach(() => {
  setLogDestination(undefined);
  fs.rmSync(ws, { recursive: true, force: true });
});

const file = (rel: string) => path.join(ws, rel);
const write = (rel: string, data: string | Buffer) => {
  fs.mkdirSync(path.dirname(file(rel)), { recursive: true });
  fs.writeFileSync(file(rel), data);
};
const read = (rel: string) => fs.readFileSync(file(rel));
const start = (dryRun = false) => beginRun({ workspaceDir: ws, clock: CLOCK, trigger: "test", lock: LOCK, dryRun, wallClock: () => CLOCK });

/** Every file of the workspace (the run log's own folder aside) with its bytes. */
function tree(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, entry.name);
      const rel = path.relative(ws, abs);
      if (rel === path.join("Archive", ".maintenance")) continue;
      if (entry.isDirectory()) walk(abs);
      else out[rel] = fs.readFileSync(abs).toString("base64");
    }
  };
  walk(ws);
  return out;
}

describe("a run records every change and undo restores byte for byte", () => {
  it("rewrite, create, append and delete, then undo: the workspace is as before", async () => {
    write("MEMORY.md", "- one\r\n- two\r\n");
    write("COMPACTION_LOG.md", "# Log\n");
    write("memory/2026-01-01.md", "- old\n");
    const before = tree();
    const run = await start();
    expect(await run.rewrite("MEMORY.md", (text) => text.replace("two", "three"), { step: "t", what: "edit" })).toBe(true);
    expect(await run.rewrite("Archive/Chronicles/2026-January.md", () => "# new\n", { step: "t", what: "create" })).toBe(true);
    expect(await run.append("COMPACTION_LOG.md", "- removed one", { step: "t", what: "log" })).toBe(true);
    expect(await run.remove("memory/2026-01-01.md", "- old\n", { step: "t", what: "delete" })).toBe(true);
    const record = await run.finish();
    expect(record.changes.map((c) => c.kind)).toEqual(["rewrite", "create", "append", "delete"]);
    expect(read("MEMORY.md").toString()).toBe("- one\r\n- three\r\n");
    expect(fs.existsSync(file("memory/2026-01-01.md"))).toBe(false);

    const undone = await undoRun(ws, record.run, { lock: LOCK });
    expect(undone.restored.sort()).toEqual(["Archive/Chronicles/2026-January.md", "COMPACTION_LOG.md", "MEMORY.md", "memory/2026-01-01.md"]);
    expect(tree()).toEqual(before);
    // The empty folder the run created went with its file.
    expect(fs.existsSync(file("Archive/Chronicles"))).toBe(false);
    expect((await listRuns(ws))[0].undone).toBeDefined();
    await expect(undoRun(ws, record.run, { lock: LOCK })).rejects.toThrow(/undone already/);
  });

  it("two changes of one file in one run are undone newest first", async () => {
    write("CORRECTIONS.md", "a\n");
    const run = await start();
    await run.rewrite("CORRECTIONS.md", () => "b\n", { step: "t", what: "1" });
    await run.rewrite("CORRECTIONS.md", () => "c\n", { step: "t", what: "2" });
    const record = await run.finish();
    await undoRun(ws, record.run, { lock: LOCK });
    expect(read("CORRECTIONS.md").toString()).toBe("a\n");
  });

  it("refuses to undo a file changed since the run, and changes nothing", async () => {
    write("MEMORY.md", "- one\n");
    write("CONFLICTS.md", "# C\n");
    const run = await start();
    await run.rewrite("MEMORY.md", () => "- two\n", { step: "t", what: "edit" });
    await run.append("CONFLICTS.md", "- found", { step: "t", what: "log" });
    const record = await run.finish();
    fs.writeFileSync(file("MEMORY.md"), "- two\n- the operator's edit\n");
    const plan = await planUndo(ws, record.run);
    expect(plan.blocked).toEqual([{ file: "MEMORY.md", why: "changed since the run" }]);
    await expect(undoRun(ws, record.run, { lock: LOCK })).rejects.toThrow(/MEMORY.md changed since the run/);
    expect(read("MEMORY.md").toString()).toBe("- two\n- the operator's edit\n");
    expect(read("CONFLICTS.md").toString()).toBe("# C\n- found\n");
  });

  it("a log appended to after the run: undo cuts out only the run's bytes", async () => {
    write("CONFLICTS.md", "# C\n");
    const run = await start();
    await run.append("CONFLICTS.md", "- ours", { step: "t", what: "log" });
    const record = await run.finish();
    fs.appendFileSync(file("CONFLICTS.md"), "- theirs\n");
    await undoRun(ws, record.run, { lock: LOCK });
    expect(read("CONFLICTS.md").toString()).toBe("# C\n- theirs\n");
  });

  it("a dry run writes nothing, and later reads see its own plan", async () => {
    write("MEMORY.md", "- one\n");
    write("memory/2026-01-01.md", "- old\n");
    const before = tree();
    const run = await start(true);
    await run.rewrite("MEMORY.md", () => "- two\n", { step: "t", what: "edit" });
    await run.remove("memory/2026-01-01.md", "- old\n", { step: "t", what: "delete" });
    await run.append("Archive/Chronicles/x.md", "- old", { step: "t", what: "archive" });
    expect(await run.read("MEMORY.md")).toBe("- two\n");
    expect(await run.list("memory")).toEqual([]);
    expect(await run.read("Archive/Chronicles/x.md")).toBe("- old\n");
    const record = await run.finish();
    expect(record.changes.map((c) => `${c.kind} ${c.file}`)).toEqual(["rewrite MEMORY.md", "delete memory/2026-01-01.md", "create Archive/Chronicles/x.md"]);
    expect(tree()).toEqual(before);
    expect(fs.existsSync(file("Archive"))).toBe(false);
  });

  it("a file that is not valid UTF-8 is left alone (a rewrite could not give its bytes back)", async () => {
    const bytes = Buffer.from([0x2d, 0x20, 0xff, 0xfe, 0x0a]);
    write("MEMORY.md", bytes);
    const run = await start();
    expect(await run.read("MEMORY.md")).toBeUndefined();
    expect(await run.rewrite("MEMORY.md", () => "- replaced\n", { step: "t", what: "edit" })).toBe(false);
    const record = await run.finish();
    expect(read("MEMORY.md")).toEqual(bytes);
    expect(record.notes.join("\n")).toMatch(/MEMORY.md: .*not valid UTF-8/);
  });

  it("a rewrite whose file changes under it is done again from the new text (compare-and-swap)", async () => {
    write("MEMORY.md", "- one\n");
    const run = await start();
    let calls = 0;
    await run.rewrite(
      "MEMORY.md",
      (text) => {
        calls += 1;
        // The agent appends between our read and our write, once.
        if (calls === 1) fs.appendFileSync(file("MEMORY.md"), "- agent\n");
        return `${text}- pass\n`;
      },
      { step: "t", what: "edit" },
    );
    const record = await run.finish();
    expect(calls).toBe(2);
    expect(read("MEMORY.md").toString()).toBe("- one\n- agent\n- pass\n");
    await undoRun(ws, record.run, { lock: LOCK });
    expect(read("MEMORY.md").toString()).toBe("- one\n- agent\n");
  });

  it("run ids sort by time and never repeat", async () => {
    const first = await (await start()).finish();
    const second = await (await start()).finish();
    expect([first.run, second.run]).toEqual(["20261126T030000Z", "20261126T030000Z-2"]);
  });
});
