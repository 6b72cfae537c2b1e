import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyBootstrapPolicy } from "../../src/bootstrap/apply.ts";
import { estimateInjection, resolveBootstrapLimits } from "../../src/bootstrap/budget.ts";
import { hostDroppedNames, hostVersionFor } from "../../src/bootstrap/host-filters.ts";
import { DEFAULT_POLICY, resolveBootstrapPolicy } from "../../src/bootstrap/policy.ts";
import { readWorkspaceFile } from "../../src/bootstrap/workspace-read.ts";
import type { BootstrapFileRecord } from "../../src/host/events.ts";
import { classifySession } from "../../src/session/classify.ts";

let root: string;
let ws: string;

function write(name: string, content: string): string {
  const file = path.join(ws, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

function coreRecords(names: string[]): BootstrapFileRecord[] {
  return names.map((name) => ({ name, path: path.join(ws, name), content: `# ${name}\ncore content of ${name}\n`, missing: false }));
}

const classify = (key: string) => classifySession(key, { ownerIds: ["123"] });

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "aci-apply-"));
  ws = path.join(root, "workspace");
  fs.mkdirSync(ws);
  write("TOOLS_COMPACT.md", "# TOOLS_COMPACT\n## Browser\nCDP :9222\n");
  write("HEARTBEAT.md", "# HEARTBEAT\n- check MC\n");
  write("SOUL.md", "# SOUL\nI am Jules.\n");
  write("USER.md", "# USER\nJeff\n");
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe("keep, drop and add", () => {
  it("main: keeps SOUL and USER as the same objects, drops the rest, adds TOOLS_COMPACT.md", async () => {
    const incoming = coreRecords(["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md"]);
    const { files, decision } = await applyBootstrapPolicy({ files: incoming, workspaceDir: ws, classification: classify("agent:main:main"), policy: DEFAULT_POLICY });
    expect(files.map((f) => f.name)).toEqual(["SOUL.md", "USER.md", "TOOLS_COMPACT.md"]);
    expect(files[0]).toBe(incoming[1]);
    expect(files[1]).toBe(incoming[3]);
    expect(files[2]).toEqual({ name: "TOOLS_COMPACT.md", path: path.join(ws, "TOOLS_COMPACT.md"), content: "# TOOLS_COMPACT\n## Browser\nCDP :9222\n", missing: false });
    expect(decision.dropped).toEqual(["AGENTS.md", "IDENTITY.md", "MEMORY.md"]);
    expect(decision.added).toEqual(["TOOLS_COMPACT.md"]);
    expect(decision.tokensAfter).toBeLessThan(decision.tokensBefore);
    expect(incoming.map((f) => f.name)).toEqual(["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md"]);
  });

  it("BOOTSTRAP.md and the ETHOS_CONTEXT.md record always pass through untouched", async () => {
    const bootstrap = { name: "BOOTSTRAP.md", path: path.join(ws, "BOOTSTRAP.md"), missing: true };
    const ethos = { name: "ETHOS_CONTEXT.md", path: path.join(ws, "ETHOS_CONTEXT.md"), content: "retrieved", missing: false };
    const incoming = [...coreRecords(["AGENTS.md", "SOUL.md"]), bootstrap, ethos];
    const { files } = await applyBootstrapPolicy({ files: incoming, workspaceDir: ws, classification: classify("agent:main:telegram:group:-100"), policy: DEFAULT_POLICY });
    expect(files).toContain(bootstrap);
    expect(files).toContain(ethos);
  });

  it("subagent: the incoming AGENTS.md is dropped, SOUL.md is read from disk, and the host gap is reported", async () => {
    const incoming = coreRecords(["AGENTS.md"]);
    const { files, decision } = await applyBootstrapPolicy({ files: incoming, workspaceDir: ws, classification: classify("agent:main:subagent:abc"), policy: DEFAULT_POLICY });
    expect(files.map((f) => f.name)).toEqual(["SOUL.md"]);
    expect(files[0].content).toBe("# SOUL\nI am Jules.\n");
    expect(decision.hostFiltered).toEqual(["SOUL.md"]);
    expect(decision.hostVersion).toBe("2026.9.6");
  });

  it("cron: HEARTBEAT.md is added and reported as filtered by the host", async () => {
    const incoming = coreRecords(["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md"]);
    const { files, decision } = await applyBootstrapPolicy({ files: incoming, workspaceDir: ws, classification: classify("agent:main:cron:job:run:sid"), policy: DEFAULT_POLICY });
    expect(files.map((f) => f.name)).toEqual(["SOUL.md", "HEARTBEAT.md"]);
    expect(decision.hostFiltered).toEqual(["HEARTBEAT.md"]);
  });

  it("never reads USER.md from disk when core left it out", async () => {
    const incoming = coreRecords(["AGENTS.md", "SOUL.md"]);
    const { files, decision } = await applyBootstrapPolicy({ files: incoming, workspaceDir: ws, classification: classify("agent:main:main"), policy: DEFAULT_POLICY });
    expect(files.map((f) => f.name)).toEqual(["SOUL.md", "TOOLS_COMPACT.md"]);
    expect(decision.skipped).toContainEqual({ name: "USER.md", reason: "private-core-file" });
  });

  it("adds configured topic extras from subfolders", async () => {
    write("topics/ops.md", "# Ops runbook\n");
    const policy = resolveBootstrapPolicy({ topicFiles: { "15": ["topics/ops.md"] } });
    const { files } = await applyBootstrapPolicy({ files: coreRecords(["SOUL.md"]), workspaceDir: ws, classification: classify("agent:main:telegram:group:-100:topic:15"), policy });
    expect(files.map((f) => f.name)).toEqual(["SOUL.md", "TOOLS_COMPACT.md", "topics/ops.md"]);
  });

  it("skips a missing file without failing", async () => {
    fs.rmSync(path.join(ws, "TOOLS_COMPACT.md"));
    const { files, decision } = await applyBootstrapPolicy({ files: coreRecords(["SOUL.md"]), workspaceDir: ws, classification: classify("agent:main:telegram:group:-100"), policy: DEFAULT_POLICY });
    expect(files.map((f) => f.name)).toEqual(["SOUL.md"]);
    expect(decision.skipped).toEqual([{ name: "TOOLS_COMPACT.md", reason: "missing" }]);
  });

  it("skips an empty file", async () => {
    write("TOOLS_COMPACT.md", "  \n\n");
    const { files, decision } = await applyBootstrapPolicy({ files: coreRecords(["SOUL.md"]), workspaceDir: ws, classification: classify("agent:main:telegram:group:-100"), policy: DEFAULT_POLICY });
    expect(files.map((f) => f.name)).toEqual(["SOUL.md"]);
    expect(decision.skipped).toEqual([{ name: "TOOLS_COMPACT.md", reason: "empty" }]);
  });

  it("drops entries that are not records", async () => {
    const incoming = [null, 42, { name: 7 }, ...coreRecords(["SOUL.md"])];
    const { files, decision } = await applyBootstrapPolicy({ files: incoming, workspaceDir: ws, classification: classify("agent:main:telegram:group:-100"), policy: DEFAULT_POLICY });
    expect(files.map((f) => f.name)).toEqual(["SOUL.md", "TOOLS_COMPACT.md"]);
    expect(decision.dropped).toEqual(["<invalid record>", "<invalid record>", "<invalid record>"]);
  });
});

