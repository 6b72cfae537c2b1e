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
const PLUGIN_OUT_DIR = path.join(ROOT, "dist", "plugin");

type JsonSchema = { description?: unknown; default?: unknown; properties?: Record<string, JsonSchema>; [key: string]: unknown };

/**
 * The manifest's configSchema: every key the plugin knows, described, and nothing OpenClaw could
 * reject. OpenClaw checks a plugin's config against this schema on every config read and write, and
 * a failure is fatal there (the gateway exits 78, `config set` refuses, `doctor --fix` wipes the
 * entry). So no `type`, range, enum or pattern, and `additionalProperties: true` at every level: a
 * typo or a wrong type reaches the plugin, whose zod check (parsePluginConfig) ignores that one key,
 * logs it once with its path and "did you mean", and keeps every other setting. The defaults are in
 * the descriptions (a schema `default` would be applied by OpenClaw into the config it hands over).
 */
function openConfigSchema(schema: JsonSchema): JsonSchema {
  const open: JsonSchema = {};
  const scalarDefault = schema.default !== undefined && (typeof schema.default !== "object" || schema.default === null);
  const description = [typeof schema.description === "string" ? schema.description : undefined, scalarDefault ? `Default: ${JSON.stringify(schema.default)}.` : undefined].filter(Boolean).join(" ");
  if (description) open.description = description;
  if (schema.properties) {
    open.properties = Object.fromEntries(Object.entries(schema.properties).map(([key, child]) => [key, openConfigSchema(child)]));
    open.additionalProperties = true;
  }
  return open;
}

/**
 * openclaw.plugin.json, written from the code it describes: the config schema from the zod schema the
 * plugin validates with (opened: openConfigSchema), the CLI group from the command table. OpenClaw
 * lists the command and checks the config from the manifest before it loads the plugin.
 */
export function pluginManifest() {
  // The root stays an object (OpenClaw hands `entry.config ?? {}`); everything inside is open.
  const configSchema = { type: "object", ...openConfigSchema(z.toJSONSchema(PluginConfigSchema, { io: "input", unrepresentable: "any" }) as JsonSchema) };
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
    files: ["index.js", DOCTOR_CONTRACT_FILE, "openclaw.plugin.json", "README.md"],
    openclaw: { extensions: ["./index.js"] },
  };
  fs.writeFileSync(path.join(outDir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  // `openclaw doctor` looks for this file next to index.js (src/plugin/doctor-contract.ts).
  fs.writeFileSync(path.join(outDir, DOCTOR_CONTRACT_FILE), 'export { legacyConfigRules, normalizeCompatibilityConfig } from "./index.js";\n');
  fs.writeFileSync(path.join(outDir, "README.md"), packageReadme());
  return outDir;
}

const DOCTOR_CONTRACT_FILE = "doctor-contract-api.js";

/** An option object's keys in one line: `key (default)`, nested objects as `key {…}`. */
function keyList(schema: JsonSchema): string {
  return Object.entries(schema.properties ?? {})
    .map(([key, child]) => {
      if (child.properties) return `${key} {${keyList(child)}}`;
      const preset = /Default: (.+)\.$/.exec(String(child.description ?? ""))?.[1];
      return preset ? `${key} (${preset})` : key;
    })
    .join(", ");
}

/** One row per top-level option: what it does, its default; an option object lists its keys. */
function optionRows(schema: JsonSchema): string[] {
  return Object.entries(schema.properties ?? {}).map(([key, child]) => {
    const what = [String(child.description ?? ""), child.properties ? `Keys: ${keyList(child)}.` : ""].filter(Boolean).join(" ");
    return `| \`${key}\` | ${what.replaceAll("|", "\\|")} |`;
  });
}

/** The package's README.md: install, switch off, uninstall, and every option (the manifest describes each one too). */
export function packageReadme(): string {
  const manifest = pluginManifest();
  return [
    "# openclaw-context (OpenClaw 2026.9+ plugin)",
    "",
    "Session-aware bootstrap files, same-turn memory and `openclaw context …` operator commands. Built by `npm run build:plugin` in the openclaw-context repository, whose README.md and docs/plugin-package.md describe it.",
    "",
    "- Install from a clone: `npm run install-hooks` (it saves openclaw.json first, so the uninstall can put it back byte for byte), then `openclaw gateway restart`.",
    "- Check: `openclaw context doctor`; what each turn got: `openclaw context status --last 5`; every line the plugin logs is in `openclaw logs`.",
    `- Switch off: \`openclaw config set plugins.entries.${PLUGIN_ID}.config.enabled false\`, then \`openclaw gateway restart\`.`,
    "- Uninstall: `openclaw context uninstall` (`--purge` also removes the plugin's own state).",
    "",
    `## Options (\`plugins.entries.${PLUGIN_ID}.config\`)`,
    "",
    "Every option is optional. A key the plugin does not know, or a value of the wrong type, is ignored and logged once (with \"did you mean …\"); every other setting applies, and the gateway starts. `openclaw context doctor` and `openclaw doctor` name such keys; `openclaw doctor --fix` removes only them.",
    "",
    "| option | what it does |",
    "|---|---|",
    ...optionRows(manifest.configSchema as JsonSchema),
    "",
  ].join("\n");
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
