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
if (args[0] === "hooks" && (args[1] === "enable" || args[1] === "disable")) {
  const cfg = fs.existsSync(configPath) ? JSON5.parse(fs.readFileSync(configPath, "utf8")) : {};
  cfg.hooks ??= {}; cfg.hooks.internal ??= {}; cfg.hooks.internal.entries ??= {};
  cfg.hooks.internal.entries[args[2]] = { ...(cfg.hooks.internal.entries[args[2]] ?? {}), enabled: args[1] === "enable" };
  if (args[1] === "enable") cfg.hooks.internal.enabled = true;
  fs.writeFileSync(configPath, JSON.stringify(cfg, null, 2));
  console.log("ok");
} else if (args[0] === "hooks" && args[1] === "list") {
  const blocked = process.env.FAKE_OPENCLAW_BLOCKED;
  console.log(JSON.stringify({ hooks: ["aci-bootstrap", "ethos-context", "session-memory"].map((name) => ({ name, source: "openclaw-managed", loadable: name !== blocked, blockedReason: name === blocked ? "disabled in config" : undefined })) }));
} else if (args[0] === "gateway" && args[2] === "chat.send") {
  console.log(JSON.stringify({ runId: "r1", status: "started" }));
} else if (args[0] === "gateway" && args[2] === "chat.history") {
  const report = { report: { injectedWorkspaceFiles: [
    { name: "AGENTS.md", path: "/ws/AGENTS.md", missing: false, rawChars: 1772, injectedChars: 1772, truncated: false },
    { name: "MEMORY.md", path: "/ws/MEMORY.md", missing: false, rawChars: 400, injectedChars: 400, truncated: false },
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
