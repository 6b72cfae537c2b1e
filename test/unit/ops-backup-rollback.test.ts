import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import JSON5 from "json5";
import { describe, expect, it } from "vitest";
import { createPhase0Backups, evaluateBackupGate } from "../../src/ops/backup.ts";
import { readHookEnabled, setHookEntries } from "../../src/ops/openclaw-json.ts";
import { removeSoulAddition, rollback } from "../../src/ops/rollback.ts";
import { runOpsScript } from "./ops-run-script.ts";

const BACKUPS = path.join("initiatives", "adaptive-context-injection", "backups");

function workspace(): { ws: string; config: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "ops-rb-"));
  const ws = path.join(root, "workspace");
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, "SOUL.md"), "# SOUL v1\n");
  fs.writeFileSync(path.join(ws, "AGENTS.md"), "# AGENTS v1\n");
  fs.writeFileSync(path.join(ws, "TOOLS.md"), "# TOOLS v1\n");
  const config = path.join(root, "openclaw.json");
  fs.writeFileSync(
    config,
    `// operator's config
{
  "gateway": { "port": 18789 }, // keep me
  "hooks": {
    "internal": {
      "enabled": true,
      "entries": {
        "aci-bootstrap": { "enabled": true, "ownerIds": ["42"] }, /* owner */
        "ethos-context": { "enabled": true },
      },
    },
  },
}
`,
  );
  return { ws, config };
}

const read = (file: string) => fs.readFileSync(file, "utf8");

describe("backup (Phase 0 hard gate)", () => {
  it("creates the three .bak files, verified by hash, and is idempotent", async () => {
    const { ws } = workspace();
    const first = await createPhase0Backups(ws);
    expect(first.map((s) => s.action)).toEqual(["created", "created", "created"]);
    expect(evaluateBackupGate(first).ok).toBe(true);
    expect(read(path.join(ws, BACKUPS, "TOOLS.md.bak"))).toBe("# TOOLS v1\n");
    const second = await createPhase0Backups(ws);
    expect(second.map((s) => s.action)).toEqual(["already-current", "already-current", "already-current"]);
  });

  it("never overwrites a differing .bak without --force, and keeps the old one with --force", async () => {
    const { ws } = workspace();
    await createPhase0Backups(ws);
    fs.writeFileSync(path.join(ws, "SOUL.md"), "# SOUL v2\n");
    const kept = await createPhase0Backups(ws);
    expect(kept[0].action).toBe("kept-existing");
    expect(evaluateBackupGate(kept).problems.join()).toMatch(/already exists and differs/);
    expect(read(path.join(ws, BACKUPS, "SOUL.md.bak"))).toBe("# SOUL v1\n");
    const forced = await createPhase0Backups(ws, { force: true });
    expect(forced[0].action).toBe("replaced");
    expect(read(path.join(ws, BACKUPS, "SOUL.md.bak"))).toBe("# SOUL v2\n");
    expect(read(forced[0].previousBackup!)).toBe("# SOUL v1\n");
  });

  it("fails the gate when a source file is missing (CLI exit 1)", async () => {
    const { ws } = workspace();
    fs.rmSync(path.join(ws, "TOOLS.md"));
    const result = await runOpsScript("backup.ts", ["--workspace", ws]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/TOOLS\.md does not exist/);
    const ok = await runOpsScript("backup.ts", ["--workspace", path.join(ws, "nope")]);
    expect(ok.code).toBe(2);
    expect(ok.stderr).toMatch(/workspace not found/);
  });
});

