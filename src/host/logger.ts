// The logger bridge: inside the gateway, the plugin hands every record of ours to the host's
// `api.logger`, which writes it to OpenClaw's own log (what `openclaw logs` shows). One line per
// record, "[openclaw-context] <message> {fields}", at the record's level (the module that logged it
// is the field `component`); debug and trace only where the host logger has them. The hook pack
// (2026.3) has no host logger: its records go to our own log file.
import { PLUGIN_ID } from "./ids.ts";
import { logToHost } from "../core/log.ts";
import type { LogRecord } from "../core/log.ts";
import type { HostLogger } from "./plugin-api.ts";

/** One record as the host logger's line. */
export function hostLine(record: LogRecord): string {
  const fields = record.name && record.name !== PLUGIN_ID ? { component: record.name, ...record.fields } : record.fields;
  return `[${PLUGIN_ID}] ${record.message}${Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : ""}`;
}

/** Route every record of this process to `logger` (and keep our own log file). */
export function bridgeToHostLogger(logger: HostLogger | undefined): void {
  if (!logger) return;
  logToHost((record) => {
    const level = record.level === "fatal" ? "error" : record.level === "trace" ? "debug" : record.level;
    const write = logger[level];
    if (typeof write === "function") write.call(logger, hostLine(record));
  });
}
