import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { estimateTokens } from "../../src/core/tokens.ts";
import { LlmError, chat } from "../../src/ops/llm.ts";
import type { LlmOptions } from "../../src/ops/llm.ts";
import { distilWisdom, writeDraftAndFlag } from "../../src/ops/wisdom/pipeline.ts";
import { applyPromotion, planPromotion } from "../../src/ops/wisdom/promote.ts";
import { DEFAULT_COLLECT_OPTIONS, NoSourcesError, collectLessons, lessonItems } from "../../src/ops/wisdom/sources.ts";
import { REQUIRED_ENTRY, parseWisdomAnswer, renderWisdomSection, validateWisdom } from "../../src/ops/wisdom/validate.ts";
import { startLlmStub } from "./ops-llm-stub.ts";
import type { LlmStub } from "./ops-llm-stub.ts";
import { runOpsScript } from "./ops-run-script.ts";
import { GARBAGE_ANSWER, REQUIRED, THEMES, TODAY, badAnswer, goodAnswer, makeWisdomWorkspace } from "./ops-wisdom-fixtures.ts";

const collect = (workspace: string) => collectLessons(workspace, { ...DEFAULT_COLLECT_OPTIONS, today: TODAY });
const sha = (file: string) => crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
const draftPath = (ws: string) => path.join(ws, "initiatives", "adaptive-context-injection", "SOUL_WISDOM_DRAFT.md");

let stub: LlmStub | undefined;
afterEach(async () => {
  await stub?.stop();
  stub = undefined;
});

function llm(provider: "ollama" | "openai", overrides: Partial<LlmOptions> = {}): LlmOptions {
  if (!stub) throw new Error("start the stub first");
  return { provider, baseUrl: provider === "ollama" ? stub.ollamaUrl : stub.openaiUrl, model: "qwen3.5:35b", timeoutMs: 2_000, retries: 1, ...overrides };
}

describe("wisdom sources", () => {
  it("numbers lessons from every source in order and skips daily notes older than the window", async () => {
    const ws = makeWisdomWorkspace();
    const collected = await collect(ws);
    expect(collected.lessons).toHaveLength(33);
    expect(collected.lessons[0]).toMatchObject({ id: "L1", source: "AGENTS.md § Operational Lessons" });
    expect(collected.lessons[30].source).toMatch(/^memory\/2026-11-20\.md$/);
    expect(collected.lessons.some((lesson) => lesson.text.includes("too old"))).toBe(false);
    // "People" in MEMORY.md is not a lessons/decisions section; the roster in AGENTS.md is not lessons.
    expect(collected.lessons.some((lesson) => /Jeff likes|build lead/.test(lesson.text))).toBe(false);
  });

  it("warns for each missing source and continues", async () => {
    const ws = makeWisdomWorkspace();
    fs.rmSync(path.join(ws, "LESSONS_LEARNED.md"));
    fs.rmSync(path.join(ws, "memory"), { recursive: true });
    const collected = await collect(ws);
    expect(collected.warnings.join("\n")).toMatch(/source missing: LESSONS_LEARNED\.md/);
    expect(collected.warnings.join("\n")).toMatch(/no memory\/YYYY-MM-DD\.md notes/);
    expect(collected.lessons.length).toBe(6); // AGENTS (3) + MEMORY decisions (3)
  });

  it("fails when no source exists at all", async () => {
    const ws = makeWisdomWorkspace();
    for (const name of ["AGENTS.md", "LESSONS_LEARNED.md", "MEMORY.md"]) fs.rmSync(path.join(ws, name));
    fs.rmSync(path.join(ws, "memory"), { recursive: true });
    await expect(collect(ws)).rejects.toBeInstanceOf(NoSourcesError);
  });

  it("reads CRLF sources the same as LF", async () => {
    const lf = await collect(makeWisdomWorkspace());
    const crlf = await collect(makeWisdomWorkspace({ eol: "\r\n" }));
    expect(crlf.lessons.map((lesson) => lesson.text)).toEqual(lf.lessons.map((lesson) => lesson.text));
  });

  it("bounds a 5 MB source: reads the head only and caps the prompt", async () => {
    const ws = makeWisdomWorkspace();
    const line = "- Always double-check the retry budget before long jobs, lesson number ";
    const big = Array.from({ length: 80_000 }, (_, i) => `${line}${i}`).join("\n");
    expect(big.length).toBeGreaterThan(5 * 1024 * 1024);
    fs.writeFileSync(path.join(ws, "LESSONS_LEARNED.md"), big);
    const collected = await collect(ws);
    const total = collected.lessons.reduce((sum, lesson) => sum + lesson.text.length, 0);
    expect(total).toBeLessThanOrEqual(DEFAULT_COLLECT_OPTIONS.maxPromptLessonChars);
    expect(collected.omitted).toBeGreaterThan(0);
    expect(collected.warnings.join("\n")).toMatch(/read only the first/);
  });

  it("splits list items with continuation lines, and paragraphs when there is no list", () => {
    expect(lessonItems("- one\n  more\n- two\n")).toEqual(["one more", "two"]);
    expect(lessonItems("First para.\n\nSecond\npara.")).toEqual(["First para.", "Second para."]);
  });
});