describe("faults", () => {
  it("unreadable file (symlink loop) is skipped", async () => {
    fs.rmSync(path.join(ws, "TOOLS_COMPACT.md"));
    fs.symlinkSync("LOOP_B.md", path.join(ws, "TOOLS_COMPACT.md"));
    fs.symlinkSync("TOOLS_COMPACT.md", path.join(ws, "LOOP_B.md"));
    const { files, decision } = await applyBootstrapPolicy({ files: coreRecords(["SOUL.md"]), workspaceDir: ws, classification: classify("agent:main:telegram:group:-100"), policy: DEFAULT_POLICY });
    expect(files.map((f) => f.name)).toEqual(["SOUL.md"]);
    expect(decision.skipped).toEqual([{ name: "TOOLS_COMPACT.md", reason: "unreadable" }]);
  });

  it("a directory where a file should be is skipped", async () => {
    fs.rmSync(path.join(ws, "TOOLS_COMPACT.md"));
    fs.mkdirSync(path.join(ws, "TOOLS_COMPACT.md"));
    const read = await readWorkspaceFile(ws, "TOOLS_COMPACT.md", 1024);
    expect(read).toMatchObject({ ok: false, reason: "not-a-file" });
  });

  it("a file larger than the cap is skipped", async () => {
    write("TOOLS_COMPACT.md", "x".repeat(5000));
    const policy = resolveBootstrapPolicy({ maxFileBytes: 4096 });
    const { files, decision } = await applyBootstrapPolicy({ files: coreRecords(["SOUL.md"]), workspaceDir: ws, classification: classify("agent:main:telegram:group:-100"), policy });
    expect(files.map((f) => f.name)).toEqual(["SOUL.md"]);
    expect(decision.skipped).toEqual([{ name: "TOOLS_COMPACT.md", reason: "over-cap" }]);
  });

  it("a file exactly at the cap is read", async () => {
    write("TOOLS_COMPACT.md", "y".repeat(4096));
    const read = await readWorkspaceFile(ws, "TOOLS_COMPACT.md", 4096);
    expect(read.ok && read.content.length).toBe(4096);
  });

  it("a symlink pointing outside the workspace is not followed", async () => {
    const outside = path.join(root, "outside-secret.md");
    fs.writeFileSync(outside, "SECRET outside the workspace");
    fs.rmSync(path.join(ws, "TOOLS_COMPACT.md"));
    fs.symlinkSync(outside, path.join(ws, "TOOLS_COMPACT.md"));
    const { files, decision } = await applyBootstrapPolicy({ files: coreRecords(["SOUL.md"]), workspaceDir: ws, classification: classify("agent:main:telegram:group:-100"), policy: DEFAULT_POLICY });
    expect(files.map((f) => f.name)).toEqual(["SOUL.md"]);
    expect(JSON.stringify(files)).not.toContain("SECRET");
    expect(decision.skipped).toEqual([{ name: "TOOLS_COMPACT.md", reason: "outside-workspace" }]);
  });

  it("a symlink that stays inside the workspace is followed", async () => {
    write("generated/compact.md", "# compact via link\n");
    fs.rmSync(path.join(ws, "TOOLS_COMPACT.md"));
    fs.symlinkSync(path.join(ws, "generated/compact.md"), path.join(ws, "TOOLS_COMPACT.md"));
    const read = await readWorkspaceFile(ws, "TOOLS_COMPACT.md", 1024);
    expect(read).toMatchObject({ ok: true, content: "# compact via link\n", path: path.join(ws, "TOOLS_COMPACT.md") });
  });

  it("sees a changed file on the next read (the content cache is validated by stat)", async () => {
    const file = write("TOOLS_COMPACT.md", "version-one\n");
    expect(await readWorkspaceFile(ws, "TOOLS_COMPACT.md", 1024)).toMatchObject({ ok: true, content: "version-one\n" });
    fs.writeFileSync(file, "version-two\n");
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(file, later, later);
    expect(await readWorkspaceFile(ws, "TOOLS_COMPACT.md", 1024)).toMatchObject({ ok: true, content: "version-two\n" });
  });

  it("a lexical escape is refused before touching the disk", async () => {
    expect(await readWorkspaceFile(ws, "../outside.md", 1024)).toMatchObject({ ok: false, reason: "outside-workspace" });
  });

  it("without a workspace nothing is added", async () => {
    const { files, decision } = await applyBootstrapPolicy({ files: coreRecords(["SOUL.md"]), workspaceDir: undefined, classification: classify("agent:main:telegram:group:-100"), policy: DEFAULT_POLICY });
    expect(files.map((f) => f.name)).toEqual(["SOUL.md"]);
    expect(decision.skipped).toEqual([{ name: "TOOLS_COMPACT.md", reason: "no-workspace" }]);
  });
});

