// Markdown table rendering for benchmark output.
export function markdownTable(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const line = (cells: readonly (string | number)[]) => `| ${cells.map((c) => String(c)).join(" | ")} |`;
  const separator = `|${headers.map(() => "---").join("|")}|`;
  return [line(headers), separator, ...rows.map(line)].join("\n");
}