describe("wisdom validation", () => {
  it("accepts the good answer", async () => {
    const { lessons } = await collect(makeWisdomWorkspace());
    const parsed = parseWisdomAnswer(goodAnswer());
    const section = renderWisdomSection(parsed.entries, "2026-11-22", lessons.length);
    expect(validateWisdom({ answer: parsed, lessons, renderedSection: section })).toEqual([]);
    expect(parsed.entries).toHaveLength(12);
  });

  it("names each violation: port, model name, word count, citations, missing required entry", async () => {
    const { lessons } = await collect(makeWisdomWorkspace());
    const parsed = parseWisdomAnswer(badAnswer());
    const violations = validateWisdom({ answer: parsed, lessons, renderedSection: renderWisdomSection(parsed.entries, "2026-11-22", 33) }).join("\n");
    expect(violations).toMatch(/port number/);
    expect(violations).toMatch(/model name \("qwen3-coder:30b"\)/);
    expect(violations).toMatch(/16 words; at most 15/);
    expect(violations).toMatch(/Small steps.*cites 1 existing lesson/);
    expect(violations).toMatch(/required entry is missing/);
    expect(violations).toMatch(/11 entries; need 12 to 15/);
  });

  it("rejects unknown ids and citations that share no word with the entry", async () => {
    const { lessons } = await collect(makeWisdomWorkspace());
    const answer = goodAnswer().replace("[L1, L2, L3]", "[L1, L2, L99]").replace("[L4, L5, L6]", "[L16, L17, L18]");
    const parsed = parseWisdomAnswer(answer);
    const violations = validateWisdom({ answer: parsed, lessons, renderedSection: renderWisdomSection(parsed.entries, "2026-11-22", 33) }).join("\n");
    expect(violations).toMatch(/Verify first.*unknown lesson id\(s\) L99/);
    expect(violations).toMatch(/Bound waits.*shares a word/);
  });

  it("flags paths and hostnames, and a section over 150 tokens", async () => {
    const { lessons } = await collect(makeWisdomWorkspace());
    const answer = goodAnswer()
      .replace("Check names first.", "Check ~/mc/logs first.")
      .replace("Logs beat guesses.", "Logs on mc.local beat guesses, always, every single time, really.");
    const parsed = parseWisdomAnswer(answer);
    const section = renderWisdomSection(parsed.entries, "2026-11-22", 33);
    const violations = validateWisdom({ answer: parsed, lessons, renderedSection: section }).join("\n");
    expect(violations).toMatch(/contains a path/);
    expect(violations).toMatch(/contains a hostname \("mc\.local"\)/);
    expect(estimateTokens(section)).toBeGreaterThan(150);
    expect(violations).toMatch(/tokens .*limit is 150/);
  });

  it("accepts the required entry with backticks as in the spec text", () => {
    const parsed = parseWisdomAnswer("**When context feels incomplete, check your memory.** Read `memory/YYYY-MM-DD.md` and `MEMORY.md` when historical knowledge is needed.");
    expect(parsed.entries[0].required).toBe(true);
    expect(renderWisdomSection(parsed.entries, "2026-11-22", 1)).toContain(REQUIRED_ENTRY);
  });

  it("treats garbage as format violations", () => {
    const parsed = parseWisdomAnswer(GARBAGE_ANSWER);
    expect(parsed.entries).toHaveLength(0);
    const violations = validateWisdom({ answer: parsed, lessons: [], renderedSection: "" });
    expect(violations.join("\n")).toMatch(/not in the format/);
  });
});

