import cardValidator from "card-validator";
import { isValidIBAN } from "ibantools";
import { boundedMemo } from "../core/memo.ts";

// Secrets in memory text: passwords, PINs, API keys and tokens, card numbers and account numbers.
// The capture stores "my email password is [password withheld]" instead of the value, every
// excerpt the bundle writes (triage queue, CORRECTIONS.md, ETHOS_CONTEXT.md) is redacted the same
// way, and an entry that holds a secret (or the withheld marker) never fills the Recent-memory
// slot: it reaches the model only as a search hit, when the question asks for it.
//
// Two kinds of evidence, both needed to be precise:
//  - a keyword with its value ("PIN is 4321", "Passwort: hunter2", "密码是abc123"): the value must
//    look like one for that keyword (digits for a PIN, a key-shaped token for an API key, …), and
//    "the password is in the drawer" / "my PIN is the same" are not values;
//  - a value that proves itself without a keyword: a card number (issuer prefix, length and Luhn,
//    card-validator), an IBAN (country format and mod-97, ibantools), a key with a vendor prefix.
// A locker, door or gate code is not a secret by this list (docs/memory-hygiene.md, "Secrets").

export type SecretKind = "password" | "pin" | "api-key" | "card-number" | "account-number";

export type SecretSpan = { kind: SecretKind; start: number; end: number };

const LABEL: Record<SecretKind, string> = {
  password: "password",
  pin: "PIN",
  "api-key": "API key",
  "card-number": "card number",
  "account-number": "account number",
};

/** What a withheld value is replaced with: the fact stays readable ("my PIN is [PIN withheld]"). */
export function withheldMarker(kind: SecretKind): string {
  return `[${LABEL[kind]} withheld]`;
}

const WITHHELD = /\[(?:password|PIN|API key|card number|account number) withheld\]/;
const WITHHELD_ALL = new RegExp(WITHHELD.source, "g");

// ── keyword + value ──────────────────────────────────────────────────────────────────────────────

// Latin keywords need word edges (\b does not know "ñ"); CJK ones stand alone.
const latin = (words: string) => `(?<![\\p{L}\\p{N}_])(?:${words})(?![\\p{L}\\p{N}_])`;
const KEYWORDS: [SecretKind, string][] = [
  ["password", latin("pass(?:word|wort|phrase|code)s?|passwd|pwd|kennwort|contrase(?:ñ|n)a|clave|mot de passe|mdp") + "|(?<![柜门])密码|口令|パスワード"],
  ["pin", latin("pin(?:[ -]?(?:code|nummer|number|no))?|cvv2?|cvc2?|security code")],
  [
    "api-key",
    latin("(?:api|access|auth|bearer|refresh|session|personal access|app|client|secret|private|ssh|deploy|github|openai|anthropic|aws|stripe|slack)[ _-]?(?:key|token|secret)s?|api-?schlüssel|token|secret") +
      "|密钥|令牌",
  ],
  [
    "card-number",
    latin("(?:credit |debit )?card (?:number|no)|kreditkartennummer|kartennummer|n[uú]mero de (?:la )?tarjeta|num[ée]ro de (?:la )?carte") + "|银行卡号|卡号",
  ],
  [
    "account-number",
    latin("(?:bank )?account (?:number|no|#)|acct(?: no| number| #)?|routing (?:number|no)|sort code|iban|kontonummer|konto-?nr|n[uú]mero de cuenta|num[ée]ro de compte|rib") + "|银行账号|账号|账户",
  ],
];
const KEYWORD = new RegExp(KEYWORDS.map(([, source], i) => `(?<k${i}>${source})`).join("|"), "giu");

