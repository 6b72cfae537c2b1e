import { CHARS_PER_TOKEN } from "../core/tokens.ts";
import { isObject } from "../host/events.ts";

// Room in the model's context window for this turn's block (persistent memory spec §6, "Headroom
// Reserve"): max_injectable = window − headroom_reserve_tokens − what the prompt already holds.
// The adapters read the window from the host where it is given:
//   - the context engine's assemble() (2026.9.6): `tokenBudget`, the host's budget for the messages
//     (the window less its output reserve, system prompt and current prompt), and the history it
//     hands over; the history is what is already used;
//   - agent:bootstrap (2026.3.13 hook pack) and before_prompt_build (2026.9.6 without our engine): no
//     budget, so the model's `contextWindow` from openclaw.json (src/host/model-window.ts), less what
//     the hook can see of the prompt (the bootstrap files, the history).

export type HostWindow = {
  /** Tokens the prompt may hold: the host's budget for the messages, or the model's context window. */
  tokens: number;
  /** Of those, already taken by what the turn can see (history, bootstrap files). */
  usedTokens: number;
  source: "host-budget" | "model-config";
};

/** Messages counted at most (a history is never longer in practice; the bound keeps the work bounded). */
const MAX_MESSAGES_COUNTED = 20_000;

function textChars(value: unknown): number {
  if (typeof value === "string") return value.length;
  if (!Array.isArray(value)) return 0;
  let chars = 0;
  for (const part of value) {
    if (typeof part === "string") chars += part.length;
    else if (isObject(part)) {
      for (const key of ["text", "thinking", "arguments", "content"] as const) {
        const field = part[key];
        if (typeof field === "string") chars += field.length;
        else if (key === "content" && Array.isArray(field)) chars += textChars(field); // a tool result's parts
      }
    }
  }
  return chars;
}

/** Tokens of the host's messages (text, thinking, tool arguments and results; images not counted). Never throws. */
export function estimateMessagesTokens(messages: unknown): number {
  if (!Array.isArray(messages)) return 0;
  let chars = 0;
  try {
    for (const message of messages.slice(0, MAX_MESSAGES_COUNTED)) if (isObject(message)) chars += textChars(message.content);
  } catch {
    // a getter of a foreign object: count what was counted
  }
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** A window from numbers the host handed over, or undefined when they are not usable. */
export function hostWindow(tokens: unknown, usedTokens: number, source: HostWindow["source"]): HostWindow | undefined {
  if (typeof tokens !== "number" || !Number.isFinite(tokens) || tokens < 1) return undefined;
  return { tokens: Math.floor(tokens), usedTokens: Math.max(0, Math.floor(usedTokens)), source };
}

/** Tokens left for the block in the window after what is used and the headroom for the answer (may be ≤ 0). */
export function windowRoom(window: HostWindow, headroomTokens: number): number {
  return window.tokens - window.usedTokens - headroomTokens;
}
