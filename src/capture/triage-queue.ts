// Inbound triage runs in the background, a few messages at a time, in arrival order. A burst of
// messages (a pasted list, a channel's backlog replayed after a reconnect) used to start every
// message's triage at once: a thousand scans in one pass of the event loop, then thousands of file
// operations in the thread pool a turn's memory search reads through, and turns missed their wait.
// Here a burst costs a turn at most TRIAGE_CONCURRENCY triages beside it, started one per turn of
// the event loop. Nothing is dropped below MAX_PENDING_TRIAGES waiting messages; past
// that bound (memory the gateway would otherwise hold without limit) a message is logged and not
// triaged.

/** Messages triaged at the same time: their writes to the same files then go out together (group commit). */
export const TRIAGE_CONCURRENCY = 4;
/** Messages waiting for triage before a new one is turned away (and logged). */
export const MAX_PENDING_TRIAGES = 10_000;

type Task = () => Promise<void>;

export class TriageQueue {
  private readonly waiting: { task: Task; done: () => void }[] = [];
  private running = 0;
  /** A start is set for the loop's next turn. */
  private scheduled = false;
  private readonly concurrency: number;
  private readonly maxPending: number;

  constructor(options: { concurrency?: number; maxPending?: number } = {}) {
    this.concurrency = Math.max(1, options.concurrency ?? TRIAGE_CONCURRENCY);
    this.maxPending = Math.max(0, options.maxPending ?? MAX_PENDING_TRIAGES);
  }

  /** Messages waiting (not started yet). */
  get pending(): number {
    return this.waiting.length;
  }

  /**
   * Run `task` when its turn comes; the promise settles when it has run (it never rejects: a task
   * reports its own failures). Undefined when the queue is full and the task was turned away.
   */
  push(task: Task): Promise<void> | undefined {
    if (this.waiting.length >= this.maxPending) return undefined;
    return new Promise<void>((done) => {
      this.waiting.push({ task, done });
      this.startNext();
    });
  }

  /**
   * Starts the next waiting task, if there is room, in a task of its own after what the event loop
   * has waiting (a turn's timers and reads), and at most one per turn of the loop: a task's scan of
   * its message is a few ms of synchronous work, and four started in the same pass held the loop
   * for all of them at once.
   */
  private startNext(): void {
    if (this.scheduled || this.running >= this.concurrency || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const next = this.waiting.shift();
      // Stryker disable next-line ConditionalExpression: scheduled only with one waiting, and nothing else takes it
      if (!next) return;
      this.running++;
      // Run as a promise's executor: a task that throws before its first await rejects here,
      // never out of the immediate (an uncaught exception in the gateway).
      new Promise<void>((resolve) => resolve(next.task()))
        .catch(() => undefined)
        .finally(() => {
          this.running--;
          next.done();
          this.startNext();
        });
      // The next one (if there is room) in the loop's next turn: an immediate set from an immediate runs then.
      this.startNext();
    });
  }
}
