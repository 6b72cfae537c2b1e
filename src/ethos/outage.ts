import type { Logger } from "../core/log.ts";

// One warning per outage, not one per turn: the first failure after a success (or at start) warns,
// later failures are debug-level, and the first success after an outage logs the recovery.
export class OutageTracker {
  private down = false;
  private failures = 0;
  private readonly log: () => Logger;
  private readonly target: string;

  constructor(log: () => Logger, target: string) {
    this.log = log;
    this.target = target;
  }

  get isDown(): boolean {
    return this.down;
  }

  failure(error: unknown): void {
    this.failures += 1;
    const reason = error instanceof Error ? error.message : String(error);
    const kind = (error as { kind?: unknown })?.kind;
    if (!this.down) {
      this.down = true;
      this.log().warn({ target: this.target, kind, reason }, "Ethos server unavailable, injecting no memory until it answers again");
    } else {
      this.log().debug({ target: this.target, kind, reason, failures: this.failures }, "Ethos server still unavailable");
    }
  }

  success(): void {
    if (this.down) this.log().info({ target: this.target, failedCalls: this.failures }, "Ethos server reachable again");
    this.down = false;
    this.failures = 0;
  }
}
