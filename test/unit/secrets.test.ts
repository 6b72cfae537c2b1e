// The secret detector (src/memory/secrets.ts), both ways: what is a password, PIN, API key, card
// or account number, and what only looks like one (dates, phone numbers, prices, slip numbers,
// versions, a locker code).
import { describe, expect, it } from "vitest";
import { findSecrets, isSecretEntry, redactSecrets, redactSecretsByLine, secretKinds, withheldMarker, withoutWithheldMarkers } from "../../src/memory/secrets.ts";
import { seededRandom } from "../../bench/scale/vault.ts";

// [text, what it reads with the value withheld]
const SECRETS: [string, string][] = [
  ["my email password is hunter2", "my email password is [password withheld]"],
  ["remember that my email password is hunter2 and my username is jeff", "remember that my email password is [password withheld] and my username is jeff"],
  ["The wifi password for the router is correct horse battery staple.", "The wifi password for the router is [password withheld]."],
  ["my phone passcode is 1234", "my phone passcode is [password withheld]"],
  ["pwd hunter2! and more", "pwd [password withheld]! and more"], // a "!" before a space ends the sentence
  ["mein Passwort ist hunter2", "mein Passwort ist [password withheld]"],
  ["mi contraseña es Hunter2", "mi contraseña es [password withheld]"],
  ["mon mot de passe est soleil42", "mon mot de passe est [password withheld]"],
  ["我的密码是abc123", "我的密码是[password withheld]"],
  ["my bank PIN is 4321", "my bank PIN is [PIN withheld]"],
  ["PIN: 0815", "PIN: [PIN withheld]"],
  ["meine PIN lautet 1234", "meine PIN lautet [PIN withheld]"],
  ["the CVV is 123", "the CVV is [PIN withheld]"],
  ["my API key is sk-proj-abcdefghijklmnopqrstuvwx", "my API key is [API key withheld]"],
  ["the github token is ghp_abcdefghijklmnopqrstuvwxyz0123456789", "the github token is [API key withheld]"],
  ["access token = abcd1234efgh5678", "access token = [API key withheld]"],
  ["AKIAIOSFODNN7EXAMPLE is the aws key", "[API key withheld] is the aws key"],
  ["card 4111 1111 1111 1111 exp 12/28", "card [card number withheld] exp 12/28"],
  ["my visa is 4111111111111111", "my visa is [card number withheld]"],
  ["Amex 3782 822463 10005", "Amex [card number withheld]"],
  ["Jeff's new IBAN is DE89 3704 0044 0532 0130 00", "Jeff's new IBAN is [account number withheld]"],
  ["wire it to GB82WEST12345698765432 BIC WESTGB22", "wire it to [account number withheld] BIC WESTGB22"],
  ["my bank account number is 12345678", "my bank account number is [account number withheld]"],
  ["sort code 12-34-56", "sort code [account number withheld]"],
];

const NOT_SECRETS = [
  // the issue's own example: a locker code is not on the list
  "my locker code is 4312",
  "我的储物柜密码是4312", // a locker code in Chinese (密码 after 柜 or 门 is a code, not a password)
  "大门密码是0815",
  "Actually, my locker code is 5580 now",
  "the door code is 7788",
  // dates, times, phone numbers, prices, slips, versions, ids
  "my flight is on 2026-05-03",
  "the meeting is at 10:30",
  "call me at +1 415 555 0100",
  "phone 0151 23456789",
  "+49 1511 2345 6789",
  "Dr. Smith's number is 555-0100",
  "the boat costs $12,500.00",
  "my sailboat is moored at slip 14",
  "we run OpenClaw 2026.9.6",
  "version v1.2.3",
  "timestamp 1732623000000",
  "order 12345 shipped",
  "ISBN 978-3-16-148410-0",
  "tracking number 1Z999AA10123456784",
  "USPS 9400 1000 0000 0000 0000 00",
  "room 4111",
  "my son is 7",
  // the keyword without a value
  "I need to reset my password tomorrow",
  "I forgot my password",
  "my password is in my notes",
  "the password is wrong",
  "my passwords are stored in 1Password",
  "my PIN is the same as before",
  "the pin is on the map",
  "the secret to good bread is time",
  "the token is valid",
  "The key is patience",
  "my account is jeff@example.com",
  "the IBAN is on the invoice",
  // a card-shaped number that fails Luhn, an IBAN with a wrong check digit
  "4111 1111 1111 1112",
  "DE89 3704 0044 0532 0130 01",
];

