// The doctor's checks, in the order they print. One row per check; each lives in its own file.
import type { DoctorCheck } from "./check.ts";
import { configCheck } from "./config.ts";
import { dmScopeCheck } from "./dm-scope.ts";
import { engineCheck } from "./engine.ts";
import { hooksCheck } from "./hooks.ts";
import { lastTurnCheck } from "./last-turn.ts";
import { toolsCompactCheck } from "./tools-compact.ts";
import { versionCheck } from "./version.ts";
import { wisdomCheck } from "./wisdom.ts";

export const DOCTOR_CHECKS: readonly DoctorCheck[] = [
  versionCheck,
  engineCheck,
  configCheck,
  hooksCheck,
  lastTurnCheck,
  dmScopeCheck,
  toolsCompactCheck,
  wisdomCheck,
];
