// A generated vault lived in for N days, with and without the daily maintenance pass
// (src/lifecycle/). Each day the operator says "remember that …" (new facts, repeats, corrections
// of earlier values), reminds the agent of things it forgot ("You forgot: I'm vegetarian"), the
// agent appends its own notes, and now and then the operator edits MEMORY.md or a day file by hand.
// Every message goes through triage and capture, the real write path; the pass runs at 03:00 the
// next night. test/unit/lifecycle-simulation.test.ts asserts on it; this script prints the sizes.
//   npx tsx bench/maintenance.ts [--days 90] [--seed 7] [--json]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { setLogDestination } from "../src/core/log.ts";
import { parseCapturedLine, settledCaptures } from "../src/capture/capture.ts";
import { triageInboundMessage } from "../src/capture/triage.ts";
import { promoteSoulProposal, runMaintenancePass } from "../src/lifecycle/pass.ts";
import type { RunRecord } from "../src/lifecycle/run-log.ts";
import { HYGIENE_CONFIG_DEFAULTS } from "../src/memory/config-md.ts";
import type { HygieneConfig } from "../src/memory/config-md.ts";
import { markdownTable } from "./lib/table.ts";
import { seededRandom } from "./scale/vault.ts";

export const SIM_CONFIG: HygieneConfig = { ...HYGIENE_CONFIG_DEFAULTS, lock_retry_interval_seconds: 0.01, lock_max_retries: 200 };
export const SIM_START = Date.parse("2026-08-01T00:00:00.000Z");
const DAY = 86_400_000;

