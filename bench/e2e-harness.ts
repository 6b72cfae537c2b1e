// What the e2e harness spends per gateway boot and per turn, on real gateways (one per pinned
// OpenClaw version), so docs/ground-truth.md can say where CI time goes:
//   - one `openclaw gateway call health` CLI run (wall and CPU of the process tree) vs the same
//     call over the harness's WebSocket connection (gw.call);
//   - one chat turn driven by the CLI (`gateway call chat.send`) vs by gw.chatSend, both until the
//     mock model has received the turn's request;
//   - the pack install command (`hooks install` / `plugins install --force`) with and without the
//     pack's runtime dependencies already in the staged copy, in a throwaway state dir;
//   - the boot phases of startGateway (gw.bootSeconds).
//   npx tsx bench/e2e-harness.ts [--versions 2026.3.13,2026.9.6] [--repeat 3]
// CPU seconds are those of the child process tree (Linux: this process's cutime+cstime from
// /proc/self/stat, which grows when a child is reaped), so they hold under load; wall seconds do not.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { REPO_ROOT, removeTempRoot, stagePack, startGateway } from "../test/e2e/gateway.ts";
import type { Gateway } from "../test/e2e/gateway.ts";
import { ensureInstalled, ensurePackRuntimeDeps } from "../test/e2e/install.ts";
import type { InstalledTarget } from "../test/e2e/install.ts";
import { OPENCLAW_TARGETS } from "../test/e2e/versions.ts";
import { machineInfo, machineLine } from "./lib/machine.ts";
import { median } from "./lib/metrics.ts";
import { markdownTable } from "./lib/table.ts";

const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds of this process's reaped children (user + system), or NaN without /proc. */
function childCpuSeconds(): number {
  try {
    const stat = fs.readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

type Sample = { wall: number; cpu: number };

/** Runs the pinned OpenClaw CLI once; wall and CPU of its process tree. */
function runCli(installed: InstalledTarget, env: NodeJS.ProcessEnv, args: string[]): Promise<Sample> {
  const cpuBefore = childCpuSeconds();
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(installed.nodeBin, [installed.openclawEntry, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) => {
      if (code !== 0) reject(new Error(`openclaw ${args.join(" ")} exited ${code}: ${output.slice(-2000)}`));
      else resolve({ wall: (Date.now() - started) / 1000, cpu: childCpuSeconds() - cpuBefore });
    });
  });
}

/** The environment the harness gives the CLI for `gw` (or for a throwaway state dir). */
function cliEnv(root: string, installed: InstalledTarget, respawn: boolean): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: path.join(root, "home"),
    OPENCLAW_STATE_DIR: path.join(root, "state"),
    OPENCLAW_CONFIG_PATH: path.join(root, "state", "openclaw.json"),
    OPENCLAW_GATEWAY_TOKEN: "e2e-gateway-token",
    npm_config_cache: path.join(os.homedir(), ".npm"),
    NO_COLOR: "1",
    PATH: `${path.dirname(installed.nodeBin)}${path.delimiter}${process.env.PATH ?? ""}`,
  };
  if (respawn) delete env.NODE_OPTIONS;
  else env.NODE_OPTIONS = "--disable-warning=ExperimentalWarning";
  return env;
}

/** The pack install command in a fresh state dir, with or without the runtime dependencies staged. */
async function timePackInstall(installed: InstalledTarget, withDeps: boolean): Promise<Sample> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "bench-e2e-install-"));
  try {
    fs.mkdirSync(path.join(root, "home"), { recursive: true });
    fs.mkdirSync(path.join(root, "state"), { recursive: true });
    fs.writeFileSync(path.join(root, "state", "openclaw.json"), `${JSON.stringify({ gateway: { mode: "local", bind: "loopback", auth: { mode: "token", token: "e2e-gateway-token" } } })}\n`);
    const staged = await stagePack(path.join(root, "pack"), withDeps ? await ensurePackRuntimeDeps(REPO_ROOT) : undefined);
    const command = installed.target.openclaw.startsWith("2026.3.") ? ["hooks", "install"] : ["plugins", "install", "--force"];
    return await runCli(installed, cliEnv(root, installed, false), [...command, staged.dir]);
  } finally {
    await removeTempRoot(root);
  }
}

async function timed(run: () => Promise<unknown>): Promise<Sample> {
  const cpuBefore = process.cpuUsage();
  const started = Date.now();
  await run();
  const cpu = process.cpuUsage(cpuBefore);
  return { wall: (Date.now() - started) / 1000, cpu: (cpu.user + cpu.system) / 1e6 };
}

