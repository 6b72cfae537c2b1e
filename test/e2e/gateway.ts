// Boots a real OpenClaw gateway for one pinned version in a throwaway state dir, config and
// HOME, with a copy of a sample workspace, the mock model, our hook pack installed the way a
// user installs it, and the e2e probe hook. Every wait is bounded; stop() (and process exit)
// kills everything this module started, by process group id.
import { execFile, spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { stageCleanCopy } from "../../src/ops/hook-pack-install.ts";
import { connectGateway, createDeviceIdentity, GatewayRpcError } from "./gateway-rpc.ts";
import type { GatewayRpc } from "./gateway-rpc.ts";
import { ensureInstalled, ensurePackRuntimeDeps } from "./install.ts";
import type { InstalledTarget } from "./install.ts";
import { startMockModel } from "./mock-model.ts";
import { parseInjectedFiles } from "./prompt.ts";
import type { InjectedFile } from "./prompt.ts";
import type { MockModel, RecordedRequest } from "./mock-model.ts";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const PROBE_PACK_DIR = path.join(REPO_ROOT, "test", "e2e", "probe-hook");
export const SAMPLE_WORKSPACE = path.join(REPO_ROOT, "fixtures", "workspace");
export const GATEWAY_TOKEN = "e2e-gateway-token";

// Generous bounds on events (listening, the first health answer): a gateway that is still starting on a
// busy machine is waited for; one that exits or refuses for good fails at once.
const READY_TIMEOUT_MS = 600_000;
/** From listening to answering `health`: a busy machine can take minutes; the wait ends on the answer. */
const HEALTH_TIMEOUT_MS = 300_000;
const CLI_TIMEOUT_MS = 120_000;
/**
 * An install command copies the pack and runs npm: on a loaded 2-core machine 2026.9.6's took up
 * to 115 s with the dependencies fetched, beyond CLI_TIMEOUT_MS. The bound only ends a hang.
 */
const INSTALL_TIMEOUT_MS = 600_000;
/** Default bound of one gateway RPC (a turn's own calls pass theirs). */
const RPC_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;
/** After SIGKILL a process always exits; this only bounds a teardown on a badly overloaded machine. */
const KILLED_EXIT_TIMEOUT_MS = 120_000;

export type ModelApi = "openai-completions" | "anthropic-messages";

export type HookEntries = Record<string, Record<string, unknown>>;

export type StartGatewayOptions = {
  /** A pinned OpenClaw version from versions.ts, e.g. "2026.9.6". */
  version: string;
  /** Merged into `hooks.internal.entries` (e.g. `{ "aci-bootstrap": { enabled: true, ownerIds: ["42"] } }`). */
  hooks?: HookEntries;
  /** Install our hook pack (the repo) into the gateway. Default true. */
  installPack?: boolean;
  /** Install the e2e probe hook (it logs every hook event). Default true; one CLI run less without it. */
  installProbe?: boolean;
  /** Further plugin folders to install (`plugins install <dir>`) after the pack, e.g. bench-only plugins. */
  extraPlugins?: string[];
  /** Workspace to copy (default fixtures/workspace). The gateway works on the copy. */
  workspace?: string;
  /** Extra files written into the workspace copy, relative path → content. */
  workspaceFiles?: Record<string, string>;
  /** Deep-merged into openclaw.json last. */
  config?: Record<string, unknown>;
  /** Which API the mock model speaks to the gateway (default OpenAI chat completions). */
  modelApi?: ModelApi;
  /** The model id the gateway asks the mock for (default "mock-model"); OpenClaw keys some behaviour on it. */
  modelId?: string;
  /** Further model ids the mock provider lists: a session can switch to one (`sessions.patch` `model: "mock/<id>"`). */
  extraModelIds?: string[];
  /** Extra environment for the gateway process. */
  env?: NodeJS.ProcessEnv;
  /** Echo gateway output to this process's stderr (debugging). */
  verbose?: boolean;
};

export type TurnResult = {
  sessionKey: string;
  /** The unique text sent; the mock request is matched by it. */
  text: string;
  request: RecordedRequest;
  systemPrompt: string;
  /** Workspace files injected into the prompt (parsed at turn time, while the workspace exists). */
  injectedFiles: InjectedFile[];
  /** The gateway's answer to the turn's RPC (what `openclaw gateway call … --json` prints), when it has one. */
  cliJson?: unknown;
};

export type ProbeEvent = Record<string, unknown> & { seq: number; t: number; event: string; sessionKey?: string };

export type Gateway = {
  version: string;
  installed: InstalledTarget;
  port: number;
  root: string;
  stateDir: string;
  configPath: string;
  home: string;
  workspaceDir: string;
  model: MockModel;
  /** How our pack got into the gateway, for the docs/assumptions matrix. */
  packInstall: string;
  /** Seconds per boot phase (probeInstall, packDeps, stagePack, packInstall, listening, ready, start, total) of the last start. */
  bootSeconds: Record<string, number>;
  /** Runs the OpenClaw CLI against this gateway; resolves with stdout (throws on non-zero exit). */
  cli(args: string[], timeoutMs?: number): Promise<string>;
  /**
   * One gateway RPC over the harness's WebSocket connection (what `openclaw gateway call <method>
   * --params … --json` does, without a CLI process); resolves with the gateway's answer, throws
   * with it (GatewayRpcError) when the gateway refuses. `expectFinal` waits past {status:"accepted"}.
   */
  call<T = unknown>(method: string, params?: unknown, options?: { expectFinal?: boolean; timeoutMs?: number }): Promise<T>;
  /** `chat.send` RPC (webchat path, fires message:received), then waits for the model request. */
  chatSend(sessionKey: string, text?: string, timeoutMs?: number): Promise<TurnResult>;
  /** Gateway `agent` RPC for any session key (what `openclaw agent --session-key` uses), then finds the model request. */
  agentTurn(sessionKey: string, text?: string, timeoutMs?: number): Promise<TurnResult>;
  /**
   * A real cron job (`cron.add` isolated, no delivery, then `cron.run`: what `cron add --session
   * isolated --no-deliver` and `cron run` send): the run's key is
   * `agent:<id>:cron:<jobId>:run:<sessionId>`. Resolves with the model request of that run.
   */
  cronTurn(text?: string, timeoutMs?: number): Promise<TurnResult>;
  /** `wake` RPC with mode "now" (what `system event --mode now` sends): a heartbeat run in the main session. */
  heartbeatTurn(text?: string, timeoutMs?: number): Promise<TurnResult>;
  /** Newest system prompt whose request's user messages contain `needle`. */
  lastSystemPrompt(needle: string): string | undefined;
  /** Parsed probe-hook log lines (agent:bootstrap, message:received, probe:mutated). */
  probeEvents(): ProbeEvent[];
  /** Gateway stdout+stderr so far (also in <root>/gateway.log; OPENCLAW_E2E_KEEP=1 keeps the root after stop). */
  logs(): string;
  /**
   * Stops the gateway process and starts it again on the same state, config and port (what an
   * operator's restart does). `configPatch` is deep-merged into openclaw.json while the gateway is
   * down, so no hot reload of the change can race the restart. `env` is added to the start's
   * environment for this run of the process only (the next restart goes back to the start's).
   */
  restart(configPatch?: Record<string, unknown>, options?: { env?: NodeJS.ProcessEnv }): Promise<void>;
  stop(): Promise<void>;
};

// ---------------------------------------------------------------------------------------------
// Process bookkeeping: everything we spawn is a process-group leader, killed on stop and on exit.

const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* already gone */
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const pid of liveGroups) killGroup(pid, "SIGKILL");
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      for (const pid of liveGroups) killGroup(pid, "SIGKILL");
      process.exit(130);
    });
  }
}

