// The model's context window as openclaw.json gives it, resolved the way OpenClaw resolves it
// (2026.3.13 dist `resolveContextWindowInfo`, same on 2026.9.6): the model entry
// `models.providers.<provider>.models[] { id, contextWindow }`, capped by
// `agents.defaults.contextTokens`. For hooks that get no budget from the host (agent:bootstrap,
// before_prompt_build); a model the config does not list (a built-in catalog model) has no window
// here, and the caller goes without one.
import { isObject } from "./events.ts";
import type { OpenClawConfig } from "./events.ts";

function positiveInt(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 1 ? Math.floor(value) : undefined;
}

/** `"provider/model"`, or `{ primary: "provider/model" }` (OpenClaw accepts both). */
function modelRef(value: unknown): string | undefined {
  if (typeof value === "string" && value.trim()) return value.trim();
  if (isObject(value) && typeof value.primary === "string" && value.primary.trim()) return value.primary.trim();
  return undefined;
}

/** The agent's own model, else `agents.defaults.model`. */
function agentModelRef(cfg: OpenClawConfig, agentId: string | undefined): string | undefined {
  const agents = isObject(cfg.agents) ? cfg.agents : {};
  const id = agentId?.trim().toLowerCase();
  if (id && Array.isArray(agents.list)) {
    const entry = agents.list.find((item): item is Record<string, unknown> => isObject(item) && String(item.id ?? "").toLowerCase() === id);
    const own = modelRef(entry?.model);
    if (own) return own;
  }
  return modelRef(isObject(agents.defaults) ? agents.defaults.model : undefined);
}

export type ModelWindowQuery = {
  agentId?: string;
  /** The turn's provider and model when the host names them (2026.9 before_prompt_build: modelProviderId, modelId). */
  provider?: string;
  modelId?: string;
};

/** Context window of the turn's model in tokens, or undefined when openclaw.json does not say. Never throws. */
export function modelContextWindow(cfg: OpenClawConfig | undefined, query: ModelWindowQuery = {}): number | undefined {
  try {
    if (!isObject(cfg)) return undefined;
    let provider = query.provider;
    let modelId = query.modelId;
    if (!provider || !modelId) {
      const ref = agentModelRef(cfg, query.agentId);
      const slash = ref?.indexOf("/") ?? -1;
      if (!ref || slash <= 0) return undefined;
      provider = ref.slice(0, slash);
      modelId = ref.slice(slash + 1);
    }
    const providers = isObject(cfg.models) && isObject(cfg.models.providers) ? cfg.models.providers : {};
    const entry = Object.hasOwn(providers, provider) ? providers[provider] : undefined;
    const models = isObject(entry) && Array.isArray(entry.models) ? entry.models : [];
    const window = positiveInt(models.find((model): model is Record<string, unknown> => isObject(model) && model.id === modelId)?.contextWindow);
    if (window === undefined) return undefined;
    const cap = positiveInt(isObject(cfg.agents) && isObject(cfg.agents.defaults) ? cfg.agents.defaults.contextTokens : undefined);
    return cap !== undefined && cap < window ? cap : window;
  } catch {
    return undefined; // a getter in a foreign config object: no window, never a failed turn
  }
}
