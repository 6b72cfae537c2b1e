#!/usr/bin/env -S npx tsx
// npm run doctor: does the bundle work here? Each problem with the command that fixes it.
import { runAsScript } from "../src/ops/commands/command.ts";
import { doctorCommand } from "../src/ops/commands/doctor.ts";

await runAsScript(doctorCommand);
