// The installable plugin for OpenClaw 2026.9+ in dist/plugin/
// (git-ignored). esbuild compiles src/plugin/index.ts and everything it imports, npm
// dependencies included, into one ES module: installs land under node_modules, where Node does not
// strip types, and a bundle needs no `npm install` at install time. `npm pack` in dist/plugin/ then
// holds index.js, openclaw.plugin.json, package.json, README.md: no tests, fixtures, .ts or dev deps.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { z } from "zod";
import { PluginConfigSchema } from "../context/plugin-config.ts";
import { PLUGIN_ID } from "../host/ids.ts";
import { CONTEXT_COMMAND } from "./commands/index.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const SOURCE = path.join(ROOT, "src", "plugin");
export const PLUGIN_OUT_DIR = path.join(ROOT, "dist", "plugin");

/**
 * openclaw.plugin.json, written from the code it describes: the config schema from the zod schema the
 * plugin validates with, the CLI group from the command table. OpenClaw lists the command and checks
 * the config from the manifest before it loads the plugin.
 */
export function pluginManifest() {
  const { $schema: _schema, ...configSchema } = z.toJSONSchema(PluginConfigSchema, { io: "input" }) as Record<string, unknown>;
  return {
    id: PLUGIN_ID,
    name: PLUGIN_ID,
    description: `Session-aware bootstrap file sets, same-turn memory (runtime-context carrier or prependContext), SOUL.md for subagents, HEARTBEAT.md for cron runs; ${CONTEXT_COMMAND.description.replace(/^openclaw-context: /, "openclaw context ")}. OpenClaw 2026.9 and later.`,
    activation: { onStartup: true },
    cliCommands: [CONTEXT_COMMAND],
    configSchema,
  };
}

/** CommonJS dependencies (pino, …) call require/__dirname; an ES module has neither until given them. */
const ESM_BANNER = [
  'import { createRequire as __createRequire } from "node:module";',
  'import { fileURLToPath as __fileURLToPath } from "node:url";',
  'import __path from "node:path";',
  "const require = __createRequire(import.meta.url);",
  "const __filename = __fileURLToPath(import.meta.url);",
  "const __dirname = __path.dirname(__filename);",
].join("\n");

export async function buildPlugin(outDir = PLUGIN_OUT_DIR): Promise<string> {
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  const rootManifest = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string; license: string; engines: Record<string, string> };
  await build({
    entryPoints: [path.join(SOURCE, "index.ts")],
    outfile: path.join(outDir, "index.js"),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    banner: { js: ESM_BANNER },
    minify: true,
    legalComments: "eof",
    logLevel: "warning",
  });
  fs.writeFileSync(path.join(outDir, "openclaw.plugin.json"), `${JSON.stringify(pluginManifest(), null, 2)}\n`);
  const manifest = {
    name: "openclaw-context",
    version: rootManifest.version,
    description: "openclaw-context as one OpenClaw 2026.9+ plugin: session-aware bootstrap files, same-turn memory, `openclaw context …` operator commands.",
    type: "module",
    license: rootManifest.license,
    engines: rootManifest.engines,
    // Everything is bundled into index.js: no runtime dependencies to install.
    files: ["index.js", "openclaw.plugin.json", "README.md"],
    openclaw: { extensions: ["./index.js"] },
  };
  fs.writeFileSync(path.join(outDir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  fs.writeFileSync(
    path.join(outDir, "README.md"),
    "# openclaw-context (OpenClaw 2026.9+ plugin)\n\nBuilt by `npm run build:plugin` in the openclaw-context repository; its README.md and docs/plugin-package.md describe it.\n\n" +
      "Install: `openclaw plugins install ./openclaw-context-<version>.tgz --force --accept-capabilities`, then restart the gateway.\n" +
      "Roll back: set `plugins.entries.openclaw-context.config.enabled` to `false`.\n",
  );
  return outDir;
}


/** `npm pack` in the built folder: the tarball a user installs (dist/plugin/openclaw-context-<version>.tgz). */
export async function packPlugin(outDir = PLUGIN_OUT_DIR): Promise<string> {
  const { execFile } = await import("node:child_process");
  const name = await new Promise<string>((resolve, reject) => {
    execFile("npm", ["pack", "--silent"], { cwd: outDir, timeout: 300_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`npm pack failed in ${outDir}: ${stderr || error.message}`));
      else resolve(stdout.trim().split("\n").pop() ?? "");
    });
  });
  return path.join(outDir, name);
}
