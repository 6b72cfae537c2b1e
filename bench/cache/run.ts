// `cache` section of `npm run bench`: the prompt-cache cost of each delivery path on real gateways
// (mock model), per arm and version, plus where Anthropic's explicit breakpoints fall.
import { OPENCLAW_TARGETS } from "../../test/e2e/versions.ts";
import type { ModelApi } from "../../test/e2e/gateway.ts";
import { markdownTable } from "../lib/table.ts";
import { analyseBreakpoints, breakpointCost, extrapolatedBreakpointCost, extrapolatedCost, DEFAULT_COST_ASSUMPTIONS } from "./analyse.ts";
import type { BreakpointRow, CostAssumptions, TurnRow } from "./analyse.ts";
import { ARM_LABELS, ARMS, loadConversation, runArm } from "./arms.ts";
import type { Arm, ArmResult } from "./arms.ts";

export type CacheResults = {
  assumptions: CostAssumptions;
  arms: Omit<ArmResult, "bodies">[];
  /** Anthropic explicit-breakpoint runs (2026.9.x): modeled cost with the reads Anthropic allows. */
  anthropic?: { arm: Arm; rows: BreakpointRow[]; cost: number; cost40: number; unreadMessageBreakpoints: number }[];
  problems: string[];
};

const pct = (value: number) => `${value.toFixed(1)}%`;
const ratio = (value: number, base: number | undefined) => (base ? `${(value / base).toFixed(2)}×` : "n/a");

/**
 * Arms per version. On 2026.3.13 the companion plugin stands aside (its arm would be the hook path
 * again); the alternative measured there is a prependContext the host persists in the transcript.
 */
export function armsFor(version: string): Arm[] {
  return version.startsWith("2026.3.") ? ["hooks-off", "aci-only", "hook-path", "persisted-prepend"] : ARMS.filter((arm) => arm !== "persisted-prepend");
}

/** Arms priced with Anthropic's explicit breakpoints (2026.9.x): the baselines, both plugin deliveries, the arms next to another engine. */
export const ANTHROPIC_ARMS: readonly Arm[] = ["hooks-off", "aci-only", "plugin-prepend", "plugin-path", "engine-alone", "engine-prepend", "engine-append"];

/** For the arms with the bundle next to another engine: the ratio to that engine alone, too. */
function engineRatio(arm: Arm, value: number, engineAlone: number | undefined): string {
  return arm === "engine-prepend" || arm === "engine-append" ? `; ${ratio(value, engineAlone)} the engine alone` : "";
}

export function summaryTable(results: readonly Omit<ArmResult, "bodies">[]): string {
  const base = results.find((r) => r.arm === "hooks-off" && r.status === "ok")?.cost;
  const engine = results.find((r) => r.arm === "engine-alone" && r.status === "ok")?.cost;
  const rows = results.map((r) => {
    if (r.status !== "ok" || !r.cost) return [ARM_LABELS[r.arm], r.status, "", "", "", "", ""];
    const later = r.rows.slice(1);
    const reuse = later.map((row) => row.reusePct);
    const same = later.filter((row) => row.systemIdentical).length;
    const early = later.filter((row) => row.firstDiff === "system prompt" || row.firstDiff === "older history").length;
    return [
      ARM_LABELS[r.arm],
      `${Math.min(...reuse).toFixed(1)}–${Math.max(...reuse).toFixed(1)}%`,
      `${same}/${later.length}`,
      `${early}/${later.length}`,
      `${r.rows.filter((row) => row.factReached).length}/${r.rows.filter((row) => row.factReached !== undefined).length}`,
      `${Math.round(r.cost.measured)} (${ratio(r.cost.measured, base?.measured)}${engineRatio(r.arm, r.cost.measured, engine?.measured)})`,
      `${Math.round(r.cost.extrapolated)} (${ratio(r.cost.extrapolated, base?.extrapolated)}${engineRatio(r.arm, r.cost.extrapolated, engine?.extrapolated)})`,
    ];
  });
  return markdownTable(
    ["arm", "reuse, turns 2–N", "system prompt identical", "first difference in system prompt or older history", "memory fact in same turn's request", "modeled input cost, measured turns (× hooks off)", "modeled input cost, 40 turns (× hooks off)"],
    rows,
  );
}

export function turnTable(rows: readonly TurnRow[]): string {
  return markdownTable(
    ["turn", "kind", "request tokens", "common prefix", "reuse", "system prompt identical", "first difference", "where", "memory fact"],
    rows.map((row) => [
      row.turn,
      row.kind,
      row.requestTokens,
      row.prefixTokens,
      row.turn === 1 ? "" : pct(row.reusePct),
      row.systemIdentical === undefined ? "" : row.systemIdentical ? "yes" : "**no**",
      row.firstDiff,
      row.turn === 1 ? "" : `${row.firstDiffAt}: \`${row.before.replaceAll("`", "'").replaceAll("|", "/")}\``,
      row.factReached === undefined ? "" : row.factReached ? "yes" : "no",
    ]),
  );
}