// What may stand between a keyword and its value: a short qualifier ("for the router"), then "is",
// ":", "=" and their German, Spanish, French and Chinese forms, then "now" or "still".
const QUALIFIER = /^[ \t]+(?:for|of|on|at|to|with|für|bei|von|de|del|para|pour|du|chez)[ \t]+[^\n,;:=.!?，。；：]{1,40}?(?=[ \t]*(?:[:：=]|\b(?:is|are|was|ist|lautet|es|est)\b))/iu;
const CONNECTOR = /^[ \t]*(?:[:：=]|-|→|(?:is|are|was|were|ist|lautet|war|es|era|est|était)(?![\p{L}])|是|为|為|は)[ \t]*[:：]?[ \t]*(?:(?:now|still|actually|jetzt|ahora|maintenant)[ \t]+|现在)?/iu;
const BARE_GAP = /^[ \t]*/;
// The value ends with its clause: punctuation, a conjunction, a tag, a comment or a bracket.
const CLAUSE_END = /[,;，。；\n]|[.!?](?=\s|$)|\s(?:and|but|or|und|aber|oder|y|pero|o|et|mais|ou)\s|\s#[a-z]|<!--|\s[([*]/iu;
const MAX_VALUE_CHARS = 80;
// A first word that says the sentence is about the secret, not its value: "my password is in my
// notes", "the PIN is the same", "Passwort ist falsch".
const NOT_A_VALUE = new Set(
  (
    "in on at under inside into behind with without the a an my your his her our their its this that these those it same wrong incorrect " +
    "expired changed not no none too still saved stored written required needed missing different weak strong new old case long short easy " +
    "hard reset locked empty blank ok okay fine secure safe somewhere here there set known shared also very unknown forgotten lost valid " +
    "invalid what where how why which who whatever something nothing anything going about like being on off der die das im ein eine mein " +
    "meine falsch el la los las en un una mi mis le les dans sur une mon ma mes faux"
  ).split(" "),
);

function firstWord(value: string): string {
  return (/^[\p{L}\p{N}]+/u.exec(value)?.[0] ?? "").toLowerCase();
}

