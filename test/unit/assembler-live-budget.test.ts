// The assembler's full budget in live turns (issue 28 item 4; persistent memory spec §6, §10, §13):
// every §6 CONFIG.md key changes the block a live turn gets, the model's window (with the headroom)
// bounds it, the spec's truncation order decides what goes first, and the extension point fills
// slots 6 and 8 from a file or a command, bounded and only in the owner's turns. Each case is one
// turn through the service (gate, budget, composer) over the workspace's real index.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatCorrection } from "../../src/capture/corrections.ts";
import { createMemoryContextService } from "../../src/context/service.ts";
import type { TurnContext } from "../../src/context/service.ts";
import type { HostWindow } from "../../src/context/host-window.ts";
import type { SessionClassification } from "../../src/session/types.ts";
import { useTurnEnv } from "./turn-env.ts";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "live-budget-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const env = useTurnEnv(() => root);

const HOUR = 3_600_000;
const now = new Date();
const day = (offsetHours: number) => new Date(now.getTime() - offsetHours * HOUR).toISOString().slice(0, 10);
const QUESTION = "Tell me everything about my sailboat: its name, the mooring, the engine and the sails";
const SAILBOAT_FACTS = [
  "My sailboat is named Halcyon Drift and she is a 34 foot sloop built in 1998",
  "The sailboat is moored at slip 14 in Sausalito, next to the fuel dock",
  "The sailboat engine is a Yanmar diesel, serviced every spring by Marco",
  "The sailboat sails were recut in 2024: a new genoa and a repaired mainsail",
  "The sailboat mooring fee is paid yearly in January to the harbour office",
  "The sailboat has a blue hull and the name Halcyon Drift is painted in white",
  // More than the hits' share of the ceiling holds: slot 5 is hungry, so no budget is left over.
  ...Array.from({ length: 24 }, (_, i) => `Sailboat log ${i}: checked the engine, the sails and the mooring lines at slip 14 before the trip`),
];

let workspaces = 0;
/**
 * A workspace with sailboat facts in MEMORY.md (the hits), 40 recent notes in today's day file, two
 * open corrections, and `files` on top (CONFIG.md, SOUL.md, …). A new folder each time: CONFIG.md
 * is cached per folder.
 */
function workspace(files: Record<string, string> = {}, options: { corrections?: boolean; recent?: number } = {}): string {
  const ws = path.join(root, `ws-${(workspaces += 1)}`);
  fs.mkdirSync(path.join(ws, "memory"), { recursive: true });
  fs.writeFileSync(path.join(ws, "MEMORY.md"), `# Memory\n\n${SAILBOAT_FACTS.map((fact) => `- ${fact}.`).join("\n")}\n`);
  const recent = Array.from({ length: options.recent ?? 40 }, (_, i) => `- Routine errand number ${i}: picked up groceries and answered the post`);
  fs.writeFileSync(path.join(ws, "memory", `${day(0)}.md`), `${recent.join("\n")}\n`);
  if (options.corrections !== false) {
    const correction = (key: string, excerpt: string, hoursAgo: number) =>
      formatCorrection({ loggedAt: new Date(now.getTime() - hoursAgo * HOUR), triggerPhrase: "you forgot", triggerConfidence: "high", patternClass: "recall_failure", excerpt, cooldownHours: 24, dedupeKey: key });
    const older = correction("c1", "You forgot: the dentist appointment moved to Thursday at nine", 30).replace("- verified: false", "- verified: false");
    const newer = correction("c2", "You forgot: the deploy freeze starts on Friday after lunch", 2).replace("- verified: false", "- verified: true");
    fs.writeFileSync(path.join(ws, "CORRECTIONS.md"), `# Corrections\n\n${older}\n${newer}`);
  }
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(ws, name)), { recursive: true });
    fs.writeFileSync(path.join(ws, name), text);
  }
  return ws;
}

const configMd = (settings: Record<string, unknown>) => `# Config\n\n\`\`\`yaml\n${Object.entries(settings).map(([key, value]) => `${key}: ${JSON.stringify(value)}`).join("\n")}\n\`\`\`\n`;

