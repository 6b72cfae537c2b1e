// Issue 11 items 2, 4, 7 (binary files), 9 and 12: every read is a bounded read of a regular file
// inside the workspace, no writer creates a workspace, and a failed owner write leaves no debris.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLogDestination } from "../../src/core/log.ts";
import { readWorkspaceFile } from "../../src/bootstrap/workspace-read.ts";
import { isSafeGroupMemoryDir } from "../../src/context/scope.ts";
import { contextFilePath, flushContextFileWrites, writeContextFile } from "../../src/context/context-file.ts";
import { readFileOrEmpty } from "../../src/fs/atomic.ts";
import { ownerPathFor, withFileLock } from "../../src/fs/lock.ts";
import { appendFileLocked } from "../../src/fs/locked-writes.ts";
import { readRegularFile } from "../../src/fs/safe-read.ts";
import { loadHygieneConfig } from "../../src/memory/config-md.ts";
import { assembleMemoryBlock } from "../../src/context/memory-block.ts";
import { triageInboundMessage } from "../../src/capture/triage.ts";
import { buildMemoryIndex } from "../../src/memory/memory-index.ts";
import { workspaceMemorySources } from "../../src/memory/sources.ts";
import { cutText, hitToMemory, MAX_HIT_TEXT_CHARS } from "../../src/ethos/retriever.ts";

const now = new Date("2026-02-22T12:00:00.000Z");
const TODAY = "2026-02-22.md";
let root: string;
let workspace: string;
let outside: string;
let lines: string[];

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "hardening-files-"));
  workspace = path.join(root, "workspace");
  outside = path.join(root, "outside");
  fs.mkdirSync(path.join(workspace, "memory"), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, "secret.md"), "- OUTSIDE_SENTINEL the neighbour's bank pin is 4321\n");
  fs.writeFileSync(path.join(outside, TODAY), "- OUTSIDE_SENTINEL daily from elsewhere\n");
  lines = [];
  setLogDestination(new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } }));
});
afterEach(() => {
  setLogDestination(undefined);
  vi.restoreAllMocks();
  fs.rmSync(root, { recursive: true, force: true });
});

const mkfifo = (file: string) => execFileSync("mkfifo", [file]);

describe("a FIFO never blocks a read (item 2)", () => {
  it("CONFIG.md, CORRECTIONS.md and memory/<today>.md as named pipes: every reader returns, and fs stays responsive", async () => {
    mkfifo(path.join(workspace, "CONFIG.md"));
    mkfifo(path.join(workspace, "CORRECTIONS.md"));
    mkfifo(path.join(workspace, "memory", TODAY));
    mkfifo(path.join(workspace, "TOOLS_COMPACT.md"));
    // More calls than libuv has threads (4): with a blocking open, the later ones would never run.
    for (let round = 0; round < 6; round++) {
      const config = await loadHygieneConfig(workspace);
      expect(config.ok).toBe(false);
      expect(config.error).toMatch(/not a regular file/);
      const block = await assembleMemoryBlock({ workspaceDir: workspace, semanticHits: [], maxTokens: 400, now });
      expect(block.errors.join(" ")).toMatch(/CORRECTIONS\.md: not-a-file/);
      expect((await readWorkspaceFile(workspace, "TOOLS_COMPACT.md", 4096)).ok).toBe(false);
    }
    // A locked append to a FIFO aborts instead of waiting for a writer.
    await expect(appendFileLocked(path.join(workspace, "CORRECTIONS.md"), "- entry", { retryIntervalSeconds: 0.01, maxRetries: 2 })).rejects.toThrow(/not-a-file/);
    await expect(readFileOrEmpty(path.join(workspace, "CORRECTIONS.md"))).rejects.toThrow(/not-a-file/);
    expect((await fsp.stat(workspace)).isDirectory()).toBe(true);
  });
});