type ProcessEntry = { pid: number; ppid: number; pgid: number; state: string; startTime: string };

/** One process from /proc/<pid>/stat (Linux), or undefined when it is gone or unreadable. */
function readProcess(pid: number): ProcessEntry | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid pgrp session … starttime": comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { pid, ppid: Number(fields[1]), pgid: Number(fields[2]), state: fields[0] ?? "", startTime: fields[19] ?? "" };
  } catch {
    return undefined;
  }
}

/**
 * Every descendant of `root`, whatever its process group. OpenClaw 2026.9 starts its spawn broker
 * in a session of its own (setsid), so killing the gateway's group leaves it running, and writing
 * into the temp root. Linux only (/proc); elsewhere none are found and only the group is waited for.
 */
/** Every process (Linux /proc), or undefined where there is no /proc. */
function listProcesses(): ProcessEntry[] | undefined {
  try {
    return fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name)).map((name) => readProcess(Number(name))).filter((entry): entry is ProcessEntry => entry !== undefined);
  } catch {
    return undefined;
  }
}

/** A zombie has exited; it only waits for its parent (or init) to collect its status. */
const exited = (entry: ProcessEntry) => entry.state === "Z" || entry.state === "X";

function descendantsOf(root: number): ProcessEntry[] {
  const entries = listProcesses() ?? [];
  const found: ProcessEntry[] = [];
  const parents = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const entry of entries) {
      if (!parents.has(entry.ppid) || parents.has(entry.pid)) continue;
      parents.add(entry.pid);
      found.push(entry);
      grew = true;
    }
  }
  return found;
}

