// The third-party context engine of the arms "engine-alone" and "engine-prepend" (issue 27): a
// plugin of another id that holds plugins.slots.contextEngine, installed into the plugin arms' one
// gateway before it starts. By default the fixture engine (fixtures/engines/legacy-like-engine: it
// assembles as OpenClaw's legacy engine does); $OPENCLAW_CONTEXT_BENCH_ENGINE names a real one, a
// plugin tarball or folder that is never part of this repository (docs/benchmarks.md, "Next to
// another context engine"). Its engine id is the plugin id unless $OPENCLAW_CONTEXT_BENCH_ENGINE_ID
// says otherwise.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { engineFallbackLine } from "../../src/ops/doctor/engine.ts";
import { REPO_ROOT } from "../../test/e2e/gateway.ts";

export type OtherEngine = {
  /** What `openclaw plugins install` gets: a folder or a tarball. */
  source: string;
  /** Its key under plugins.entries. */
  pluginId: string;
  /** What plugins.slots.contextEngine names. */
  engineId: string;
  /** For tables: name@version and where it came from (never a path of this machine). */
  label: string;
  /** A line the engine logs on every assemble(), when known: counted to prove it served the turns. */
  servedMarker?: string;
};

export const FIXTURE_ENGINE_DIR = path.join(REPO_ROOT, "fixtures", "engines", "legacy-like-engine");
/** What the fixture engine logs per assemble() (fixtures/engines/legacy-like-engine/index.js). */
export const FIXTURE_SERVED_MARKER = "fixture-engine: assembled";

type PluginFiles = { manifest: { id?: unknown }; pkg: { name?: unknown; version?: unknown } };

/** openclaw.plugin.json and package.json of a plugin folder or an npm-packed tarball (`package/…`). */
function readPluginFiles(source: string): PluginFiles {
  const read = (name: string): Record<string, unknown> => {
    const text = fs.statSync(source).isDirectory()
      ? fs.readFileSync(path.join(source, name), "utf8")
      : execFileSync("tar", ["-xzOf", source, `package/${name}`], { encoding: "utf8", maxBuffer: 4 * 1024 * 1024 });
    return JSON.parse(text) as Record<string, unknown>;
  };
  return { manifest: read("openclaw.plugin.json"), pkg: read("package.json") };
}

/** The engine of the engine arms, from the environment (pure apart from reading the plugin's two manifests). */
export function otherEngine(env: NodeJS.ProcessEnv = process.env): OtherEngine {
  const named = env.OPENCLAW_CONTEXT_BENCH_ENGINE?.trim();
  const source = named ? path.resolve(named) : FIXTURE_ENGINE_DIR;
  if (!fs.existsSync(source)) throw new Error(`OPENCLAW_CONTEXT_BENCH_ENGINE: ${source} does not exist (a context-engine plugin tarball or folder)`);
  const { manifest, pkg } = readPluginFiles(source);
  if (typeof manifest.id !== "string" || !manifest.id) throw new Error(`${source}: openclaw.plugin.json has no id`);
  const engineId = env.OPENCLAW_CONTEXT_BENCH_ENGINE_ID?.trim() || manifest.id;
  const fixture = source === FIXTURE_ENGINE_DIR;
  return {
    source,
    pluginId: manifest.id,
    engineId,
    label: `${String(pkg.name)}@${String(pkg.version)} (${fixture ? "fixtures/engines/legacy-like-engine" : path.basename(source)})`,
    ...(fixture ? { servedMarker: FIXTURE_SERVED_MARKER } : {}),
  };
}

/**
 * Why the engine did not serve an arm's turns, from the gateway's output since that arm's restart:
 * OpenClaw fell back to legacy (quarantine, or a turn degraded), or the engine's own per-assemble
 * line is missing for some turn. Undefined when it served them.
 */
export function engineNotServing(engine: OtherEngine, logSinceRestart: string, turns: number): string | undefined {
  const lines = logSinceRestart.split("\n");
  const fellBack = engineFallbackLine(lines, engine.engineId);
  if (fellBack) return `OpenClaw did not run ${engine.engineId}: ${fellBack.trim().slice(0, 400)}`;
  if (engine.servedMarker) {
    const served = lines.filter((line) => line.includes(engine.servedMarker!)).length;
    if (served < turns) return `${engine.engineId} assembled ${served} times for ${turns} turns (its line "${engine.servedMarker}")`;
  }
  return undefined;
}
