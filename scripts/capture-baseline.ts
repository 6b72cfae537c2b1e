#!/usr/bin/env -S npx tsx
// Appendix A: capture the context baseline (per file, per session type; today and with the bundle).
import { runAsScript } from "../src/ops/commands/command.ts";
import { baselineCommand } from "../src/ops/commands/baseline.ts";

await runAsScript(baselineCommand);
