// A burst of inbound messages: triaged a few at a time in arrival order (triage-queue.ts), their
// triage-queue lines written in groups (appendLineGrouped), and nothing lost.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { capturedFacts, dayFileFor } from "../../src/capture/capture.ts";
import { startInboundTriage } from "../../src/capture/inbound.ts";
import { triageQueuePath } from "../../src/capture/triage.ts";
import { TRIAGE_CONCURRENCY, TriageQueue } from "../../src/capture/triage-queue.ts";
import { appendLineGrouped } from "../../src/fs/locked-writes.ts";
import { LockUnavailableError, lockPathFor, withFileLock } from "../../src/fs/lock.ts";
import type { MessageReceivedEvent } from "../../src/host/events.ts";
import { webchatMessageEvent } from "./ethos-events.ts";
import { temporaryWorkspace } from "./lifecycle-fixtures.ts";

/** A task that runs until the test lets it go. */
function gate(): { task: () => Promise<void>; started: Promise<void>; open: () => void } {
  let open!: () => void;
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { task: () => (markStarted(), opened), started, open };
}

describe("TriageQueue", () => {
  it("runs at most `concurrency` tasks at a time, in arrival order, and every one of them", async () => {
    const queue = new TriageQueue({ concurrency: 2 });
    const gates = Array.from({ length: 5 }, gate);
    const order: number[] = [];
    const done = gates.map((g, i) => queue.push(() => (order.push(i), g.task())));
    await Promise.all([gates[0].started, gates[1].started]);
    expect(order).toEqual([0, 1]);
    expect(queue.pending).toBe(3);
    gates[1].open();
    await gates[2].started;
    expect(order).toEqual([0, 1, 2]);
    expect(queue.pending).toBe(2);
    for (const g of gates) g.open();
    await Promise.all(done);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(queue.pending).toBe(0);
  });

  it("starts one task per turn of the event loop: what else is waiting runs between two starts", async () => {
    const queue = new TriageQueue({ concurrency: 4 });
    const order: (number | string)[] = [];
    const done = [0, 1, 2].map((i) => queue.push(async () => void order.push(i)));
    // Set after the three pushes: it runs before the second task starts, not after all three.
    setImmediate(() => order.push("other"));
    await Promise.all(done);
    expect(order).toEqual([0, "other", 1, 2]);
  });

  it("a task that fails does not stop the ones after it", async () => {
    const queue = new TriageQueue({ concurrency: 1 });
    const ran: string[] = [];
    await Promise.all([queue.push(() => Promise.reject(new Error("boom"))), queue.push(async () => void ran.push("after"))]);
    expect(ran).toEqual(["after"]);
  });

  it("a task that throws before returning its promise does not throw out of the queue, and the next one runs", async () => {
    const queue = new TriageQueue({ concurrency: 1 });
    const ran: string[] = [];
    const throwing = (() => {
      throw new Error("thrown at once");
    }) as unknown as () => Promise<void>;
    await Promise.all([queue.push(throwing), queue.push(async () => void ran.push("after"))]);
    expect(ran).toEqual(["after"]);
  });

  it("past its bound a task is turned away (undefined), not queued", async () => {
    const queue = new TriageQueue({ concurrency: 1, maxPending: 1 });
    const first = gate();
    const running = queue.push(first.task);
    await first.started;
    const waiting = queue.push(async () => undefined);
    expect(waiting).toBeInstanceOf(Promise);
    expect(queue.push(async () => undefined)).toBeUndefined();
    first.open();
    await Promise.all([running, waiting]);
  });
});

describe("appendLineGrouped", () => {
  const workspace = temporaryWorkspace("occ-grouped");

  it("lines that arrive while the file's lock is held go out in one write, in order; a later line in a write of its own", async () => {
    const file = path.join(workspace(), "queue.jsonl");
    fs.writeFileSync(file, "first\n");
    const held = gate();
    const holder = withFileLock(file, held.task);
    await held.started;
    const results = ["a", "b", "c"].map((line) => appendLineGrouped(file, line));
    held.open();
    await holder;
    const [a, b, c] = await Promise.all(results);
    // One write for the three: the same result.
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(a.written).toBe(true);
    const later = await appendLineGrouped(file, "d");
    expect(later).not.toBe(a);
    expect(fs.readFileSync(file, "utf8")).toBe("first\na\nb\nc\nd\n");
  });

  it("a group whose write never got the lock fails its callers, and the next line starts a group of its own", async () => {
    const file = path.join(workspace(), "queue.jsonl");
    fs.mkdirSync(lockPathFor(file)); // another process's fresh lock (callers in this process would queue instead)
    const impatient = { retryIntervalSeconds: 0.001, maxRetries: 1 };
    await expect(appendLineGrouped(file, "lost", impatient)).rejects.toBeInstanceOf(LockUnavailableError);
    fs.rmdirSync(lockPathFor(file));
    const next = await appendLineGrouped(file, "kept", impatient);
    expect(next.written).toBe(true);
    expect(fs.readFileSync(file, "utf8")).toBe("kept\n");
  });

  it("callers with other options are not grouped together", async () => {
    const file = path.join(workspace(), "queue.jsonl");
    const [one, other] = await Promise.all([appendLineGrouped(file, "x", { agentName: "one" }), appendLineGrouped(file, "y", { agentName: "other" })]);
    expect(one).not.toBe(other);
    expect(fs.readFileSync(file, "utf8").split("\n").filter(Boolean).sort()).toEqual(["x", "y"]);
  });
});

describe("a burst of captures through startInboundTriage", () => {
  const workspace = temporaryWorkspace("occ-burst");

  it("loses nothing: every fact lands once, and every message has its queue line", async () => {
    const count = TRIAGE_CONCURRENCY * 10;
    const statements = Array.from({ length: count }, (_, i) => `the spare key number ${i} is in drawer ${1000 + i}`);
    await Promise.all(statements.map((s, i) => startInboundTriage(webchatMessageEvent("agent:main:main", `Remember that ${s}`, `m${i}`) as unknown as MessageReceivedEvent, workspace())));
    const now = new Date();
    const captured = capturedFacts(fs.readFileSync(dayFileFor(workspace(), now), "utf8")).map((f) => f.statement);
    expect(captured.sort()).toEqual([...statements].sort());
    const queued = fs.readFileSync(triageQueuePath(workspace(), now), "utf8").trim().split("\n").map((line) => JSON.parse(line).message_id);
    expect(queued.sort()).toEqual(statements.map((_, i) => `m${i}`).sort());
  });
});
