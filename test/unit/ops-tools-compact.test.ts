import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../src/core/tokens.ts";
import { DEFAULT_CHECK_OPTIONS, checkAgainstSource, checkToolsCompact, draftToolsCompact, extractLookupItems } from "../../src/ops/tools-compact.ts";
import { startLlmStub } from "./ops-llm-stub.ts";
import { runOpsScript } from "./ops-run-script.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const TOOLS_MD = fs.readFileSync(path.join(HERE, "ops-fixtures", "TOOLS.md"), "utf8");
const GOOD = `# TOOLS_COMPACT

## Browser
work=\`chrome-jeff\` · CDP :9222

## Mission Control
http://mc.local:3100

## Telegram Topics
14 Ideas · 15 Ops

## Cursor CLI
\`cursor-agent -p\`

## TTS
\`say -v Ava\`

## Camera
\`cam-office\` (RTSP :8554)
`;

describe("check-tools-compact (AC-6)", () => {
  it("passes a lookup table with every required section", () => {
    const result = checkToolsCompact(GOOD);
    expect(result).toMatchObject({ ok: true, violations: [] });
    expect(result.sectionsFound).toEqual(DEFAULT_CHECK_OPTIONS.requiredSections);
  });

  it("reports a missing section, narrative markers and size", () => {
    const text = GOOD.replace("## Camera\n`cam-office` (RTSP :8554)\n", "")
      .replace("14 Ideas · 15 Ops", "14 Ideas · 15 Ops. We moved Ops here because the old group was noisy.")
      + `\n${"| alias | value |\n".repeat(80)}`;
    const result = checkToolsCompact(text);
    const rules = result.violations.map((v) => v.rule);
    expect(rules).toContain("missing-section");
    expect(rules).toContain("narrative");
    expect(rules).toContain("size");
    expect(result.violations.find((v) => v.rule === "narrative")?.line).toBe(10);
  });

  it("ignores marker words inside inline code and flags long paragraphs", () => {
    expect(checkToolsCompact(GOOD.replace("`say -v Ava`", "`say we because`")).ok).toBe(true);
    const long = GOOD.replace("`say -v Ava`", Array.from({ length: 35 }, (_, i) => `word${i}`).join(" "));
    expect(checkToolsCompact(long).violations.map((v) => v.rule)).toEqual(["long-paragraph"]);
  });

  it("sections are configurable and matched case-insensitively", () => {
    const result = checkToolsCompact("## Home Assistant\nha.local:8123\n## tts voices\nAva\n", { ...DEFAULT_CHECK_OPTIONS, requiredSections: ["Home Assistant", "TTS"] });
    expect(result.ok).toBe(true);
  });

  it("CRLF files check the same as LF", () => {
    expect(checkToolsCompact(GOOD.replace(/\n/g, "\r\n")).ok).toBe(true);
  });
});