const fmt = (samples: Sample[]) => `${median(samples.map((s) => s.wall)).toFixed(2)} / ${median(samples.map((s) => s.cpu)).toFixed(2)}`;

async function measureVersion(version: string, repeat: number): Promise<{ calls: (string | number)[][]; boot: Record<string, number> }> {
  const installed = await ensureInstalled(version);
  const calls: (string | number)[][] = [];
  const installs = { bare: [] as Sample[], withDeps: [] as Sample[] };
  for (let i = 0; i < repeat; i++) {
    installs.bare.push(await timePackInstall(installed, false));
    installs.withDeps.push(await timePackInstall(installed, true));
  }
  const gw: Gateway = await startGateway({ version, hooks: { "aci-bootstrap": { enabled: true }, "ethos-context": { enabled: false } } });
  try {
    const cliHealth: Sample[] = [];
    const cliHealthRespawn: Sample[] = [];
    const rpcHealth: Sample[] = [];
    const cliTurn: Sample[] = [];
    const rpcTurn: Sample[] = [];
    for (let i = 0; i < repeat; i++) {
      cliHealthRespawn.push(await runCli(installed, cliEnv(gw.root, installed, true), ["gateway", "call", "health", "--json"]));
      cliHealth.push(await runCli(installed, cliEnv(gw.root, installed, false), ["gateway", "call", "health", "--json"]));
      rpcHealth.push(await timed(() => gw.call("health")));
      const text = `bench turn ${crypto.randomBytes(4).toString("hex")}`;
      const params = JSON.stringify({ sessionKey: "agent:main:main", message: text, idempotencyKey: crypto.randomUUID() });
      const cpuBefore = childCpuSeconds();
      const started = Date.now();
      await runCli(installed, cliEnv(gw.root, installed, false), ["gateway", "call", "chat.send", "--params", params, "--json", "--timeout", "90000"]);
      await gw.model.waitForUserText(text, 90_000);
      cliTurn.push({ wall: (Date.now() - started) / 1000, cpu: childCpuSeconds() - cpuBefore });
      rpcTurn.push(await timed(() => gw.chatSend("agent:main:main", undefined, 90_000)));
    }
    calls.push(
      [version, "`gateway call health` CLI (launcher respawns)", fmt(cliHealthRespawn)],
      [version, "`gateway call health` CLI (NODE_OPTIONS flag, no respawn)", fmt(cliHealth)],
      [version, "`health` over the harness connection", fmt(rpcHealth)],
      [version, "chat turn via `gateway call chat.send` CLI, until the model request", fmt(cliTurn)],
      [version, "chat turn via gw.chatSend (RPC), until the model request", fmt(rpcTurn)],
      [version, "pack install command, clean copy (npm fetches the runtime deps)", fmt(installs.bare)],
      [version, "pack install command, runtime deps staged (npm finds them)", fmt(installs.withDeps)],
    );
    return { calls, boot: gw.bootSeconds };
  } finally {
    await gw.stop();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { versions: { type: "string" }, repeat: { type: "string", default: "3" } } });
  const versions = values.versions ? values.versions.split(",") : OPENCLAW_TARGETS.map((t) => t.openclaw);
  const repeat = Math.max(1, Number(values.repeat));
  const loadBefore = os.loadavg()[0]!.toFixed(1);
  const callRows: (string | number)[][] = [];
  const bootRows: (string | number)[][] = [];
  const phases = ["probeInstall", "packDeps", "stagePack", "packInstall", "listening", "ready", "total"];
  for (const version of versions) {
    const { calls, boot } = await measureVersion(version, repeat);
    callRows.push(...calls);
    bootRows.push([version, ...phases.map((name) => (boot[name] ?? Number.NaN).toFixed(1))]);
  }
  console.log(`e2e harness costs, median of ${repeat} (wall s / CPU s; CPU of the CLI process tree, or of this process for RPC)`);
  console.log(markdownTable(["OpenClaw", "what", "wall / CPU"], callRows));
  console.log("\nboot phases of startGateway (wall s, last boot)");
  console.log(markdownTable(["OpenClaw", ...phases], bootRows));
  console.log(`\n${machineLine(machineInfo())}; load average ${loadBefore} before, ${os.loadavg()[0]!.toFixed(1)} after`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