/** Still the same process (same pid and start time: not a new process that reused the pid)? */
function stillRunning(entry: ProcessEntry): boolean {
  const now = readProcess(entry.pid);
  return now !== undefined && now.startTime === entry.startTime && !exited(now);
}

/** Kills what is left of the descendants (and the groups they lead), then waits until none is left. */
async function endDescendants(descendants: readonly ProcessEntry[], timeoutMs: number): Promise<boolean> {
  for (const entry of descendants) {
    if (!stillRunning(entry)) continue;
    if (entry.pgid === entry.pid) killGroup(entry.pid, "SIGKILL");
    try {
      process.kill(entry.pid, "SIGKILL");
    } catch {
      /* already gone */
    }
  }
  const deadline = Date.now() + timeoutMs;
  while (descendants.some(stillRunning)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/** Does any process of the group still exist? (The leader's exit does not end its children.) */
function groupAlive(pid: number): boolean {
  const all = listProcesses();
  if (all) return all.some((entry) => entry.pgid === pid && !exited(entry));
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Waits until no process of the group is left (polls: the OS gives no event for a group). */
async function waitForGroupExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/** Waits for 'close': the process exited and every stdio stream has delivered its last data. */
async function waitForClose(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) {
    if ((child.stdout?.destroyed ?? true) && (child.stderr?.destroyed ?? true)) return true;
  }
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once("close", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Removes a temp root, retrying while something still settles in it (ENOTEMPTY, EBUSY): fs.rm's
 * own retries, with a linear back-off between attempts.
 */
export async function removeTempRoot(root: string): Promise<void> {
  await fs.promises.rm(root, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
}

async function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

// ---------------------------------------------------------------------------------------------
// Config and files

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function deepMerge(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    out[key] = isPlainObject(value) && isPlainObject(out[key]) ? deepMerge(out[key] as Record<string, unknown>, value) : value;
  }
  return out;
}

function baseConfig(port: number, model: MockModel, workspaceDir: string, api: ModelApi, modelIds: string[], logFile: string): Record<string, unknown> {
  return {
    gateway: { mode: "local", port, bind: "loopback", auth: { mode: "token", token: GATEWAY_TOKEN } },
    // OpenClaw's own log goes to /tmp/openclaw/openclaw-<day>.log, shared by every gateway of the
    // day whatever HOME is: `openclaw logs` in one test would show another test's gateway.
    logging: { file: logFile },
    agents: {
      defaults: {
        workspace: workspaceDir,
        model: { primary: `mock/${modelIds[0]}` },
        skipBootstrap: true,
      },
    },
    models: {
      mode: "merge",
      providers: {
        mock: {
          baseUrl: api === "anthropic-messages" ? model.anthropicBaseUrl : model.baseUrl,
          apiKey: "sk-e2e-local",
          api,
          models: modelIds.map((id) => ({
            id,
            name: "Mock",
            reasoning: false,
            input: ["text"],
            cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
            contextWindow: 128000,
            maxTokens: 4096,
          })),
        },
      },
    },
    hooks: { internal: { enabled: true, entries: Object.fromEntries(BUNDLED_HOOKS.map((name) => [name, { enabled: false }])) } },
  };
}

/**
 * OpenClaw's bundled hooks. 2026.3.13 registers them all as soon as any managed hook pack is
 * installed (seen in the gateway log), so the harness turns them off explicitly: the runs then
 * measure only the host's own bootstrap set plus our hooks.
 */
export const BUNDLED_HOOKS = ["boot-md", "bootstrap-extra-files", "command-logger", "session-memory"];

/**
 * The clean copy install-hooks hands OpenClaw (`stageCleanCopy`: no .git, tests, benches, fixtures
 * or dev tools), plus `runtimeDeps` as its node_modules when given: the pack's production dependencies, already
 * installed from package-lock.json (`npm ci --omit=dev`, cached by install.ts). OpenClaw's install
 * still copies the pack and runs its `npm install --omit=dev` in the copy; npm then finds every
 * dependency in place instead of fetching and unpacking about 60 packages on every boot.
 */
export async function stagePack(targetDir: string, runtimeDeps?: string): Promise<{ dir: string; missingHooks: string[] }> {
  await stageCleanCopy(REPO_ROOT, targetDir);
  if (runtimeDeps) fs.cpSync(runtimeDeps, path.join(targetDir, "node_modules"), { recursive: true, verbatimSymlinks: true });
  // A hook listed in the manifest but not written yet would make the whole install fail; the
  // staged manifest leaves it out and the caller reports it loudly (see missingPackHooks()).
  const missingHooks = missingPackHooks();
  if (missingHooks.length) {
    const manifestPath = path.join(targetDir, "package.json");
    const manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8")) as { openclaw: { hooks: string[] } };
    manifest.openclaw.hooks = manifest.openclaw.hooks.filter((hook) => !missingHooks.includes(hook));
    fs.writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  }
  return { dir: targetDir, missingHooks };
}

/** Hooks named in package.json `openclaw.hooks` that have no HOOK.md + handler yet. */
export function missingPackHooks(): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { openclaw?: { hooks?: string[] } };
  return (manifest.openclaw?.hooks ?? []).filter((hook) => {
    const dir = path.join(REPO_ROOT, hook);
    return !fs.existsSync(path.join(dir, "HOOK.md")) || !["handler.ts", "handler.js", "index.ts", "index.js"].some((f) => fs.existsSync(path.join(dir, f)));
  });
}

/** sha256 of every file under a directory, by relative path (AC-8: the workspace is unchanged). */
export function hashTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) out[path.relative(dir, full)] = crypto.createHash("sha256").update(fs.readFileSync(full)).digest("hex");
    }
  };
  walk(dir);
  return out;
}

