// The logger bridge: inside the gateway every record of ours also goes to OpenClaw's own log (what
// `openclaw logs` shows), one line per record, "[openclaw-context] <message> {fields}", at the
// record's level (the module that logged it is the field `component`):
//   - the plugin (2026.9+) hands it to the host's `api.logger`;
//   - the hook pack (2026.3) has no host logger: it writes through console.*, which OpenClaw's CLI
//     captures into that same log (2026.3.13 and 2026.9.6; what a hook writes to stderr directly
//     is not captured: HOOK_ASSUMPTIONS.md `hookConsoleInOpenclawLogs`). debug and trace stay out
//     at OpenClaw's default level.
// Both keep our own log file too (src/core/log.ts), which `status` reads.
import { PLUGIN_ID } from "./ids.ts";
import { logToHost } from "../core/log.ts";
import type { LogRecord } from "../core/log.ts";
import type { HostLogger } from "./plugin-api.ts";

/** One record as the host logger's line. */
export function hostLine(record: LogRecord): string {
  const fields = record.name && record.name !== PLUGIN_ID ? { component: record.name, ...record.fields } : record.fields;
  return `[${PLUGIN_ID}] ${record.message}${Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : ""}`;
}

/** The hook pack: every record through console.* at its level (OpenClaw's console capture takes it from there). */
export function bridgeToConsole(): void {
  logToHost((record) => {
    const line = hostLine(record);
    if (record.level === "error" || record.level === "fatal") console.error(line);
    else if (record.level === "warn") console.warn(line);
    else if (record.level === "info") console.info(line);
    else console.debug(line);
  });
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
