#!/usr/bin/env -S npx tsx
// One-command revert for each ACI migration phase (spec appendix B).
import { runAsScript } from "../src/ops/commands/command.ts";
import { rollbackCommand } from "../src/ops/commands/rollback.ts";

await runAsScript(rollbackCommand);
