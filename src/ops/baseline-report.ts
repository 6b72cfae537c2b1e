import type { FileRow, SessionRow } from "./baseline.ts";
import type { LiveContextReport } from "./live-context.ts";

// Plain-text rendering of the baseline (the file an operator keeps as the Phase 0 reference).

function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i])).join("  ").trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

export type BaselineReportInput = {
  capturedAt: Date;
  workspace: string;
  files: FileRow[];
  sessions: SessionRow[];
  policyNote: string;
  /** Host version the per-session columns model (default: the newest known, 2026.9.6). */
  hostVersion?: string;
  live?: LiveContextReport;
  liveError?: string;
};

function memoryPreflight(input: BaselineReportInput): string[] {
  const memory = input.files.find((row) => row.name === "MEMORY.md");
  const lines: string[] = [];
  if (!memory?.present) {
    lines.push("MEMORY.md: not present in the workspace, so it is not bulk-injected. Phase 1 removal is a no-op.");
  } else {
    const bulkTypes = input.sessions.filter((row) => row.today.files.includes("MEMORY.md")).map((row) => row.type);
    const spared = input.sessions.filter((row) => !row.today.files.includes("MEMORY.md")).map((row) => row.type);
    lines.push(
      `MEMORY.md: present (${memory.rawChars} chars, ~${memory.tokens} tok injected). Bulk-injected by OpenClaw ${input.hostVersion ?? "2026.9.6"}: YES in ${bulkTypes.join(", ") || "no session type"}; core leaves it out of ${spared.join(", ") || "no session type"}.`,
    );
  }
  if (input.live) {
    const hit = input.live.files.find((file) => file.name === "MEMORY.md" && !file.missing);
    lines.push(`Live gateway report (${input.live.sessionKey}): MEMORY.md ${hit ? `IS injected (${hit.injectedChars ?? "?"} chars)` : "is NOT in the injected files"}.`);
  }
  return lines;
}

export function formatBaselineReport(input: BaselineReportInput): string {
  const out: string[] = [];
  out.push("# Context baseline (pre-flight: what the gateway injects before any change)");
  out.push(`Captured: ${input.capturedAt.toISOString()}`);
  out.push(`Workspace: ${input.workspace}`);
  out.push("Tokens: estimateTokens = ceil(chars / 4), applied to the characters OpenClaw injects.");
  out.push(`Mode: ${input.live ? "live (gateway report below) + offline estimate" : input.liveError ? `offline estimate (live capture failed: ${input.liveError})` : "offline estimate (no gateway queried)"}`);
  out.push("");
  out.push("## Bootstrap files");
  out.push(
    table(
      ["file", "present", "raw chars", "injected chars", "tokens", "note"],
      input.files.map((row) => [
        row.name,
        row.present ? "yes" : "no",
        String(row.rawChars),
        row.loadedByHost ? String(row.injectedChars) : "-",
        String(row.tokens),
        row.loadedByHost
          ? row.truncated
            ? "loaded by OpenClaw 2026.9.6, TRUNCATED by its budget"
            : "loaded by OpenClaw 2026.9.6"
          : row.name === "TOOLS_COMPACT.md"
            ? "not loaded by OpenClaw; added only by the bundle's policy (tokens = raw)"
            : "NOT loaded by OpenClaw 2026.9.6 (retired basename); tokens = raw size, for reference",
      ]),
    ),
  );
  out.push("");
  out.push("Note: TOOLS.md and HEARTBEAT.md are not loaded by current OpenClaw (2026.9.6 loads AGENTS, SOUL, IDENTITY, USER, BOOTSTRAP, MEMORY).");
  out.push("The spec's appendix A (TOOLS.md ~5,241 tok every turn) describes an older OpenClaw.");
  out.push("");
  out.push("## MEMORY.md (pre-flight: is it injected into every turn?)");
  out.push(...memoryPreflight(input));
  out.push("");
  out.push("## Per session type");
  out.push(`Today = OpenClaw ${input.hostVersion ?? "2026.9.6"} default set after its own session filter. Bundle = ${input.policyNote}`);
  const rows = input.sessions.map((row) => {
    const saving = row.bundle && !row.bundle.error && row.today.tokens > 0 ? `${Math.round((1 - row.bundle.tokens / row.today.tokens) * 100)}%` : "-";
    return [
      row.classifiedAs === row.type ? row.type : `${row.type} (classified ${row.classifiedAs})`,
      row.today.files.join(", ") || "(none)",
      String(row.today.tokens),
      row.bundle
        ? row.bundle.error
          ? `ERROR: ${row.bundle.error}`
          : (row.bundle.files.join(", ") || "(none)") + (row.bundle.hostFiltered.length ? ` [host drops ${row.bundle.hostFiltered.join(", ")}]` : "")
        : "n/a",
      row.bundle && !row.bundle.error ? String(row.bundle.tokens) : "-",
      saving,
    ];
  });
  out.push(table(["session type", "today: files", "today tok", "with bundle: files", "bundle tok", "saving"], rows));
  out.push("");
  out.push("Session keys used:");
  for (const row of input.sessions) out.push(`  ${row.type}: ${row.sessionKey}`);
  if (input.live) {
    out.push("");
    out.push(`## OpenClaw's own report (/context json, ${input.live.sessionKey})`);
    out.push(
      table(
        ["file", "missing", "raw chars", "injected chars", "truncated", "estimate here", "diff", "why"],
        input.live.files.map((file) => {
          const ours = input.files.find((row) => row.name === file.name);
          const live = typeof file.injectedChars === "number" ? file.injectedChars : undefined;
          const diff = ours && live !== undefined ? String(ours.injectedChars - live) : "-";
          return [file.name, String(Boolean(file.missing)), String(file.rawChars ?? "?"), String(live ?? "?"), String(Boolean(file.truncated)), ours ? String(ours.injectedChars) : "-", diff, liveRowReason(ours, file)];
        }),
      ),
    );
    out.push("");
    out.push("\"estimate here\" is this script's estimate of what OpenClaw injects on its own (its bulk set, without the");
    out.push("bundle); \"diff\" is estimate − injected. The live report is the gateway as it runs now: with the bundle");
    out.push("installed, a file the bundle adds (TOOLS_COMPACT.md) shows estimate 0 and a negative diff, and a file it");
    out.push("leaves out for this session shows a positive diff.");
  }
  return out.join("\n") + "\n";
}

/** Why a live row differs from the estimate, in words (empty when they agree). */
function liveRowReason(ours: FileRow | undefined, file: LiveContextReport["files"][number]): string {
  const live = typeof file.injectedChars === "number" ? file.injectedChars : undefined;
  if (!ours) return "not a workspace file this script estimates";
  if (live === undefined || ours.injectedChars === live) return "";
  if (ours.injectedChars === 0 && live > 0) return "added by the bundle (not in OpenClaw's own set)";
  if (live === 0 || file.missing) return "left out by the bundle for this session";
  return "trimmed or counted differently by the gateway";
}
