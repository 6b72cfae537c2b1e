#!/usr/bin/env -S npx tsx
// AC-6 check: TOOLS_COMPACT.md ≤ 300 tokens, the required lookup sections, no narrative prose.
import { runAsScript } from "../src/ops/commands/command.ts";
import { checkToolsCommand } from "../src/ops/commands/check-tools.ts";

await runAsScript(checkToolsCommand);
