// The spec's on-demand instructions in SOUL.md (issue 28 item 1 and 5): the check status and doctor
// use after any SOUL.md change, and the command that adds the missing ones behind a diff and a backup.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REQUIRED_MEMORY_ENTRY, TOOLS_INSTRUCTION, soulPointsTo } from "../../src/bootstrap/soul-instructions.ts";
import { removeSoulAddition } from "../../src/ops/rollback.ts";
import { applySoulInstructions, checkSoulInstructions, planSoulInstructions, soulInstructionStatus } from "../../src/ops/soul-instructions.ts";
import { collectStatus, formatStatus } from "../../src/ops/status.ts";
import { runOpsScript } from "./ops-run-script.ts";

const SOUL = "# SOUL.md: Jules\n\nI am Jules.\n\n## Wisdom\n_Last compressed: 2026-03-21 | Source lessons: 3_\n\n**Verify first.** Check before hardcoding.\n\n## Vibe\nShort.\n";

/** A workspace with this SOUL.md; `null`: none. */
function workspace(soul: string | null = SOUL): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), "ops-soul-"));
  if (soul !== null) fs.writeFileSync(path.join(ws, "SOUL.md"), soul);
  return ws;
}
const present = (text: string) => Object.fromEntries(soulInstructionStatus(text).map((item) => [item.part, item.present]));

describe("the check", () => {
  it("finds each instruction; the memory entry counts only inside ## Wisdom (a promotion replaces that section)", () => {
    expect(present(SOUL)).toEqual({ memory: false, tools: false, shedding: false });
    const inWisdom = SOUL.replace("**Verify first.**", `- \`${REQUIRED_MEMORY_ENTRY}\`\n**Verify first.**`);
    expect(present(inWisdom).memory).toBe(true);
    const outside = `${SOUL}\n${REQUIRED_MEMORY_ENTRY}\n`;
    expect(present(outside).memory).toBe(false);
    expect(soulInstructionStatus(outside)[0]!.detail).toContain("outside ## Wisdom");
    expect(soulPointsTo(outside).memory).toBe(true); // the hook's on-demand line does not name MEMORY.md again either way
    expect(present(`${SOUL}\n## Context shedding\n- x\n\nRead the full TOOLS.md when you need a port.\n`)).toMatchObject({ tools: true, shedding: true });
  });

  it("status reports it from SOUL.md as it is now: a change after promote shows on the next status", async () => {
    const ws = workspace(SOUL.replace("**Verify first.**", `${REQUIRED_MEMORY_ENTRY}\n**Verify first.**`));
    const config = path.join(ws, "openclaw.json");
    const ok = formatStatus(await collectStatus({ configPath: config, workspace: ws, env: { OPENCLAW_STATE_DIR: ws, OPENCLAW_CONTEXT_LOG_FILE: "off" } }));
    expect(ok).toContain("ok (phase 1) required memory entry present in ## Wisdom");
    fs.writeFileSync(path.join(ws, "SOUL.md"), SOUL); // an edit drops the entry
    const report = await collectStatus({ configPath: config, workspace: ws, env: { OPENCLAW_STATE_DIR: ws, OPENCLAW_CONTEXT_LOG_FILE: "off" } });
    expect(report.soul.ok).toBe(false);
    expect(formatStatus(report)).toContain("WARNING (phase 1) required memory entry MISSING");
    expect((await checkSoulInstructions(workspace(null))).exists).toBe(false);
  });
});

describe("adding them", () => {
  it("plans the memory entry into ## Wisdom, the TOOLS.md line into ## On demand and the shedding section; writes only when applied, after a backup", async () => {
    const ws = workspace();
    const plan = await planSoulInstructions(ws);
    expect(plan.added).toEqual(["memory", "tools", "shedding"]);
    expect(fs.readFileSync(path.join(ws, "SOUL.md"), "utf8")).toBe(SOUL);
    expect(plan.after).toContain(`**Verify first.** Check before hardcoding.\n${REQUIRED_MEMORY_ENTRY}\n\n## Vibe`);
    expect(plan.after).toContain(`## On demand\n${TOOLS_INSTRUCTION}\n`);
    expect(plan.after).toMatch(/## Context shedding\n- Once USER\.md/);
    expect(plan.diff).toContain(`+ ${REQUIRED_MEMORY_ENTRY}`);
    const { backup } = await applySoulInstructions(ws, plan);
    expect(fs.readFileSync(backup!, "utf8")).toBe(SOUL);
    expect(fs.readFileSync(path.join(ws, "SOUL.md"), "utf8")).toBe(plan.after);
    expect(present(plan.after)).toEqual({ memory: true, tools: true, shedding: true });
    expect((await planSoulInstructions(ws)).added).toEqual([]);
  });

  it("refuses to write when SOUL.md changed after the diff; --only limits the parts; CRLF is kept", async () => {
    const ws = workspace(SOUL.replaceAll("\n", "\r\n"));
    const plan = await planSoulInstructions(ws, ["tools"]);
    expect(plan.added).toEqual(["tools"]);
    expect(plan.after).toContain(`## On demand\r\n${TOOLS_INSTRUCTION}\r\n`);
    fs.appendFileSync(path.join(ws, "SOUL.md"), "edited\r\n");
    await expect(applySoulInstructions(ws, plan)).rejects.toThrow(/changed since the diff/);
  });

  it("rollback phase 4 takes the line and its emptied ## On demand section out again; phase 3 the shedding section", async () => {
    const plan = await planSoulInstructions(workspace(), ["tools", "shedding"]);
    const withoutTools = removeSoulAddition(plan.after, "tools-instruction");
    expect(withoutTools.removed).toBe(1);
    expect(withoutTools.text).not.toContain("## On demand");
    expect(removeSoulAddition(withoutTools.text, "shedding").text.trimEnd()).toBe(SOUL.trimEnd());
  });

  it("npm run soul-instructions: a dry run shows the diff and changes nothing; --apply writes it", async () => {
    const ws = workspace();
    const dry = await runOpsScript("soul-instructions.ts", ["--workspace", ws]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("missing phase 1 memory: required memory entry MISSING");
    expect(dry.stdout).toContain(`+ ${TOOLS_INSTRUCTION}`);
    expect(dry.stdout).toContain("Nothing changed: re-run with --apply");
    expect(fs.readFileSync(path.join(ws, "SOUL.md"), "utf8")).toBe(SOUL);
    const applied = await runOpsScript("soul-instructions.ts", ["--workspace", ws, "--apply", "--only", "memory"]);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/SOUL\.md updated: added memory\. Previous version: initiatives\/adaptive-context-injection\/backups\/SOUL\.md\.\d{8}T\d{6}Z\.bak/);
    expect(present(fs.readFileSync(path.join(ws, "SOUL.md"), "utf8"))).toEqual({ memory: true, tools: false, shedding: false });
    expect((await runOpsScript("soul-instructions.ts", ["--workspace", ws, "--only", "bogus"])).code).toBe(2);
    expect((await runOpsScript("soul-instructions.ts", ["--workspace", workspace(null)])).code).toBe(1);
  });
});
