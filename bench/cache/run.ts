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
  breakpoints?: { version: string; arm: Arm; status: string; rows: BreakpointRow[]; cost?: number; lcpCost?: number; cost40?: number; lcpCost40?: number };
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

export function summaryTable(results: readonly Omit<ArmResult, "bodies">[]): string {
  const base = results.find((r) => r.arm === "hooks-off" && r.status === "ok")?.cost;
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
      `${Math.round(r.cost.measured)} (${ratio(r.cost.measured, base?.measured)})`,
      `${Math.round(r.cost.extrapolated)} (${ratio(r.cost.extrapolated, base?.extrapolated)})`,
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
  for (const version of versions) {
    const armResults: Omit<ArmResult, "bodies">[] = [];
    for (const arm of selected(version)) {
      try {
        const { bodies: _bodies, ...result } = await runArm({ version, arm, turns, assumptions, log: options.log, gateway: options.modelApi ? { modelApi: options.modelApi } : {} });
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

  // Anthropic's explicit breakpoints: the plugin arm (or the hook path while the plugin is absent) against an Anthropic-speaking mock.
  const version = OPENCLAW_TARGETS[OPENCLAW_TARGETS.length - 1]!.openclaw;
  if (!versions.includes(version) || (options.arms && !options.arms.includes("plugin-path"))) return { markdown: out.join("\n"), results };
  const arm: Arm = results.arms.some((r) => r.version === version && r.arm === "plugin-path" && r.status === "ok") ? "plugin-path" : "hook-path";
  try {
    const anthropic = await runArm({ version, arm, turns, assumptions, log: options.log, gateway: { modelApi: "anthropic-messages" } });
    const rows = analyseBreakpoints(anthropic.bodies, turns.flatMap((t) => (t.fact ? [t.fact] : [])));
    const cost40 = extrapolatedBreakpointCost(rows, assumptions);
    const lcpCost40 = extrapolatedCost(anthropic.rows, assumptions);
    results.breakpoints = { version, arm, status: anthropic.status, rows, cost: breakpointCost(rows), lcpCost: anthropic.cost?.measured, cost40, lcpCost40 };
    out.push(
      `Anthropic explicit breakpoints (OpenClaw ${version}, ${ARM_LABELS[arm]}, mock speaking the Anthropic messages API): where OpenClaw put \`cache_control\`, whether the next request starts with each breakpoint's prefix, and how many tokens Anthropic could read from entries written so far (hits only at block boundaries ≤ 20 blocks before a breakpoint). ` +
        `Modeled cost of the ${turns.length} turns with these reads: ${Math.round(breakpointCost(rows))} (with the longest common prefix instead: ${Math.round(anthropic.cost?.measured ?? 0)}); over ${assumptions.turns} turns ${Math.round(cost40)} vs ${Math.round(lcpCost40)} ` +
        `(a turn after a memory turn also re-writes that turn's ${assumptions.historyTokensPerTurn} tokens of history, because the entry written on it is never read).`,
      "",
      breakpointTable(rows),
      "",
    );
  } catch (error) {
    results.problems.push(`cache: anthropic breakpoint run failed: ${(error as Error).message.split("\n")[0]}`);
  }
  return { markdown: out.join("\n"), results };
}
