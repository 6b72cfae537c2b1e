// The one token estimator used everywhere in the bundle (hooks, explain, baseline, benchmarks).
// OpenClaw's own context reports and budgets work in characters; we convert with the common
// "about four characters per token" rule so our numbers stay comparable with the host's.
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string | undefined | null): number {
  if (!text) return 0;
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export function tokensToChars(tokens: number): number {
  return Math.max(0, Math.floor(tokens * CHARS_PER_TOKEN));
}
