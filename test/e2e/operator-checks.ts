// Operator checks of issue 27 on a running 2026.9.6 gateway with the plugin installed the way an
// operator does (`npm run install-hooks -- --plugin <tgz>`: conversation access, our engine in the
// slot), reload mode off (config changes take effect at the restarts these checks make). Each is a
// function taking the started gateway, so the plugin suite can call it on its one gateway:
//   logsShowTurn          `openclaw logs` has a turn's bootstrap decision, its memory delivery, a capture
//   doctorHealthyThenOtherEngine   doctor exits 0, then 3 with another engine in the slot (restored)
//   configTypo            a typo'd nested key: the gateway restarts, the turn works, status and doctor
//                         name the key with did-you-mean, `openclaw logs` has it once (then unset)
//   uninstallPurge        `openclaw context uninstall --purge`: no bundle state left, memory untouched
import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import type { Gateway } from "./gateway.ts";
import type { Observations } from "./assumptions.ts";
import { waitForFileContaining } from "./wait-file.ts";

const PLUGIN_ID = "openclaw-context";
const CLI_TIMEOUT_MS = 300_000;

export type CliRun = { code: number; stdout: string; stderr: string };

/** `openclaw …` against this gateway with its exit code, failing or not (gw.cli throws on non-zero). */
export function openclaw(gw: Gateway, args: string[], timeoutMs = CLI_TIMEOUT_MS): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: gw.home,
    OPENCLAW_STATE_DIR: gw.stateDir,
    OPENCLAW_CONFIG_PATH: gw.configPath,
    OPENCLAW_CONTEXT_LOG_FILE: path.join(gw.root, "openclaw-context.log"),
    OPENCLAW_CLI: "",
    NO_COLOR: "1",
    PATH: `${path.dirname(gw.installed.nodeBin)}${path.delimiter}${process.env.PATH ?? ""}`,
  };
  for (const key of ["NODE_OPTIONS", "VITEST", "VITEST_POOL_ID", "VITEST_WORKER_ID"]) delete env[key];
  return new Promise((resolve) => {
    execFile(gw.installed.nodeBin, [gw.installed.openclawEntry, ...args], { env, timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** Every line `openclaw logs` returns (plain text), through the gateway. */
export async function openclawLogs(gw: Gateway): Promise<string[]> {
  const out = await gw.cli(["logs", "--plain", "--limit", "5000", "--max-bytes", "1000000", "--timeout", "120000"], CLI_TIMEOUT_MS);
  return out.split("\n");
}

/** chat.send on the main session, then the end of its run (the next step starts on a finished turn). */
export async function mainTurn(gw: Gateway, text: string) {
  const result = await gw.chatSend("agent:main:main", `${text} ${crypto.randomBytes(3).toString("hex")}`, 600_000);
  const runId = (result.cliJson as { runId?: unknown } | undefined)?.runId;
  if (typeof runId === "string") await gw.call("agent.wait", { runId, timeoutMs: 600_000 }, { timeoutMs: 605_000 });
  return result;
}

/**
 * One place to look: the served turn's bootstrap decision and memory delivery, and a capture
 * ("Remember that …", written to memory/<today>.md in the background) are in `openclaw logs`.
 */
export async function logsShowTurn(gw: Gateway, observed: Observations): Promise<void> {
  const day = new Date().toISOString().slice(0, 10);
  await mainTurn(gw, "Remember that my locker code is 4312.");
  await waitForFileContaining(path.join(gw.workspaceDir, "memory", `${day}.md`), "locker code is 4312");
  // The capture's line follows its write: ask again a bounded number of times (no event to wait for).
  let ours: string[] = [];
  for (let attempt = 0; attempt < 10; attempt += 1) {
    ours = (await openclawLogs(gw)).filter((line) => line.includes(`[${PLUGIN_ID}]`));
    if (ours.some((line) => line.includes("message triaged"))) break;
  }
  const decision = ours.find((line) => line.includes("aci-bootstrap: MAIN_SESSION (main)"));
  const memory = ours.find((line) => line.includes("memory context for this turn") && line.includes('"delivery":"runtime-carrier"'));
  const capture = ours.find((line) => line.includes("message triaged") && line.includes('"capture":"added"'));
  expect(decision, ours.slice(-20).join("\n")).toBeDefined();
  expect(memory, ours.slice(-20).join("\n")).toBeDefined();
  expect(capture, ours.slice(-20).join("\n")).toBeDefined();
  observed.pluginLoggerInOpenclawLogs = decision && memory && capture ? "bootstrap decision, memory delivery, capture" : "missing";
}

/** doctor: a healthy install exits 0; another engine in the slot exits 3 and explains the trade-off. */
export async function doctorHealthyThenOtherEngine(gw: Gateway): Promise<void> {
  const healthy = await openclaw(gw, ["context", "doctor"]);
  console.log(`openclaw context doctor (healthy), exit ${healthy.code}:\n${healthy.stdout}`);
  expect(healthy.stdout).not.toMatch(/^(WARN|FAIL) /m);
  expect(healthy.stdout).toContain(`ok    context engine: the plugin holds the context-engine slot`);
  // The last turn (a "remember that …") with its capture.
  expect(healthy.stdout).toMatch(/^ok {4}last turn: MAIN_SESSION at .*; 1 capture\(s\)$/m);
  expect(healthy.code).toBe(0);

  await gw.cli(["config", "set", "plugins.slots.contextEngine", "lossless-claw"], 120_000);
  try {
    const taken = await openclaw(gw, ["context", "doctor"]);
    console.log(`openclaw context doctor (another engine in the slot), exit ${taken.code}:\n${taken.stdout}`);
    expect(taken.stdout).toContain("WARN  context engine: context engine lossless-claw holds plugins.slots.contextEngine");
    expect(taken.stdout).toContain("Only one context engine can be active");
    expect(taken.code).toBe(3);
  } finally {
    await gw.cli(["config", "set", "plugins.slots.contextEngine", PLUGIN_ID], 120_000);
  }
}

/**
 * A typo one level down, set the way an operator would: OpenClaw accepts it (no warning: there is no
 * host way to warn at `config set`), the gateway restarts and serves the turn, and the key is named
 * once by the path written, with did-you-mean: in `openclaw logs`, `status` and `doctor`.
 */
export async function configTypo(gw: Gateway, observed: Observations, expectServed: (turn: Awaited<ReturnType<typeof mainTurn>>) => void): Promise<void> {
  const key = `plugins.entries.${PLUGIN_ID}.config.ethosContext.serchTopK`;
  const named = `${key}: unknown key (did you mean searchTopK?)`;
  const set = await openclaw(gw, ["config", "set", key, "5"]);
  expect(set.code).toBe(0);
  observed.pluginConfigSetTypo = /did you mean/i.test(set.stdout + set.stderr) ? "warns" : "accepted, no warning";
  await gw.restart();
  expectServed(await mainTurn(gw, "What is my sailboat named, and where is it moored?"));
  observed.pluginConfigTypoGateway = "starts; turn served";

  const status = await openclaw(gw, ["context", "status", "--no-cli", "--last", "3"]);
  console.log(`openclaw context status --no-cli --last 3 (typo), exit ${status.code}:\n${status.stdout}`);
  expect(status.code).toBe(0);
  expect(status.stdout).toContain(`    - ${named}`);
  const doctor = await openclaw(gw, ["context", "doctor"]);
  console.log(`openclaw context doctor (typo), exit ${doctor.code}:\n${doctor.stdout}`);
  expect(doctor.stdout).toContain(`        ${named}`);
  expect(doctor.code).toBe(1);

  const lines = await openclawLogs(gw);
  console.log(`openclaw logs (ours):\n${lines.filter((line) => line.includes(`[${PLUGIN_ID}]`)).slice(-30).join("\n")}`);
  const logged = lines.filter((line) => line.includes(`invalid config ${key}`));
  expect(logged).toHaveLength(1);
  expect(logged[0]).toContain("did you mean searchTopK?");
  observed.pluginConfigTypoLoggedOnce = `${logged.length} line in openclaw logs`;

  await gw.cli(["config", "unset", key], 120_000);
}

/**
 * Files under a folder with their sha256, by relative path. Left out: ETHOS_CONTEXT.md (--purge
 * removes it) and .gitignore (install added our lines, uninstall takes them out again:
 * test/unit/package-install.test.ts checks that byte for byte).
 */
function memoryHashes(workspace: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && entry.name !== "ETHOS_CONTEXT.md" && entry.name !== ".gitignore") out[path.relative(workspace, full)] = crypto.createHash("sha256").update(fs.readFileSync(full)).digest("hex");
    }
  };
  walk(workspace);
  return out;
}

/** `openclaw context uninstall --purge`: the uninstall, then no bundle state anywhere; every memory file byte for byte. */
export async function uninstallPurge(gw: Gateway): Promise<CliRun> {
  const before = memoryHashes(gw.workspaceDir);
  expect(Object.keys(before)).toContain("MEMORY.md");
  const result = await openclaw(gw, ["context", "uninstall", "--purge"]);
  console.log(`openclaw context uninstall --purge, exit ${result.code}:\n${result.stdout}`);
  expect(result.stderr).not.toMatch(/FAILED|error:/);
  expect(result.code).toBe(0);
  expect(result.stdout).toContain("Removed (--purge):");
  expect(result.stdout.trimEnd().split("\n").at(-1)).toMatch(/^Uninstalled\. RESTART NEEDED/);
  const ourBackups = fs.readdirSync(path.dirname(gw.configPath)).filter((name) => /^openclaw\.json\.\d{8}T\d{6}Z(-\d+)?\.bak$/.test(name));
  expect(ourBackups).toEqual([]);
  expect(fs.existsSync(path.join(gw.stateDir, PLUGIN_ID))).toBe(false);
  expect(fs.existsSync(path.join(gw.root, "openclaw-context.log"))).toBe(false);
  expect(fs.existsSync(path.join(gw.workspaceDir, "ETHOS_CONTEXT.md"))).toBe(false);
  expect(memoryHashes(gw.workspaceDir)).toEqual(before);
  return result;
}