/** Message breakpoints (turns 1..N-1) whose entry the next request cannot read. */
export function unreadMessageBreakpoints(rows: readonly BreakpointRow[]): number {
  return rows.slice(0, -1).filter((row) => row.breakpoints.some((bp) => bp.label.startsWith("message") && bp.readableNextTurn === false)).length;
}

export function breakpointTable(rows: readonly BreakpointRow[]): string {
  return markdownTable(
    ["turn", "request tokens", "breakpoints (prefix tokens; ✓ = next request starts with it)", "read from earlier entries"],
    rows.map((row) => [
      row.turn,
      row.requestTokens,
      row.breakpoints.map((bp) => `${bp.label} (${bp.tokens}${bp.readableNextTurn === undefined ? "" : bp.readableNextTurn ? " ✓" : " ✗"}${bp.carries ? `; carries ${bp.carries}` : ""})`).join("; "),
      row.readTokens,
    ]),
  );
}

function assumptionsText(a: CostAssumptions, turns: number): string {
  return (
    `Cost model (Anthropic multipliers): turn N reads its longest common prefix with turn N−1 at 0.1× and writes the rest at 1.25× (turn 1 writes everything); tokens = chars/4 over tools, system prompt and messages. ` +
    `Extrapolation to ${a.turns} turns: turns ${turns + 1}–${a.turns} repeat the measured pattern of turns 2–${turns} in order, each adds ${a.historyTokensPerTurn} tokens of history (a real question and reply; the mock's replies are tiny); ` +
    `a turn whose first difference was in the system prompt or older history re-reads only the prefix measured for it and re-writes everything after it, any other turn re-writes the same tail as measured. Cache entries are assumed never to expire between turns.`
  );
}