describe("distillation against a loopback LLM", () => {
  it("Ollama API, good answer: accepted on the first call with the spec prompt", async () => {
    stub = await startLlmStub([{ answer: goodAnswer() }]);
    const { lessons } = await collect(makeWisdomWorkspace());
    const result = await distilWisdom({ lessons, llm: llm("ollama"), date: "2026-11-22" });
    expect(result).toMatchObject({ ok: true, attempts: 1, repaired: false });
    expect(stub.requests[0].path).toBe("/api/chat");
    const prompt = stub.requests[0].body.messages?.map((m) => m.content).join("\n") ?? "";
    expect(prompt).toContain("Group these lessons by theme.");
    expect(prompt).toContain("[L33] ");
  });

  it("OpenAI API, answer with violations: re-prompts once with them, then accepts the repair", async () => {
    stub = await startLlmStub([{ answer: badAnswer() }, { answer: goodAnswer() }]);
    const { lessons } = await collect(makeWisdomWorkspace());
    const result = await distilWisdom({ lessons, llm: llm("openai"), date: "2026-11-22" });
    expect(result).toMatchObject({ ok: true, attempts: 2, repaired: true });
    expect(stub.requests.map((r) => r.path)).toEqual(["/v1/chat/completions", "/v1/chat/completions"]);
    const repair = stub.requests[1].body.messages ?? [];
    expect(repair.at(-2)).toMatchObject({ role: "assistant", content: badAnswer() });
    expect(repair.at(-1)?.content).toMatch(/port number/);
  });

  it("garbage twice: fails after exactly one repair round", async () => {
    stub = await startLlmStub([{ answer: GARBAGE_ANSWER }]);
    const { lessons } = await collect(makeWisdomWorkspace());
    const result = await distilWisdom({ lessons, llm: llm("ollama"), date: "2026-11-22" });
    expect(result.ok).toBe(false);
    expect(stub.requests).toHaveLength(2);
  });

  it("timeout: bounded retries, then a clear error", async () => {
    stub = await startLlmStub([{ hang: true }]);
    await expect(chat(llm("ollama", { timeoutMs: 200, retries: 2 }), [{ role: "user", content: "x" }])).rejects.toThrow(/after 3 attempt\(s\): no answer within 200 ms/);
    expect(stub.requests).toHaveLength(3);
  });

  it("does not retry a 4xx answer (wrong model name is not transient)", async () => {
    stub = await startLlmStub([{ status: 404, body: "model not found" }]);
    await expect(chat(llm("ollama", { retries: 3 }), [{ role: "user", content: "x" }])).rejects.toBeInstanceOf(LlmError);
    expect(stub.requests).toHaveLength(1);
  });

  it("strips <think> blocks of reasoning models", async () => {
    stub = await startLlmStub([{ answer: `<think>grouping...</think>\n${goodAnswer()}` }]);
    const { lessons } = await collect(makeWisdomWorkspace());
    expect((await distilWisdom({ lessons, llm: llm("ollama"), date: "2026-11-22" })).ok).toBe(true);
  });
});

