import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { defaultEthosContextConfig } from "../../src/context/config.ts";
import { runContextPipeline } from "../../src/context/pipeline.ts";
import { chronicleSection, demoteHeadings, monthFile } from "../../src/lifecycle/compaction.ts";
import { runMaintenancePass } from "../../src/lifecycle/pass.ts";
import { undoRun } from "../../src/lifecycle/run-log.ts";
import type { HygieneConfig } from "../../src/memory/config-md.ts";
import { buildMemoryIndex } from "../../src/memory/memory-index.ts";
import { createEmbeddedRetriever } from "../../src/memory/retriever.ts";
import { workspaceMemorySources } from "../../src/memory/sources.ts";
import { FAST, LOCK, temporaryWorkspace } from "./lifecycle-fixtures.ts";

const workspace = temporaryWorkspace("compaction", ["memory"]);

const NOW = "2026-11-26T03:00:00.000Z";

const put = (rel: string, text: string) => fs.writeFileSync(path.join(workspace(), rel), text);
const get = (rel: string) => (fs.existsSync(path.join(workspace(), rel)) ? fs.readFileSync(path.join(workspace(), rel), "utf8") : "");
const pass = (config: HygieneConfig = FAST, now = NOW) => runMaintenancePass({ workspaceDir: workspace(), now: new Date(now), config, steps: ["compaction"], wallClock: () => new Date(now) });

async function ask(question: string): Promise<string> {
  const index = await buildMemoryIndex(workspaceMemorySources(workspace()), { cacheDir: false });
  return (await runContextPipeline({ message: question, retriever: createEmbeddedRetriever(index), config: defaultEthosContextConfig(), sessionType: "MAIN_SESSION" })).block;
}

describe("day files older than compaction_age_days go to Archive/Chronicles/, verbatim", () => {
  const old = "# 2026-09-14\n\n- Halcyon Drift got a new mainsail from Quantum Sails #event <!-- confidence: 0.95 source: operator mentions: 1 last: 2026-09-14 captured: 2026-09-14T10:00:00.000Z -->\n- the agent noted: Jeff prefers the 7:40 ferry\n\n```\n# not a heading\n```\n";

  it("archives the day file whole under its date and path, removes it, logs it, and retrieval still finds it", async () => {
    put("memory/2026-09-14.md", old);
    put("memory/2026-11-20.md", "- recent note\n");
    await pass();
    expect(fs.existsSync(path.join(workspace(), "memory/2026-09-14.md"))).toBe(false);
    expect(get("memory/2026-11-20.md")).toBe("- recent note\n");
    const chronicle = get("Archive/Chronicles/2026-September.md");
    expect(chronicle).toContain(chronicleSection("memory/2026-09-14.md", "2026-09-14", old));
    expect(chronicle).toContain("## 2026-09-14 · memory/2026-09-14.md\n\n### 2026-09-14\n\n- Halcyon Drift got a new mainsail");
    expect(chronicle).toContain("```\n# not a heading\n```");
    expect(get("COMPACTION_LOG.md")).toContain("- memory/2026-09-14.md → Archive/Chronicles/2026-September.md (");
    expect(await ask("Where did the new mainsail for Halcyon Drift come from?")).toContain("Quantum Sails");
  });

  it("compaction_age_days acts: at 90 a 73-day-old file stays", async () => {
    put("memory/2026-09-14.md", old);
    await pass({ ...FAST, compaction_age_days: 90 });
    expect(get("memory/2026-09-14.md")).toBe(old);
  });

  it("a second pass changes nothing; undo puts the day file back byte for byte", async () => {
    put("memory/2026-09-14.md", old);
    const { record } = await pass();
    expect((await pass()).record.changes).toEqual([]);
    await undoRun(workspace(), record.run, { lock: LOCK });
    expect(get("memory/2026-09-14.md")).toBe(old);
    expect(fs.existsSync(path.join(workspace(), "Archive/Chronicles"))).toBe(false);
  });

  it("headings go two levels down, fenced code stays as it is", () => {
    expect(demoteHeadings("# a\n## b\n##### e\n```\n# code\n```\n#nottag")).toBe("### a\n#### b\n###### e\n```\n# code\n```\n#nottag");
    expect(monthFile("Archive/Chronicles", "2026-01-31")).toBe("Archive/Chronicles/2026-January.md");
  });
});

