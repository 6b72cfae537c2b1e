import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isSupersededEntry } from "../../src/capture/capture.ts";
import { findConflicts, openConflicts, resolve } from "../../src/lifecycle/conflicts.ts";
import { memoryFacts } from "../../src/lifecycle/memory-facts.ts";
import { runMaintenancePass } from "../../src/lifecycle/pass.ts";
import { FAST, temporaryWorkspace } from "./lifecycle-fixtures.ts";

const workspace = temporaryWorkspace("conflicts", ["memory"]);

const NOW = "2026-11-26T07:00:00.000Z";

const put = (rel: string, text: string) => fs.writeFileSync(path.join(workspace(), rel), text);
const get = (rel: string) => (fs.existsSync(path.join(workspace(), rel)) ? fs.readFileSync(path.join(workspace(), rel), "utf8") : "");
const pass = (now = NOW) => runMaintenancePass({ workspaceDir: workspace(), now: new Date(now), config: FAST, steps: ["conflicts"], wallClock: () => new Date(now) });
const captured = (statement: string, tag: string, meta: string, at: string) => `- ${statement} ${tag} <!-- ${meta} last: ${at.slice(0, 10)} captured: ${at} -->`;

describe("the Conflict Detector's rules (§5.4)", () => {
  it("an operator correction wins, always: the older fact is marked superseded, never deleted", async () => {
    put("MEMORY.md", "# Memory\n\n- my locker code is 4312 #knowledge <!-- confidence: 0.95 source: operator mentions: 1 last: 2026-11-20 -->\n");
    put("memory/2026-11-26.md", `${captured("the locker code is 5580 now", "#knowledge", "confidence: 1 source: correction mentions: 1", "2026-11-26T05:00:00.000Z")}\n`);
    await pass();
    const memory = get("MEMORY.md");
    expect(memory).toContain("- my locker code is 4312 #knowledge <!-- confidence: 0.95 source: operator mentions: 1 last: 2026-11-20 status: superseded superseded_by: k-");
    expect(isSupersededEntry(memory.split("\n")[2])).toBe(true);
    const log = get("CONFLICTS.md");
    expect(log).toMatch(/## Conflict k-[0-9a-f]{12} · 2026-11-26\n- status: resolved\n- rule: an operator correction wins\n- winner: memory\/2026-11-26.md line 1: "the locker code is 5580 now"/);
    expect(openConflicts(log)).toEqual([]);
  });

  it("a direct statement newer by 30 days or more wins for #event, #knowledge and #decision", async () => {
    put("MEMORY.md", "- my sailboat is moored at slip 14 #knowledge <!-- confidence: 0.95 source: operator mentions: 1 last: 2026-09-01 -->\n");
    put("memory/2026-11-26.md", `${captured("my sailboat is moored at slip 22", "#knowledge", "confidence: 0.95 source: operator mentions: 1", "2026-11-26T05:00:00.000Z")}\n`);
    await pass();
    expect(get("MEMORY.md")).toContain("status: superseded");
    expect(get("CONFLICTS.md")).toContain("- rule: the newer direct statement wins (86 days newer, 30 needed)");
  });

  it("two direct statements within 30 days are flagged for the operator; neither is marked", async () => {
    const memory = "- my sailboat is moored at slip 14 #knowledge <!-- confidence: 0.95 source: operator mentions: 1 last: 2026-11-10 -->\n";
    put("MEMORY.md", memory);
    put("memory/2026-11-26.md", `${captured("my sailboat is moored at slip 22", "#knowledge", "confidence: 0.95 source: operator mentions: 1", "2026-11-26T05:00:00.000Z")}\n`);
    await pass();
    expect(get("MEMORY.md")).toBe(memory);
    const open = openConflicts(get("CONFLICTS.md"));
    expect(open).toHaveLength(1);
    expect(get("CONFLICTS.md")).toContain("- rule: both direct statements, 16 days apart (under 30): for the operator");
  });

  it("a hand-written MEMORY.md line (no source) is never marked automatically: flagged", async () => {
    const memory = "- my locker code is 4312\n";
    put("MEMORY.md", memory);
    put("memory/2026-11-26.md", `${captured("my locker code is 7777", "#knowledge", "confidence: 0.95 source: operator mentions: 1", "2026-11-26T05:00:00.000Z")}\n`);
    await pass();
    expect(get("MEMORY.md")).toBe(memory);
    expect(openConflicts(get("CONFLICTS.md"))).toHaveLength(1);
  });

  it("each conflict is logged once: the next passes add nothing", async () => {
    put("MEMORY.md", "- my sailboat is moored at slip 14 #knowledge <!-- confidence: 0.95 source: operator mentions: 1 last: 2026-11-10 -->\n");
    put("memory/2026-11-26.md", `${captured("my sailboat is moored at slip 22", "#knowledge", "confidence: 0.95 source: operator mentions: 1", "2026-11-26T05:00:00.000Z")}\n`);
    await pass();
    const log = get("CONFLICTS.md");
    expect((await pass()).record.changes).toEqual([]);
    expect((await pass("2026-11-26T23:00:00.000Z")).record.changes).toEqual([]);
    expect(get("CONFLICTS.md")).toBe(log);
  });

  it("only facts of the last 24 hours are checked (an old contradiction is not this scan's)", () => {
    const facts = [
      ...memoryFacts("MEMORY.md", "- my locker code is 4312 #knowledge <!-- source: operator last: 2026-06-01 -->\n- my locker code is 5580 #knowledge <!-- source: operator last: 2026-07-01 -->\n"),
      ...memoryFacts("memory/2026-11-26.md", "- I like green tea #knowledge <!-- source: operator last: 2026-11-26 -->\n", "2026-11-26"),
    ];
    expect(findConflicts(facts, new Date("2026-11-25T07:00:00.000Z"), new Date(NOW))).toEqual([]);
    expect(findConflicts(facts, new Date("2026-05-01T00:00:00.000Z"), new Date(NOW))).toHaveLength(1);
  });

  it("capture's relation rule finds a new word value and a negation too (src/capture/relation.ts)", () => {
    const since = new Date("2000-01-01");
    const pair = (older: string, newer: string) => findConflicts(memoryFacts("memory/2026-11-26.md", `- ${older} #knowledge\n- ${newer} #knowledge\n`, "2026-11-26"), since, new Date(NOW));
    expect(pair("the wifi password is sunflower", "the wifi password is moonlight")).toHaveLength(1);
    expect(pair("I like coffee", "I do not like coffee")).toHaveLength(1);
    expect(pair("I like coffee", "I like coffee in the morning")).toEqual([]);
  });

  it("unrelated facts and repeats are no conflict", () => {
    // Dated (a day file): every one of them is in the scan's window.
    const [a, b, c] = memoryFacts("memory/2026-11-26.md", "- my bike lock code is 1234 #knowledge\n- my locker code is 4312 #knowledge\n- My locker code is 4312. #knowledge\n", "2026-11-26");
    expect(findConflicts([a, b, c], new Date("2000-01-01"), new Date(NOW))).toEqual([]);
    expect(resolve(a, b)).toMatchObject({ flagged: true });
  });
});
