// Timings owned by other parts of the bundle, measured by their own bench files:
// bench/hooks/aci-bootstrap.ts (aci-bootstrap handler), bench/triage.ts (message triage) and
// bench/locks.ts (advisory locks). We call what they export rather than measure twice.
import { benchAciBootstrap } from "./aci-bootstrap.ts";
import { measureTriage } from "../triage.ts";
import { locksTables, measureContention, measureUncontended } from "../locks.ts";

export type SiblingTiming = { what: string; input: string; n: number; medianUs: number; p99Us: number };
export type SiblingResults = { timings: SiblingTiming[]; locks?: { uncontended: unknown; contention: unknown }; locksMarkdown?: string };

export async function measureSiblingBenches(options: { smoke: boolean; problems: string[]; log: (line: string) => void }): Promise<SiblingResults> {
  const timings: SiblingTiming[] = [];
  const result: SiblingResults = { timings };
  try {
    const aci = await benchAciBootstrap(options.smoke ? 100 : 1000);
    timings.push({ what: "aci-bootstrap agent:bootstrap", input: `all ${aci.perEvent.length} session shapes`, n: aci.events, medianUs: aci.medianUs, p99Us: aci.p99Us });
    for (const row of aci.perEvent) timings.push({ what: "aci-bootstrap agent:bootstrap", input: row.event, n: aci.iterations, medianUs: row.medianUs, p99Us: row.p99Us });
    options.log("hooks: aci-bootstrap timings done");
  } catch (error) {
    options.problems.push(`hooks: bench/hooks/aci-bootstrap.ts failed: ${(error as Error).message}`);
  }
  try {
    for (const row of await measureTriage({ iterations: options.smoke ? 200 : 2000 })) {
      timings.push({ what: `triage: ${row.what}`, input: row.input, n: row.n, medianUs: row.medianUs, p99Us: row.p99Us });
    }
    options.log("hooks: triage timings done");
  } catch (error) {
    options.problems.push(`hooks: bench/triage.ts failed: ${(error as Error).message}`);
  }
  try {
    const uncontended = await measureUncontended({ iterations: options.smoke ? 50 : 300 });
    const contention = options.smoke ? [] : await measureContention({ processes: [1, 4, 8], appendsEach: 100 });
    result.locks = { uncontended, contention };
    result.locksMarkdown = contention.length ? locksTables(uncontended, contention) : locksTables(uncontended, contention).split("\n\n")[0];
    for (const row of contention) if (!row.intact) options.problems.push(`locks: ${row.processes} processes lost or duplicated entries`);
    options.log("hooks: lock timings done");
  } catch (error) {
    options.problems.push(`hooks: bench/locks.ts failed: ${(error as Error).message}`);
  }
  return result;
}
