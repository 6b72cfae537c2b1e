#!/usr/bin/env -S npx tsx
// npm run memory: list, show and forget remembered facts (and undo a forget).
import { runAsScript } from "../src/ops/commands/command.ts";
import { memoryCommand } from "../src/ops/commands/memory.ts";

await runAsScript(memoryCommand);