describe("budgets", () => {
  it("resolve per agent, then defaults, then 20,000 / 60,000", () => {
    expect(resolveBootstrapLimits(undefined, "main")).toEqual({ maxChars: 20_000, totalMaxChars: 60_000 });
    const cfg = { agents: { defaults: { bootstrapMaxChars: 500, bootstrapTotalMaxChars: 900 }, entries: { ops: { bootstrapTotalMaxChars: 300 } } } };
    expect(resolveBootstrapLimits(cfg, "main")).toEqual({ maxChars: 500, totalMaxChars: 900 });
    expect(resolveBootstrapLimits(cfg, "OPS")).toEqual({ maxChars: 500, totalMaxChars: 300 });
    const listCfg = { agents: { list: [{ id: "ops", bootstrapMaxChars: 77 }] } };
    expect(resolveBootstrapLimits(listCfg, "ops")).toEqual({ maxChars: 77, totalMaxChars: 60_000 });
    expect(resolveBootstrapLimits({ agents: { defaults: { bootstrapMaxChars: "big" } } }, "main").maxChars).toBe(20_000);
  });

  it("estimate core's injection in array order, with the USER.md cap and missing markers", () => {
    const records = [
      { name: "AGENTS.md", path: "/w/AGENTS.md", content: "a".repeat(150) },
      { name: "USER.md", path: "/w/USER.md", content: "u".repeat(5000) },
      { name: "SOUL.md", path: "/w/SOUL.md", missing: true },
      { name: "EMPTY.md", path: "/w/EMPTY.md", content: "   " },
    ];
    const estimate = estimateInjection(records, { maxChars: 20_000, totalMaxChars: 60_000 });
    expect(estimate.map((e) => [e.name, e.injectedChars, e.truncated])).toEqual([
      ["AGENTS.md", 150, false],
      ["USER.md", 4000, true],
      ["SOUL.md", "[MISSING] Expected at: /w/SOUL.md".length, false],
    ]);
  });

  it("does not add files once core's remaining budget is below 64 chars", async () => {
    const cfg = { agents: { defaults: { bootstrapTotalMaxChars: 60 } } };
    const { files, decision } = await applyBootstrapPolicy({ files: coreRecords(["SOUL.md"]), workspaceDir: ws, classification: classify("agent:main:telegram:group:-100"), policy: DEFAULT_POLICY, cfg, agentId: "main" });
    expect(files.map((f) => f.name)).toEqual(["SOUL.md"]);
    expect(decision.skipped).toEqual([{ name: "TOOLS_COMPACT.md", reason: "budget" }]);
  });
});

