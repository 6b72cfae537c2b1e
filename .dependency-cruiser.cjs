// The layering of src/ (docs/architecture.md, "Layers"): imports run down this list only, the two
// adapters never import each other, nothing in src/ imports tests, benches or scripts, and there
// are no cycles. `npm run lint:deps` checks it (CI: .ci/run).
const LAYERS = ["core", "fs", "host", "session", "memory", "ethos", "bootstrap", "capture", "lifecycle", "context", "ops", "hook-pack|plugin"];

const upward = LAYERS.slice(0, -1).map((layer, index) => ({
  name: `no-upward-from-${layer.replace("|", "-")}`,
  comment: `src/${layer} may import only the layers below it`,
  severity: "error",
  from: { path: `^src/(${layer})/` },
  to: { path: `^src/(${LAYERS.slice(index + 1).join("|")})/` },
}));

module.exports = {
  forbidden: [
    ...upward,
    { name: "adapters-apart", comment: "the hook pack and the plugin share the core, never each other", severity: "error", from: { path: "^src/hook-pack/" }, to: { path: "^src/plugin/" } },
    { name: "adapters-apart-back", severity: "error", from: { path: "^src/plugin/" }, to: { path: "^src/hook-pack/" } },
    { name: "src-not-tests", comment: "the shipped code never imports tests, benches or scripts", severity: "error", from: { path: "^src/" }, to: { path: "^(test|bench|scripts)/" } },
    { name: "no-cycles", severity: "error", from: {}, to: { circular: true } },
    { name: "no-unresolvable", severity: "error", from: {}, to: { couldNotResolve: true } },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|dist|\\.cache)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".mjs", ".json"] },
  },
};
