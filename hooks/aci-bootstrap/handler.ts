// aci-bootstrap: the hook pack's entry for OpenClaw 2026.3 (src/hook-pack/aci-bootstrap.ts).
export { default } from "../../src/hook-pack/aci-bootstrap.ts";
