#!/usr/bin/env -S npx tsx
// Phase 0 hard gate: back up SOUL.md, AGENTS.md and TOOLS.md and verify the copies by sha256.
import { runAsScript } from "../src/ops/commands/command.ts";
import { backupCommand } from "../src/ops/commands/backup.ts";

await runAsScript(backupCommand);