/** `aci`: aci-bootstrap's entry (on by default, as installed); false: off, OpenClaw's own file sets. */
type TurnOptions = { ethos?: Record<string, unknown>; aci?: Record<string, unknown> | false; window?: HostWindow; classification?: SessionClassification; sessionKey?: string };
let turnCount = 0;
/** One turn of the owner's main session (or `sessionKey`) in a fresh service. */
async function turn(ws: string, options: TurnOptions = {}): Promise<TurnContext> {
  const entries: Record<string, unknown> = { "ethos-context": { memory: { minRefreshIntervalMs: 0, persistIndex: false }, ...options.ethos } };
  if (options.aci !== false) entries["aci-bootstrap"] = { enabled: true, ...options.aci };
  const cfg = { hooks: { internal: { entries } } };
  return createMemoryContextService().buildTurnContext({
    sessionKey: options.sessionKey ?? "agent:main:main",
    cfg,
    text: QUESTION,
    workspaceDir: ws,
    turnKey: `t${(turnCount += 1)}`,
    waitMs: 60_000,
    ...(options.window ? { window: options.window } : {}),
    ...(options.classification ? { classification: options.classification } : {}),
  });
}

/** The lines of one section of a block ("hits" = the Relevant-memories part at the top). */
function section(block: string, title: "hits" | string): string[] {
  const parts = block.trimEnd().split("\n\n");
  const part = title === "hits" ? parts.find((p) => p.startsWith("Relevant memories (")) : parts.find((p) => p.startsWith(`## ${title}`));
  return part ? part.split("\n").filter((line) => line.startsWith("- ")) : [];
}
const tokensOf = (block: string) => Math.ceil(block.length / 4);

