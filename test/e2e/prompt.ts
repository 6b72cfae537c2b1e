// Reads the injected workspace files out of a captured system prompt. OpenClaw renders each
// bootstrap record under "# Project Context" as a `## <absolute path>` heading followed by its
// content (both pinned versions). File contents have their own `## ` headings, so a section runs
// to the next heading that names an absolute path; the last one ends at the first line that is
// neither in the file on disk nor part of the file (OpenClaw's own next section).
import fs from "node:fs";
import path from "node:path";
import { estimateTokens } from "../../src/core/tokens.ts";

export type InjectedFile = {
  /** Basename of the heading path (what the prompt shows). */
  name: string;
  path: string;
  content: string;
  /** OpenClaw's "[MISSING] Expected at: …" placeholder rather than file content. */
  missingMarker: boolean;
};

const FILE_HEADING = /^## (\/\S.*)$/;
const CACHE_MARKER = /^<!-- \/?openclaw:attempt:/;

function diskLines(file: string): Set<string> | undefined {
  try {
    return new Set(fs.readFileSync(file, "utf8").split("\n"));
  } catch {
    return undefined;
  }
}

// Parses are remembered per prompt: the harness parses each turn while its workspace still
// exists (the last section's end is found with the file on disk), later calls reuse that parse.
const parsed = new Map<string, InjectedFile[]>();

export function parseInjectedFiles(prompt: string): InjectedFile[] {
  let files = parsed.get(prompt);
  if (!files) {
    files = parseNow(prompt);
    parsed.set(prompt, files);
  }
  return files;
}

function parseNow(prompt: string): InjectedFile[] {
  const lines = prompt.split("\n");
  const start = lines.findIndex((line) => line.trim() === "# Project Context");
  if (start < 0) return [];
  const headings: number[] = [];
  for (let i = start + 1; i < lines.length; i += 1) if (FILE_HEADING.test(lines[i]!)) headings.push(i);
  return headings.map((lineIndex, k) => {
    const filePath = FILE_HEADING.exec(lines[lineIndex]!)![1]!.trim();
    let end = k + 1 < headings.length ? headings[k + 1]! : lines.length;
    if (k + 1 === headings.length) {
      const known = diskLines(filePath);
      for (let i = lineIndex + 1; i < end; i += 1) {
        const line = lines[i]!;
        if (CACHE_MARKER.test(line) || (line.startsWith("## ") && !known?.has(line))) {
          end = i;
          break;
        }
      }
    }
    const content = lines.slice(lineIndex + 1, end).join("\n").trim();
    return { name: path.basename(filePath), path: filePath, content, missingMarker: content.startsWith("[MISSING]") };
  });
}

/** Names of files whose content was injected (missing-file placeholders left out). */
export function injectedNames(prompt: string): string[] {
  return parseInjectedFiles(prompt)
    .filter((file) => !file.missingMarker)
    .map((file) => file.name);
}

/** Characters of injected bootstrap content, placeholders included (they cost tokens too). */
export function injectedChars(prompt: string): number {
  return parseInjectedFiles(prompt).reduce((sum, file) => sum + file.content.length, 0);
}

export function injectedTokens(prompt: string): number {
  return parseInjectedFiles(prompt).reduce((sum, file) => sum + estimateTokens(file.content), 0);
}
