// Session-key classifier: turns an OpenClaw session key into one of the eight session types.
//
// Keys are parsed by `:`-separated segments (never by substring), after the `agent:<id>:` prefix,
// and ordered rules decide; the first match wins. Forms come from the real gateway
// (session-key builders in openclaw 2026.9.6, see docs/session-aware-bootstrap.md):
//   agent:<id>:main | agent:<id>:<custom mainKey> | global
//   agent:<id>:direct:<peer> | agent:<id>:<ch>:direct:<peer> | agent:<id>:<ch>:<acct>:direct:<peer>
//   agent:<id>:<ch>:group|channel|room:<id>[:topic:<n>][:thread:<t>]   (…:direct-topic:<n> on DMs)
//   agent:<id>:subagent:[incognito-]<uuid> | agent:<id>:spawn:<uuid> | agent:<id>:acp:…
//   agent:<id>:cron:<job>[:run:<sid>] | cron:<job> | agent:<id>:hook:<uuid> | agent:<id>:boot:<sid>
//   <base>:heartbeat | agent:<id>:dashboard:<uuid> | agent:<id>:explicit:<sid>
import { getLogger } from "../core/log.ts";
import type { SessionClassification, SessionType } from "./types.ts";
import { isOwnerPeer, ownersFrom } from "./owners.ts";
import type { OwnerId } from "./owners.ts";
import { applyOrchestrationRule } from "./orchestration.ts";
import type { OrchestrationRule } from "./orchestration.ts";

export type ClassifyOptions = {
  /** The operator's ids (owners.ts: resolveOwners; a plain string is parsed like an owner-list entry). */
  ownerIds: Iterable<OwnerId | string>;
  /** Extra main-session keys (`session.mainKey` in openclaw.json); "main" always counts. */
  mainKeys?: Iterable<string>;
  /** The operator's orchestration rule (aci-bootstrap `orchestration`), applied after the shape rules. */
  orchestration?: OrchestrationRule;
};

/** Peer kinds as core's `parseCanonicalSessionPeerShape` knows them, plus `room` (docs). */
const DM_KINDS = new Set(["direct", "dm"]);
const GROUP_KINDS = new Set(["group", "channel", "room"]);
/** Words that end a peer id: everything after them is a suffix (topic, thread, heartbeat run). */
const SUFFIX_WORDS = new Set(["topic", "direct-topic", "thread", "heartbeat"]);
/** Segments kept verbatim in a key shape; anything else is an id and becomes `<id>`. */
const SHAPE_WORDS = new Set([
  "agent", "main", "global", "direct", "dm", "group", "channel", "room", "topic", "direct-topic", "thread",
  "subagent", "spawn", "acp", "binding", "cron", "run", "hook", "boot", "heartbeat", "dashboard", "explicit",
]);
const CHANNEL_NAME = /^[a-z][a-z0-9_-]{0,31}$/;
const MAX_SHAPE_SEGMENTS = 24;

function lower(value: string): string {
  return value.toLowerCase();
}

/** `agent:<id>:telegram:group:<id>:topic:<id>`: ids replaced, structural words and channel kept. */
export function keyShapeOf(segments: string[], channelIndex?: number): string {
  const agentPrefixed = lower(segments[0] ?? "") === "agent";
  const shaped = segments.slice(0, MAX_SHAPE_SEGMENTS).map((segment, index) => {
    const word = lower(segment);
    if (agentPrefixed && index === 1) return segment.length === 0 ? "" : "<id>";
    if (SHAPE_WORDS.has(word)) return word;
    if (index === channelIndex && CHANNEL_NAME.test(word)) return word;
    if (segment.length === 0) return "";
    if (word.startsWith("incognito-")) return "incognito-<id>";
    return "<id>";
  });
  if (segments.length > MAX_SHAPE_SEGMENTS) shaped.push(`…(${segments.length} segments)`);
  return shaped.join(":");
}

type Parsed = { agentId?: string; rest: string[]; prefix: string[] };

function splitKey(key: string): Parsed | undefined {
  const segments = key.split(":");
  if (lower(segments[0] ?? "") !== "agent") return { rest: segments, prefix: [] };
  const agentId = segments[1]?.trim();
  const rest = segments.slice(2);
  // Same rule as core's parseAgentSessionKeyParts: `agent::x`, `agent:id` and `agent:id:` are not agent keys.
  if (!agentId || rest.length === 0 || rest[0] === "") return undefined;
  return { agentId, rest, prefix: ["agent", agentId] };
}