describe("host filters", () => {
  const recs = (names: string[]) => names.map((name) => ({ name, path: `/w/${name}` }));
  it("subagent keeps only AGENTS.md, cron keeps the four core names", () => {
    expect(hostDroppedNames(recs(["AGENTS.md", "SOUL.md", "ETHOS_CONTEXT.md"]), classify("agent:main:subagent:x"), "/w")).toEqual(["SOUL.md", "ETHOS_CONTEXT.md"]);
    expect(hostDroppedNames(recs(["SOUL.md", "USER.md", "HEARTBEAT.md"]), classify("cron:job"), "/w")).toEqual(["HEARTBEAT.md"]);
  });
  it("acp, webhook-persistent and heartbeat keys are not filtered by core", () => {
    for (const key of ["agent:main:acp:x", "agent:main:hook:x", "agent:main:main:heartbeat"]) {
      expect(hostDroppedNames(recs(["SOUL.md", "HEARTBEAT.md"]), classify(key), "/w")).toEqual([]);
    }
  });
  it("picks the host version from config, then meta.lastTouchedVersion, then the newest known", () => {
    expect(hostVersionFor("2026.3.13", { meta: { lastTouchedVersion: "2026.9.6" } })).toBe("2026.3.13");
    expect(hostVersionFor(undefined, { meta: { lastTouchedVersion: "2026.4.1" } })).toBe("2026.3.13");
    expect(hostVersionFor(undefined, { meta: { lastTouchedVersion: "2027.1.1" } })).toBe("2026.9.6");
    expect(hostVersionFor(undefined, undefined)).toBe("2026.9.6");
    expect(hostVersionFor(undefined, { meta: { lastTouchedVersion: "garbage" } })).toBe("2026.9.6");
  });
  it("groups lose the root MEMORY.md by path, not other files", () => {
    expect(hostDroppedNames(recs(["SOUL.md", "MEMORY.md"]), classify("agent:main:telegram:group:-1"), "/w")).toEqual(["MEMORY.md"]);
  });
});
