#!/usr/bin/env -S npx tsx
// npm run maintain: the maintenance pass (corrections mature, conflicts, archive, SOUL.md proposals); --undo <run>.
import { runAsScript } from "../src/ops/commands/command.ts";
import { maintainCommand } from "../src/ops/commands/maintain.ts";

await runAsScript(maintainCommand);
