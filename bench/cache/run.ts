// `cache` section of `npm run bench`: the prompt-cache cost of each delivery path on real gateways
// (mock model), per arm and version, plus where Anthropic's explicit breakpoints fall.
import { OPENCLAW_TARGETS } from "../../test/e2e/versions.ts";
import type { ModelApi, StartGatewayOptions } from "../../test/e2e/gateway.ts";
import { markdownTable } from "../lib/table.ts";
import { analyseBreakpoints, breakpointCost, extrapolatedBreakpointCost, DEFAULT_COST_ASSUMPTIONS } from "./analyse.ts";
import type { BreakpointRow, ConversationTurn, CostAssumptions, TurnRow } from "./analyse.ts";
import { ARM_LABELS, ARMS, loadConversation, needsOtherEngine, PLUGIN_ARM_SETTINGS, pluginArmsHost, runArm, runPluginArms } from "./arms.ts";
import type { Arm, ArmResult } from "./arms.ts";
import { otherEngine } from "./other-engine.ts";
import type { OtherEngine } from "./other-engine.ts";

export type CacheResults = {
  assumptions: CostAssumptions;
  arms: Omit<ArmResult, "bodies">[];
  /** Anthropic explicit-breakpoint runs (2026.9.x): modeled cost with the reads Anthropic allows. */
  anthropic?: { arm: Arm; rows: BreakpointRow[]; cost: number; cost40: number; unreadMessageBreakpoints: number }[];
  problems: string[];
  /** The other context engine of the engine arms, when they ran. */
  engine?: { pluginId: string; engineId: string; label: string };
};

const pct = (value: number) => `${value.toFixed(1)}%`;
const ratio = (value: number, base: number | undefined) => (base ? `${(value / base).toFixed(2)}×` : "n/a");

/** The plugin's arms next to another engine also against that engine alone: what the plugin adds to it. */
export function versusEngineAlone(arm: Arm, value: number, engineAlone: number | undefined): string {
  return arm === "engine-prepend" || arm === "engine-append" ? `; ${ratio(value, engineAlone)} engine alone` : "";
}

/**
 * Arms per version. 2026.3.13: the hook pack's arms, and the persisted-prependContext alternative
 * (the plugin stands aside there). 2026.9+: configs of the one plugin ("no-plugin", the reference
 * for hooks off, runs only when asked for).
 */
export function armsFor(version: string): Arm[] {
  return pluginArmsHost(version) ? ["hooks-off", "aci-only", "plugin-prepend", "plugin-path"] : ["hooks-off", "aci-only", "hook-path", "persisted-prepend"];
}

/** The arms a run may ask for on this version (the default ones, plus the reference and the other-engine arms on 2026.9+). */
export function armsAllowed(version: string): Arm[] {
  return pluginArmsHost(version) ? [...armsFor(version), "aci-no-index", "no-plugin", "engine-alone", "engine-prepend", "engine-append"] : armsFor(version);
}

/**
 * The arms in the order asked: the plugin's arms on its one gateway, any other on a gateway of its
 * own. Each result is handed to `onArm` as it finishes; an arm that fails is a "failed" result.
 */
export async function runArms(options: {
  version: string;
  arms: readonly Arm[];
  turns: ConversationTurn[];
  assumptions: CostAssumptions;
  gateway: Partial<StartGatewayOptions>;
  log: (line: string) => void;
  onArm?: (result: ArmResult) => void;
  engine?: OtherEngine;
}): Promise<ArmResult[]> {
  const { version, arms } = options;
  const failed = (arm: Arm, error: unknown): ArmResult => ({ version, arm, status: "failed", reason: (error as Error).message.slice(0, 500), rows: [], bodies: [] });
  const results: ArmResult[] = [];
  const pluginArms = pluginArmsHost(version) ? arms.filter((arm) => PLUGIN_ARM_SETTINGS[arm]) : [];
  for (const arm of arms.filter((a) => !pluginArms.includes(a))) {
    let result: ArmResult;
    try {
      result = await runArm({ ...options, arm });
    } catch (error) {
      result = failed(arm, error);
    }
    results.push(result);
    options.onArm?.(result);
  }
  if (pluginArms.length > 0) {
    try {
      results.push(...(await runPluginArms({ ...options, arms: pluginArms })));
    } catch (error) {
      for (const arm of pluginArms.filter((a) => !results.some((r) => r.arm === a))) {
        results.push(failed(arm, error));
        options.onArm?.(results.at(-1)!);
      }
    }
  }
  return arms.map((arm) => results.find((result) => result.arm === arm)!);
}