type Conversation = {
  kind: "dm" | "group";
  channel?: string;
  channelIndex?: number;
  peerId: string;
  topicId?: string;
  heartbeat: boolean;
};

/** Where core's builders put `<kind>:<peer>`: rest index 0, 1 or 2 (bare, `<ch>:`, `<ch>:<acct>:`). */
const LAST_CONVERSATION_INDEX = 2;

/** Find `<kind>:<peer>` whose kind word sits at a rest index in [first, last]. */
function parseConversation(rest: string[], first = 0, last = LAST_CONVERSATION_INDEX): Conversation | undefined {
  for (let index = first; index <= last && index < rest.length - 1; index += 1) {
    const kindWord = lower(rest[index]);
    const isDm = DM_KINDS.has(kindWord);
    if (!isDm && !GROUP_KINDS.has(kindWord)) continue;
    if (!rest[index + 1]) continue;
    // The peer id is at least one segment, then runs until a suffix word (Matrix ids contain `:`).
    let end = index + 2;
    while (end < rest.length && !SUFFIX_WORDS.has(lower(rest[end]))) end += 1;
    const peerId = rest.slice(index + 1, end).join(":");
    const suffix = rest.slice(end).map(lower);
    let topicId: string | undefined;
    // Stryker disable next-line EqualityOperator,ArithmeticOperator: a last `topic` has no id after it, so one more step finds nothing
    for (let i = 0; i < suffix.length - 1; i += 1) {
      if ((suffix[i] === "topic" || suffix[i] === "direct-topic") && rest[end + i + 1]) topicId = rest[end + i + 1];
    }
    return {
      kind: isDm ? "dm" : "group",
      channel: index > 0 ? lower(rest[0]) : undefined,
      channelIndex: index > 0 ? 0 : undefined,
      peerId,
      topicId,
      heartbeat: suffix[suffix.length - 1] === "heartbeat",
    };
  }
  return undefined;
}

function result(
  type: SessionType,
  rule: string,
  parsed: Parsed | undefined,
  extra: Partial<SessionClassification> & { channelIndex?: number } = {},
): SessionClassification {
  const { channelIndex, ...fields } = extra;
  let keyShape = "<none>";
  if (parsed) {
    const shapeChannelIndex = channelIndex === undefined ? undefined : channelIndex + parsed.prefix.length;
    keyShape = keyShapeOf([...parsed.prefix, ...parsed.rest], shapeChannelIndex);
  }
  return { type, rule, ...(parsed?.agentId ? { agentId: lower(parsed.agentId) } : {}), ...fields, keyShape };
}

/**
 * Classify a session key. Ordered rules, first match wins:
 *  1 empty/malformed → FALLBACK   2 subagent/spawn/acp → SUBAGENT
 *  3 cron/hook/boot → HEARTBEAT_CRON   4 `<base>:heartbeat` → HEARTBEAT_CRON
 *  5 DM → PRIVATE_DM (owner) / EXTERNAL_DM   6 group+topic → FORUM_TOPIC   7 group/channel/room → GROUP_CHAT
 *  8 main key, dashboard, explicit → MAIN_SESSION
 *  9 unknown shape with a DM or group deeper in it → EXTERNAL_DM (stranger) / GROUP_CHAT
 * 10 anything else → FALLBACK (warned once per shape)
 * Then the operator's orchestration rule may turn a conversation into ORCHESTRATION (orchestration.ts).
 */
export function classifySession(key: string | undefined, options: ClassifyOptions): SessionClassification {
  const byShape = classifyByShape(key, options);
  const classification = typeof key === "string" ? applyOrchestrationRule(key, byShape, options.orchestration) : byShape;
  // A key the operator named is not "unrecognised", whatever its shape.
  if (classification === byShape && unrecognised.has(byShape)) warnOnce(byShape);
  return classification;
}

