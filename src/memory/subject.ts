import { analyzeText } from "./tokenize.ts";

// Inference questions (issue 29, LoCoMo's "open-domain"): "Would Melanie enjoy Vivaldi?", "What
// job might Maria pursue?", "Is it likely that Nate has friends besides Joanna?". The memory that
// answers rarely shares the question's topic words; it is what the question's subject likes, does
// habitually or plans ("Melanie plays the clarinet and loves classical music"). So for such a
// question, an entry about the person the query names (src/memory/rerank.ts `entityOf`) that states
// a liking, a habit, a value or a plan is lifted by a bounded factor, whatever words it shares.

// "would", "might", "likely", "probably", "could": the question asks for an inference, not a fact.
// "may" only as "may be" (a month otherwise, or a modal in a plain request).
const INFERENCE = /\b(?:would(?:n['’]?t)?|might|likely|unlikely|probably|could|may be|considered)\b/i;

export function isInferenceQuestion(query: string): boolean {
  return INFERENCE.test(query);
}

// What people say about their likes, habits, values and plans, as the analyser stems it.
const DISPOSITION_WORDS = [
  "love", "loves", "loved", "enjoy", "enjoys", "likes", "liked", "favorite", "favourite", "passion", "passionate",
  "hobby", "hobbies", "fan", "fond", "adore", "keen", "interested", "interest", "prefer", "prefers",
  "dream", "dreams", "plan", "plans", "want", "wants", "hope", "hopes", "wish", "goal", "goals",
  "value", "values", "believe", "believes", "usually", "often", "always", "every", "regularly",
];
export const DISPOSITION_TERMS: ReadonlySet<string> = new Set(analyzeText(DISPOSITION_WORDS.join(" ")));

/** Does an entry (its analysed terms, asked one by one) state a liking, habit, value or plan? */
export function statesDisposition(has: (term: string) => boolean): boolean {
  for (const term of DISPOSITION_TERMS) if (has(term)) return true;
  return false;
}
