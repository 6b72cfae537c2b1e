// Wisdom compression due (the ACI spec's cadence: monthly, or after 10 new lessons): a chore, shown
// with its command; it never changes the exit code.
import fs from "node:fs";
import path from "node:path";
import { wisdomCompressionDue } from "../wisdom/due.ts";
import type { DoctorCheck, DoctorFinding } from "./check.ts";

export const wisdomCheck: DoctorCheck = {
  id: "wisdom",
  async run(ctx): Promise<DoctorFinding[]> {
    if (!ctx.workspace || !fs.existsSync(path.join(ctx.workspace, "SOUL.md"))) return [];
    const due = await wisdomCompressionDue(ctx.workspace, ctx.now);
    return due.due
      ? [{ level: "info", message: `compression of SOUL.md's Wisdom is due: ${due.why}`, fix: `${ctx.invocation.line("compress-wisdom")} (writes a draft for review; SOUL.md changes only with promote --approve)` }]
      : [{ level: "ok", message: `Wisdom compression not due (${due.why})` }];
  },
};
