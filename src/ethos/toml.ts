import fs from "node:fs";
import { parse } from "smol-toml";
import { z } from "zod";
import { describeZodError } from "../core/config.ts";
import { getLogger } from "../core/log.ts";
import { expandHome } from "../core/paths.ts";
import { readTextSync } from "../fs/safe-read.ts";

// The parts of the Ethos server's ethos.toml a client needs. Unknown sections and keys are ignored
// (the server's file has many more); a broken file logs one error and yields no overrides.

const EthosTomlSchema = z.looseObject({
  service: z.looseObject({ socket_path: z.string().min(1).optional() }).optional(),
  http: z.looseObject({ host: z.string().min(1).optional(), port: z.number().int().min(1).max(65_535).optional() }).optional(),
  retrieval: z.looseObject({ confidence_gate: z.number().min(0).max(1).optional() }).optional(),
});

export type EthosToml = { socketPath?: string; httpHost?: string; httpPort?: number; confidenceGate?: number };

const MAX_TOML_BYTES = 1024 * 1024;
const cache = new Map<string, { mtimeMs: number; size: number; value: EthosToml }>();
// Looked up on each use, so a test (or operator) redirecting log output is honoured.
const log = () => getLogger("ethos-context.ethos");

/** Read ethos.toml (cached by mtime and size). Missing or invalid file: `{}` and one logged error per change. */
export function readEthosToml(file: string): EthosToml {
  const resolved = expandHome(file);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(resolved);
  } catch {
    return {};
  }
  const cached = cache.get(resolved);
  if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.value;
  let value: EthosToml = {};
  try {
    if (!stat.isFile() || stat.size > MAX_TOML_BYTES) throw new Error("not a regular file under 1 MiB");
    const parsed = EthosTomlSchema.safeParse(parse(readTextSync(resolved, MAX_TOML_BYTES)));
    if (!parsed.success) throw new Error(describeZodError(parsed.error, "ethos.toml"));
    const data = parsed.data;
    value = {
      socketPath: data.service?.socket_path,
      httpHost: data.http?.host,
      httpPort: data.http?.port,
      confidenceGate: data.retrieval?.confidence_gate,
    };
  } catch (error) {
    log().error({ file: resolved, err: (error as Error).message }, "ethos.toml unreadable, ignoring it");
  }
  cache.set(resolved, { mtimeMs: stat.mtimeMs, size: stat.size, value });
  return value;
}
