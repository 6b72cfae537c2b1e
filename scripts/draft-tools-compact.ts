#!/usr/bin/env -S npx tsx
// Draft TOOLS_COMPACT.md from TOOLS.md (deterministic extraction, optional LLM pass). Never writes TOOLS_COMPACT.md.
import { runAsScript } from "../src/ops/commands/command.ts";
import { draftToolsCommand } from "../src/ops/commands/draft-tools.ts";

await runAsScript(draftToolsCommand);
