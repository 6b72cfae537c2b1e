import pino from "pino";
import type { Logger, DestinationStream } from "pino";

export type { Logger };

// Hooks run inside the gateway process: log to stderr (or a file the operator names with
// OPENCLAW_CONTEXT_LOG_FILE) so we never interleave with the gateway's own stdout output.
let destination: DestinationStream | undefined;
const loggers = new Map<string, Logger>();

function defaultDestination(): DestinationStream {
  const file = process.env.OPENCLAW_CONTEXT_LOG_FILE;
  return file ? pino.destination({ dest: file, sync: true, mkdir: true }) : pino.destination({ fd: 2, sync: true });
}

export function getLogger(name: string): Logger {
  let logger = loggers.get(name);
  if (!logger) {
    destination ??= defaultDestination();
    logger = pino({ name, level: process.env.OPENCLAW_CONTEXT_LOG_LEVEL ?? "info", base: { name } }, destination);
    loggers.set(name, logger);
  }
  return logger;
}

/** Tests redirect every logger to an in-memory stream. */
export function setLogDestination(stream: DestinationStream | undefined): void {
  destination = stream;
  loggers.clear();
}
