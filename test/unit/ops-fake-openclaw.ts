// A stand-in `openclaw` executable for the CLI code paths (the real one needs Node 24 and a gateway;
// test/e2e/operator.e2e.test.ts covers that). It logs its arguments and edits openclaw.json like
// `openclaw hooks enable|disable` does.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO_ROOT } from "./ops-run-script.ts";

export type FakeCli = { bin: string; log: string; calls(): string[][] };

const SCRIPT = String.raw`
import fs from "node:fs";
import { createRequire } from "node:module";
const require = createRequire(process.env.FAKE_OPENCLAW_REPO + "/package.json");
const JSON5 = require("json5");
const args = process.argv.slice(2);
fs.appendFileSync(process.env.FAKE_OPENCLAW_LOG, JSON.stringify(args) + "\n");
const fail = (process.env.FAKE_OPENCLAW_FAIL || "").split(",");
if (fail.includes(args[0])) { console.error("fake failure for " + args[0]); process.exit(1); }
const configPath = process.env.OPENCLAW_CONFIG_PATH;
const modern = (process.env.FAKE_OPENCLAW_VERSION || "2026.9.6") >= "2026.9";
if (args[0] === "hooks" && args[1] === "--help") {
  console.log("Commands:\n  check  Check hooks\n  install  " + (modern ? "Deprecated: install a hook pack via openclaw plugins install" : "Install a hook pack (path, archive, or npm spec)") + "\n  list  List all hooks");
} else if ((modern && args[0] === "plugins" && args[1] === "install" && args.includes("--force")) || (!modern && args[0] === "hooks" && args[1] === "install")) {
  // Like the real CLI: copy to <state>/hooks/<name>, enable the hooks, rewrite the config without comments.
  const source = args[2];
  const target = process.env.OPENCLAW_STATE_DIR + "/hooks/" + JSON.parse(fs.readFileSync(source + "/package.json", "utf8")).name;
  console.log("Installing to " + target + "…");
  fs.rmSync(target, { recursive: true, force: true });
  fs.cpSync(source, target, { recursive: true });
  const cfg = fs.existsSync(configPath) ? JSON5.parse(fs.readFileSync(configPath, "utf8")) : {};
  cfg.hooks ??= {}; cfg.hooks.internal ??= {}; cfg.hooks.internal.entries ??= {};
  cfg.hooks.internal.enabled = true;
  for (const name of ["aci-bootstrap", "ethos-context"]) cfg.hooks.internal.entries[name] = { ...(cfg.hooks.internal.entries[name] ?? {}), enabled: true };
  if (!modern) cfg.hooks.internal.installs = { "openclaw-context": { source: "path", installPath: target } };
  cfg.meta = { lastTouchedVersion: modern ? "2026.9.6" : "2026.3.13" };
  fs.writeFileSync(configPath, JSON.stringify(cfg, null, 2));
  console.log("Installed hook pack: openclaw-context");
  if (!modern) console.log("Restart the gateway to load hooks.");
} else if (args[0] === "plugins" && args[1] === "install") {
  console.error(modern ? "Install cancelled; rerun with --force after reviewing the source." : "error: unknown option '--force'");
  process.exit(1);
} else if (args[0] === "hooks" && (args[1] === "enable" || args[1] === "disable")) {
  const cfg = fs.existsSync(configPath) ? JSON5.parse(fs.readFileSync(configPath, "utf8")) : {};
  cfg.hooks ??= {}; cfg.hooks.internal ??= {}; cfg.hooks.internal.entries ??= {};
  cfg.hooks.internal.entries[args[2]] = { ...(cfg.hooks.internal.entries[args[2]] ?? {}), enabled: args[1] === "enable" };
  if (args[1] === "enable") cfg.hooks.internal.enabled = true;
  fs.writeFileSync(configPath, JSON.stringify(cfg, null, 2));
  console.log("ok");
} else if (args[0] === "hooks" && args[1] === "list") {
  const blocked = process.env.FAKE_OPENCLAW_BLOCKED;
  console.log(JSON.stringify({ hooks: ["aci-bootstrap", "ethos-context", "session-memory"].map((name) => ({ name, source: "openclaw-managed", loadable: name !== blocked, blockedReason: name === blocked ? "disabled in config" : undefined })) }));
} else if (args[0] === "config" && args[1] === "validate") {
  // Like 2026.9.6: {valid, issues} as JSON, exit 1 when invalid (FAKE_OPENCLAW_INVALID="<path>: <message>").
  const invalid = process.env.FAKE_OPENCLAW_INVALID;
  console.log(JSON.stringify(invalid ? { ok: false, valid: false, issues: [{ path: invalid.split(": ")[0], message: invalid.split(": ").slice(1).join(": ") }] } : { ok: true, valid: true }));
  if (invalid) process.exit(1);
} else if (args[0] === "gateway" && args[2] === "chat.send") {
  console.log(JSON.stringify({ runId: "r1", status: "started" }));
} else if (args[0] === "gateway" && args[2] === "chat.history") {
  const report = { report: { injectedWorkspaceFiles: [
    { name: "AGENTS.md", path: "/ws/AGENTS.md", missing: false, rawChars: 1772, injectedChars: 1772, truncated: false },
    { name: "MEMORY.md", path: "/ws/MEMORY.md", missing: false, rawChars: 400, injectedChars: 400, truncated: false },
    { name: "TOOLS_COMPACT.md", path: "/ws/TOOLS_COMPACT.md", missing: false, rawChars: 354, injectedChars: 354, truncated: false },
  ] }, session: {} };
  console.log(JSON.stringify({ messages: [ { role: "user", content: "/context json" }, { role: "assistant", content: [ { type: "text", text: JSON.stringify(report, null, 2) } ] } ] }));
} else {
  console.log("ok");
}
`;

export function makeFakeOpenClaw(): FakeCli {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ops-fake-cli-"));
  const script = path.join(dir, "fake-openclaw.mjs");
  fs.writeFileSync(script, SCRIPT);
  const bin = path.join(dir, "openclaw");
  const log = path.join(dir, "calls.log");
  fs.writeFileSync(log, "");
  fs.writeFileSync(bin, `#!/bin/sh\nFAKE_OPENCLAW_LOG="${log}" FAKE_OPENCLAW_REPO="${REPO_ROOT}" exec "${process.execPath}" "${script}" "$@"\n`, { mode: 0o755 });
  return {
    bin,
    log,
    calls: () =>
      fs
        .readFileSync(log, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as string[]),
  };
}
