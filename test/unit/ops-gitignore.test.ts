// ETHOS_CONTEXT.md in the workspace's .gitignore (issue 28 item 5, Ethos story 007): added at install
// by both install paths, taken out at uninstall (the exact bytes when nobody edited the file since).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GITIGNORE_LINES, gitignoreUnit } from "../../src/ops/gitignore-unit.ts";
import type { InstallParams } from "../../src/ops/install-unit.ts";
import { runOpsScript } from "./ops-run-script.ts";

function workspace(): { root: string; ws: string; params: InstallParams } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "ops-gitignore-"));
  const ws = path.join(root, "workspace");
  fs.mkdirSync(ws);
  return { root, ws, params: { bundleRoot: root, workspace: ws, configPath: path.join(root, "openclaw.json"), mode: "link", log: () => undefined } };
}

const OURS = `${GITIGNORE_LINES.join("\n")}\n`;

describe("the .gitignore unit", () => {
  it("appends the lines to an existing file (no newline at its end: one is added) and puts the exact bytes back", async () => {
    const { ws, params } = workspace();
    const before = "node_modules\n# notes\nsecrets.txt";
    fs.writeFileSync(path.join(ws, ".gitignore"), before);
    const record = await gitignoreUnit.install(params, undefined);
    expect(fs.readFileSync(path.join(ws, ".gitignore"), "utf8")).toBe(`${before}\n${OURS}`);
    expect(GITIGNORE_LINES).toEqual(["/ETHOS_CONTEXT.md", "/.ETHOS_CONTEXT.md.*.tmp"]);
    // A second install changes nothing and keeps the first record.
    expect(await gitignoreUnit.install(params, record)).toBe(record);
    expect(fs.readFileSync(path.join(ws, ".gitignore"), "utf8")).toBe(`${before}\n${OURS}`);
    const removal = await gitignoreUnit.uninstall(params, record);
    expect(removal.steps.join()).toContain("restored exactly as it was before install");
    expect(fs.readFileSync(path.join(ws, ".gitignore"), "utf8")).toBe(before);
  });

  it("creates the file when there is none, and removes it again", async () => {
    const { ws, params } = workspace();
    const record = await gitignoreUnit.install(params, undefined);
    expect(fs.readFileSync(path.join(ws, ".gitignore"), "utf8")).toBe(OURS);
    await gitignoreUnit.uninstall(params, record);
    expect(fs.existsSync(path.join(ws, ".gitignore"))).toBe(false);
  });

  it("edited since install: only our lines go, the operator's edit stays (CRLF kept)", async () => {
    const { ws, params } = workspace();
    fs.writeFileSync(path.join(ws, ".gitignore"), "a\r\n");
    const record = await gitignoreUnit.install(params, undefined);
    expect(fs.readFileSync(path.join(ws, ".gitignore"), "utf8")).toBe(`a\r\n${GITIGNORE_LINES.join("\r\n")}\r\n`);
    fs.appendFileSync(path.join(ws, ".gitignore"), "b\r\n");
    const removal = await gitignoreUnit.uninstall(params, record);
    expect(removal.steps.join()).toContain("removed our line(s)");
    expect(fs.readFileSync(path.join(ws, ".gitignore"), "utf8")).toBe("a\r\nb\r\n");
  });

  it("a file that already ignores ETHOS_CONTEXT.md (the sample workspace's form) only gets the temp-file line; nothing without a workspace", async () => {
    const { ws, root, params } = workspace();
    fs.writeFileSync(path.join(ws, ".gitignore"), "ETHOS_CONTEXT.md\n");
    const record = await gitignoreUnit.install(params, undefined);
    expect(record.lines).toEqual([GITIGNORE_LINES[1]]);
    await gitignoreUnit.uninstall(params, record);
    expect(fs.readFileSync(path.join(ws, ".gitignore"), "utf8")).toBe("ETHOS_CONTEXT.md\n");
    const missing = await gitignoreUnit.install({ ...params, workspace: path.join(root, "nope") }, undefined);
    expect(missing.lines).toEqual([]);
    expect(fs.existsSync(path.join(root, "nope"))).toBe(false);
  });
});

describe("both install paths", () => {
  it("npm run install-hooks adds the lines, --uninstall puts .gitignore back byte for byte", async () => {
    const { ws, root } = workspace();
    const config = path.join(root, "openclaw.json");
    fs.writeFileSync(path.join(ws, ".gitignore"), "node_modules\n");
    expect((await runOpsScript("install.ts", ["--workspace", ws, "--config", config, "--no-cli"])).code).toBe(0);
    expect(fs.readFileSync(path.join(ws, ".gitignore"), "utf8")).toBe(`node_modules\n${OURS}`);
    const removed = await runOpsScript("install.ts", ["--workspace", ws, "--config", config, "--uninstall", "--no-cli"]);
    expect(removed.code).toBe(0);
    expect(fs.readFileSync(path.join(ws, ".gitignore"), "utf8")).toBe("node_modules\n");
  });
});