const ADJECTIVES = ["crimson", "amber", "cobalt", "saffron", "indigo", "jade", "scarlet", "ochre", "teal", "violet", "ivory", "umber", "coral", "slate", "mustard", "olive", "maroon", "azure", "russet", "lilac", "khaki", "copper", "silver", "pewter", "plum", "rose", "sable", "tawny", "cerise", "fawn"];
const NOUNS = ["otter", "falcon", "badger", "heron", "lynx", "walrus", "gecko", "marmot", "puffin", "tapir", "bison", "condor", "ferret", "ibis", "jackal", "koala", "lemur", "mole", "newt", "oriole", "panda", "quail", "raven", "stoat", "toucan", "viper", "wombat", "yak", "zebra", "beaver"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

export const SEED_MEMORY = [
  "# Memory",
  "",
  "- my dentist is Dr. Okafor #knowledge <!-- confidence: 0.95 source: operator mentions: 2 last: 2026-07-10 -->",
  "- my gym locker code is 1234 #knowledge <!-- confidence: 0.95 source: operator mentions: 1 last: 2026-06-15 -->",
  "- the old printer is in room 12 #knowledge <!-- confidence: 0.4 source: inferred mentions: 1 last: 2026-02-01 -->",
  "- the lobby fern is watered on Mondays #knowledge <!-- confidence: 0.45 source: inferred mentions: 1 last: 2026-06-01 -->",
  "- Moved to Hangzhou in January #correction",
  "- Jeff's sailboat is named Halcyon Drift #knowledge <!-- confidence: 0.95 source: operator mentions: 1 last: 2026-07-01 -->",
  "",
].join("\n");
export const SEED_SOUL = "# Soul\n\nI am Jules, a careful assistant.\n";

/** A fact the operator holds to be true now, and how to ask about it. */
export type CurrentFact = { statement: string; question: string; value: string };

export type Ledger = {
  /** Every statement the operator asked to keep, with the day. */
  said: { day: number; statement: string }[];
  /** Statements the operator removed or rewrote by hand (not expected anywhere). */
  removedByHand: Set<string>;
  /** What the operator holds true at the end, per subject. */
  current: Map<string, CurrentFact>;
  runs: RunRecord[];
  promoted: boolean;
};

type Template = { kind: string; statement: (s: string, v: string) => string; question: (s: string) => string; value: (rand: () => number) => string };

const TEMPLATES: Template[] = [
  { kind: "deadline", statement: (s, v) => `the ${s} project deadline is ${v}`, question: (s) => `When is the ${s} project deadline?`, value: (r) => `${1 + Math.floor(r() * 28)} ${MONTHS[Math.floor(r() * 12)]}` },
  { kind: "locker", statement: (s, v) => `my ${s} locker code is ${v}`, question: (s) => `What is my ${s} locker code?`, value: (r) => String(1000 + Math.floor(r() * 9000)) },
  { kind: "slip", statement: (s, v) => `the ${s} boat is moored at slip ${v}`, question: (s) => `Where is the ${s} boat moored?`, value: (r) => String(1 + Math.floor(r() * 90)) },
];

export type DayHook = (clock: Date, day: number) => Promise<void>;

export type SimulationOptions = {
  workspaceDir: string;
  days: number;
  seed: number;
  /** The nightly pass (03:00 after each day); omit for the vault without maintenance. */
  nightly?: DayHook;
};

const iso = (ms: number) => new Date(ms);

/** Live the vault: the same messages for the same seed, whatever the passes did to the files. */
export async function simulateVault(options: SimulationOptions): Promise<Ledger> {
  const ws = options.workspaceDir;
  const rand = seededRandom(options.seed);
  fs.mkdirSync(path.join(ws, "memory"), { recursive: true });
  fs.writeFileSync(path.join(ws, "MEMORY.md"), SEED_MEMORY);
  fs.writeFileSync(path.join(ws, "SOUL.md"), SEED_SOUL);
  const ledger: Ledger = {
    said: [],
    removedByHand: new Set(),
    current: new Map([
      ["dentist", { statement: "my dentist is Dr. Okafor", question: "Who is my dentist?", value: "Okafor" }],
      ["halcyon", { statement: "Jeff's sailboat is named Halcyon Drift", question: "What is the name of Jeff's sailboat?", value: "Halcyon Drift" }],
      ["gym", { statement: "my gym locker code is 1234", question: "What is my gym locker code?", value: "1234" }],
    ]),
    runs: [],
    promoted: false,
  };
  const subjects: string[] = [];
  for (const a of ADJECTIVES) for (const n of NOUNS) subjects.push(`${a} ${n}`);
  const said: { day: number; subject: string; template: Template; statement: string }[] = [];

  const say = async (content: string, at: number) => {
    const outcome = await triageInboundMessage({ content, workspaceDir: ws, now: iso(at), config: SIM_CONFIG, capture: true, sessionKey: "agent:main:main", messageId: `m-${at}` });
    // Its in-place edits land before the agent's next write (in a gateway: milliseconds, not the minutes between messages).
    await settledCaptures(ws);
    const line = outcome.capture?.line;
    return line ? parseCapturedLine(line)?.statement : undefined;
  };
  const dayFile = (at: number) => path.join(ws, "memory", `${iso(at).toISOString().slice(0, 10)}.md`);

  for (let day = 0; day < options.days; day++) {
    const morning = SIM_START + day * DAY + 9 * 3_600_000;
    let minute = 0;
    const next = () => morning + (minute += 37) * 60_000;

    // New facts.
    for (let i = 0; i < 3; i++) {
      const subject = subjects.splice(Math.floor(rand() * subjects.length), 1)[0];
      const template = TEMPLATES[Math.floor(rand() * TEMPLATES.length)];
      const value = template.value(rand);
      const statement = template.statement(subject, value);
      const written = await say(`${rand() < 0.5 ? "Remember that" : "Note to self:"} ${statement}.`, next());
      said.push({ day, subject, template, statement });
      ledger.said.push({ day, statement });
      if (written) ledger.current.set(subject, { statement: written, question: template.question(subject), value });
    }
    // A repeat of something said in the last weeks.
    if (day > 2 && rand() < 0.4) {
      const earlier = said.filter((s) => s.day >= day - 25 && ledger.current.get(s.subject)?.statement === s.statement);
      const again = earlier[Math.floor(rand() * earlier.length)];
      if (again) await say(`Remember that ${again.statement}.`, next());
    }
    // A correction of a value said 2-20 days ago (locker codes and slips: a number changes).
    if (day > 3 && rand() < 0.35) {
      const candidates = said.filter((s) => s.day >= day - 20 && s.day <= day - 2 && s.template.kind !== "deadline" && ledger.current.get(s.subject)?.statement === s.statement);
      const fix = candidates[Math.floor(rand() * candidates.length)];
      if (fix) {
        const value = fix.template.value(rand);
        const written = await say(`Actually, the ${fix.subject} ${fix.template.kind === "locker" ? "locker code" : "boat"} is ${fix.template.kind === "locker" ? value : `at slip ${value}`} now.`, next());
        if (written) {
          ledger.current.set(fix.subject, { statement: written, question: fix.template.question(fix.subject), value: fix.template.kind === "locker" ? value : `slip ${value}` });
          ledger.said.push({ day, statement: written });
        }
      }
    }
    // Reminders: the same two things, forgotten again and again (the Soul Keeper's evidence).
    if (day % 7 === 5) await say(day % 14 === 5 ? "You forgot: I'm vegetarian, please stop suggesting steak." : "I already told you I'm vegetarian, please stop suggesting steak.", next());
    if (day % 11 === 3) await say("You forgot: I take my coffee black.", next());
    // The agent's own notes in today's file (plain appends, no metadata).
    if (day % 3 === 0) fs.appendFileSync(dayFile(next()), `- (agent) reviewed the ${said[said.length - 1].subject} backlog\n`);

    // Hand edits.
    if (day === 10) {
      fs.appendFileSync(path.join(ws, "MEMORY.md"), "- My cat is called Miso\n");
      ledger.said.push({ day, statement: "My cat is called Miso" });
      ledger.current.set("cat", { statement: "My cat is called Miso", question: "What is my cat called?", value: "Miso" });
    }
    if (day === 20) fs.appendFileSync(path.join(ws, "MEMORY.md"), "- my dentist is dr. Okafor. #knowledge <!-- confidence: 0.95 source: operator mentions: 1 last: 2026-08-21 -->\n");
    if (day === 30) {
      // The operator deletes yesterday's first captured fact: it is gone on purpose.
      const file = dayFile(next() - DAY);
      const lines = fs.readFileSync(file, "utf8").split("\n");
      const index = lines.findIndex((line) => parseCapturedLine(line) !== undefined);
      const statement = parseCapturedLine(lines[index])!.statement;
      lines.splice(index, 1);
      fs.writeFileSync(file, lines.join("\n"));
      ledger.removedByHand.add(statement);
      for (const [subject, fact] of ledger.current) if (fact.statement === statement) ledger.current.delete(subject);
    }
    if (day === 45) {
      const written = await say("Remember that my gym locker code is 7777.", next());
      if (written) ledger.current.set("gym", { statement: written, question: "What is my gym locker code?", value: "7777" });
      ledger.said.push({ day, statement: "my gym locker code is 7777" });
    }
    if (day === 60 && options.nightly) {
      // The operator approves the Soul Keeper's proposal (if the passes made one).
      const { record } = await promoteSoulProposal({ workspaceDir: ws, approve: true, now: iso(next()), config: SIM_CONFIG, wallClock: () => iso(next()) }).catch(() => ({ record: undefined }));
      if (record) {
        ledger.runs.push(record);
        ledger.promoted = true;
      }
    }
    await options.nightly?.(iso(SIM_START + (day + 1) * DAY + 3 * 3_600_000), day);
  }
  return ledger;
}

/** Bytes of the live memory files (what every turn's retrieval and slots read): MEMORY.md, memory/*.md, CORRECTIONS.md. */
export function liveBytes(ws: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  const add = (file: string) => {
    if (!fs.existsSync(file)) return;
    bytes += fs.statSync(file).size;
    files += 1;
  };
  add(path.join(ws, "MEMORY.md"));
  add(path.join(ws, "CORRECTIONS.md"));
  for (const name of fs.readdirSync(path.join(ws, "memory"))) if (name.endsWith(".md")) add(path.join(ws, "memory", name));
  return { bytes, files };
}

/** Bytes under Archive/ (the undo images in its dot folder counted apart). */
export function archiveBytes(ws: string): { archive: number; undoImages: number } {
  let archive = 0;
  let undoImages = 0;
  const walk = (dir: string, images: boolean) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(abs, images || entry.name === ".maintenance");
      else if (images) undoImages += fs.statSync(abs).size;
      else archive += fs.statSync(abs).size;
    }
  };
  walk(path.join(ws, "Archive"), false);
  return { archive, undoImages };
}

