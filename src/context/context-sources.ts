import { spawn } from "node:child_process";
import path from "node:path";
import { expandHome } from "../core/paths.ts";
import { readRegularFile } from "../fs/safe-read.ts";
import type { SessionType } from "../session/types.ts";
import type { ContextSourceConfig } from "./config.ts";

// The block's extension point (persistent memory spec §10): the CRM slot (6) and the external slot
// (8) are filled from a file or a command the operator configures in openclaw.json
// (`contextSources.crm` / `contextSources.external`), or, for slot 8, from a workspace file named by
// CONFIG.md's `external_context_source`. Both are bounded: a file is read through the safe reader
// (regular file, at most maxChars), a command runs without a shell, is killed at its timeout or
// once it has printed maxChars, and a failure leaves the slot empty. The caller runs them only for
// the operator's own turns (src/context/memory-composer.ts).

export type ContextSourceSlot = "crm" | "external";

export type SourceText = { text: string; error?: string };

export type SourceRequest = {
  slot: ContextSourceSlot;
  workspaceDir: string;
  /** This turn's cleaned message: the CRM looks up the people and organisations it names. */
  query: string;
  sessionType: SessionType;
  /** Time left in the turn for this source, ms (the source's own timeout applies too). */
  remainingMs: number;
};

/** A source that cannot answer in this little time is not started. */
const MIN_COMMAND_MS = 10;

/** A configured file: absolute, `~/…`, or relative to the workspace. */
async function readSourceFile(file: string, maxChars: number, workspaceDir: string, root?: string): Promise<SourceText> {
  const target = path.resolve(workspaceDir, expandHome(file));
  // UTF-8: at most four bytes a character; the text is cut to maxChars after decoding.
  const read = await readRegularFile(target, { maxBytes: maxChars * 4, truncate: true, ...(root ? { root } : {}) });
  if (!read.ok) return { text: "", error: `${path.basename(target)}: ${read.reason}${read.detail ? ` (${read.detail})` : ""}` };
  return { text: read.bytes.toString("utf8").slice(0, maxChars) };
}

/** A configured command: argv without a shell, the request as JSON on stdin, stdout as the slot's text. */
function runSourceCommand(argv: readonly string[], request: SourceRequest, timeoutMs: number, maxChars: number): Promise<SourceText> {
  return new Promise((resolve) => {
    let settled = false;
    let output = "";
    const finish = (result: SourceText) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      resolve(result);
    };
    const child = spawn(argv[0], argv.slice(1), { cwd: request.workspaceDir, stdio: ["pipe", "pipe", "ignore"], windowsHide: true });
    const timer = setTimeout(() => finish({ text: "", error: `timed out after ${timeoutMs} ms` }), timeoutMs);
    child.on("error", (error) => finish({ text: "", error: error.message }));
    child.stdin.on("error", () => {}); // a command that does not read its input is not a failure
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      output += chunk;
      if (output.length >= maxChars) finish({ text: output.slice(0, maxChars) });
    });
    child.on("close", (code, signal) => finish(code === 0 ? { text: output } : { text: "", error: signal ? `killed by ${signal}` : `exit code ${code}` }));
    child.stdin.end(`${JSON.stringify({ slot: request.slot, query: request.query, sessionType: request.sessionType })}\n`);
  });
}

/** The text of an openclaw.json source for this turn ("" with an error when it fails). Never throws. */
export async function readContextSource(source: ContextSourceConfig, request: SourceRequest): Promise<SourceText> {
  try {
    if (source.file !== undefined) return await readSourceFile(source.file, source.maxChars, request.workspaceDir);
    const timeoutMs = Math.min(source.timeoutMs, Math.floor(request.remainingMs));
    if (!source.command || timeoutMs < MIN_COMMAND_MS) return { text: "", error: "no time left in the turn" };
    return await runSourceCommand(source.command, request, timeoutMs, source.maxChars);
  } catch (error) {
    return { text: "", error: error instanceof Error ? error.message : String(error) };
  }
}

/** Most characters read from CONFIG.md's `external_context_source`. */
const MAX_WORKSPACE_SOURCE_CHARS = 16_000;

/**
 * CONFIG.md's `external_context_source`: a file inside the workspace. CONFIG.md is a workspace file
 * the agent can edit, so it may not point the bundle at files elsewhere (openclaw.json can).
 */
export function readWorkspaceSource(file: string, workspaceDir: string): Promise<SourceText> {
  return readSourceFile(file, MAX_WORKSPACE_SOURCE_CHARS, workspaceDir, workspaceDir).catch((error: unknown) => ({ text: "", error: String(error) }));
}
