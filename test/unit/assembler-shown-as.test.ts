import { describe, expect, it } from "vitest";
import { factKey, shownAs, shownMemory } from "../../src/context/assembler.ts";
import { echoesMessage, echoesOf } from "../../src/capture/statement.ts";
import { seededRandom } from "../../bench/scale/vault.ts";

// shownAs decides which memory a block shows once: "the same words, or one text holds the other
// whole, word for word". Checked against that rule written plainly, on random texts.

const WORDS = ["my", "locker", "code", "is", "4312", "cat", "miso", "lock", "er", "codes", "the", "blue", "door"];

function sentence(random: () => number, maxWords: number): string {
  const n = 1 + Math.floor(random() * maxWords);
  return Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(random() < 0.2 ? ", " : " ");
}

/** The rule as the docs state it: equal keys, or one key holds the other between word edges (long enough to mean something). */
function plainShownAs(text: string, shown: readonly { key: string; id: string }[]): string | undefined {
  const key = factKey(text);
  if (!key) return undefined;
  const holds = (outer: string, inner: string) => (inner.length >= 24 || inner.split(" ").length >= 4) && ` ${outer} `.includes(` ${inner} `);
  return shown.find((other) => other.key === key || holds(other.key, key) || holds(key, other.key))?.id;
}

describe("shownAs", () => {
  it("finds the shown memory a text repeats exactly as the plain rule does", () => {
    const random = seededRandom(3);
    let found = 0;
    for (let round = 0; round < 3000; round++) {
      const shown = Array.from({ length: 1 + Math.floor(random() * 4) }, (_, i) => shownMemory(`- [2026-11-26] ${sentence(random, 8)}`, `m${i}`));
      // Often a span of a shown memory's words, or one with words around it (what repeats look like).
      const source = shown[Math.floor(random() * shown.length)].key.split(" ");
      const from = Math.floor(random() * source.length);
      const span = source.slice(from, from + 1 + Math.floor(random() * source.length)).join(" ");
      const roll = random();
      const words = roll < 0.3 ? span : roll < 0.5 ? `${sentence(random, 2)} ${span} ${sentence(random, 2)}` : sentence(random, 8);
      const text = `- [2026-11-25] ${words}`;
      const expected = plainShownAs(text, shown);
      if (expected !== undefined) found++;
      expect(shownAs(text, shown)).toBe(expected);
    }
    expect(found).toBeGreaterThan(200); // both answers were exercised
    expect(found).toBeLessThan(2700);
  });

  it("never matches half a word", () => {
    expect(shownAs("- my locker code is 4312", [shownMemory("so my locker code is 43120 now", "a")])).toBeUndefined();
    expect(shownAs("- my locker code is 4312", [shownMemory("so my locker code is 4312 now", "a")])).toBe("a");
  });
});

describe("echoesOf", () => {
  it("answers as echoesMessage does, for one message and many memories", () => {
    const random = seededRandom(5);
    const message = `remember that ${sentence(random, 12)}`;
    const echoes = echoesOf(message);
    let echoed = 0;
    for (let i = 0; i < 500; i++) {
      const memory = random() < 0.5 ? message.split(" ").slice(2 + Math.floor(random() * 3)).join(" ") : sentence(random, 6);
      const expected = echoesMessage(memory, message);
      if (expected) echoed++;
      expect(echoes(`${memory} #knowledge <!-- c:0.9 -->`)).toBe(echoesMessage(`${memory} #knowledge <!-- c:0.9 -->`, message));
      expect(echoes(memory)).toBe(expected);
    }
    expect(echoed).toBeGreaterThan(50);
  });
});