describe("symlinks never pull content from outside the workspace (item 4)", () => {
  it("memory/<today>.md and CORRECTIONS.md linking out are not read into the block", async () => {
    fs.symlinkSync(path.join(outside, TODAY), path.join(workspace, "memory", TODAY));
    fs.writeFileSync(path.join(outside, "CORRECTIONS.md"), "# Corrections\n\n## corr-1\n- status: open\n> OUTSIDE_SENTINEL correction\n");
    fs.symlinkSync(path.join(outside, "CORRECTIONS.md"), path.join(workspace, "CORRECTIONS.md"));
    fs.symlinkSync(path.join(outside, "secret.md"), path.join(workspace, "CONFIG.md"));
    const block = await assembleMemoryBlock({ workspaceDir: workspace, semanticHits: [], maxTokens: 600, now });
    expect(block.text).not.toContain("OUTSIDE_SENTINEL");
    expect(block.errors.join(" ")).toMatch(/outside-root/);
    expect((await loadHygieneConfig(workspace)).error).toMatch(/a link that leaves the workspace/);
  });

  it("triage never copies the target of a CORRECTIONS.md link into the workspace", async () => {
    fs.symlinkSync(path.join(outside, "secret.md"), path.join(workspace, "CORRECTIONS.md"));
    const outcome = await triageInboundMessage({ content: "You forgot: I moved to Hangzhou", workspaceDir: workspace, now });
    expect(outcome.flagged).toBe(true);
    expect(outcome.errors.join(" ")).toMatch(/corrections: .*outside-root/);
    expect(fs.lstatSync(path.join(workspace, "CORRECTIONS.md")).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(path.join(outside, "secret.md"), "utf8")).toBe("- OUTSIDE_SENTINEL the neighbour's bank pin is 4321\n");
    const copies = fs.readdirSync(workspace, { recursive: true }).map(String).filter((name) => !name.endsWith("CORRECTIONS.md") && fs.statSync(path.join(workspace, name)).isFile());
    for (const name of copies) expect(fs.readFileSync(path.join(workspace, name), "utf8")).not.toContain("OUTSIDE_SENTINEL");
  });

  it("a link inside the workspace is still followed", async () => {
    fs.writeFileSync(path.join(workspace, "notes.md"), "- INSIDE_SENTINEL kept\n");
    fs.symlinkSync(path.join(workspace, "notes.md"), path.join(workspace, "memory", TODAY));
    const block = await assembleMemoryBlock({ workspaceDir: workspace, semanticHits: [], maxTokens: 600, now });
    expect(block.text).toContain("INSIDE_SENTINEL");
  });

  it("a memory/ folder that is itself a link to elsewhere is not indexed", async () => {
    fs.rmSync(path.join(workspace, "memory"), { recursive: true });
    fs.symlinkSync(outside, path.join(workspace, "memory"));
    fs.writeFileSync(path.join(workspace, "MEMORY.md"), "- INSIDE_SENTINEL the operator's boat is the Kestrel\n");
    const index = await buildMemoryIndex(workspaceMemorySources(workspace), { cacheDir: false });
    const outsideHits = index.search("neighbour bank pin OUTSIDE_SENTINEL daily elsewhere", 5);
    expect(outsideHits.filter((hit) => hit.text.includes("OUTSIDE_SENTINEL"))).toEqual([]);
    expect(outsideHits.map((hit) => hit.file).filter((file) => String(file).startsWith("memory/"))).toEqual([]);
    expect(index.search("boat Kestrel", 5).map((hit) => hit.file)).toEqual(["MEMORY.md"]);
    expect(lines.join("")).toMatch(/link out of its folder, not indexed/);
  });

  it("a group memoryDir that is a link to the workspace (or to its memory folder) is refused", () => {
    const linkToWorkspace = path.join(root, "group-link");
    const linkToMemory = path.join(root, "memory-link");
    const realGroup = path.join(root, "group-real");
    fs.mkdirSync(realGroup);
    fs.symlinkSync(workspace, linkToWorkspace);
    fs.symlinkSync(path.join(workspace, "memory"), linkToMemory);
    expect(isSafeGroupMemoryDir(linkToWorkspace, workspace)).toBe(false);
    expect(isSafeGroupMemoryDir(linkToMemory, workspace)).toBe(false);
    expect(isSafeGroupMemoryDir(realGroup, workspace)).toBe(true);
    // And the other way round: the workspace reached through a link.
    expect(isSafeGroupMemoryDir(path.join(workspace, "memory"), linkToWorkspace)).toBe(false);
  });
});