describe("the default live block", () => {
  it("hits, corrections and recent notes share the 1,000-token ceiling; the per-turn slots only", async () => {
    const block = (await turn(workspace())).block;
    expect(section(block, "hits").length).toBeGreaterThanOrEqual(4);
    expect(section(block, "Corrections (CORRECTIONS.md)")).toHaveLength(2);
    expect(section(block, "Recent memory").length).toBeGreaterThan(5);
    expect(tokensOf(block)).toBeLessThanOrEqual(1000);
    // Slots 1, 2 and 7 are the bootstrap's files: never repeated in the block.
    expect(block).not.toMatch(/## (Identity|Operator profile|Long-term memory)/);
  });
});

describe("every §6 CONFIG.md key changes the live block", () => {
  it("corrections_tokens: 0 switches the Corrections slot off; a small budget keeps fewer", async () => {
    expect(section((await turn(workspace())).block, "Corrections (CORRECTIONS.md)")).toHaveLength(2);
    expect((await turn(workspace({ "CONFIG.md": configMd({ corrections_tokens: 0 }) }))).block).not.toContain("## Corrections");
    expect(section((await turn(workspace({ "CONFIG.md": configMd({ corrections_tokens: 100 }) }))).block, "Corrections (CORRECTIONS.md)")).toHaveLength(1);
  });

  it("recent_memory_tokens: its share of the ceiling sets how many recent notes; 0 switches the slot off", async () => {
    const many = section((await turn(workspace({ "CONFIG.md": configMd({ recent_memory_tokens: 3000 }) }))).block, "Recent memory").length;
    const few = section((await turn(workspace({ "CONFIG.md": configMd({ recent_memory_tokens: 300 }) }))).block, "Recent memory").length;
    expect(few).toBeGreaterThan(0);
    expect(many).toBeGreaterThan(few);
    expect((await turn(workspace({ "CONFIG.md": configMd({ recent_memory_tokens: 0 }) }))).block).not.toContain("## Recent memory");
  });

  it("semantic_recall_tokens: its share of the ceiling sets how many hits", async () => {
    const many = section((await turn(workspace({ "CONFIG.md": configMd({ semantic_recall_tokens: 1500 }) }))).block, "hits").length;
    const few = section((await turn(workspace({ "CONFIG.md": configMd({ semantic_recall_tokens: 150 }) }))).block, "hits").length;
    expect(few).toBeGreaterThan(0);
    expect(many).toBeGreaterThan(few);
  });

  it("memory_retention_hours: a note from three days ago is recent memory at 96 hours, not at the default 48", async () => {
    const old = `memory/${day(72)}.md`;
    const files = (settings: Record<string, unknown>) => ({ [old]: "- The old anchor chain was replaced with galvanised steel\n", "CONFIG.md": configMd(settings) });
    const at = (ws: string) => {
      const mtime = new Date(now.getTime() - 72 * HOUR);
      fs.utimesSync(path.join(ws, old), mtime, mtime);
      return ws;
    };
    const in48 = await turn(at(workspace(files({}), { recent: 10 })));
    const in96 = await turn(at(workspace(files({ memory_retention_hours: 96 }), { recent: 10 })));
    expect(section(in48.block, "hits").length, in48.reason).toBeGreaterThan(0);
    expect(in48.block).not.toContain("anchor chain");
    expect(in96.block, in96.reason).toContain("anchor chain");
  });

  it("correction_overflow_strategy: with room for one correction, the unverified one first by default, the newest with newest_first", async () => {
    const one = { corrections_tokens: 100 };
    const unverifiedFirst = section((await turn(workspace({ "CONFIG.md": configMd(one) }))).block, "Corrections (CORRECTIONS.md)");
    const newestFirst = section((await turn(workspace({ "CONFIG.md": configMd({ ...one, correction_overflow_strategy: "newest_first" }) }))).block, "Corrections (CORRECTIONS.md)");
    expect(unverifiedFirst).toEqual([expect.stringContaining("dentist appointment")]);
    expect(newestFirst).toEqual([expect.stringContaining("deploy freeze")]);
  });

  it("context_budget_tokens: a smaller context budget caps the block, cut from the lowest-priority slot up", async () => {
    const full = (await turn(workspace())).block;
    const capped = (await turn(workspace({ "CONFIG.md": configMd({ context_budget_tokens: 450 }) }))).block;
    expect(tokensOf(capped)).toBeLessThanOrEqual(450);
    expect(tokensOf(capped)).toBeLessThan(tokensOf(full));
    // Slot 5 (the hits) goes before slot 4 (recent notes), and slot 4 before slot 3 (corrections).
    expect(section(capped, "hits")).toHaveLength(0);
    expect(section(capped, "Corrections (CORRECTIONS.md)")).toHaveLength(2);
    expect(section(capped, "Recent memory").length).toBeGreaterThan(0);
  });

  it("identity_tokens: SOUL.md (injected by the bootstrap) takes up to its budget of the context budget", async () => {
    const files = (settings: Record<string, unknown>) => ({ "SOUL.md": `# Soul\n\n${"Calm, precise, kind. ".repeat(100)}\n`, "CONFIG.md": configMd({ context_budget_tokens: 1200, ...settings }) });
    const large = (await turn(workspace(files({ identity_tokens: 800 })))).block;
    const small = (await turn(workspace(files({ identity_tokens: 100 })))).block;
    expect(tokensOf(large)).toBeLessThanOrEqual(1200 - 500); // SOUL.md is ~500 tokens: all of it counted
    expect(tokensOf(small)).toBeGreaterThan(tokensOf(large));
  });

  it("user_profile_tokens: USER.md (injected by the bootstrap) takes up to its budget of the context budget", async () => {
    const files = (settings: Record<string, unknown>) => ({ "USER.md": `# User\n\n${"Jeff sails on weekends. ".repeat(100)}\n`, "CONFIG.md": configMd({ context_budget_tokens: 1200, ...settings }) });
    const large = (await turn(workspace(files({ user_profile_tokens: 600 })))).block;
    const small = (await turn(workspace(files({ user_profile_tokens: 50 })))).block;
    expect(tokensOf(large)).toBeLessThanOrEqual(1200 - 600);
    expect(tokensOf(small)).toBeGreaterThan(tokensOf(large));
  });

  it("longterm_memory_tokens: counts MEMORY.md when the bootstrap injects it (OpenClaw's own set), not under aci-bootstrap's sets", async () => {
    const files = (settings: Record<string, unknown>) => ({ "CONFIG.md": configMd({ context_budget_tokens: 800, ...settings }) });
    // aci-bootstrap off: OpenClaw injects MEMORY.md into the main session (~900 tokens here).
    const counted = (await turn(workspace(files({ longterm_memory_tokens: 500 })), { aci: false })).block;
    const notCounted = (await turn(workspace(files({ longterm_memory_tokens: 0 })), { aci: false })).block;
    // aci-bootstrap's sets never inject MEMORY.md (it is searched, slot 5): nothing to count.
    const searched = (await turn(workspace(files({ longterm_memory_tokens: 500 })))).block;
    expect(tokensOf(counted)).toBeLessThanOrEqual(800 - 500);
    expect(tokensOf(counted)).toBeLessThan(tokensOf(notCounted));
    expect(tokensOf(searched)).toBe(tokensOf(notCounted));
  });

  it("headroom_reserve_tokens: kept free in the model's window; the block gets what is left, or nothing", async () => {
    const window: HostWindow = { tokens: 4000, usedTokens: 2500, source: "host-budget" };
    const roomy = await turn(workspace({ "CONFIG.md": configMd({ headroom_reserve_tokens: 100 }) }), { window });
    const tight = await turn(workspace({ "CONFIG.md": configMd({ headroom_reserve_tokens: 1200 }) }), { window });
    const none = await turn(workspace({ "CONFIG.md": configMd({ headroom_reserve_tokens: 1500 }) }), { window });
    expect(tokensOf(roomy.block)).toBeGreaterThan(tokensOf(tight.block));
    expect(tokensOf(tight.block)).toBeLessThanOrEqual(300);
    expect(tight.block).not.toBe("");
    expect(none).toMatchObject({ block: "", reason: "no-room" });
  });

  it("crm_tokens: the CRM slot shows the extension's profiles; 0 switches it off (the source is not even read)", async () => {
    const profiles = path.join(root, "profiles.md");
    fs.writeFileSync(profiles, "- Marco: the Yanmar mechanic, prefers calls before 9\n");
    const ethos = { contextSources: { crm: { file: profiles } } };
    expect(section((await turn(workspace(), { ethos })).block, "People and organisations")).toEqual(["- Marco: the Yanmar mechanic, prefers calls before 9"]);
    expect((await turn(workspace({ "CONFIG.md": configMd({ crm_tokens: 0 }) }), { ethos })).block).not.toContain("Yanmar mechanic");
  });

  it("external_context_budget and external_context_source: a workspace file fills slot 8 once it has a budget (default 0: off)", async () => {
    const files = (settings: Record<string, unknown>) => ({ "notes/recipe.md": "- Current task: replace the bilge pump before Saturday\n", "CONFIG.md": configMd({ external_context_source: "notes/recipe.md", ...settings }) });
    expect((await turn(workspace(files({})))).block).not.toContain("bilge pump");
    expect(section((await turn(workspace(files({ external_context_budget: 200 })))).block, "External context")).toEqual(["- Current task: replace the bilge pump before Saturday"]);
  });
});

describe("the model's window and the spec's truncation order", () => {
  it("a tight window cuts from slot 8 up: external and CRM first, then the hits, then recent notes; corrections last", async () => {
    const profiles = path.join(root, "profiles-2.md");
    fs.writeFileSync(profiles, "- Dana at Acme Marine: orders parts, answers in the afternoon\n");
    const files = { "notes/recipe.md": "- Current task: replace the bilge pump before Saturday\n", "CONFIG.md": configMd({ external_context_source: "notes/recipe.md", external_context_budget: 300, headroom_reserve_tokens: 0 }) };
    const ethos = { contextSources: { crm: { file: profiles } } };
    const wide = (await turn(workspace(files), { ethos })).block;
    expect(wide).toContain("bilge pump");
    expect(wide).toContain("Acme Marine");
    const narrow = (await turn(workspace(files), { ethos, window: { tokens: 10_000, usedTokens: 9_550, source: "model-config" } })).block;
    expect(tokensOf(narrow)).toBeLessThanOrEqual(450);
    expect(narrow).not.toContain("bilge pump");
    expect(narrow).not.toContain("Acme Marine");
    expect(section(narrow, "Corrections (CORRECTIONS.md)")).toHaveLength(2);
  });
});

describe("the extension point: bounded, and never for anyone but the owner", () => {
  const script = (name: string, body: string) => {
    const file = path.join(root, name);
    fs.writeFileSync(file, body);
    return file;
  };
  const marker = (name: string) => path.join(root, `${name}.ran`);
  // A CRM lookup that notes each request it gets, then answers with a profile.
  const crmCommand = (name: string) =>
    script(
      `${name}.mjs`,
      `import fs from "node:fs";\nlet input = "";\nprocess.stdin.on("data", (c) => (input += c));\nprocess.stdin.on("end", () => {\n  fs.appendFileSync(${JSON.stringify(marker(name))}, input);\n  process.stdout.write("- Marco: the Yanmar mechanic\\n");\n});\n`,
    );

  it("a command gets the slot and the turn's message on stdin and fills the CRM slot with its answer", async () => {
    // A generous timeout: a Node script's start-up time is the machine's, not what is tested here.
    const ethos = { contextSources: { crm: { command: [process.execPath, crmCommand("crm-ok")], timeoutMs: 5000 } } };
    const block = (await turn(workspace(), { ethos })).block;
    expect(section(block, "People and organisations")).toEqual(["- Marco: the Yanmar mechanic"]);
    expect(JSON.parse(fs.readFileSync(marker("crm-ok"), "utf8"))).toEqual({ slot: "crm", query: QUESTION, sessionType: "MAIN_SESSION" });
  });

  it("a command that never answers is killed at its timeout; the turn goes on with the slot empty", async () => {
    const hang = script("crm-hang.mjs", "setInterval(() => {}, 1000);\n");
    const ethos = { contextSources: { crm: { command: [process.execPath, hang], timeoutMs: 50 } } };
    const result = await turn(workspace(), { ethos });
    expect(result.status).toBe("ok");
    expect(result.block).not.toContain("## People and organisations");
    expect(section(result.block, "hits").length).toBeGreaterThan(0);
    expect(env.logs.some((line) => line.includes("context source gave nothing this turn") && line.includes("timed out after 50 ms"))).toBe(true);
  });

  it("a command that prints without end is cut at maxChars and stopped", async () => {
    const flood = script("crm-flood.mjs", `const line = "- Acme Marine: ${"x".repeat(60)}\\n";\nsetInterval(() => process.stdout.write(line.repeat(100)), 1);\n`);
    const ethos = { contextSources: { crm: { command: [process.execPath, flood], maxChars: 300, timeoutMs: 5000 } } };
    const result = await turn(workspace(), { ethos });
    const crm = section(result.block, "People and organisations");
    expect(crm.length).toBeGreaterThan(0);
    expect(crm.join("\n").length).toBeLessThanOrEqual(300);
  });

  it("never runs for a non-owner sender in the main session, a group or a stranger's DM; does for the owner", async () => {
    const command = crmCommand("crm-who");
    const ethos = { contextSources: { crm: { command: [process.execPath, command], timeoutMs: 5000 } }, scope: { groups: [{ peerId: "g1", memoryDir: path.join(root, "group-memory") }] } };
    fs.mkdirSync(path.join(root, "group-memory"), { recursive: true });
    const chatter = Array.from({ length: 40 }, (_, i) => `- Group chatter ${i}: who brings the snacks on Sunday`);
    fs.writeFileSync(path.join(root, "group-memory", "notes.md"), [...SAILBOAT_FACTS.map((fact) => `- ${fact}.`), ...chatter].join("\n"));
    const friend: SessionClassification = { type: "MAIN_SESSION", rule: "sender-not-owner", agentId: "main", keyShape: "agent:<id>:main" };
    const ws = workspace();
    expect((await turn(ws, { ethos, classification: friend })).reason).toBe("not-owner");
    const group = await turn(ws, { ethos, sessionKey: "agent:main:telegram:group:g1" });
    expect(group.block, group.reason).toContain("Relevant memories (group memory)"); // the group's own memory, and nothing of the owner's
    expect(group.block).not.toContain("## People and organisations");
    expect((await turn(ws, { ethos, sessionKey: "agent:main:telegram:direct:777" })).status).toBe("out-of-scope");
    expect(fs.existsSync(marker("crm-who"))).toBe(false);
    expect((await turn(ws, { ethos })).block).toContain("## People and organisations");
    expect(fs.existsSync(marker("crm-who"))).toBe(true);
  });

  it("CONFIG.md's external_context_source may not leave the workspace (openclaw.json's contextSources may)", async () => {
    const outside = path.join(root, "outside-recipe.md");
    fs.writeFileSync(outside, "- Outside secret plan\n");
    const settings = { external_context_source: outside, external_context_budget: 200 };
    expect((await turn(workspace({ "CONFIG.md": configMd(settings) }))).block).not.toContain("Outside secret plan");
    expect(env.logs.some((line) => line.includes("outside-root"))).toBe(true);
    const viaOpenclawJson = await turn(workspace({ "CONFIG.md": configMd({ external_context_budget: 200 }) }), { ethos: { contextSources: { external: { file: outside } } } });
    expect(viaOpenclawJson.block).toContain("Outside secret plan");
  });
});
