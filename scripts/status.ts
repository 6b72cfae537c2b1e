#!/usr/bin/env -S npx tsx
// npm run status: installed? enabled? config problems, the last turns, memory index; in plain words.
import { runAsScript } from "../src/ops/commands/command.ts";
import { statusCommand } from "../src/ops/commands/status.ts";

await runAsScript(statusCommand);
