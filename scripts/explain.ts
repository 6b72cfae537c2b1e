#!/usr/bin/env -S npx tsx
// npm run explain -- --workspace fixtures/workspace [--session-key K] [--config openclaw.json] [--json]
import { runAsScript } from "../src/ops/commands/command.ts";
import { explainCommand } from "../src/ops/commands/explain.ts";

await runAsScript(explainCommand);