describe("draft, review flag and promotion", () => {
  async function draftedWorkspace(eol = "\n"): Promise<string> {
    const ws = makeWisdomWorkspace({ eol });
    const { lessons } = await collect(ws);
    const parsed = parseWisdomAnswer(goodAnswer());
    await writeDraftAndFlag({ workspace: ws, section: renderWisdomSection(parsed.entries, "2026-11-22", lessons.length), entries: parsed.entries, lessons, date: "2026-11-22" });
    return ws;
  }

  it("writes the draft and trace, flags REVIEW NEEDED once, never touches SOUL.md", async () => {
    const ws = makeWisdomWorkspace();
    const soulBefore = sha(path.join(ws, "SOUL.md"));
    fs.writeFileSync(path.join(ws, "DAILY_EXECUTION_QUEUE.md"), "# Queue\n- [ ] ship it\n");
    const { lessons } = await collect(ws);
    const parsed = parseWisdomAnswer(goodAnswer());
    const section = renderWisdomSection(parsed.entries, "2026-11-22", lessons.length);
    await writeDraftAndFlag({ workspace: ws, section, entries: parsed.entries, lessons, date: "2026-11-22" });
    await writeDraftAndFlag({ workspace: ws, section, entries: parsed.entries, lessons, date: "2026-11-22" });
    const draft = fs.readFileSync(draftPath(ws), "utf8");
    expect(draft).toMatch(/^## Wisdom\n_Last compressed: 2026-11-22 \| Source lessons: 33_\n/);
    expect(draft).not.toMatch(/\[L\d+/);
    const trace = fs.readFileSync(path.join(ws, "initiatives/adaptive-context-injection/SOUL_WISDOM_TRACE.md"), "utf8");
    expect(trace).toContain(`- L1 (AGENTS.md § Operational Lessons): ${THEMES[0].lessons[0]}`);
    const queue = fs.readFileSync(path.join(ws, "DAILY_EXECUTION_QUEUE.md"), "utf8");
    expect(queue.match(/REVIEW NEEDED/g)).toHaveLength(1);
    expect(queue).toContain("- [ ] ship it");
    expect(sha(path.join(ws, "SOUL.md"))).toBe(soulBefore);
    // The queue was backed up before it changed.
    expect(fs.readdirSync(path.join(ws, "initiatives/adaptive-context-injection/backups")).some((f) => f.startsWith("DAILY_EXECUTION_QUEUE.md."))).toBe(true);
  });

  it("promote without approval changes nothing; with approval replaces only the Wisdom section", async () => {
    const ws = await draftedWorkspace();
    const soul = path.join(ws, "SOUL.md");
    const before = fs.readFileSync(soul, "utf8");
    const plan = await planPromotion(ws);
    expect(plan.problems).toEqual([]);
    expect(plan.diff).toContain("+ **Verify first.** Check names first.");
    expect(fs.readFileSync(soul, "utf8")).toBe(before);
    await applyPromotion(ws, plan, "2026-11-22");
    const after = fs.readFileSync(soul, "utf8");
    expect(after.startsWith("# SOUL\n\nI am Jules.\n\n## Wisdom\n_Last compressed: 2026-11-22")).toBe(true);
    expect(after.endsWith("\n## Vibe\nShort answers.\n")).toBe(true);
    expect(after).toContain(REQUIRED);
    expect(fs.readFileSync(path.join(ws, "initiatives/adaptive-context-injection/backups/SOUL.md.bak"), "utf8")).toBe(before);
    expect(fs.readFileSync(path.join(ws, "DAILY_EXECUTION_QUEUE.md"), "utf8")).toMatch(/- \[x\] REVIEWED/);
  });

  it("keeps an existing different SOUL.md.bak (the Phase 0 original) and writes a timestamped backup", async () => {
    const ws = await draftedWorkspace();
    const bak = path.join(ws, "initiatives/adaptive-context-injection/backups/SOUL.md.bak");
    fs.mkdirSync(path.dirname(bak), { recursive: true });
    fs.writeFileSync(bak, "# original pre-ACI SOUL\n");
    const result = await applyPromotion(ws, await planPromotion(ws), "2026-11-22");
    expect(fs.readFileSync(bak, "utf8")).toBe("# original pre-ACI SOUL\n");
    expect(path.basename(result.backup)).toMatch(/^SOUL\.md\.\d{8}T\d{6}Z(-\d+)?\.bak$/);
  });

  it("appends a Wisdom section when SOUL.md has none", async () => {
    const ws = await draftedWorkspace();
    fs.writeFileSync(path.join(ws, "SOUL.md"), "# SOUL\n\nI am Jules.\n");
    const plan = await planPromotion(ws);
    expect(plan.problems).toEqual([]);
    expect(plan.notes.join()).toMatch(/no "## Wisdom" section/);
    expect(plan.after).toMatch(/^# SOUL\n\nI am Jules\.\n\n## Wisdom\n/);
  });

  it("refuses a SOUL.md with two Wisdom sections", async () => {
    const ws = await draftedWorkspace();
    fs.writeFileSync(path.join(ws, "SOUL.md"), "# SOUL\n## Wisdom\n- a\n## Vibe\n## Wisdom\n- b\n");
    const plan = await planPromotion(ws);
    expect(plan.problems.join()).toMatch(/2 "## Wisdom" sections \(lines 2, 5\)/);
  });

  it("keeps CRLF line endings", async () => {
    const ws = await draftedWorkspace("\r\n");
    const plan = await planPromotion(ws);
    expect(plan.problems).toEqual([]);
    expect(plan.after.replace(/\r\n/g, "")).not.toContain("\n");
    expect(plan.after).toContain("\r\n## Vibe\r\n");
  });

  it("refuses when SOUL.md would exceed 200 tokens, or WISDOM.md exists", async () => {
    const ws = await draftedWorkspace();
    fs.writeFileSync(path.join(ws, "SOUL.md"), `# SOUL\n\n${"Identity text. ".repeat(40)}\n\n## Wisdom\nold\n`);
    fs.writeFileSync(path.join(ws, "WISDOM.md"), "nope");
    const problems = (await planPromotion(ws)).problems.join("\n");
    expect(problems).toMatch(/SOUL\.md would be \d+ tokens \(> 200/);
    expect(problems).toMatch(/WISDOM\.md exists/);
  });
});

describe("compress-wisdom CLI", () => {
  it("with no model reachable, the error names the flags that point it at one", async () => {
    const ws = makeWisdomWorkspace();
    // A port nothing listens on: bind one, note it, close it.
    const net = await import("node:net");
    const port = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, "127.0.0.1", () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    const run = await runOpsScript("compress-wisdom.ts", ["--workspace", ws, "--date", "2026-11-22", "--llm-url", `http://127.0.0.1:${port}`, "--retries", "0"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:\d+\/api\/chat/);
    expect(run.stderr).toContain("--provider ollama|openai and --llm-url <url>");
  });

  it("run → draft with exit 0, SOUL.md untouched; promote shows a diff and changes nothing without --approve", async () => {
    stub = await startLlmStub([{ answer: goodAnswer() }]);
    const ws = makeWisdomWorkspace();
    const soulHash = sha(path.join(ws, "SOUL.md"));
    const run = await runOpsScript("compress-wisdom.ts", ["--workspace", ws, "--date", "2026-11-22", "--llm-url", stub.ollamaUrl, "--timeout-ms", "5000"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Flagged REVIEW NEEDED");
    expect(fs.existsSync(draftPath(ws))).toBe(true);
    expect(sha(path.join(ws, "SOUL.md"))).toBe(soulHash);

    const preview = await runOpsScript("compress-wisdom.ts", ["promote", "--workspace", ws]);
    expect(preview.code).toBe(0);
    expect(preview.stdout).toContain("--- SOUL.md");
    expect(preview.stdout).toContain("re-run with --approve");
    expect(sha(path.join(ws, "SOUL.md"))).toBe(soulHash);

    const approve = await runOpsScript("compress-wisdom.ts", ["promote", "--approve", "--workspace", ws]);
    expect(approve.code).toBe(0);
    expect(sha(path.join(ws, "SOUL.md"))).not.toBe(soulHash);
  });

  it("--dry-run prints the prompt and stats without calling the model or writing files", async () => {
    const ws = makeWisdomWorkspace();
    const result = await runOpsScript("compress-wisdom.ts", ["--workspace", ws, "--dry-run", "--date", "2026-11-22", "--llm-url", "http://127.0.0.1:9"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Lessons sent to the model: 33");
    expect(result.stdout).toContain("Group these lessons by theme.");
    expect(fs.existsSync(path.join(ws, "initiatives"))).toBe(false);
  });

  it("exit 1 with the violations when the repair also fails; exit 2 on bad usage", async () => {
    stub = await startLlmStub([{ answer: GARBAGE_ANSWER }]);
    const ws = makeWisdomWorkspace();
    const failed = await runOpsScript("compress-wisdom.ts", ["--workspace", ws, "--llm-url", stub.ollamaUrl, "--date", "2026-11-22"]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/after one repair round; no draft written/);
    expect(fs.existsSync(draftPath(ws))).toBe(false);
    const usage = await runOpsScript("compress-wisdom.ts", ["--workspace", ws, "--date", "22/11/2026"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--date must be YYYY-MM-DD/);
  });
});
