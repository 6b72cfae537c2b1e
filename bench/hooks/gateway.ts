// Per-turn overhead through the real gateway (e2e harness, mock model): two gateways on the same
// OpenClaw version and sample workspace, A with the bundle's hooks enabled and B with them
// disabled, driven turn by turn A B A B … so drift (CPU contention, cache warmth) hits both arms.
import { performance } from "node:perf_hooks";
import { estimateTokens } from "../../src/core/tokens.ts";
import { HOOK_KEYS, RETRIEVED_MEMORY_RECORD_NAME } from "../../src/host/ids.ts";
import { startGateway } from "../../test/e2e/gateway.ts";
import type { Gateway } from "../../test/e2e/gateway.ts";
import { OPENCLAW_TARGETS } from "../../test/e2e/versions.ts";
import { mean, median, percentile } from "../lib/metrics.ts";
import { markdownTable } from "../lib/table.ts";
import { seededRandom } from "../scale/vault.ts";
import { MEMORY_MESSAGES } from "./in-process.ts";

export type ArmTurn = {
  wallMs: number;
  toModelMs: number;
  /**
   * From the probe hook's agent:bootstrap record (the probe runs before our hooks) to the model
   * request: our hooks plus the host's prompt assembly, without the CLI process around the turn.
   */
  bootstrapToModelMs: number;
  systemPromptTokens: number;
  memoryBlockTokens: number;
};
export type GatewayResult = {
  version: string;
  turnsPerArm: number;
  enabled: ArmTurn[];
  disabled: ArmTurn[];
  ratio: { wallMedian: number; wallP10: number; wallP90: number; toModelMedian: number; toModelP10: number; toModelP90: number };
  addedMs: {
    wallMedian: number;
    toModelMedian: number;
    bootstrapToModelMedian: number;
    /** Seeded bootstrap 95% interval of the median paired difference bootstrap → model request. */
    bootstrapToModelCI95: [number, number];
  };
  markdown: string;
};

const TURN_TIMEOUT_MS = 90_000;

/**
 * Tokens of the retrieved-memory record inside a system prompt. OpenClaw renders each bootstrap
 * file as a `## <absolute path>` section, so the record runs from its header to the next one.
 */
