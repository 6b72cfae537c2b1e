// Who delivers this process's memory block: the ethos-context hook (a record in Project Context)
// or the companion plugin (prependContext on the user message). The plugin claims delivery when it
// registers on a host where it serves memory; from then on the hook adds no record, so a turn never
// gets the block twice. The claim lives on globalThis under a registered symbol: the plugin and the
// hooks run in the same gateway process, but a plugin loader may evaluate its own copy of our
// modules, and globalThis is the one object every copy shares (proved by the plugin e2e suite).

const CLAIM = Symbol.for("openclaw-context.memory-delivery");

export type DeliveryClaim = { owner: "plugin"; pluginId: string; hostVersion: string; since: number };

type Holder = { [CLAIM]?: DeliveryClaim };

export function claimMemoryDelivery(claim: Omit<DeliveryClaim, "owner" | "since">): void {
  (globalThis as Holder)[CLAIM] = { owner: "plugin", since: Date.now(), ...claim };
}

export function releaseMemoryDelivery(): void {
  delete (globalThis as Holder)[CLAIM];
}

/** The plugin's claim, when it serves memory in this process. */
export function pluginDeliveryClaim(): DeliveryClaim | undefined {
  return (globalThis as Holder)[CLAIM];
}