describe("MEMORY.md hygiene (§5.5 task 3)", () => {
  it("an entry under 0.3 and unmentioned for 60 days moves to Archive/Memory/; a #correction never does", async () => {
    put(
      "MEMORY.md",
      [
        "# Memory",
        "",
        "- the old printer is in room 12 #knowledge <!-- confidence: 0.25 source: inferred mentions: 1 last: 2026-08-01 -->",
        "- the office wifi is called Tern #knowledge <!-- confidence: 0.25 source: inferred mentions: 1 last: 2026-11-01 -->",
        "- Moved to Hangzhou in January #correction <!-- confidence: 0.1 last: 2025-01-01 -->",
        "",
      ].join("\n"),
    );
    await pass();
    const memory = get("MEMORY.md");
    expect(memory).not.toContain("old printer");
    expect(memory).toContain("office wifi"); // mentioned 25 days ago
    expect(memory).toContain("Moved to Hangzhou");
    expect(get("Archive/Memory/2026-November.md")).toContain("- the old printer is in room 12 #knowledge <!-- confidence: 0.25 source: inferred mentions: 1 last: 2026-08-01 -->");
    expect(get("COMPACTION_LOG.md")).toContain("- removed from MEMORY.md (confidence 0.2 < 0.3, no mention since 2026-08-01), kept in Archive/Memory/2026-November.md: - the old printer is in room 12");
    expect(await ask("Which room is the old printer in?")).toContain("room 12");
  });

  it("corrected_embedding_grace_days acts: a superseded entry leaves MEMORY.md once the grace period is over", async () => {
    const line = "- my locker code is 4312 #knowledge <!-- confidence: 0.95 source: operator mentions: 1 last: 2026-06-01 status: superseded superseded_by: k-1 superseded_on: 2026-11-20 -->";
    put("MEMORY.md", `${line}\n`);
    await pass({ ...FAST, corrected_embedding_grace_days: 7 });
    expect(get("MEMORY.md")).toContain("4312");
    await pass({ ...FAST, corrected_embedding_grace_days: 5 });
    expect(get("MEMORY.md")).not.toContain("4312");
    expect(get("Archive/Memory/2026-November.md")).toContain(line);
  });

  it("near-duplicates merge into the first: mentions add up, the later date and the higher confidence stay", async () => {
    put(
      "MEMORY.md",
      [
        "- Jeff's sailboat is named Halcyon Drift #knowledge <!-- confidence: 0.9 source: operator mentions: 1 last: 2026-10-01 captured: 2026-10-01T08:00:00.000Z -->",
        "- Prefers window seats",
        "- jeff's sailboat is named Halcyon Drift. #knowledge <!-- confidence: 0.95 source: operator mentions: 2 last: 2026-11-01 -->",
        "- prefers window seats!",
        "- Moved to Hangzhou in January #correction",
        "- moved to Hangzhou in January #correction",
        "",
      ].join("\n"),
    );
    await pass();
    expect(get("MEMORY.md")).toBe(
      [
        "- Jeff's sailboat is named Halcyon Drift #knowledge <!-- confidence: 0.95 source: operator mentions: 3 last: 2026-11-01 captured: 2026-10-01T08:00:00.000Z -->",
        "- Prefers window seats",
        "- Moved to Hangzhou in January #correction",
        "- moved to Hangzhou in January #correction",
        "",
      ].join("\n"),
    );
    const log = get("COMPACTION_LOG.md");
    expect(log).toContain("near-duplicate removed: - jeff's sailboat is named Halcyon Drift. #knowledge");
    expect(log).toContain("near-duplicate removed: - prefers window seats!");
  });
});
