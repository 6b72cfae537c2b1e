// Local LLM client for the operator tools: Ollama's /api/chat (default) or any OpenAI-compatible
// /chat/completions endpoint. Every call has a timeout and bounded retries; 4xx answers are not retried.

export type LlmProvider = "ollama" | "openai";

export type LlmOptions = {
  provider: LlmProvider;
  /** Ollama: http://127.0.0.1:11434 ; OpenAI-compatible: base URL including /v1. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
  /** Extra attempts after the first one (network errors, timeouts, 5xx, empty answers). */
  retries: number;
  onRetry?: (attempt: number, reason: string) => void;
};

export type ChatMessage = { role: "system" | "user" | "assistant"; content: string };

export const LLM_DEFAULTS = {
  ollama: { baseUrl: "http://127.0.0.1:11434", model: "qwen3.5:35b" },
  openai: { baseUrl: "http://127.0.0.1:8000/v1", model: "qwen3.5:35b" },
  timeoutMs: 180_000,
  retries: 2,
} as const;

export class LlmError extends Error {}

class PermanentLlmError extends LlmError {}

/** Reasoning models (qwen3) may wrap their thoughts in <think>…</think>; the answer is what follows. */
function stripThinking(text: string): string {
  return text.replace(/<think>[\s\S]*?<\/think>/gi, "").replace(/^[\s\S]*<\/think>/i, "").trim();
}

/** What to do when no model answers: name the flags that point the script at one. */
const NO_MODEL_HINT =
  "Is the model running? Point the script at it with --provider ollama|openai and --llm-url <url> (e.g. --provider openai --llm-url http://127.0.0.1:8080/v1), and --model <name>";

async function postJson(url: string, body: unknown, headers: Record<string, string>, timeoutMs: number): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const name = (error as Error).name;
    if (name === "TimeoutError" || name === "AbortError") throw new LlmError(`no answer within ${timeoutMs} ms from ${url} (a slow model needs a larger --timeout-ms)`);
    throw new LlmError(`cannot reach ${url}: ${(error as Error).message}. ${NO_MODEL_HINT}`);
  }
  const text = await response.text();
  if (response.status >= 400 && response.status < 500) throw new PermanentLlmError(`${url} answered HTTP ${response.status}: ${text.slice(0, 200)}`);
  if (!response.ok) throw new LlmError(`${url} answered HTTP ${response.status}: ${text.slice(0, 200)}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new LlmError(`${url} answered with non-JSON: ${text.slice(0, 120)}`);
  }
}

async function chatOnce(options: LlmOptions, messages: ChatMessage[]): Promise<string> {
  const base = options.baseUrl.replace(/\/+$/, "");
  if (options.provider === "ollama") {
    const body = { model: options.model, messages, stream: false, options: { temperature: 0 } };
    const json = (await postJson(`${base}/api/chat`, body, {}, options.timeoutMs)) as { message?: { content?: unknown } };
    if (typeof json?.message?.content !== "string") throw new LlmError("Ollama answer has no message.content");
    return json.message.content;
  }
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  const body = { model: options.model, messages, temperature: 0, stream: false };
  const json = (await postJson(`${base}/chat/completions`, body, headers, options.timeoutMs)) as { choices?: { message?: { content?: unknown } }[] };
  const content = json?.choices?.[0]?.message?.content;
  if (typeof content !== "string") throw new LlmError("OpenAI-compatible answer has no choices[0].message.content");
  return content;
}

/** One chat completion with retries; returns the answer text without <think> blocks. */
export async function chat(options: LlmOptions, messages: ChatMessage[]): Promise<string> {
  let lastError: unknown;
  for (let attempt = 0; attempt <= options.retries; attempt += 1) {
    try {
      const answer = stripThinking(await chatOnce(options, messages));
      if (answer.length === 0) throw new LlmError("empty answer");
      return answer;
    } catch (error) {
      lastError = error;
      if (error instanceof PermanentLlmError) break;
      if (attempt < options.retries) options.onRetry?.(attempt + 1, (error as Error).message);
    }
  }
  const message = lastError instanceof Error ? lastError.message : String(lastError);
  throw new LlmError(`model call failed after ${options.retries + 1} attempt(s): ${message}`);
}
