#!/usr/bin/env -S npx tsx
// Spec §5: wisdom compression with a review gate. `run` (default) writes a draft; `promote` puts it into SOUL.md.
import { runAsScript } from "../src/ops/commands/command.ts";
import { compressWisdomCommand } from "../src/ops/commands/compress-wisdom.ts";

await runAsScript(compressWisdomCommand);