describe("TOOLS_COMPACT draft generator", () => {
  it("extracts lookup data from TOOLS.md and drops the prose and stale history", () => {
    const draft = draftToolsCompact(TOOLS_MD);
    expect(draft.warnings).toEqual([]);
    expect(checkToolsCompact(draft.text)).toMatchObject({ ok: true });
    for (const value of ["chrome-jeff", "9222", "http://mc.local:3100", "15 Ops", "79 Projects", "`cursor-agent -p --model sonnet-4 --output-format text`", "`say -v Ava`", 'ElevenLabs voice "Rachel"', "`cam-porch`", "8554"]) {
      expect(draft.text).toContain(value);
    }
    expect(draft.text).not.toMatch(/because|Grafana|port 3000|Playwright|home network/);
    expect(draft.text).not.toContain("alias profile use"); // table header row
  });

  it("trims the longest section until the draft fits the token target, and says so", () => {
    const draft = draftToolsCompact(TOOLS_MD, { maxTokens: 120 });
    expect(estimateTokens(draft.text)).toBeLessThanOrEqual(120);
    expect(draft.warnings.join()).toMatch(/dropped \d+ item\(s\) to fit 120 tokens/);
  });

  it("marks a section TOOLS.md does not have, with a warning", () => {
    const draft = draftToolsCompact("# TOOLS\n## Browser\n- CDP port: 9222\n");
    expect(draft.text).toContain("## Camera\nTODO: not found in TOOLS.md");
    expect(draft.warnings.join()).toMatch(/no TOOLS.md section matches "Camera"/);
  });

  it("joins wrapped lines, keeps short table cells, skips 'Why' explanations and clock times", () => {
    const body = [
      "| id | name | what goes there |",
      "|---|---|---|",
      "| 15 | Ops | infrastructure, incidents and maintenance work | none |",
      "",
      "`chrome-jeff` (work profile): logged into Jeff's Google account, the studio's Notion, Linear and",
      "the bank, so never scrape with it.",
      "",
      "- Why two engines: quiet hours 22:00 to 07:00 use the local voice.",
    ].join("\n");
    expect(extractLookupItems(body)).toEqual(["15 Ops", "`chrome-jeff`"]);
  });

  it("turns prose lines into their code spans only", () => {
    expect(extractLookupItems("Always run it with `-p`, because without it the CLI hangs.")).toEqual(["`-p`"]);
    expect(extractLookupItems("- URL: http://mc.local:3100\n")).toEqual(["URL: http://mc.local:3100"]);
  });

  it("CLI writes a draft (never TOOLS_COMPACT.md) and refuses --out TOOLS_COMPACT.md", async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), "ops-tc-"));
    fs.writeFileSync(path.join(ws, "TOOLS.md"), TOOLS_MD);
    fs.writeFileSync(path.join(ws, "TOOLS_COMPACT.md"), "hand-made\n");
    const result = await runOpsScript("draft-tools-compact.ts", ["--workspace", ws]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Compact-tools check (AC-6) of the draft: PASS");
    expect(fs.readFileSync(path.join(ws, "initiatives/adaptive-context-injection/TOOLS_COMPACT_DRAFT.md"), "utf8")).toContain("## Telegram Topics");
    expect(fs.readFileSync(path.join(ws, "TOOLS_COMPACT.md"), "utf8")).toBe("hand-made\n");
    const refused = await runOpsScript("draft-tools-compact.ts", ["--workspace", ws, "--out", path.join(ws, "TOOLS_COMPACT.md")]);
    expect(refused.code).toBe(2);
    expect(fs.readFileSync(path.join(ws, "TOOLS_COMPACT.md"), "utf8")).toBe("hand-made\n");
  });

  it("CLI check: exit 1 on the full TOOLS.md, exit 2 on a missing file", async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), "ops-tc-"));
    fs.writeFileSync(path.join(ws, "TOOLS.md"), TOOLS_MD);
    const failed = await runOpsScript("check-tools-compact.ts", ["--file", path.join(ws, "TOOLS.md")]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/size: \d+ tokens > 300/);
    const missing = await runOpsScript("check-tools-compact.ts", ["--workspace", ws]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/there is no .*TOOLS_COMPACT\.md yet: run `npm run draft-tools` first/);
  });

  it("--llm: a compliant model answer replaces the deterministic draft; a non-compliant one is rejected", async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), "ops-tc-"));
    fs.writeFileSync(path.join(ws, "TOOLS.md"), TOOLS_MD);
    const draftFile = path.join(ws, "initiatives/adaptive-context-injection/TOOLS_COMPACT_DRAFT.md");
    const stub = await startLlmStub([{ answer: GOOD }, { answer: "## Browser\nWe use Chrome because it is fast.\n" }]);
    try {
      const good = await runOpsScript("draft-tools-compact.ts", ["--workspace", ws, "--llm", "--llm-url", stub.ollamaUrl, "--retries", "0"]);
      expect(good.code).toBe(0);
      expect(good.stdout).toContain("Draft (LLM pass (qwen3.5:35b) over the deterministic draft)");
      expect(fs.readFileSync(draftFile, "utf8")).toBe(GOOD);
      expect(stub.requests[0].body.messages?.at(-1)?.content).toContain("Telegram Topics");
      const bad = await runOpsScript("draft-tools-compact.ts", ["--workspace", ws, "--llm", "--llm-url", stub.ollamaUrl, "--retries", "0"]);
      expect(bad.code).toBe(0);
      expect(bad.stderr).toMatch(/LLM draft rejected .*narrative/);
      expect(fs.readFileSync(draftFile, "utf8")).toBe(draftToolsCompact(TOOLS_MD).text);
    } finally {
      await stub.stop();
    }
  });
});