function classifyByShape(key: string | undefined, options: ClassifyOptions): SessionClassification {
  const owners = ownersFrom(options.ownerIds);
  if (typeof key !== "string" || key.trim().length === 0) return result("FALLBACK", "empty-key", undefined);
  const parsed = splitKey(key.trim());
  if (!parsed) return unrecognisedShape(result("FALLBACK", "malformed-agent-key", { rest: [], prefix: key.trim().split(":") }));
  const { rest } = parsed;
  const head = lower(rest[0]);
  const hasId = rest.length >= 2 && rest[1] !== "";

  if (head === "subagent" && hasId) {
    return result("SUBAGENT", lower(rest[1]).startsWith("incognito-") ? "subagent-incognito" : "subagent", parsed);
  }
  if (head === "spawn" && hasId) return result("SUBAGENT", "spawn-seed", parsed);
  // ACP workers are spawned agents too; core does not filter them, least privilege says SUBAGENT.
  if (head === "acp" && hasId) return result("SUBAGENT", "acp", parsed);
  if (head === "cron" && hasId) {
    return result("HEARTBEAT_CRON", lower(rest[2] ?? "") === "run" ? "cron-run" : "cron", parsed);
  }
  if (head === "hook" && hasId) return result("HEARTBEAT_CRON", "webhook", parsed);
  if (head === "boot" && hasId) return result("HEARTBEAT_CRON", "boot", parsed);

  const conversation = parseConversation(rest);
  if (conversation) {
    const common = {
      channel: conversation.channel,
      peerId: conversation.peerId,
      topicId: conversation.topicId,
      channelIndex: conversation.channelIndex,
    };
    if (conversation.heartbeat) return result("HEARTBEAT_CRON", "heartbeat-isolated", parsed, common);
    if (conversation.kind === "dm") {
      const isOwner = isOwnerPeer(owners, conversation.channel, conversation.peerId);
      return result(isOwner ? "PRIVATE_DM" : "EXTERNAL_DM", isOwner ? "dm-owner" : "dm-other", parsed, common);
    }
    if (conversation.topicId !== undefined) return result("FORUM_TOPIC", "group-topic", parsed, common);
    return result("GROUP_CHAT", "group", parsed, common);
  }

  const mainKeys = lowerSet(options.mainKeys ?? []);
  mainKeys.add("main");
  const isMainHead = (parsed.agentId !== undefined && mainKeys.has(head)) || (parsed.agentId === undefined && head === "global");
  if (isMainHead && lower(rest[rest.length - 1]) === "heartbeat" && rest.length >= 2) {
    return result("HEARTBEAT_CRON", "heartbeat-isolated", parsed);
  }
  if (isMainHead && (rest.length === 1 || lower(rest[1]) === "thread")) return result("MAIN_SESSION", "main", parsed);
  // Control UI and portal sessions are opened by an authenticated operator.
  if ((head === "dashboard" || head === "explicit") && hasId) return result("MAIN_SESSION", `operator-ui-${head}`, parsed);
  if (rest.length >= 2 && lower(rest[rest.length - 1]) === "heartbeat") {
    return result("HEARTBEAT_CRON", "heartbeat-isolated", parsed);
  }
  // An unknown shape that still names a conversation deeper in the key (no real gateway builds
  // one) never gets the FALLBACK set, which holds USER.md: a stranger's DM is an external DM and a
  // group is a group. No channel or group peer is kept, so no topic extras or group memory apply.
  // Only an owner's DM keeps FALLBACK (warned like any unknown shape).
  // Positions 0 to LAST_CONVERSATION_INDEX found nothing above, so a match here is deeper.
  const deep = parseConversation(rest, 0, rest.length);
  if (deep?.kind === "group") return unrecognisedShape(result("GROUP_CHAT", "group-unknown-shape", parsed));
  if (deep && !isOwnerPeer(owners, deep.channel, deep.peerId)) {
    return unrecognisedShape(result("EXTERNAL_DM", "dm-other-unknown-shape", parsed, { peerId: deep.peerId }));
  }
  return unrecognisedShape(result("FALLBACK", "unknown-shape", parsed));
}

function lowerSet(values: Iterable<string>): Set<string> {
  const set = new Set<string>();
  for (const value of values) if (typeof value === "string" && value.trim()) set.add(lower(value.trim()));
  return set;
}

// Results of the unknown-shape rules, warned about once the orchestration rule has had its say.
const unrecognised = new WeakSet<SessionClassification>();

function unrecognisedShape(classification: SessionClassification): SessionClassification {
  unrecognised.add(classification);
  return classification;
}

// One warning per distinct key shape, not one per turn; bounded so hostile keys cannot grow it.
const warnedShapes = new Set<string>();
const MAX_WARNED_SHAPES = 256;

function warnOnce(classification: SessionClassification): SessionClassification {
  if (!warnedShapes.has(classification.keyShape) && warnedShapes.size < MAX_WARNED_SHAPES) {
    warnedShapes.add(classification.keyShape);
    getLogger("aci-bootstrap").warn(
      { keyShape: classification.keyShape, rule: classification.rule, type: classification.type },
      `unrecognised session key shape, using the ${classification.type} file set`,
    );
  }
  return classification;
}

/** Tests only: forget which shapes were already warned about. */
export function resetClassifierWarnings(): void {
  warnedShapes.clear();
}
