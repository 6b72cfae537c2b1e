// "Forget that …" in chat (src/capture/forget-trigger.ts), both ways: requests in five languages,
// and what only sounds like one (don't forget, never forget, "forget it", questions, quotes).
import { describe, expect, it } from "vitest";
import { parseForgetRequest } from "../../src/capture/forget-trigger.ts";
import { skipReason } from "../../src/context/skip.ts";

const NAMED: [string, string][] = [
  ["Forget that my locker code is 4312", "my locker code is 4312"],
  ["forget my locker code", "my locker code"],
  ["Please forget about Jeff's IBAN.", "Jeff's IBAN"],
  ["Can you forget that my locker code is 4312?", "my locker code is 4312"],
  ["OK, forget that I like coffee", "I like coffee"],
  ["Thanks. Now forget that I like coffee, please", "I like coffee"],
  ["remove my locker code from your memory", "my locker code"],
  ["delete the memory about my locker code", "my locker code"],
  ["forget what I said about the dentist", "the dentist"],
  ["Olvida que mi código es 4312", "mi código es 4312"],
  ["olvídate de mi código de la taquilla", "mi código de la taquilla"],
  ["Vergiss, dass mein Spind-Code 4312 ist", "mein Spind-Code 4312 ist"],
  ["Oublie que mon code est 4312", "mon code est 4312"],
  ["忘掉我的储物柜密码", "我的储物柜密码"],
  ["把我的储物柜密码删掉", "我的储物柜密码"],
];

const LAST = ["delete that from memory", "Please delete that from your memory!", "forget what I just told you", "borra eso de tu memoria", "lösche das aus deinem Gedächtnis", "efface ça de ta mémoire", "把这条从记忆里删掉"];

const NOT_REQUESTS = [
  "Don't forget that the meeting is at 3",
  "never forget to water the plants",
  "I'll never forget that day",
  "I forget things easily",
  "forget it",
  "Forget that.",
  "Forget about it, I'll do it myself",
  "did you forget that my locker code is 4312?",
  "you forgot my locker code",
  "> forget that my locker code is 4312",
  "Remember that my locker code is 4312",
  "别忘了我的储物柜密码",
  "你忘了我的密码",
  // "Don't forget" in German and French asks to remember (bench/capture's de-pos-03, de-pos-04).
  "Vergiss nicht, dass der Klempner am Dienstag kommt",
  "Vergiss nicht, Mama morgen anzurufen",
  "Vergessen Sie nicht, dass das Büro freitags zu ist",
  "Oublie pas que le plombier vient mardi",
];

describe("forget requests", () => {
  it.each(NAMED)("%s → forget %s", (message, statement) => {
    expect(parseForgetRequest(message)).toMatchObject({ kind: "statement", statement });
  });

  it.each(LAST)("%s → the last captured fact", (message) => {
    expect(parseForgetRequest(message)).toMatchObject({ kind: "last" });
  });

  it.each(NOT_REQUESTS)("%s → no request", (message) => {
    expect(parseForgetRequest(message)).toBeUndefined();
  });

  it("a forget request gets no memory search in its own turn (it would bring the fact back); other messages still do", () => {
    const options = { minQueryChars: 3, skipTechnicalPrompts: true };
    expect(skipReason("Forget that my locker code is 4312", "forget locker code 4312", options)).toBe("forget-request");
    expect(skipReason("What is my locker code?", "locker code", options)).toBeUndefined();
  });
});