describe("URLs, ports, paths and commands survive the draft byte for byte", () => {
  const SOURCE = [
    "# TOOLS",
    "## Browser",
    "Chrome runs with remote debugging on port 9222 because the agent drives it over CDP.",
    "Profiles are in ~/Library/Chrome/Profiles, we never share them.",
    "## Mission Control",
    "- Dashboard at http://localhost:3000",
    "- Start it with `mc serve --port 3000`",
    "## Camera",
    "- Porch camera: rtsp://10.0.0.20:554/stream1",
    "- Snapshots land in /var/lib/cams/porch/",
    "",
  ].join("\n");

  it("a URL after prose is not split at its scheme colon; prose keeps its port and path", () => {
    expect(extractLookupItems("- Dashboard at http://localhost:3000\n")).toEqual(["Dashboard at http://localhost:3000"]);
    expect(extractLookupItems("- Porch camera: rtsp://10.0.0.20:554/stream1\n")).toEqual(["Porch camera: rtsp://10.0.0.20:554/stream1"]);
    expect(extractLookupItems("- **Dashboard:** http://mc.local:3100\n")).toEqual(["Dashboard: http://mc.local:3100"]);
    expect(extractLookupItems("Chrome runs with remote debugging on port 9222 because the agent drives it over CDP.\n")).toEqual(["port 9222"]);
    expect(extractLookupItems("Profiles are in ~/Library/Chrome/Profiles, we never share them.\n")).toEqual(["~/Library/Chrome/Profiles"]);
  });

  it("the draft carries every value of the source unchanged, and the source check finds nothing damaged or lost", () => {
    const draft = draftToolsCompact(SOURCE, { requiredSections: ["Browser", "Mission Control", "Camera"] });
    for (const value of ["http://localhost:3000", "rtsp://10.0.0.20:554/stream1", "port 9222", "~/Library/Chrome/Profiles", "`mc serve --port 3000`", "/var/lib/cams/porch/"]) {
      expect(draft.text).toContain(value);
    }
    expect(draft.text).not.toMatch(/[a-z]: \/\//);
    expect(checkAgainstSource(draft.text, SOURCE, ["Browser", "Mission Control", "Camera"])).toEqual({ damaged: [], lost: [] });
  });

  it("the source check catches a damaged URL and lists what a draft left out", () => {
    const damagedDraft = "## Browser\nCDP\n## Mission Control\nDashboard at http: //localhost:3000 · `mc serve --port 3001`\n## Camera\nrtsp://10.0.0.20:554/stream1\n";
    const result = checkAgainstSource(damagedDraft, SOURCE, ["Browser", "Mission Control", "Camera"]);
    expect(result.damaged).toEqual(expect.arrayContaining(["http: //localhost:3000", "`mc serve --port 3001`"]));
    expect(result.lost).toEqual(expect.arrayContaining(["port 9222", "~/Library/Chrome/Profiles", "http://localhost:3000", "/var/lib/cams/porch/"]));
    expect(result.lost).not.toContain("rtsp://10.0.0.20:554/stream1");
  });

  it("check-tools fails on a damaged value (exit 1) and warns about left-out values", async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), "ops-tc-src-"));
    fs.writeFileSync(path.join(ws, "TOOLS.md"), TOOLS_MD);
    fs.writeFileSync(path.join(ws, "TOOLS_COMPACT.md"), GOOD.replace("http://mc.local:3100", "http: //mc.local:3100"));
    const result = await runOpsScript("check-tools-compact.ts", ["--workspace", ws]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/damaged: http: \/\/mc\.local:3100 is not in .*TOOLS\.md byte for byte/);
    expect(result.stdout).toMatch(/warning: left out of the compact file \(in TOOLS\.md\): .*\/api\/v2/);
    fs.writeFileSync(path.join(ws, "TOOLS_COMPACT.md"), GOOD);
    expect((await runOpsScript("check-tools-compact.ts", ["--workspace", ws])).stdout).not.toContain("damaged");
  });

  it("check-tools on a fresh workspace says to run draft-tools first", async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), "ops-tc-fresh-"));
    const result = await runOpsScript("check-tools-compact.ts", ["--workspace", ws]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("run `npm run draft-tools` first");
  });
});