// ---------------------------------------------------------------------------------------------

function runCli(installed: InstalledTarget, env: NodeJS.ProcessEnv, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      installed.nodeBin,
      [installed.openclawEntry, ...args],
      { env, timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (child.pid) liveGroups.delete(child.pid);
        if (error) {
          reject(new Error(`openclaw ${args.join(" ")} failed: ${error.message}\nstdout: ${stdout.slice(-2000)}\nstderr: ${stderr.slice(-2000)}`));
        } else resolve(stdout);
      },
    );
  });
}

let turnCounter = 0;
function uniqueText(label: string): string {
  turnCounter += 1;
  return `e2e turn ${label} ${process.pid}-${turnCounter}-${crypto.randomBytes(3).toString("hex")}`;
}

/**
 * The environment an operator's shell has for this gateway: `openclaw` is a wrapper around the
 * harness's pinned CLI (on $OPENCLAW_CLI), state dir, config and token point at the gateway.
 */
export function operatorEnv(gw: Gateway, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const wrapper = path.join(gw.root, "bin", "openclaw");
  fs.mkdirSync(path.dirname(wrapper), { recursive: true });
  fs.writeFileSync(wrapper, `#!/bin/sh\nexec "${gw.installed.nodeBin}" "${gw.installed.openclawEntry}" "$@"\n`, { mode: 0o755 });
  return {
    HOME: gw.home,
    OPENCLAW_STATE_DIR: gw.stateDir,
    OPENCLAW_CONFIG_PATH: gw.configPath,
    OPENCLAW_GATEWAY_TOKEN: GATEWAY_TOKEN,
    OPENCLAW_CLI: wrapper,
    ...extra,
    npm_config_cache: path.join(os.homedir(), ".npm"),
    PATH: `${path.dirname(gw.installed.nodeBin)}${path.delimiter}${process.env.PATH ?? ""}`,
  };
}

