import { vi } from "vitest";

// A turn's await window (awaitTimeoutMs, the plugin's waitMs, the composer's share of it) bounds a
// live gateway's turn. Tests of what a turn delivers must not depend on the search finishing
// inside that window on real time: a busy 2-core CI machine can miss any budget. With setTimeout
// and clearTimeout faked, the window runs on a clock only the test moves, so a turn's bounded wait
// ends when its search and composer settle (the event), however slow the machine. File I/O,
// setImmediate and (unless asked) Date run for real. A test of the timeout itself moves the clock.

/** Hold the turn clock (also fake Date when the test sets the time itself). */
export function holdTurnClock(options: { date?: boolean } = {}): void {
  vi.useFakeTimers({ toFake: options.date ? ["setTimeout", "clearTimeout", "Date"] : ["setTimeout", "clearTimeout"] });
}

/**
 * Move the held clock in `stepMs` steps until `promise` settles, letting I/O run between steps: for
 * a turn that can only end by its wait running out (a search that never answers).
 */
export async function advanceUntilSettled<T>(promise: Promise<T>, stepMs: number): Promise<T> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  while (!settled) {
    await new Promise((resolve) => setImmediate(resolve));
    await vi.advanceTimersByTimeAsync(stepMs);
  }
  return promise;
}