export function summaryTable(results: readonly Omit<ArmResult, "bodies">[]): string {
  const base = results.find((r) => r.arm === "hooks-off" && r.status === "ok")?.cost;
  const engineAlone = results.find((r) => r.arm === "engine-alone" && r.status === "ok")?.cost;
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
      `${Math.round(r.cost.measured)} (${ratio(r.cost.measured, base?.measured)}${versusEngineAlone(r.arm, r.cost.measured, engineAlone?.measured)})`,
      `${Math.round(r.cost.extrapolated)} (${ratio(r.cost.extrapolated, base?.extrapolated)}${versusEngineAlone(r.arm, r.cost.extrapolated, engineAlone?.extrapolated)})`,
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
    `One main session per arm (\`agent:main:main\`; on 2026.9+ a main-session thread of its own per arm), ${turns.length} \`chat.send\` turns (bench/cache/turns.json: ${turns.filter((t) => t.kind === "memory").length} memory questions, ${turns.filter((t) => t.kind === "chit-chat").length} chit-chat, ${turns.filter((t) => t.kind === "coding").length} coding), sample workspace, mock model (${options.modelApi === "anthropic-messages" ? "Anthropic messages API" : "OpenAI chat completions"}). ` +
      `2026.3.x: one fresh gateway per arm. 2026.9+: one gateway with the plugin installed, each arm a config of it and a restart (docs/benchmarks.md, "one gateway for the plugin's arms").`,
    "",
    assumptionsText(assumptions, turns.length),
    "",
  );
  const versions = options.versions ?? [...OPENCLAW_TARGETS].reverse().map((t) => t.openclaw);
  for (const arm of options.arms ?? []) if (!(ARMS as readonly string[]).includes(arm)) throw new Error(`--cache-arms: unknown arm ${arm} (known: ${ARMS.join(", ")})`);
  // --cache-arms also sets the order (the most wanted arms first when a run may be cut short).
  const selected = (version: string) => (options.arms ? (options.arms as Arm[]).filter((arm) => armsAllowed(version).includes(arm)) : armsFor(version));
  // Resolved once, so both model APIs run the same engine and the report names it.
  const engine = versions.some((version) => selected(version).some(needsOtherEngine)) ? otherEngine() : undefined;
  if (engine) {
    results.engine = { pluginId: engine.pluginId, engineId: engine.engineId, label: engine.label };
    out.push(`Other context engine (the arms "${ARM_LABELS["engine-alone"]}", "… prependContext", "… appendSystemContext"): ${engine.label}, engine id \`${engine.engineId}\`, installed into the plugin arms' gateway before it starts; its entry is switched off in every other arm.`, "");
  }
  /** One line per arm as it finishes, so a long run that is cut short still leaves its numbers. */
  const report = (label: string) => (result: ArmResult) => {
    if (result.status !== "ok") {
      options.log(`cache: ${result.version} ${result.arm}${label}: ${result.status}`);
      results.problems.push(`cache: ${result.version} ${result.arm}${label}: ${(result.reason ?? "").split("\n")[0]}`);
    } else options.log(`cache: ${result.version} ${result.arm}${label}: ${JSON.stringify({ cost: result.cost, rows: result.rows.map(({ before: _b, after: _a, ...row }) => row) })}`);
  };
  const perTurn: string[] = [];
  for (const version of versions) {
    const ran = await runArms({ version, arms: selected(version), turns, assumptions, log: options.log, gateway: options.modelApi ? { modelApi: options.modelApi } : {}, onArm: report(""), engine });
    const armResults = ran.map(({ bodies: _bodies, ...rest }) => rest);
    results.arms.push(...armResults);
    out.push(`OpenClaw ${version}:`, "", summaryTable(armResults), "");
    for (const r of armResults.filter((a) => a.status === "ok")) perTurn.push(`<details><summary>${version}, ${ARM_LABELS[r.arm]}: per turn</summary>`, "", turnTable(r.rows), "", "</details>", "");
  }
  out.push(...perTurn);

  // Anthropic's explicit breakpoints: the baselines and both plugin deliveries against an
  // Anthropic-speaking mock (OpenClaw places cache_control itself; the cost depends on where).
  const version = OPENCLAW_TARGETS[OPENCLAW_TARGETS.length - 1]!.openclaw;
  if (!versions.includes(version)) return { markdown: out.join("\n"), results };
  // The reference and the other-engine arms only when asked for (each is a boot or an install more).
  const anthropicArms = (["no-plugin", "hooks-off", "aci-only", "plugin-prepend", "plugin-path", "engine-alone", "engine-prepend", "engine-append"] as const).filter((arm) =>
    options.arms ? options.arms.includes(arm) : arm !== "no-plugin" && !needsOtherEngine(arm),
  );
  const runs: NonNullable<CacheResults["anthropic"]> = [];
  let detail: { arm: Arm; rows: BreakpointRow[] } | undefined;
  const anthropic = await runArms({ version, arms: anthropicArms, turns, assumptions, log: options.log, gateway: { modelApi: "anthropic-messages" }, onArm: report(" (anthropic)"), engine });
  for (const result of anthropic.filter((r) => r.status === "ok")) {
    const rows = analyseBreakpoints(result.bodies, turns.flatMap((t) => (t.fact ? [t.fact] : [])));
    runs.push({ arm: result.arm, rows, cost: breakpointCost(rows), cost40: extrapolatedBreakpointCost(rows, assumptions), unreadMessageBreakpoints: unreadMessageBreakpoints(rows) });
    options.log(`cache: ${version} ${result.arm} (anthropic): ${JSON.stringify({ cost: breakpointCost(rows), cost40: extrapolatedBreakpointCost(rows, assumptions) })}`);
    if (result.arm === "plugin-path" || !detail) detail = { arm: result.arm, rows };
  }
  results.anthropic = runs;
  if (runs.length === 0) return { markdown: out.join("\n"), results };
  const base = runs.find((r) => r.arm === "hooks-off");
  const aci = runs.find((r) => r.arm === "aci-only");
  const engineAlone = runs.find((r) => r.arm === "engine-alone");
  out.push(
    `Anthropic explicit breakpoints (OpenClaw ${version}, mock speaking the Anthropic messages API): the same conversation per arm, priced with the reads Anthropic's rules allow (an earlier breakpoint's exact prefix, ending at a block boundary at most 20 blocks before one of this request's breakpoints; read 0.1×, write 1.25×). ` +
      `Over ${assumptions.turns} turns each later turn repeats the measured pattern and adds ${assumptions.historyTokensPerTurn} tokens of history; a turn after one whose message breakpoint was never read again also re-writes that turn's history.`,
    "",
    markdownTable(
      ["arm", "message breakpoints not read by the next request", `modeled input cost, ${turns.length} turns (× hooks off; × aci-bootstrap only${engine ? "; × engine alone" : ""})`, `${assumptions.turns} turns (× hooks off; × aci-bootstrap only${engine ? "; × engine alone" : ""})`],
      runs.map((r) => [
        ARM_LABELS[r.arm],
        `${r.unreadMessageBreakpoints}/${r.rows.length - 1}`,
        `${Math.round(r.cost)} (${ratio(r.cost, base?.cost)}; ${ratio(r.cost, aci?.cost)}${versusEngineAlone(r.arm, r.cost, engineAlone?.cost)})`,
        `${Math.round(r.cost40)} (${ratio(r.cost40, base?.cost40)}; ${ratio(r.cost40, aci?.cost40)}${versusEngineAlone(r.arm, r.cost40, engineAlone?.cost40)})`,
      ]),
    ),
    "",
  );
  if (detail) out.push(`Where the breakpoints fall (${ARM_LABELS[detail.arm]}):`, "", breakpointTable(detail.rows), "");
  return { markdown: out.join("\n"), results };
}
