// Minimal Markdown section handling (operator tools, the maintenance pass): ATX headings outside fenced code,
// a section running to the next heading of the same or a higher level. Line endings preserved.

export type Section = { level: number; title: string; startLine: number; endLine: number };

export function detectEol(text: string): "\r\n" | "\n" {
  return text.includes("\r\n") ? "\r\n" : "\n";
}

export function splitLines(text: string): string[] {
  return text.split(/\r?\n/);
}

export function findSections(text: string): Section[] {
  const lines = splitLines(text);
  const headings: { level: number; title: string; line: number }[] = [];
  let fence: string | undefined;
  lines.forEach((line, index) => {
    const fenceMatch = /^\s{0,3}(```|~~~)/.exec(line);
    if (fenceMatch) {
      if (!fence) fence = fenceMatch[1];
      else if (fence === fenceMatch[1]) fence = undefined;
      return;
    }
    if (fence) return;
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) headings.push({ level: heading[1].length, title: heading[2].trim(), line: index });
  });
  return headings.map((heading, i) => {
    const next = headings.slice(i + 1).find((candidate) => candidate.level <= heading.level);
    return { level: heading.level, title: heading.title, startLine: heading.line, endLine: next ? next.line : lines.length };
  });
}

export function sectionsMatching(text: string, pattern: RegExp, level?: number): Section[] {
  return findSections(text).filter((section) => pattern.test(section.title) && (level === undefined || section.level === level));
}

/** Replace lines [startLine, endLine) with `replacement` (LF or CRLF, re-joined in the file's own EOL). */
export function replaceLines(text: string, startLine: number, endLine: number, replacement: string): string {
  const eol = detectEol(text);
  const lines = splitLines(text);
  const inserted = replacement === "" ? [] : splitLines(replacement);
  return [...lines.slice(0, startLine), ...inserted, ...lines.slice(endLine)].join(eol);
}
