// "Forget that …" in the owner's chat: is this message a request to forget, and what does it name?
// Pure text functions (no I/O). The request has to open its sentence ("Forget that my locker code
// is 4312", "Please delete that from memory", "Can you forget my locker code?"), so "don't forget
// that …", "I'll never forget that day" and a quoted "> forget that" are not requests, and it has
// to name something: "forget it" and "forget about it" are idioms, not requests. Naming the last
// thing takes memory words ("delete that from memory", "forget what I just told you").
// English, Spanish, German, French and Chinese.

export type ForgetRequest =
  /** Forget what this names ("my locker code is 4312", "my locker code"). */
  | { kind: "statement"; statement: string; trigger: string }
  /** Forget the last captured fact ("delete that from memory"). */
  | { kind: "last"; trigger: string };

// Words that may open the sentence before the request: "Please", "OK, and", "Can you", "I want you to".
const LEAD_IN =
  /^(?:(?:please|pls|ok(?:ay)?|also|and|oh|hey|now|so|actually|wait|por favor|bitte|s'il te plaît|s'il vous plaît|stp|请|麻烦你?)[\s,，!！]*)*(?:(?:can|could|would|will) you(?: please)?\s+|i (?:want|need) you to\s+|(?:kannst|könntest) du(?: bitte)?\s+|(?:puedes|podrías)(?: por favor)?\s+|(?:peux|pourrais)[- ]tu\s+)?/iu;

// The object words that make "forget X" an idiom rather than a request.
const NO_OBJECT = /^(?:it|that|this|about it|about that|about this|everything|all that|it all|lo|eso|esto|es|das|ça|cela|ceci|它|这个|那个)?$/iu;
const MEMORY_PLACE = String.raw`(?:from|out of) (?:your |the |my )?memory|de (?:tu|la) memoria|aus (?:deinem|dem) (?:gedächtnis|speicher)|de (?:ta|la) mémoire|从(?:你的)?记忆(?:里|中)?`;

type Rule = { trigger: string; regex: RegExp; last?: boolean };

// Each rule reads one sentence (lead-in removed). Group 1, when present, is what to forget.
const RULES: Rule[] = [
  // The last thing said, named with memory words.
  { trigger: "delete-that-from-memory", last: true, regex: new RegExp(String.raw`^(?:delete|remove|erase|wipe|drop|clear|borra|elimina|lösch(?:e)?|efface|supprime)(?:lo|la)?\s*(?:that|this|it|eso|esto|das|es|ça|cela)?\s*(?:${MEMORY_PLACE})\s*$`, "iu") },
  { trigger: "forget-what-i-just-said", last: true, regex: /^forget (?:what i (?:just )?(?:said|told you)|the last thing (?:i (?:said|told you))?)\s*$/iu },
  { trigger: "zh-delete-memory", last: true, regex: /^(?:把(?:这|那)(?:个|条)?(?:从(?:你的)?记忆(?:里|中)?)?(?:删掉|删除|忘掉)|删除这条记忆|忘掉我刚才说的(?:话)?)$/u },
  // English.
  { trigger: "delete-from-memory", regex: new RegExp(String.raw`^(?:delete|remove|erase|wipe|drop|clear)\s+(.+?)\s+(?:${MEMORY_PLACE})$`, "iu") },
  { trigger: "delete-the-memory", regex: /^(?:delete|remove|erase)\s+(?:the |that |this )?(?:memory|fact|note|entry)\s+(?:that|about|of|saying)\s+(.+)$/iu },
  { trigger: "forget-that", regex: /^(?:forget|stop remembering)\b(?:\s+(?:about|that|the fact that|what i (?:said|told you) about|everything (?:about|i said about)))?\s*(.*)$/iu },
  // Spanish, German, French.
  { trigger: "es-olvida", regex: /^(?:olvida|olvídate|olvidate)(?:\s+(?:de|que|lo de|eso de))*\s*(.*)$/iu },
  // "Vergiss nicht, dass …" / "oublie pas …" are "don't forget" (a request to remember), not to forget.
  { trigger: "de-vergiss", regex: /^(?:vergiss|vergessen sie)\b(?![\s,]*nicht\b)[\s,]*(?:dass\s+|das mit\s+)?(.*)$/iu },
  { trigger: "fr-oublie", regex: /^(?:oublie|oubliez)\b(?!\s*pas\b)\s*(?:que\s+|qu'|ce que j'ai dit sur\s+)?(.*)$/iu },
  { trigger: "es-de-fr-delete", regex: new RegExp(String.raw`^(?:borra|elimina|lösch(?:e)?|efface|supprime)\s+(.+?)\s+(?:${MEMORY_PLACE})$`, "iu") },
  // Chinese: 忘掉/忘记 at the start (not 你忘了 "you forgot", not 别忘了 "don't forget"), 把…删掉.
  { trigger: "zh-forget", regex: /^(?:忘掉|忘记(?!了))(.*)$/u },
  { trigger: "zh-ba-forget", regex: /^把(.+?)(?:从(?:你的)?记忆(?:里|中)?)?(?:忘掉|忘了吧|删掉|删除)$/u },
];

/** Sentences of a message: split at . ! ? and CJK stops and line breaks; a decimal point does not split. */
function sentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+|[。！？\n]/u).map((s) => s.trim()).filter(Boolean);
}

/** What is left of the object once trailing courtesy and punctuation are gone. */
function tidyObject(text: string): string {
  return text
    .replace(new RegExp(String.raw`\s+(?:${MEMORY_PLACE})`, "iu"), "")
    .replace(/[\s,，]+(?:please|thanks|thank you|por favor|bitte|merci|谢谢)\s*$/iu, "")
    .replace(/[\s.!?。！？,，;；:：]+$/u, "")
    .trim();
}

/** The forget request in `message`, or undefined when the message does not ask to forget anything. */
export function parseForgetRequest(message: string): ForgetRequest | undefined {
  if (!message || message.length > 4000) return undefined;
  const straight = message.replace(/[\u2018\u2019\u02bc]/g, "'");
  for (const sentence of sentences(straight)) {
    const body = sentence.replace(LEAD_IN, "").replace(/[\s.!?。！？]+$/u, "");
    for (const rule of RULES) {
      const match = rule.regex.exec(body);
      if (!match) continue;
      if (rule.last) return { kind: "last", trigger: rule.trigger };
      const statement = tidyObject(match[1] ?? "");
      // "Forget about it, I'll do it myself": the idiom, whatever follows its clause.
      const firstClause = statement.split(/[,;，；—–]/u, 1)[0].trim();
      if (NO_OBJECT.test(firstClause) || statement.length < 3) continue;
      return { kind: "statement", statement, trigger: rule.trigger };
    }
  }
  return undefined;
}
