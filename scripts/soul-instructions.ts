#!/usr/bin/env -S npx tsx
// The ACI spec's on-demand instructions in SOUL.md: check, show the diff, --apply adds the missing ones.
import { runAsScript } from "../src/ops/commands/command.ts";
import { soulInstructionsCommand } from "../src/ops/commands/soul-instructions.ts";

await runAsScript(soulInstructionsCommand);
