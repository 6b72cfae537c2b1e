// Intent extraction (hardening plan §5): the query is what the user asked, not the code or the
// quoted text they pasted around it.

const FENCED_BLOCK = /(^|\n)[ \t]*(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:\n[ \t]*\2[ \t]*(?=\n|$)|$)/g;
const QUOTED_LINE = /^[ \t]*>.*$/gm;
const INVISIBLE = /[\u200B-\u200D\u2060\uFEFF\u202A-\u202E\u2066-\u2069]/g;

/** Clean query from a message body: fenced code and quoted lines removed, whitespace normalised, capped. */
export function extractQuery(content: unknown, maxChars = 280): string {
  if (typeof content !== "string") return "";
  const cleaned = content
    .replace(INVISIBLE, "")
    .replace(FENCED_BLOCK, "$1")
    .replace(QUOTED_LINE, "")
    .replace(/\s+/g, " ")
    .trim();
  if (cleaned.length <= maxChars) return cleaned;
  // Cut at a word boundary when one is close, so the last term is not a fragment.
  const cut = cleaned.slice(0, maxChars);
  const lastSpace = cut.lastIndexOf(" ");
  return (lastSpace >= maxChars - 40 ? cut.slice(0, lastSpace) : cut).trim();
}