export async function runCache(options: {
  smoke: boolean;
  log: (line: string) => void;
  versions?: string[];
  arms?: string[];
  modelApi?: ModelApi;
}): Promise<{ markdown: string; results: CacheResults }> {
  if (options.modelApi && options.modelApi !== "openai-completions" && options.modelApi !== "anthropic-messages") throw new Error(`--cache-api: unknown ${options.modelApi}`);
  const assumptions = DEFAULT_COST_ASSUMPTIONS;
  const results: CacheResults = { assumptions, arms: [], problems: [] };
  const out: string[] = ["### Prompt cache: cost of each delivery path", ""];
  if (options.smoke) {
    out.push("Not run in the smoke run (one real gateway per arm; run `npm run bench -- --only cache`).", "");
    return { markdown: out.join("\n"), results };
  }
  const turns = loadConversation();
  out.push(
    `One main session (\`agent:main:main\`), ${turns.length} \`chat.send\` turns (bench/cache/turns.json: ${turns.filter((t) => t.kind === "memory").length} memory questions, ${turns.filter((t) => t.kind === "chit-chat").length} chit-chat, ${turns.filter((t) => t.kind === "coding").length} coding), sample workspace, mock model (${options.modelApi === "anthropic-messages" ? "Anthropic messages API" : "OpenAI chat completions"}), one fresh gateway per arm.`,
    "",
    assumptionsText(assumptions, turns.length),
    "",
  );
  const versions = options.versions ?? [...OPENCLAW_TARGETS].reverse().map((t) => t.openclaw);
  for (const arm of options.arms ?? []) if (!(ARMS as readonly string[]).includes(arm)) throw new Error(`--cache-arms: unknown arm ${arm} (known: ${ARMS.join(", ")})`);
  // --cache-arms also sets the order (the most wanted arms first when a run may be cut short).
  const selected = (version: string) => (options.arms ? (options.arms as Arm[]).filter((arm) => armsFor(version).includes(arm)) : armsFor(version));
  const perTurn: string[] = [];
  // Request bodies of runs that already spoke the Anthropic API: the breakpoint section reuses them.
  const anthropicBodies = new Map<Arm, Record<string, unknown>[]>();
  for (const version of versions) {
    const armResults: Omit<ArmResult, "bodies">[] = [];
    for (const arm of selected(version)) {
      try {
        const { bodies, ...result } = await runArm({ version, arm, turns, assumptions, log: options.log, gateway: options.modelApi ? { modelApi: options.modelApi } : {} });
        if (options.modelApi === "anthropic-messages" && result.status === "ok" && version === OPENCLAW_TARGETS[OPENCLAW_TARGETS.length - 1]!.openclaw) anthropicBodies.set(arm, bodies);
        armResults.push(result);
        if (result.status !== "ok") options.log(`cache: ${version} ${arm}: ${result.status}`);
        // One line per arm as it finishes, so a long run that is cut short still leaves its numbers.
        else options.log(`cache: ${version} ${arm}: ${JSON.stringify({ cost: result.cost, rows: result.rows.map(({ before: _b, after: _a, ...row }) => row) })}`);
      } catch (error) {
        results.problems.push(`cache: ${(error as Error).message.split("\n")[0]}`);
        armResults.push({ version, arm, status: "failed", reason: (error as Error).message.slice(0, 500), rows: [] });
      }
    }
    results.arms.push(...armResults);
    out.push(`OpenClaw ${version}:`, "", summaryTable(armResults), "");
    for (const r of armResults.filter((a) => a.status === "ok")) perTurn.push(`<details><summary>${version}, ${ARM_LABELS[r.arm]}: per turn</summary>`, "", turnTable(r.rows), "", "</details>", "");
  }
  out.push(...perTurn);

  // Anthropic's explicit breakpoints: the baselines and both plugin deliveries against an
  // Anthropic-speaking mock (OpenClaw places cache_control itself; the cost depends on where).
  const version = OPENCLAW_TARGETS[OPENCLAW_TARGETS.length - 1]!.openclaw;
  if (!versions.includes(version)) return { markdown: out.join("\n"), results };
  const anthropicArms = ANTHROPIC_ARMS.filter((arm) => !options.arms || options.arms.includes(arm));
  const runs: NonNullable<CacheResults["anthropic"]> = [];
  let detail: { arm: Arm; rows: BreakpointRow[] } | undefined;
  for (const arm of anthropicArms) {
    try {
      const bodies = anthropicBodies.get(arm) ?? (await runArm({ version, arm, turns, assumptions, log: options.log, gateway: { modelApi: "anthropic-messages" } })).bodies;
      if (bodies.length === 0) continue; // an arm without numbers (its engine is not present): the table above says why
      const rows = analyseBreakpoints(bodies, turns.flatMap((t) => (t.fact ? [t.fact] : [])));
      runs.push({ arm, rows, cost: breakpointCost(rows), cost40: extrapolatedBreakpointCost(rows, assumptions), unreadMessageBreakpoints: unreadMessageBreakpoints(rows) });
      options.log(`cache: ${version} ${arm} (anthropic): ${JSON.stringify({ cost: breakpointCost(rows), cost40: extrapolatedBreakpointCost(rows, assumptions) })}`);
      if (arm === "plugin-path" || !detail) detail = { arm, rows };
    } catch (error) {
      results.problems.push(`cache: anthropic ${arm} run failed: ${(error as Error).message.split("\n")[0]}`);
    }
  }
  results.anthropic = runs;
  if (runs.length === 0) return { markdown: out.join("\n"), results };
  const base = runs.find((r) => r.arm === "hooks-off");
  const aci = runs.find((r) => r.arm === "aci-only");
  const engine = runs.find((r) => r.arm === "engine-alone");
  out.push(
    `Anthropic explicit breakpoints (OpenClaw ${version}, mock speaking the Anthropic messages API): the same conversation per arm, priced with the reads Anthropic's rules allow (an earlier breakpoint's exact prefix, ending at a block boundary at most 20 blocks before one of this request's breakpoints; read 0.1×, write 1.25×). ` +
      `Over ${assumptions.turns} turns each later turn repeats the measured pattern and adds ${assumptions.historyTokensPerTurn} tokens of history; a turn after one whose message breakpoint was never read again also re-writes that turn's history.`,
    "",
    markdownTable(
      ["arm", "message breakpoints not read by the next request", `modeled input cost, ${turns.length} turns (× hooks off; × aci-bootstrap only)`, `${assumptions.turns} turns (× hooks off; × aci-bootstrap only)`],
      runs.map((r) => [
        ARM_LABELS[r.arm],
        `${r.unreadMessageBreakpoints}/${r.rows.length - 1}`,
        `${Math.round(r.cost)} (${ratio(r.cost, base?.cost)}; ${ratio(r.cost, aci?.cost)}${engineRatio(r.arm, r.cost, engine?.cost)})`,
        `${Math.round(r.cost40)} (${ratio(r.cost40, base?.cost40)}; ${ratio(r.cost40, aci?.cost40)}${engineRatio(r.arm, r.cost40, engine?.cost40)})`,
      ]),
    ),
    "",
  );
  if (detail) out.push(`Where the breakpoints fall (${ARM_LABELS[detail.arm]}):`, "", breakpointTable(detail.rows), "");
  return { markdown: out.join("\n"), results };
}