describe("rollback", () => {
  it("phase 2 disables aci-bootstrap and keeps every comment and other setting", async () => {
    const { ws, config } = workspace();
    const steps = await rollback({ workspace: ws, phase: "2", configPath: config });
    expect(steps.every((s) => s.ok)).toBe(true);
    const text = read(config);
    expect(text).toContain("// operator's config");
    expect(text).toContain("// keep me");
    expect(text).toContain("/* owner */");
    const parsed = JSON5.parse(text);
    expect(parsed.hooks.internal.entries["aci-bootstrap"]).toEqual({ enabled: false, ownerIds: ["42"] });
    expect(parsed.hooks.internal.entries["ethos-context"].enabled).toBe(true);
    expect(parsed.gateway.port).toBe(18789);
    // A timestamped backup of the original config sits next to it.
    expect(fs.readdirSync(path.dirname(config)).filter((f) => /^openclaw\.json\.\d{8}T\d{6}Z.*\.bak$/.test(f))).toHaveLength(1);
  });

  it("JSON5-only syntax: falls back to json5, writes a backup first and says comments were lost", async () => {
    const { config } = workspace();
    fs.writeFileSync(config, "{\n  // c\n  hooks: { internal: { entries: { 'aci-bootstrap': { enabled: true } } } },\n  gateway: { port: 1 },\n}\n");
    const original = read(config);
    const result = await setHookEntries(config, [{ hookKey: "aci-bootstrap", enabled: false }]);
    expect(result.method).toBe("json5");
    expect(result.notes.join()).toMatch(/comments and JSON5 formatting were NOT preserved/);
    expect(read(result.backup!)).toBe(original);
    expect(await readHookEnabled(config, "aci-bootstrap")).toBe(false);
    expect(JSON5.parse(read(config)).gateway.port).toBe(1);
  });

  it("keeps CRLF line endings of openclaw.json", async () => {
    const { config } = workspace();
    fs.writeFileSync(config, read(config).replace(/\n/g, "\r\n"));
    await setHookEntries(config, [{ hookKey: "aci-bootstrap", enabled: false }]);
    const text = read(config);
    expect(text.replace(/\r\n/g, "")).not.toContain("\n");
  });

  it("phase 0 restores SOUL.md and AGENTS.md from the backups and saves the newer files first", async () => {
    const { ws, config } = workspace();
    await createPhase0Backups(ws);
    fs.writeFileSync(path.join(ws, "SOUL.md"), "# SOUL compressed\n");
    fs.writeFileSync(path.join(ws, "AGENTS.md"), "# AGENTS edited\n");
    const steps = await rollback({ workspace: ws, phase: "0", configPath: config });
    expect(steps.map((s) => s.ok)).toEqual([true, true]);
    expect(read(path.join(ws, "SOUL.md"))).toBe("# SOUL v1\n");
    expect(read(path.join(ws, "AGENTS.md"))).toBe("# AGENTS v1\n");
    const saved = fs.readdirSync(path.join(ws, BACKUPS)).filter((f) => /^SOUL\.md\.\d{8}T/.test(f));
    expect(read(path.join(ws, BACKUPS, saved[0]))).toBe("# SOUL compressed\n");
    expect(await readHookEnabled(config, "aci-bootstrap")).toBe(true); // phase 0 leaves the hook alone
  });

  it("full restores all three files and disables the hook", async () => {
    const { ws, config } = workspace();
    await createPhase0Backups(ws);
    for (const f of ["SOUL.md", "AGENTS.md", "TOOLS.md"]) fs.writeFileSync(path.join(ws, f), "changed\n");
    const steps = await rollback({ workspace: ws, phase: "full", configPath: config });
    expect(steps.every((s) => s.ok)).toBe(true);
    expect(read(path.join(ws, "TOOLS.md"))).toBe("# TOOLS v1\n");
    expect(await readHookEnabled(config, "aci-bootstrap")).toBe(false);
  });

  it("fails clearly when the backups are missing", async () => {
    const { ws, config } = workspace();
    const steps = await rollback({ workspace: ws, phase: "0", configPath: config });
    expect(steps.every((s) => !s.ok)).toBe(true);
    expect(steps[0].detail).toMatch(/backup missing/);
    const cli = await runOpsScript("rollback.ts", ["--phase", "0", "--workspace", ws, "--config", config]);
    expect(cli.code).toBe(1);
  });

  it("phase 3 removes the shedding section and phase 4 the TOOLS.md instruction, with backups", async () => {
    const { ws, config } = workspace();
    const soul = "# SOUL\r\n\r\n## Context shedding\r\nDrop USER.md once used.\r\n\r\n## Vibe\r\nFor full tool details, read TOOLS.md explicitly when needed.\r\nShort.\r\n";
    fs.writeFileSync(path.join(ws, "SOUL.md"), soul);
    expect((await rollback({ workspace: ws, phase: "3", configPath: config }))[0].ok).toBe(true);
    expect(read(path.join(ws, "SOUL.md"))).toBe("# SOUL\r\n\r\n## Vibe\r\nFor full tool details, read TOOLS.md explicitly when needed.\r\nShort.\r\n");
    expect((await rollback({ workspace: ws, phase: "4", configPath: config }))[0].ok).toBe(true);
    expect(read(path.join(ws, "SOUL.md"))).toBe("# SOUL\r\n\r\n## Vibe\r\nShort.\r\n");
    const again = await rollback({ workspace: ws, phase: "4", configPath: config });
    expect(again[0].detail).toMatch(/nothing to remove/);
    expect(removeSoulAddition("Read TOOLS_COMPACT.md first.\n", "tools-instruction").removed).toBe(0);
  });

  it("CLI: bad --phase exits 2; phase 1 option B restores SOUL.md only", async () => {
    const { ws, config } = workspace();
    const bad = await runOpsScript("rollback.ts", ["--phase", "7", "--workspace", ws, "--config", config]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown --phase "7"/);
    await createPhase0Backups(ws);
    fs.writeFileSync(path.join(ws, "SOUL.md"), "new\n");
    const optionB = await runOpsScript("rollback.ts", ["--phase", "1", "--restore-soul", "--workspace", ws, "--config", config]);
    expect(optionB.code).toBe(0);
    expect(read(path.join(ws, "SOUL.md"))).toBe("# SOUL v1\n");
    expect(await readHookEnabled(config, "aci-bootstrap")).toBe(true);
  });
});
