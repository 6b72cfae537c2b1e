import { UsageError, parseIntegerOption } from "./cli.ts";
import { LLM_DEFAULTS } from "./llm.ts";
import type { LlmOptions, LlmProvider } from "./llm.ts";

// The same model options for every script that calls a local LLM.

export const LLM_PARSE_OPTIONS = {
  provider: { type: "string" },
  "llm-url": { type: "string" },
  model: { type: "string" },
  "api-key-env": { type: "string" },
  "timeout-ms": { type: "string" },
  retries: { type: "string" },
} as const;

export const LLM_HELP = `Model options:
  --provider <ollama|openai>  Ollama HTTP API (default) or an OpenAI-compatible endpoint
  --llm-url <url>             default ${LLM_DEFAULTS.ollama.baseUrl} (ollama), ${LLM_DEFAULTS.openai.baseUrl} (openai)
  --model <name>              default ${LLM_DEFAULTS.ollama.model}
  --api-key-env <VAR>         env var holding a bearer token for the OpenAI-compatible endpoint
  --timeout-ms <ms>           per-request timeout (default ${LLM_DEFAULTS.timeoutMs})
  --retries <n>               extra attempts on timeouts, network errors and 5xx (default ${LLM_DEFAULTS.retries})`;

export function llmOptionsFrom(values: Record<string, unknown>, onRetry?: LlmOptions["onRetry"]): LlmOptions {
  const provider = typeof values.provider === "string" ? values.provider : "ollama";
  if (provider !== "ollama" && provider !== "openai") throw new UsageError(`--provider must be "ollama" or "openai", got "${provider}"`);
  const defaults = LLM_DEFAULTS[provider as LlmProvider];
  const baseUrl = typeof values["llm-url"] === "string" ? values["llm-url"] : defaults.baseUrl;
  try {
    new URL(baseUrl);
  } catch {
    throw new UsageError(`--llm-url is not a URL: "${baseUrl}"`);
  }
  let apiKey: string | undefined;
  const keyVar = values["api-key-env"];
  if (typeof keyVar === "string") {
    apiKey = process.env[keyVar];
    if (!apiKey) throw new UsageError(`--api-key-env ${keyVar}: that environment variable is empty`);
  }
  return {
    provider: provider as LlmProvider,
    baseUrl,
    model: typeof values.model === "string" ? values.model : defaults.model,
    apiKey,
    timeoutMs: parseIntegerOption("timeout-ms", values["timeout-ms"] as string | undefined, LLM_DEFAULTS.timeoutMs, 1),
    retries: parseIntegerOption("retries", values.retries as string | undefined, LLM_DEFAULTS.retries, 0),
    onRetry,
  };
}
