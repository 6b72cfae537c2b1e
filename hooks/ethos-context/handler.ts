// ethos-context: the hook pack's entry for OpenClaw 2026.3 (src/hook-pack/ethos-context.ts).
export { default } from "../../src/hook-pack/ethos-context.ts";
