// Who is on the other side of a turn: the session key says which conversation it is, the sender
// (where the host gives one) says who wrote this message. With OpenClaw's default
// `session.dmScope: "main"` every admitted DM runs in the main session, so the key alone would give
// a paired friend the owner's USER.md, memories and capture. A turn is personal (owner's files,
// memory, capture) only when the key is the operator's AND the sender, if known, is an owner. A
// known non-owner in an operator session is treated as what they are: an external DM.
import { isOwnerSender } from "./owners.ts";
import type { OwnerId, Sender } from "./owners.ts";
import type { SessionClassification, SessionType } from "./types.ts";

/** Session types whose key alone would make a turn the operator's. */
const OPERATOR_TYPES: ReadonlySet<SessionType> = new Set(["MAIN_SESSION", "PRIVATE_DM", "FALLBACK"]);

/**
 * Senders that are the operator by construction: the gateway's own surfaces (webchat, the control
 * UI, the CLI) need the gateway token, which only the operator holds.
 */
const OPERATOR_SURFACES: ReadonlySet<string> = new Set(["webchat", "cli", "gateway", "control-ui", "internal"]);

export function isOperatorSurface(sender: Sender): boolean {
  return sender.channel !== undefined && OPERATOR_SURFACES.has(sender.channel.toLowerCase());
}

/** Is this sender the operator: an owner on its channel, or a gateway surface? */
export function senderIsOwner(owners: readonly OwnerId[], sender: Sender): boolean {
  return isOperatorSurface(sender) || isOwnerSender(owners, sender);
}

/**
 * The classification a turn acts on: the key's, except that an operator session with a sender who
 * is not an owner becomes EXTERNAL_DM (rule "sender-not-owner"), so the file set, memory scope and
 * capture all follow the sender. `senders` are the senders known for this turn (empty: unknown).
 */
export function classificationForSenders(classification: SessionClassification, senders: readonly { owner: boolean }[]): SessionClassification {
  if (!OPERATOR_TYPES.has(classification.type)) return classification;
  if (senders.every((sender) => sender.owner)) return classification;
  return { ...classification, type: "EXTERNAL_DM", rule: "sender-not-owner" };
}