describe("large and binary inputs are cut before they are processed (item 7)", () => {
  it("a binary memory file (NUL byte) is skipped with one warning; text files are indexed", async () => {
    fs.writeFileSync(path.join(workspace, "memory", "blob.md"), Buffer.concat([Buffer.from("- zebra facts\n"), Buffer.from([0, 1, 2, 0])]));
    fs.writeFileSync(path.join(workspace, "memory", "text.md"), "- zebra stripes are unique\n");
    const index = await buildMemoryIndex(workspaceMemorySources(workspace), { cacheDir: false, minRefreshIntervalMs: 0 });
    await index.refresh();
    expect(index.search("zebra", 5).map((hit) => hit.file)).toEqual(["memory/text.md"]);
    expect(lines.filter((line) => line.includes("looks binary"))).toHaveLength(1);
  });

  it("an Ethos hit is cut to a bounded length before any flattening", () => {
    const huge = "word ".repeat(800_000); // 4 MB
    const memory = hitToMemory({ id: "h", content: huge, score: 0.9 });
    expect(memory.text.length).toBe(MAX_HIT_TEXT_CHARS);
    expect(cutText("a\u{1F600}b", 2)).toBe("a"); // never half a surrogate pair
  });

  it("the shared reader never throws: a path with a NUL byte, a missing file, a folder, a link out of the root", async () => {
    expect(await readRegularFile(path.join(workspace, "bad\u0000name.md"), { maxBytes: 1024, root: workspace })).toMatchObject({ ok: false });
    expect(await readRegularFile(path.join(workspace, "bad\u0000name.md"), { maxBytes: 1024 })).toMatchObject({ ok: false });
    expect(await readRegularFile(path.join(workspace, "no-such.md"), { maxBytes: 1024, root: workspace })).toMatchObject({ ok: false, reason: "missing" });
    expect(await readRegularFile(path.join(workspace, "memory"), { maxBytes: 1024, root: workspace })).toMatchObject({ ok: false, reason: "not-a-file" });
    const outside = path.join(root, "outside-secret.md");
    fs.writeFileSync(outside, "secret");
    fs.symlinkSync(outside, path.join(workspace, "link-out.md"));
    // The same answer whether the caller passes the root's real path or lets the reader resolve it.
    for (const realRoot of [undefined, fs.realpathSync(workspace)]) {
      const options = { maxBytes: 1024, root: workspace, ...(realRoot ? { realRoot } : {}) };
      expect(await readRegularFile(path.join(workspace, "link-out.md"), options)).toMatchObject({ ok: false, reason: "outside-root" });
    }
  });

  it("the shared reader returns exactly the file's bytes (one read when the size is known, files of every size)", async () => {
    for (const size of [0, 1, 4095, 4096, 4097, 70_000]) {
      const file = path.join(workspace, `sized-${size}.md`);
      const bytes = Buffer.alloc(size, 0x61);
      fs.writeFileSync(file, bytes);
      const read = await readRegularFile(file, { maxBytes: 100_000, root: workspace });
      expect(read.ok && read.bytes.equals(bytes), `size ${size}`).toBe(true);
    }
  });

  it("the shared reader refuses oversized files unless asked to truncate", async () => {
    const file = path.join(workspace, "big.md");
    fs.writeFileSync(file, "x".repeat(5000));
    expect(await readRegularFile(file, { maxBytes: 4096 })).toMatchObject({ ok: false, reason: "over-cap" });
    const cut = await readRegularFile(file, { maxBytes: 4096, truncate: true });
    expect(cut.ok && cut.bytes.length).toBe(4096);
    expect(cut.ok && cut.truncated).toBe(true);
  });
});

describe("a missing or relative workspace is never created (item 9)", () => {
  it("ETHOS_CONTEXT.md is not written and no folder appears, for a missing and for a relative dir", async () => {
    const missing = path.join(root, "no-such-workspace");
    await writeContextFile(missing, "block");
    await flushContextFileWrites();
    expect(fs.existsSync(missing)).toBe(false);
    const relative = path.join("relative-ws-" + path.basename(root));
    await writeContextFile(relative, "block");
    await flushContextFileWrites();
    expect(fs.existsSync(path.resolve(relative))).toBe(false);
    expect(lines.filter((line) => line.includes("a workspace is never created"))).toHaveLength(2);
    // The normal case still writes.
    await writeContextFile(workspace, "block");
    await flushContextFileWrites();
    expect(fs.readFileSync(contextFilePath(workspace), "utf8")).toBe("block");
  });

  it("triage writes neither CORRECTIONS.md nor memory/.triage into a missing workspace", async () => {
    const missing = path.join(root, "gone");
    const outcome = await triageInboundMessage({ content: "You forgot: I moved to Hangzhou", workspaceDir: missing, now });
    expect(outcome.flagged).toBe(true);
    expect(outcome.errors).toEqual(["triage: workspace missing or relative, nothing written"]);
    expect(fs.existsSync(missing)).toBe(false);
  });
});

describe("a full disk leaves no empty lock.owner file (item 12)", () => {
  it("an owner write that fails after creating the file is cleaned up, and the locked write still runs", async () => {
    const file = path.join(workspace, "CORRECTIONS.md");
    const realWriteFile = fsp.writeFile.bind(fsp);
    vi.spyOn(fsp, "writeFile").mockImplementation(async (target, ...rest) => {
      if (String(target).endsWith(".lock.owner")) {
        await realWriteFile(target, ""); // what ENOSPC leaves: the file exists, the data does not
        throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
      }
      return realWriteFile(target, ...(rest as [string]));
    });
    let sawOwnerInside = true;
    await withFileLock(file, async () => {
      sawOwnerInside = fs.existsSync(ownerPathFor(file));
    });
    expect(sawOwnerInside).toBe(false);
    expect(fs.existsSync(ownerPathFor(file))).toBe(false);
    expect(fs.readdirSync(workspace).filter((name) => name.includes(".lock"))).toEqual([]);
    expect(lines.join("")).toMatch(/could not record lock owner/);
  });
});
