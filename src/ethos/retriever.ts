import { getLogger } from "../core/log.ts";
import { isoDateIn } from "../memory/chunk.ts";
import type { RetrievedMemory, Retriever } from "../memory/types.ts";
import { ethosSearch } from "./client.ts";
import type { EthosEndpoint, EthosSearchHit } from "./client.ts";
import { OutageTracker } from "./outage.ts";
import { readEthosToml } from "./toml.ts";

/** The Ethos backend's own options (the ethos-context config satisfies this shape). */
export type EthosBackendOptions = {
  ethos: {
    configPath?: string;
    transport: "socket" | "http";
    socketPath?: string;
    host?: string;
    port?: number;
    timeoutMs: number;
    maxFrameBytes: number;
    agentId?: string;
  };
  /** Gate used when ethos.toml sets none. */
  confidenceGate: number;
};

// Looked up on each use, so a test (or operator) redirecting log output is honoured.
const log = () => getLogger("ethos-context.ethos");
const DEFAULT_SOCKET_PATH = "/tmp/ethos.sock";
const DEFAULT_HTTP_HOST = "127.0.0.1";
const DEFAULT_HTTP_PORT = 8766;

/** Endpoint from the hook config, then ethos.toml, then $ETHOS_SOCKET, then the defaults. */
export function resolveEthosEndpoint(config: EthosBackendOptions, env: NodeJS.ProcessEnv = process.env): EthosEndpoint {
  const toml = config.ethos.configPath ? readEthosToml(config.ethos.configPath) : {};
  if (config.ethos.transport === "http") {
    return { transport: "http", host: config.ethos.host ?? toml.httpHost ?? DEFAULT_HTTP_HOST, port: config.ethos.port ?? toml.httpPort ?? DEFAULT_HTTP_PORT };
  }
  return { transport: "socket", socketPath: config.ethos.socketPath ?? toml.socketPath ?? env.ETHOS_SOCKET ?? DEFAULT_SOCKET_PATH };
}

/** The gate: ethos.toml [retrieval].confidence_gate when that file is configured, else the hook config. */
export function resolveConfidenceGate(config: EthosBackendOptions): number {
  const fromToml = config.ethos.configPath ? readEthosToml(config.ethos.configPath).confidenceGate : undefined;
  return fromToml ?? config.confidenceGate;
}

function endpointLabel(endpoint: EthosEndpoint): string {
  return endpoint.transport === "socket" ? `unix:${endpoint.socketPath}` : `http://${endpoint.host}:${endpoint.port}`;
}

const trackers = new Map<string, OutageTracker>();

function trackerFor(endpoint: EthosEndpoint): OutageTracker {
  const label = endpointLabel(endpoint);
  let tracker = trackers.get(label);
  if (!tracker) {
    tracker = new OutageTracker(log, label);
    trackers.set(label, tracker);
  }
  return tracker;
}

/** Tests: forget outage state. */
export function resetEthosOutages(): void {
  trackers.clear();
}

function hitDate(hit: EthosSearchHit): string | undefined {
  const ts = hit.metadata?.ts;
  return (hit.createdAt && isoDateIn(hit.createdAt)) || (typeof ts === "string" ? isoDateIn(ts) : undefined);
}

/**
 * Longest hit text kept, in UTF-16 units. A snippet shows a few hundred characters; cutting here,
 * before any flattening or pattern matching, keeps a multi-megabyte hit from blocking the turn.
 */
export const MAX_HIT_TEXT_CHARS = 8192;

/** The first `max` characters, never splitting a surrogate pair. */
export function cutText(text: string, max = MAX_HIT_TEXT_CHARS): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

export function hitToMemory(hit: EthosSearchHit): RetrievedMemory {
  const memory: RetrievedMemory = {
    id: `ethos:${hit.id}`,
    text: cutText(hit.content),
    score: Number.isFinite(hit.score) ? Math.min(1, Math.max(0, hit.score)) : 0,
    rawScore: hit.score,
    headingPath: [],
    source: "ethos",
  };
  const date = hitDate(hit);
  if (date) memory.date = date;
  return memory;
}

/**
 * The Ethos backend as a Retriever. Failures never escape: down, hanging, garbage or an error
 * status give no memories for this turn, one warning per outage, and the next turn tries again.
 */
export function createEthosRetriever(
  endpoint: EthosEndpoint,
  config: EthosBackendOptions,
  context: { threadId?: string } = {},
): Retriever {
  const tracker = trackerFor(endpoint);
  return {
    label: "Ethos",
    async search(query, limit) {
      try {
        const hits = await ethosSearch(
          endpoint,
          { query, limit, agentId: config.ethos.agentId, threadId: context.threadId },
          { timeoutMs: config.ethos.timeoutMs, maxFrameBytes: config.ethos.maxFrameBytes },
        );
        tracker.success();
        return hits.map(hitToMemory);
      } catch (error) {
        tracker.failure(error);
        return [];
      }
    },
  };
}
