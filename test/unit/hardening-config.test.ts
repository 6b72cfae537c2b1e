// Issue 11 item 1: a CONFIG.md of deeply nested YAML must not kill the process.
import { execFile } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_CONFIG_NESTING, parseHygieneConfigText, yamlTooDeep } from "../../src/memory/config-md.ts";
import { REPO_ROOT } from "./ops-run-script.ts";
import { PAYLOADS } from "./hardening/config-bomb-child.ts";

const TSX_CLI = path.join(REPO_ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const CHILD = path.join(REPO_ROOT, "test", "unit", "hardening", "config-bomb-child.ts");

function runChild(): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, OPENCLAW_CONTEXT_LOG_LEVEL: "error" };
    for (const key of Object.keys(env)) if (key.startsWith("VITEST") || key === "NODE_OPTIONS") delete env[key];
    const child = execFile(process.execPath, [TSX_CLI, CHILD, "run"], { env, timeout: 600_000, maxBuffer: 8 * 1024 * 1024 }, (_error, stdout, stderr) => {
      resolve({ code: child.exitCode, signal: child.signalCode, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

describe("CONFIG.md nesting bomb (in a child process: the old failure was a process abort)", () => {
  it("each payload loads twice with a logged error, and the process exits 0 and stays healthy", async () => {
    const run = await runChild();
    expect(run.signal).toBeNull();
    expect(run.code).toBe(0);
    const { report, after } = JSON.parse(run.stdout.trim().split("\n").pop()!) as {
      report: Record<string, Array<{ ok: boolean; error?: string }>>;
      after: number;
    };
    expect(Object.keys(report).sort()).toEqual(Object.keys(PAYLOADS).sort());
    for (const results of Object.values(report)) {
      expect(results).toHaveLength(2);
      for (const result of results) {
        expect(result.ok).toBe(false);
        expect(result.error).toMatch(/nested deeper than/);
      }
    }
    expect(after).toBe(4000);
    expect(run.stderr).toMatch(/invalid config, using defaults: CONFIG\.md: not read \(nested deeper than/);
  });
});

describe("yamlTooDeep", () => {
  it("accepts the spec's template shapes, including a custom pattern list", () => {
    const text = [
      "context_budget_tokens: 6000",
      "heartbeat_custom_patterns:",
      "  - \"\\\\b[Mm]y (?:name|email) is\\\\b\"",
      "  - { pattern: '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[', name: brackets, class: odd }",
      "  - pattern: \"{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{\"",
      "    flags: i",
    ].join("\n");
    expect(yamlTooDeep(text)).toBeUndefined();
    expect(parseHygieneConfigText(text).ok).toBe(true);
  });

  it("counts flow brackets and block indicators, not brackets inside quotes", () => {
    expect(yamlTooDeep("[".repeat(MAX_CONFIG_NESTING))).toBeUndefined();
    expect(yamlTooDeep("[".repeat(MAX_CONFIG_NESTING + 1))).toMatch(/nested deeper/);
    expect(yamlTooDeep("- ".repeat(MAX_CONFIG_NESTING + 1))).toMatch(/nested deeper/);
    expect(yamlTooDeep(`a: "${"[".repeat(500)}"`)).toBeUndefined();
    // Quoted closers cannot hide real nesting: `[ "]" [ "]" …` nests one level per bracket.
    expect(yamlTooDeep('[ "]", '.repeat(MAX_CONFIG_NESTING + 1))).toMatch(/nested deeper/);
  });
});