export async function measureMaintenance(days: number, seed: number) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "maintenance-bench-"));
  try {
    const withPasses = path.join(root, "with");
    const without = path.join(root, "without");
    fs.mkdirSync(withPasses);
    fs.mkdirSync(without);
    const passMs: number[] = [];
    let changes = 0;
    const ledger = await simulateVault({
      workspaceDir: withPasses,
      days,
      seed,
      nightly: async (clock) => {
        const started = performance.now();
        const { record } = await runMaintenancePass({ workspaceDir: withPasses, now: clock, config: SIM_CONFIG, wallClock: () => clock });
        passMs.push(performance.now() - started);
        changes += record.changes.length;
      },
    });
    await simulateVault({ workspaceDir: without, days, seed });
    const sorted = [...passMs].sort((a, b) => a - b);
    return {
      days,
      said: ledger.said.length,
      withLive: liveBytes(withPasses),
      withoutLive: liveBytes(without),
      archive: archiveBytes(withPasses),
      changes,
      passMedianMs: sorted[Math.floor(sorted.length / 2)] ?? 0,
      passMaxMs: sorted.at(-1) ?? 0,
    };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { days: { type: "string", default: "90" }, seed: { type: "string", default: "7" }, json: { type: "boolean", default: false } } });
  setLogDestination({ write: () => true } as never);
  const result = await measureMaintenance(Number(values.days), Number(values.seed));
  if (values.json) {
    console.log(JSON.stringify(result, null, 2));
    return;
  }
  const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
  console.log(
    markdownTable(
      ["vault after", "live files", "live bytes", "Archive/", "undo images", "changes", "pass median", "pass max"],
      [
        [`${result.days} days, no maintenance`, result.withoutLive.files, kb(result.withoutLive.bytes), "-", "-", "-", "-", "-"],
        [`${result.days} days, a pass each night`, result.withLive.files, kb(result.withLive.bytes), kb(result.archive.archive), kb(result.archive.undoImages), result.changes, `${result.passMedianMs.toFixed(0)} ms`, `${result.passMaxMs.toFixed(0)} ms`],
      ],
    ),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