export async function startGateway(options: StartGatewayOptions): Promise<Gateway> {
  installExitHook();
  const bootStarted = Date.now();
  const bootSeconds: Record<string, number> = {};
  const phase = async <T>(name: string, run: () => T | Promise<T>): Promise<T> => {
    const started = Date.now();
    try {
      return await run();
    } finally {
      bootSeconds[name] = (Date.now() - started) / 1000;
    }
  };
  const installed = await ensureInstalled(options.version);
  const seedEra = installed.target.openclaw.startsWith("2026.3.");
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `openclaw-e2e-${installed.target.label}-`));
  const home = path.join(root, "home");
  const stateDir = path.join(root, "state");
  const workspaceDir = path.join(root, "workspace");
  const configPath = path.join(stateDir, "openclaw.json");
  const probeLog = path.join(root, "probe.jsonl");
  const gatewayLog = path.join(root, "gateway.log");
  for (const dir of [home, stateDir]) fs.mkdirSync(dir, { recursive: true });
  fs.cpSync(options.workspace ?? SAMPLE_WORKSPACE, workspaceDir, { recursive: true });
  for (const [rel, content] of Object.entries(options.workspaceFiles ?? {})) {
    fs.mkdirSync(path.dirname(path.join(workspaceDir, rel)), { recursive: true });
    fs.writeFileSync(path.join(workspaceDir, rel), content);
  }
  fs.writeFileSync(probeLog, "");

  const model = await startMockModel();
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    OPENCLAW_STATE_DIR: stateDir,
    OPENCLAW_CONFIG_PATH: configPath,
    OPENCLAW_GATEWAY_TOKEN: GATEWAY_TOKEN,
    OPENCLAW_E2E_PROBE_LOG: probeLog,
    OPENCLAW_CONTEXT_LOG_FILE: path.join(root, "openclaw-context.log"),
    // npm (run by `plugins install` for the pack's dependencies) must not read a user npmrc from the throwaway HOME.
    npm_config_cache: path.join(os.homedir(), ".npm"),
    NO_COLOR: "1",
    PATH: `${path.dirname(installed.nodeBin)}${path.delimiter}${process.env.PATH ?? ""}`,
    ...options.env,
  };
  // vitest/tsx leave these behind; the gateway's own Node must not inherit loaders.
  delete env.NODE_OPTIONS;
  delete env.VITEST;
  delete env.VITEST_POOL_ID;
  delete env.VITEST_WORKER_ID;
  // Without this flag each CLI run starts Node twice: OpenClaw's launcher respawns itself only to
  // add it (entry.js, both versions; the flag in NODE_OPTIONS is what it checks for).
  const cliEnv: NodeJS.ProcessEnv = { ...env, NODE_OPTIONS: "--disable-warning=ExperimentalWarning" };

  // One WebSocket connection to the gateway for every RPC, opened by the readiness check and
  // opened again when it was closed (restart). 2026.3.13 clears the scopes of a connect without a
  // device identity, so there the connect is signed, as its CLI does; 2026.9.6's CLI sends none on
  // loopback with the token.
  const device = seedEra ? createDeviceIdentity() : undefined;
  const connect = () => connectGateway({ port, token: GATEWAY_TOKEN, clientVersion: installed.target.openclaw, device, timeoutMs: RPC_TIMEOUT_MS });
  let connection: Promise<GatewayRpc> | undefined;
  const rpc = async (): Promise<GatewayRpc> => {
    const open = connection && (await connection.catch(() => undefined));
    if (open && !open.closed) return open;
    connection = connect();
    return connection;
  };
  const closeRpc = async () => {
    const open = connection && (await connection.catch(() => undefined));
    connection = undefined;
    await open?.close();
  };
  const call = async <T = unknown>(method: string, params: unknown = {}, callOptions: { expectFinal?: boolean; timeoutMs?: number } = {}): Promise<T> =>
    (await rpc()).call<T>(method, params, { expectFinal: callOptions.expectFinal, timeoutMs: callOptions.timeoutMs ?? RPC_TIMEOUT_MS });

  let gatewayProcess: ChildProcess | undefined;
  let logStream: number | undefined;
  let output = "";
  // Teardown waits for the processes it started: the gateway, then every process of its group
  // (plugin installs, workers it spawned), then its descendants in other sessions (2026.9's spawn
  // broker), then the last of their output. Only then is the temp
  // root removed: a gateway still writing into it made the removal fail with ENOTEMPTY.
  const stopProcess = async () => {
    await closeRpc();
    const child = gatewayProcess;
    if (!child?.pid) return;
    // Taken before the gateway exits: afterwards its children are re-parented and cannot be found.
    const descendants = descendantsOf(child.pid);
    killGroup(child.pid, "SIGTERM");
    if (!(await waitForExit(child, STOP_TIMEOUT_MS))) killGroup(child.pid, "SIGKILL");
    await waitForExit(child, KILLED_EXIT_TIMEOUT_MS);
    if (groupAlive(child.pid)) killGroup(child.pid, "SIGKILL"); // children that outlived the gateway
    await waitForGroupExit(child.pid, KILLED_EXIT_TIMEOUT_MS);
    await endDescendants(descendants, KILLED_EXIT_TIMEOUT_MS); // e.g. the spawn broker in its own session
    await waitForClose(child, KILLED_EXIT_TIMEOUT_MS);
    liveGroups.delete(child.pid);
  };
  const stop = async () => {
    await stopProcess();
    await model.stop();
    if (logStream !== undefined) fs.closeSync(logStream);
    logStream = undefined;
    // The temp root (state, workspace copy, installed pack) is deleted unless asked to keep it.
    if (process.env.OPENCLAW_E2E_KEEP !== "1") await removeTempRoot(root);
  };

  try {
    fs.writeFileSync(configPath, `${JSON.stringify(baseConfig(port, model, workspaceDir, options.modelApi ?? "openai-completions", [options.modelId ?? "mock-model", ...(options.extraModelIds ?? [])], path.join(root, "openclaw-gateway.log")), null, 2)}\n`);
    const cli = (args: string[], timeoutMs = CLI_TIMEOUT_MS) => runCli(installed, cliEnv, args, timeoutMs);
    const installCommand = seedEra ? ["hooks", "install"] : ["plugins", "install", "--force"];

    // The probe pack first, then ours: hook registration order is discovery order.
    if (options.installProbe !== false) await phase("probeInstall", () => cli([...installCommand, PROBE_PACK_DIR], INSTALL_TIMEOUT_MS));
    let packInstall = "not installed";
    if (options.installPack !== false) {
      const runtimeDeps = await phase("packDeps", () => ensurePackRuntimeDeps(REPO_ROOT));
      const staged = await phase("stagePack", () => stagePack(path.join(root, "pack"), runtimeDeps));
      await phase("packInstall", () => cli([...installCommand, staged.dir], INSTALL_TIMEOUT_MS));
      packInstall = `openclaw ${installCommand.join(" ")} <clean copy of the repo>` + (staged.missingHooks.length ? ` (manifest hooks missing, left out: ${staged.missingHooks.join(", ")})` : "");
    }

    for (const dir of options.extraPlugins ?? []) {
      await cli(["plugins", "install", dir, ...(seedEra ? [] : ["--force", "--accept-capabilities"])], INSTALL_TIMEOUT_MS);
    }

    // The install commands edit openclaw.json; our entries and overrides go on top.
    const afterInstall = JSON.parse(fs.readFileSync(configPath, "utf8")) as Record<string, unknown>;
    let merged = deepMerge(afterInstall, { hooks: { internal: { enabled: true, entries: { "e2e-probe": { enabled: true }, ...options.hooks } } } });
    merged = deepMerge(merged, options.config ?? {});
    fs.writeFileSync(configPath, `${JSON.stringify(merged, null, 2)}\n`);

    logStream = fs.openSync(gatewayLog, "a");
    const launch = async (extraEnv: NodeJS.ProcessEnv = {}) => {
      const child = spawn(installed.nodeBin, [installed.openclawEntry, "gateway", "run", "--bind", "loopback", "--port", String(port), "--allow-unconfigured"], {
        env: { ...env, ...extraEnv },
        cwd: root,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
      gatewayProcess = child;
      if (child.pid) liveGroups.add(child.pid);
      const onData = (chunk: Buffer) => {
        const text = chunk.toString("utf8");
        output += text;
        if (logStream !== undefined) fs.writeSync(logStream, text); // closed only after 'close'; a straggler is dropped
        if (options.verbose) process.stderr.write(text);
      };
      child.stdout?.on("data", onData);
      child.stderr?.on("data", onData);

      const version = installed.target.openclaw;
      await phase("listening", async () => {
        const deadline = Date.now() + READY_TIMEOUT_MS;
        while (!(await canConnect(port))) {
          if (child.exitCode !== null) throw new Error(`openclaw ${version} gateway exited with code ${child.exitCode} before listening:\n${output.slice(-4000)}`);
          if (Date.now() > deadline) throw new Error(`openclaw ${version} gateway not listening on ${port} after ${READY_TIMEOUT_MS}ms:\n${output.slice(-4000)}`);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      });
      // Listening is not ready: 2026.9.6 refuses connects while it starts ("gateway starting;
      // retry shortly", retryable), and a busy machine can take tens of seconds to answer. Ready
      // is the first answer to `health`; refusals the gateway marks retryable, and connections it
      // closes, are tried again until the bound.
      await phase("ready", async () => {
        const deadline = Date.now() + HEALTH_TIMEOUT_MS;
        for (;;) {
          try {
            const opened = await connect();
            connection = Promise.resolve(opened);
            await opened.call("health", {}, { timeoutMs: Math.max(1, deadline - Date.now()) });
            return;
          } catch (error) {
            const refusal = error instanceof GatewayRpcError ? error.gatewayError : undefined;
            const message = error instanceof Error ? error.message : String(error);
            if (child.exitCode !== null) throw new Error(`openclaw ${version} gateway exited with code ${child.exitCode} before answering health (${message}):\n${output.slice(-4000)}`);
            if ((refusal && !refusal.retryable) || Date.now() > deadline) throw new Error(`openclaw ${version} gateway on ${port} did not answer health within ${HEALTH_TIMEOUT_MS}ms: ${message}\n${output.slice(-4000)}`);
            await new Promise((resolve) => setTimeout(resolve, refusal?.retryAfterMs ?? 250));
          }
        }
      });
    };
    await phase("start", launch);
    bootSeconds.total = (Date.now() - bootStarted) / 1000;

    const readProbeEvents = (): ProbeEvent[] =>
      fs
        .readFileSync(probeLog, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as ProbeEvent);
    // A turn's request is one the model received after the turn was sent (`afterSeq`): an earlier
    // turn may have sent the same words (another session, another arm on the same gateway).
    const findTurn = async (sessionKey: string, text: string, timeoutMs: number, afterSeq: number, cliJson?: unknown): Promise<TurnResult> => {
      const request = await model.waitForUserText(text, timeoutMs, afterSeq);
      const systemPrompt = model.systemPromptOf(request);
      return { sessionKey, text, request, systemPrompt, injectedFiles: parseInjectedFiles(systemPrompt), cliJson };
    };

    return {
      version: installed.target.openclaw,
      installed,
      port,
      root,
      stateDir,
      configPath,
      home,
      workspaceDir,
      model,
      packInstall,
      bootSeconds,
      cli,
      call,
      async chatSend(sessionKey, text = uniqueText("chat"), timeoutMs = 60_000) {
        const sent = model.requests.length;
        const answer = await call("chat.send", { sessionKey, message: text, idempotencyKey: crypto.randomUUID() }, { timeoutMs });
        return findTurn(sessionKey, text, timeoutMs, sent, answer);
      },
      async agentTurn(sessionKey, text = uniqueText("agent"), timeoutMs = 90_000) {
        // The gateway `agent` RPC (what `openclaw agent --session-key` calls on 2026.9.6; the
        // 2026.3.13 CLI has no --session-key flag, its RPC does). expectFinal waits for the run.
        const sent = model.requests.length;
        const answer = await call("agent", { sessionKey, message: text, idempotencyKey: crypto.randomUUID() }, { expectFinal: true, timeoutMs });
        return findTurn(sessionKey, text, 10_000, sent, answer);
      },
      async cronTurn(text = uniqueText("cron"), timeoutMs = 90_000) {
        const sent = model.requests.length;
        // The params `cron add --name … --cron "0 7 * * *" --message … --session isolated
        // --no-deliver` sends on both versions (read from their cron-cli).
        const job = await call<{ id?: string; job?: { id?: string } }>(
          "cron.add",
          {
            name: `e2e-${crypto.randomBytes(3).toString("hex")}`,
            enabled: true,
            schedule: { kind: "cron", expr: "0 7 * * *" },
            sessionTarget: "isolated",
            wakeMode: "now",
            payload: { kind: "agentTurn", message: text },
            delivery: { mode: "none", channel: "last" },
          },
          { timeoutMs: 60_000 },
        );
        const jobId = job?.id ?? job?.job?.id;
        if (!jobId) throw new Error(`cron.add answered no job id: ${JSON.stringify(job).slice(0, 1000)}`);
        // `cron run` fails unless the answer says the job ran or was queued.
        const run = await call<{ ok?: boolean; ran?: boolean; enqueued?: boolean }>("cron.run", { id: jobId, mode: "force" }, { timeoutMs });
        if (!run?.ok || !(run.ran || run.enqueued)) throw new Error(`cron.run ${jobId} did not run the job: ${JSON.stringify(run)}`);
        const turn = await findTurn("", text, timeoutMs, sent, { jobId });
        const bootstrap = [...readProbeEvents()].reverse().find((e) => e.event === "agent:bootstrap" && typeof e.sessionKey === "string" && e.sessionKey.includes(`:cron:${jobId}`));
        return { ...turn, sessionKey: bootstrap?.sessionKey ?? `agent:main:cron:${jobId}` };
      },
      async heartbeatTurn(text = uniqueText("heartbeat"), timeoutMs = 90_000) {
        const sent = model.requests.length;
        const woken = await call<{ ok?: boolean }>("wake", { mode: "now", text }, { timeoutMs: 60_000 });
        if (woken?.ok === false) throw new Error(`wake (system event --mode now) was refused: ${JSON.stringify(woken)}`);
        return findTurn("agent:main:main", text, timeoutMs, sent);
      },
      lastSystemPrompt(needle) {
        const request = model.findByUserText(needle);
        return request ? model.systemPromptOf(request) : undefined;
      },
      probeEvents: readProbeEvents,
      logs: () => output,
      stop,
      async restart(configPatch, restartOptions) {
        await stopProcess();
        if (configPatch) fs.writeFileSync(configPath, `${JSON.stringify(deepMerge(JSON.parse(fs.readFileSync(configPath, "utf8")) as Record<string, unknown>, configPatch), null, 2)}\n`);
        // The port was just released: wait until nothing listens on it any more.
        const deadline = Date.now() + STOP_TIMEOUT_MS;
        while ((await canConnect(port)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
        await launch(restartOptions?.env);
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
