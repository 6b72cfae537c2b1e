import fs from "node:fs";
import path from "node:path";
import pino from "pino";
import type { Logger, DestinationStream } from "pino";
import { bundleStateDir } from "./paths.ts";

export type { Logger };

// Where our records go. Inside the gateway, to OpenClaw's own log (`openclaw logs`) through a sink
// the adapter installs (logToHost: the plugin's api.logger, the hook pack's console.*;
// src/host/logger.ts), and to a file of our own, where `status` puts each turn together:
//   $OPENCLAW_STATE_DIR/openclaw-context/logs/openclaw-context.log   (~/.openclaw/… by default)
// one JSON object per line, rotated at LOG_MAX_BYTES with LOG_KEEP_FILES older files (.1 … .3),
// so it never grows without bound. Without a sink, records go to stderr. OPENCLAW_CONTEXT_LOG_FILE
// names another file ("off": no file). Outside the gateway (operator scripts, tests) nothing is
// written to the file unless OPENCLAW_CONTEXT_LOG_FILE says so: the adapters call logToGatewayFile().

const LOG_MAX_BYTES = 1024 * 1024;
export const LOG_KEEP_FILES = 3;

let destination: DestinationStream | undefined;
let destinationSetByCaller = false;
let gatewayFile = false;
let hostSink: LogSink | undefined;

/** A structured logger: what every module of the bundle writes to (pino's Logger is one). */
export type Log = {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
};

/** One parsed record, for a sink outside pino (the host's logger: src/host/logger.ts). */
export type LogRecord = { level: "trace" | "debug" | "info" | "warn" | "error" | "fatal"; name: string; message: string; fields: Record<string, unknown> };
export type LogSink = (record: LogRecord) => void;

const LEVEL_NAMES: Record<number, LogRecord["level"]> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };

/** pino's JSON lines → LogRecords (pino's own keys taken out of the fields). */
function sinkStream(sink: LogSink): DestinationStream {
  return {
    write(line: string) {
      try {
        const { level, time: _time, pid: _pid, hostname: _hostname, name, msg, ...fields } = JSON.parse(line) as Record<string, unknown>;
        sink({ level: LEVEL_NAMES[Number(level)] ?? "info", name: String(name ?? ""), message: String(msg ?? ""), fields });
      } catch {
        // A sink must never harm a turn: a record it cannot take is lost there only.
      }
    },
  };
}
const loggers = new Map<string, Logger>();

/** The log file the hooks write inside the gateway (undefined: file logging is off). */
export function hookLogFile(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const configured = env.OPENCLAW_CONTEXT_LOG_FILE;
  if (configured === "off") return undefined;
  if (configured) return path.resolve(configured);
  return path.join(bundleStateDir(env), "logs", "openclaw-context.log");
}

/** A synchronous append-only file that rotates itself by size (file → file.1 → … → file.N). */
export class RotatingFile {
  readonly file: string;
  private readonly maxBytes: number;
  private readonly keep: number;
  private fd: number | undefined;
  private size = 0;

  constructor(file: string, maxBytes = LOG_MAX_BYTES, keep = LOG_KEEP_FILES) {
    this.file = file;
    this.maxBytes = maxBytes;
    this.keep = keep;
  }

  write(chunk: string): boolean {
    try {
      const bytes = Buffer.byteLength(chunk);
      if (this.fd === undefined) this.open();
      if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate();
      fs.writeSync(this.fd!, chunk);
      this.size += bytes;
    } catch {
      // Logging must never harm a turn: a full disk or a read-only state dir loses the line only.
    }
    return true;
  }

  private open(): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    this.fd = fs.openSync(this.file, "a", 0o600);
    this.size = fs.fstatSync(this.fd).size;
  }

  private rotate(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
    for (let n = this.keep - 1; n >= 1; n -= 1) {
      if (fs.existsSync(`${this.file}.${n}`)) fs.renameSync(`${this.file}.${n}`, `${this.file}.${n + 1}`);
    }
    if (this.keep > 0) fs.renameSync(this.file, `${this.file}.1`);
    else fs.rmSync(this.file, { force: true });
    this.open();
  }
}

function defaultDestination(): DestinationStream {
  // With a host logger (the plugin's api.logger) records go there instead of stderr: it writes
  // them to OpenClaw's own log, which `openclaw logs` reads.
  const echo = hostSink ? sinkStream(hostSink) : pino.destination({ fd: 2, sync: true });
  const explicit = process.env.OPENCLAW_CONTEXT_LOG_FILE;
  const file = explicit || gatewayFile ? hookLogFile() : undefined;
  if (!file) return echo;
  // An explicitly named file gets every record alone (and the host's logger); the default file also echoes.
  const rotating = new RotatingFile(file);
  if (explicit && !hostSink) return rotating;
  return pino.multistream([
    { level: "trace", stream: echo },
    { level: "trace", stream: rotating },
  ]);
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

/** Called once by each hook entry point: inside the gateway, records also go to hookLogFile(). */
export function logToGatewayFile(): void {
  if (gatewayFile) return;
  gatewayFile = true;
  if (destinationSetByCaller) return;
  destination = undefined;
  loggers.clear();
}

/**
 * Inside the gateway with a host logger (the plugin): every record also goes to `sink`, in place of
 * stderr. Called once per process by the plugin's registration (src/host/logger.ts).
 */
export function logToHost(sink: LogSink): void {
  hostSink = sink;
  if (destinationSetByCaller) return;
  destination = undefined;
  loggers.clear();
}

/** Tests redirect every logger to an in-memory stream. */
export function setLogDestination(stream: DestinationStream | undefined): void {
  destination = stream;
  destinationSetByCaller = stream !== undefined;
  loggers.clear();
}
