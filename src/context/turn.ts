// One classification per turn. Every adapter event of a turn (message:received, agent:bootstrap,
// the context engine's assemble(), before_prompt_build) asks here instead of classifying itself:
// owners and main keys are resolved once per config object, a session key is classified once per
// config, and the sender rule (session/identity.ts) is applied from the sender the event carries or,
// for events without one, from the senders message:received noted for the session (the ledger).
import type { OpenClawConfig } from "../host/events.ts";
import { policyForConfig } from "../bootstrap/run.ts";
import type { OrchestrationRule } from "../session/orchestration.ts";
import { classifySession } from "../session/classify.ts";
import { classificationForSenders, senderIsOwner } from "../session/identity.ts";
import { resolveMainKeys, resolveOwners } from "../session/owners.ts";
import type { ResolvedOwners, Sender } from "../session/owners.ts";
import { SenderLedger } from "../session/sender-ledger.ts";
import type { SessionClassification } from "../session/types.ts";

export type Turn = {
  sessionKey: string | undefined;
  /** The classification the turn acts on (the key's, with the sender rule applied). */
  classification: SessionClassification;
  owners: ResolvedOwners;
  /** This event's own sender, when the host gave one. */
  sender?: Sender;
};

/** A key classified on its own, for callers outside a turn (benches, explain): no sender, no cache. */
export function classifyByKey(sessionKey: string | undefined, cfg: OpenClawConfig | undefined): SessionClassification {
  return classifySession(sessionKey, { ownerIds: resolveOwners(cfg).owners, mainKeys: resolveMainKeys(cfg), orchestration: policyForConfig(cfg).orchestration });
}

/** Classified keys kept per owner list (a gateway serves a handful of sessions at a time), and owner lists kept. */
const MAX_KEYS_PER_CONFIG = 256;
const MAX_SIGNATURES = 8;
const NO_CONFIG = {};

/** What a classification depends on in a config: its owners, main keys and orchestration rule (`signature` names them). */
type ConfigFacts = { owners: ResolvedOwners; mainKeys: string[]; orchestration: OrchestrationRule | undefined; signature: string };

export type TurnClassifierDeps = { classify?: typeof classifySession; now?: () => number };

export class TurnClassifier {
  readonly ledger = new SenderLedger();
  private readonly classify: typeof classifySession;
  private readonly now: () => number;
  private readonly facts = new WeakMap<object, ConfigFacts>();
  /**
   * Classifications by owners-and-main-keys signature, then by key: the hook pack's events of one
   * turn carry different config objects (message:received reads openclaw.json, agent:bootstrap
   * gets the host's), with the same owners.
   */
  private readonly bySignature = new Map<string, Map<string, SessionClassification>>();

  constructor(deps: TurnClassifierDeps = {}) {
    this.classify = deps.classify ?? classifySession;
    this.now = deps.now ?? Date.now;
  }

  private factsFor(cfg: OpenClawConfig | undefined): ConfigFacts {
    const key = cfg ?? NO_CONFIG;
    let facts = this.facts.get(key);
    if (!facts) {
      const owners = resolveOwners(cfg);
      const mainKeys = resolveMainKeys(cfg);
      // An orchestration session (aci-bootstrap's rule) is never the operator's main session, for memory either.
      const orchestration = policyForConfig(cfg).orchestration;
      facts = { owners, mainKeys, orchestration, signature: JSON.stringify([owners.owners, mainKeys, orchestration ?? null]) };
      this.facts.set(key, facts);
    }
    return facts;
  }

  /** The key's own classification (no sender rule), once per key and config. */
  keyClassification(sessionKey: string | undefined, cfg: OpenClawConfig | undefined): SessionClassification {
    const facts = this.factsFor(cfg);
    let byKey = this.bySignature.get(facts.signature);
    if (!byKey) {
      // A new owner list (config changed): the old classifications are of no use any more.
      if (this.bySignature.size >= MAX_SIGNATURES) this.bySignature.delete(this.bySignature.keys().next().value as string);
      byKey = new Map();
      this.bySignature.set(facts.signature, byKey);
    }
    const cacheKey = sessionKey ?? "";
    let classification = byKey.get(cacheKey);
    if (!classification) {
      classification = this.classify(sessionKey, { ownerIds: facts.owners.owners, mainKeys: facts.mainKeys, orchestration: facts.orchestration });
      if (byKey.size >= MAX_KEYS_PER_CONFIG) byKey.delete(byKey.keys().next().value as string);
    } else byKey.delete(cacheKey);
    byKey.set(cacheKey, classification);
    return classification;
  }

  /** message:received: the turn as its sender makes it; the sender is noted for the run's later events. */
  message(sessionKey: string | undefined, cfg: OpenClawConfig | undefined, sender: Sender | undefined): Turn {
    const owners = this.factsFor(cfg).owners;
    const owner = sender ? senderIsOwner(owners.owners, sender) : undefined;
    if (sessionKey && owner !== undefined) this.ledger.note(sessionKey, owner, this.now());
    const classification = this.keyClassification(sessionKey, cfg);
    return { sessionKey, classification: owner === undefined ? classification : classificationForSenders(classification, [{ owner }]), owners, ...(sender ? { sender } : {}) };
  }

  /**
   * Any later event of the turn (agent:bootstrap, assemble(), before_prompt_build): its own sender
   * if it has one, plus every sender the ledger holds for the session.
   */
  turn(sessionKey: string | undefined, cfg: OpenClawConfig | undefined, sender?: Sender): Turn {
    const owners = this.factsFor(cfg).owners;
    const senders = sessionKey ? this.ledger.turnSenders(sessionKey, this.now()) : [];
    if (sender) senders.push({ owner: senderIsOwner(owners.owners, sender) });
    return { sessionKey, classification: classificationForSenders(this.keyClassification(sessionKey, cfg), senders), owners, ...(sender ? { sender } : {}) };
  }
}