describe("secrets: what is one", () => {
  it.each(SECRETS)("%s", (text, redacted) => {
    expect(findSecrets(text).length).toBeGreaterThan(0);
    expect(redactSecrets(text)).toBe(redacted);
    expect(isSecretEntry(text)).toBe(true);
  });

  it("names the kind, for log lines that never carry the value", () => {
    expect(secretKinds("PIN 4321 and IBAN DE89370400440532013000")).toEqual(["pin", "account-number"]);
    expect(secretKinds("my email password is hunter2")).toEqual(["password"]);
    expect(secretKinds("card 4111111111111111")).toEqual(["card-number"]);
  });

  it("finds several in one text and keeps what is between them", () => {
    expect(redactSecrets("PIN 4321, password: hunter2; card 4111111111111111")).toBe("PIN [PIN withheld], password: [password withheld]; card [card number withheld]");
  });

  it("withheld is withheld: a marker is no value, redacting twice changes nothing, and the marker alone marks the entry", () => {
    const once = redactSecrets("my email password is hunter2");
    expect(redactSecrets(once)).toBe(once);
    expect(findSecrets(once)).toEqual([]);
    expect(isSecretEntry(`- ${once} #knowledge <!-- confidence: 0.95 -->`)).toBe(true);
    // What follows a marker is not a value either: the tag, the comment, a JSON line's closing quote.
    expect(findSecrets(`- ${once} #knowledge <!-- confidence: 0.95 -->`)).toEqual([]);
    expect(findSecrets(JSON.stringify({ excerpt: `remember that ${once}` }))).toEqual([]);
    expect(withoutWithheldMarkers(once)).toBe("my email password is  ");
    expect(withheldMarker("account-number")).toBe("[account number withheld]");
  });
});

describe("secrets: what only looks like one", () => {
  it.each(NOT_SECRETS)("%s", (text) => {
    expect(findSecrets(text)).toEqual([]);
    expect(redactSecrets(text)).toBe(text);
    expect(isSecretEntry(text)).toBe(false);
  });
});

describe("secrets: a block redacted line by line", () => {
  const PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx4Uo\nq8hQk2d9\n-----END RSA PRIVATE KEY-----";

  it("reads as the whole text redacted at once, for blocks made of the table's lines (seeded)", () => {
    const random = seededRandom(11);
    const pieces = [...SECRETS.map(([text]) => text), ...NOT_SECRETS, "", "  ", "- [2026-11-27] my locker code is 4312", "pwd", "hunter2 and more", "PIN:", " 0815"];
    for (let round = 0; round < 300; round++) {
      const lines = Array.from({ length: 1 + Math.floor(random() * 12) }, () => pieces[Math.floor(random() * pieces.length)]);
      const text = lines.join(random() < 0.5 ? "\n" : "\n\n");
      expect(redactSecretsByLine(text), text).toBe(redactSecrets(text));
      // The second time comes from the kept lines.
      expect(redactSecretsByLine(text), text).toBe(redactSecrets(text));
    }
  });

  it("a private key, which runs across lines, is withheld whole", () => {
    const text = `## Memory\n- the deploy key:\n${PEM}\n- my locker code is 4312`;
    const redacted = redactSecretsByLine(text);
    expect(redacted).toBe(redactSecrets(text));
    expect(redacted).not.toContain("MIIEowIBAAKCAQEAx4Uo");
    expect(redacted).not.toContain("q8hQk2d9");
    expect(redacted).toContain("my locker code is 4312");
  });
});