export function memoryBlockTokens(systemPrompt: string): number {
  const lines = systemPrompt.split("\n");
  const start = lines.findIndex((line) => line.startsWith("## ") && line.trimEnd().endsWith(`/${RETRIEVED_MEMORY_RECORD_NAME}`));
  if (start < 0) return 0;
  let end = start + 1;
  while (end < lines.length && !/^## (\/|[A-Za-z]:\\)/.test(lines[end])) end++;
  return estimateTokens(lines.slice(start + 1, end).join("\n").trim());
}

async function timedTurn(gateway: Gateway, sessionKey: string, text: string): Promise<ArmTurn> {
  const startedAt = Date.now();
  const start = performance.now();
  let turn;
  try {
    turn = await gateway.chatSend(sessionKey, text, TURN_TIMEOUT_MS);
  } catch (error) {
    const seen = gateway.model.requests.map((r) => JSON.stringify(gateway.model.lastUserTextOf(r).slice(0, 120)));
    throw new Error(`${(error as Error).message}\nmodel requests seen: ${seen.join(", ")}\ngateway log tail: ${gateway.logs().slice(-1500)}`);
  }
  const wallMs = performance.now() - start;
  const bootstrap = gateway
    .probeEvents()
    .filter((event) => event.event === "agent:bootstrap" && event.sessionKey === sessionKey)
    .pop();
  return {
    wallMs,
    toModelMs: turn.request.receivedAt - startedAt,
    bootstrapToModelMs: bootstrap ? turn.request.receivedAt - bootstrap.t : Number.NaN,
    systemPromptTokens: estimateTokens(turn.systemPrompt),
    memoryBlockTokens: memoryBlockTokens(turn.systemPrompt),
  };
}

export async function measureGateway(options: { turnsPerArm: number; log: (line: string) => void; version?: string }): Promise<GatewayResult> {
  const version = options.version ?? OPENCLAW_TARGETS[OPENCLAW_TARGETS.length - 1].openclaw;
  const bundleHooks = (enabled: boolean) => ({ [HOOK_KEYS.aciBootstrap]: { enabled }, [HOOK_KEYS.ethosContext]: { enabled } });
  const started: Gateway[] = [];
  try {
    // Started one after the other: two cold gateway boots at once would starve a 2-core machine.
    const withBundle = await startGateway({ version, hooks: bundleHooks(true) });
    started.push(withBundle);
    const withoutBundle = await startGateway({ version, hooks: bundleHooks(false) });
    started.push(withoutBundle);
    options.log(`hooks: gateways ${version} up (bundle on :${withBundle.port}, off :${withoutBundle.port})`);

    const enabled: ArmTurn[] = [];
    const disabled: ArmTurn[] = [];
    // Each arm's mock model matches a turn by its text, so a text is sent once per arm. The
    // questions are used as they are (an added counter would add an unknown word to the query and
    // change retrieval); only past the end of the list does a text get a "(again N)" suffix.
    const textFor = (i: number) => {
      const question = MEMORY_MESSAGES[i % MEMORY_MESSAGES.length];
      const round = Math.floor(i / MEMORY_MESSAGES.length);
      return round === 0 ? question : `${question} (again ${round})`;
    };
    // Turn 0 is a warm-up pair (session creation, lazy imports) and is not counted.
    for (let i = 0; i <= options.turnsPerArm; i++) {
      // A fresh main-session thread per turn, so per-session de-duplication never empties the block.
      const sessionKey = `agent:main:main:thread:bench-${i}`;
      const a = await timedTurn(withBundle, sessionKey, textFor(i));
      const b = await timedTurn(withoutBundle, sessionKey, textFor(i));
      if (i === 0) continue;
      enabled.push(a);
      disabled.push(b);
    }

    const ratios = (pick: (t: ArmTurn) => number) => enabled.map((a, i) => pick(a) / pick(disabled[i]));
    const bootstrapDiffs = enabled.map((a, i) => a.bootstrapToModelMs - disabled[i].bootstrapToModelMs).filter(Number.isFinite);
    const wallRatios = ratios((t) => t.wallMs);
    const modelRatios = ratios((t) => t.toModelMs);
    const result: Omit<GatewayResult, "markdown"> = {
      version,
      turnsPerArm: options.turnsPerArm,
      enabled,
      disabled,
      ratio: {
        wallMedian: median(wallRatios),
        wallP10: percentile(wallRatios, 10),
        wallP90: percentile(wallRatios, 90),
        toModelMedian: median(modelRatios),
        toModelP10: percentile(modelRatios, 10),
        toModelP90: percentile(modelRatios, 90),
      },
      addedMs: {
        wallMedian: median(enabled.map((a, i) => a.wallMs - disabled[i].wallMs)),
        toModelMedian: median(enabled.map((a, i) => a.toModelMs - disabled[i].toModelMs)),
        bootstrapToModelMedian: median(bootstrapDiffs),
        bootstrapToModelCI95: bootstrapMedianInterval(bootstrapDiffs),
      },
    };
    return { ...result, markdown: renderGateway(result) };
  } finally {
    for (const gateway of started.reverse()) await gateway.stop();
  }
}

/** Percentile bootstrap (1,000 resamples, seeded) of the median: a spread that needs no normality. */
function bootstrapMedianInterval(values: readonly number[]): [number, number] {
  if (values.length === 0) return [Number.NaN, Number.NaN];
  const rng = seededRandom(7);
  const medians: number[] = [];
  for (let r = 0; r < 1000; r++) {
    const sample = values.map(() => values[Math.floor(rng() * values.length)]);
    medians.push(median(sample));
  }
  return [percentile(medians, 2.5), percentile(medians, 97.5)];
}

function renderGateway(r: Omit<GatewayResult, "markdown">): string {
  const f = (v: number) => v.toFixed(0);
  const arm = (name: string, turns: ArmTurn[]) => [
    name,
    turns.length,
    f(median(turns.map((t) => t.wallMs))),
    f(median(turns.map((t) => t.toModelMs))),
    f(median(turns.map((t) => t.bootstrapToModelMs))),
    f(median(turns.map((t) => t.systemPromptTokens))),
    f(mean(turns.map((t) => t.memoryBlockTokens))),
    `${((turns.filter((t) => t.memoryBlockTokens > 0).length / Math.max(1, turns.length)) * 100).toFixed(0)}%`,
  ];
  return [
    `Real gateway (OpenClaw ${r.version}, mock model, \`chat.send\` on fresh main-session threads, turns interleaved A B A B):`,
    "",
    markdownTable(
      ["arm", "turns", "wall ms (median)", "send → model request ms (median)", "agent:bootstrap → model request ms (median)", "system prompt tokens (median)", "memory block tokens (mean)", "turns with memory"],
      [arm("bundle enabled", r.enabled), arm("bundle disabled", r.disabled)],
    ),
    "",
    `Added wall time per turn: ratio enabled / disabled, median ${r.ratio.wallMedian.toFixed(3)} (p10 ${r.ratio.wallP10.toFixed(3)}, p90 ${r.ratio.wallP90.toFixed(3)}), median difference ${r.addedMs.wallMedian.toFixed(0)} ms. ` +
      `Until the model request: median ${r.ratio.toModelMedian.toFixed(3)} (p10 ${r.ratio.toModelP10.toFixed(3)}, p90 ${r.ratio.toModelP90.toFixed(3)}), median difference ${r.addedMs.toModelMedian.toFixed(0)} ms. ` +
      `From the agent:bootstrap event to the model request (our hooks + the host's prompt assembly, no CLI): median paired difference ${r.addedMs.bootstrapToModelMedian.toFixed(0)} ms (95% bootstrap interval ${r.addedMs.bootstrapToModelCI95[0].toFixed(0)} to ${r.addedMs.bootstrapToModelCI95[1].toFixed(0)} ms). ` +
      "Wall time includes the OpenClaw CLI process that sends each turn, the same in both arms.",
  ].join("\n");
}