/** The value after a keyword: its clause, cut at a conjunction or punctuation, trailing marks dropped. */
function clauseAt(text: string, from: number): string {
  const rest = text.slice(from, from + MAX_VALUE_CHARS + 1);
  const end = CLAUSE_END.exec(rest)?.index ?? rest.length;
  return rest.slice(0, Math.min(end, MAX_VALUE_CHARS)).replace(/[\s"'“”»)\]]+$/u, "");
}

const firstToken = (value: string) => /^\S+/.exec(value)?.[0].replace(/[.,;:!?"'”)]+$/u, "") ?? "";
const digitCount = (value: string) => (value.match(/\d/g) ?? []).length;

/** Key-shaped: no spaces, at least 8 characters, not a plain word (a digit, mixed case, or - _ in a long one). */
function looksLikeKey(token: string): boolean {
  if (token.length < 8 || /[^\x21-\x7e]/.test(token)) return false;
  return /\d/.test(token) || (token.length >= 12 && /[a-z]/.test(token) && /[A-Z]/.test(token)) || (token.length >= 16 && /[-_]/.test(token));
}

/** The part of a keyword's clause that is the secret, or undefined when the clause is not a value of that kind. */
function valueSpan(kind: SecretKind, clause: string, bare: boolean): number | undefined {
  if (!/[\p{L}\p{N}]/u.test(clause) || NOT_A_VALUE.has(firstWord(clause))) return undefined;
  const token = firstToken(clause);
  switch (kind) {
    case "password":
      // Without "is" or ":" only a token that cannot be an ordinary word ("pwd hunter2").
      if (bare) return /\d|[^\p{L}\p{N}]/u.test(token) && token.length >= 4 ? token.length : undefined;
      return clause.length;
    case "pin":
      return /^\d{3,12}$/.test(token) ? token.length : undefined;
    case "api-key":
      return looksLikeKey(token) ? token.length : undefined;
    case "card-number":
    case "account-number": {
      // Digits with separators and letters (IBAN, sort code): the run up to the first plain word.
      const run = /^[\p{Lu}\p{N}][\p{Lu}\p{N} ./-]*[\p{Lu}\p{N}]|^\p{N}/u.exec(clause)?.[0] ?? "";
      const needed = kind === "card-number" ? 12 : 5;
      return digitCount(run) >= needed ? run.length : undefined;
    }
  }
}

function keywordSecrets(text: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  for (const match of text.matchAll(KEYWORD)) {
    const groups = match.groups ?? {};
    const index = KEYWORDS.findIndex((_, i) => groups[`k${i}`] !== undefined);
    if (index === -1) continue;
    const kind = KEYWORDS[index][0];
    let at = (match.index ?? 0) + match[0].length;
    at += QUALIFIER.exec(text.slice(at, at + 60))?.[0].length ?? 0;
    const connector = CONNECTOR.exec(text.slice(at, at + 40));
    const bare = !connector;
    at += connector ? connector[0].length : (BARE_GAP.exec(text.slice(at))?.[0].length ?? 0);
    if (bare && at === (match.index ?? 0) + match[0].length) continue; // "passwords123": no gap, no value
    const length = valueSpan(kind, clauseAt(text, at), bare);
    if (length !== undefined && length > 0) spans.push({ kind, start: at, end: at + length });
  }
  return spans;
}

// ── values that prove themselves ─────────────────────────────────────────────────────────────────

// Groups of digits joined by single spaces or dashes, not after "+" (a phone number) or a digit.
const DIGIT_RUN = /(?<![\d+]|\+ |\d[ -])\d+(?:[ -]\d+)*/g;

/** A card number's grouping: one block, or blocks of four (the last 1–4), or 4-6-5 / 4-6-4. */
function cardGrouping(groups: readonly string[]): boolean {
  if (groups.length === 1) return true;
  const lengths = groups.map((g) => g.length);
  if (lengths.slice(0, -1).every((n) => n === 4) && lengths[lengths.length - 1] <= 4) return true;
  return lengths.length === 3 && lengths[0] === 4 && lengths[1] === 6 && (lengths[2] === 5 || lengths[2] === 4);
}

function isCardNumber(digits: string): boolean {
  if (digits.length < 13 || digits.length > 19) return false;
  return cardValidator.number(digits, { luhnValidateUnionPay: true }).isValid;
}

function cardSecrets(text: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  for (const run of text.matchAll(DIGIT_RUN)) {
    const start = run.index ?? 0;
    // One separator throughout (all spaces or all dashes), as cards are written.
    if (/ /.test(run[0]) && /-/.test(run[0])) continue;
    if (run[0].replace(/\D/g, "").length < 13) continue; // too short for any card (most runs: dates, prices, phones)
    const groups = run[0].split(/[ -]/);
    // The card may be followed by more numbers ("4111 1111 1111 1111 12 28"): try whole groups from the start.
    let offset = 0;
    for (let first = 0; first < groups.length; first++) {
      let found = false;
      for (let last = groups.length; last > first; last--) {
        const slice = groups.slice(first, last);
        const digits = slice.join("");
        if (digits.length < 13 || digits.length > 19 || !cardGrouping(slice) || !isCardNumber(digits)) continue;
        const length = slice.join(" ").length;
        spans.push({ kind: "card-number", start: start + offset, end: start + offset + length });
        found = true;
        break;
      }
      if (found) break;
      offset += groups[first].length + 1;
    }
  }
  return spans;
}

// Two letters, two check digits, then the account in blocks of up to four (spaces optional).
const IBAN_RUN = /(?<![\p{L}\p{N}])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{1,4}){3,8}(?![\p{L}\p{N}])/gu;

function ibanSecrets(text: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  for (const run of text.matchAll(IBAN_RUN)) {
    // A following word in capitals ("… 00 BIC COBADEFF") may have joined the run: shorten by blocks.
    const blocks = run[0].split(" ");
    for (let last = blocks.length; last >= 1; last--) {
      const candidate = blocks.slice(0, last).join(" ");
      if (!isValidIBAN(candidate.replace(/ /g, ""))) continue;
      spans.push({ kind: "account-number", start: run.index ?? 0, end: (run.index ?? 0) + candidate.length });
      break;
    }
  }
  return spans;
}

// Keys whose vendor prefix says what they are (OpenAI/Anthropic, GitHub, Slack, AWS, Google, GitLab,
// Stripe, npm, Hugging Face), JSON web tokens and PEM private keys.
const PREFIXED_KEY =
  /\bsk-[A-Za-z0-9_-]{20,}|\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}|\bgithub_pat_[A-Za-z0-9_]{40,}|\bxox[abprs]-[A-Za-z0-9-]{10,}|\bAKIA[0-9A-Z]{16}\b|\bAIza[0-9A-Za-z_-]{35}|\bglpat-[A-Za-z0-9_-]{20,}|\b[spr]k_(?:live|test)_[A-Za-z0-9]{16,}|\bnpm_[A-Za-z0-9]{36}\b|\bhf_[A-Za-z0-9]{30,}|\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g;

function prefixedKeys(text: string): SecretSpan[] {
  return [...text.matchAll(PREFIXED_KEY)].map((m) => ({ kind: "api-key" as const, start: m.index ?? 0, end: (m.index ?? 0) + m[0].length }));
}

// ── the public functions ─────────────────────────────────────────────────────────────────────────

// One pass that every text with a secret matches (a keyword's stem, twelve digits, an IBAN's start,
// a vendor prefix): most memory entries are turned away here, before the slower rules run.
const MAYBE =
  /pass|pwd|kennwort|contrase|clave|mot de passe|mdp|pin|cvv|cvc|security code|key|token|secret|schlüssel|card|karte|tarjeta|carte|account|acct|routing|sort code|iban|konto|cuenta|compte|rib|密|口令|令牌|账|卡号|パスワード|\d(?:[ -]?\d){11}|[A-Z]{2}\d{2}|sk-|gh[pousr]_|github_pat|xox|AKIA|AIza|glpat|[spr]k_|npm_|hf_|eyJ|BEGIN/i;

/** Every secret value in `text`, in order, overlaps merged (the earlier span's kind wins). */
export function findSecrets(text: string): SecretSpan[] {
  if (!text || !MAYBE.test(text)) return [];
  // A value already withheld is no value: "[password withheld]" must not read as "password" + value,
  // and what follows the marker is not the value either (";" ends the clause, same length kept).
  const masked = text.replace(WITHHELD_ALL, (marker) => `;${" ".repeat(marker.length - 1)}`);
  const all = [...keywordSecrets(masked), ...cardSecrets(masked), ...ibanSecrets(masked), ...prefixedKeys(masked)].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretSpan[] = [];
  for (const span of all) {
    const previous = merged[merged.length - 1];
    if (previous && span.start < previous.end) previous.end = Math.max(previous.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

/** `text` with every secret value replaced by its withheld marker ("my PIN is [PIN withheld]"). */
export function redactSecrets(text: string): string {
  let out = text;
  for (const span of findSecrets(text).reverse()) out = `${out.slice(0, span.start)}${withheldMarker(span.kind)}${out.slice(span.end)}`;
  return out;
}

const redactedLine = boundedMemo(4096, redactSecrets);

/**
 * redactSecrets for a text of many lines that come back again and again (the turn's memory block,
 * written to ETHOS_CONTEXT.md every turn): each line's result is kept. Only a PEM private key runs
 * across lines (every other value ends at its line), so a text with one is redacted whole.
 */
export function redactSecretsByLine(text: string): string {
  if (text.includes("-----BEGIN")) return redactSecrets(text);
  return text.split("\n").map(redactedLine).join("\n");
}

/** The kinds of secret in `text` (for log lines, which never carry the value). */
export function secretKinds(text: string): SecretKind[] {
  return [...new Set(findSecrets(text).map((span) => span.kind))];
}

/**
 * A memory that is about a secret: it holds a value, or the marker of a withheld one. Such an entry
 * never fills the Recent-memory slot; it reaches the model only when a search finds it.
 */
export function isSecretEntry(text: string): boolean {
  return WITHHELD.test(text) || findSecrets(text).length > 0;
}

/** `text` without withheld markers (what a withheld fact is matched on, e.g. by forget). */
export function withoutWithheldMarkers(text: string): string {
  return text.replace(WITHHELD_ALL, " ");
}
