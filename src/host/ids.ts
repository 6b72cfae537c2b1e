// The record both hooks agree on, whatever order the gateway registers them in:
// ethos-context adds it, aci-bootstrap always keeps it (privacy scope is decided by ethos-context).
export const RETRIEVED_MEMORY_RECORD_NAME = "ETHOS_CONTEXT.md";

export const HOOK_KEYS = {
  aciBootstrap: "aci-bootstrap",
  ethosContext: "ethos-context",
} as const;
