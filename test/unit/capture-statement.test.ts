import { describe, expect, it } from "vitest";
import { MAX_FACTS_PER_MESSAGE, MAX_FACT_CHARS, echoesMessage, extractFact, extractFacts, ownWords, tidyStatement } from "../../src/capture/statement.ts";
import { keepsSentenceGoing, sentencesOf } from "../../src/capture/sentences.ts";
import { AFTER_RELATION, RELATION, VALUE, analyse, analyseWithSpans, changeOf, detectLanguage, flagOf, isRepeat, withNewValue } from "../../src/capture/relation.ts";
import { capturedFacts, capturedStatement, formatCapturedLine, isSupersededEntry, parseCapturedLine, replaceLine } from "../../src/capture/fact-line.ts";

// The pure parts of the capture: what a message asks to keep (statement.ts, sentences.ts) and how
// two statements relate (relation.ts). End-to-end cases are in capture-language.test.ts.

const statements = (text: string) => extractFacts(text).map((f) => f.statement);

describe("extractFacts: what is asked", () => {
  it("keeps the statement a trigger introduces, without trigger words, fillers or end punctuation", () => {
    expect(extractFacts("Please remember that my sailboat is moored at slip 14. Thanks!")).toEqual([
      { kind: "memory", statement: "my sailboat is moored at slip 14", tag: "#knowledge", trigger: "remember-that" },
    ]);
    expect(statements("don't forget to call mom tomorrow, please")).toEqual(["call mom tomorrow"]);
    expect(statements("Remember, the recycling goes out every other Thursday.")).toEqual(["the recycling goes out every other Thursday"]);
    expect(statements("For future reference, my frequent flyer number is LH 992 118")).toEqual(["my frequent flyer number is LH 992 118"]);
  });

  it("takes the words before a trigger that ends the sentence", () => {
    expect(statements("My gym membership number is 88213, remember that.")).toEqual(["My gym membership number is 88213"]);
    expect(statements("Actually, my gym number is 88213, remember that")).toEqual(["my gym number is 88213"]);
  });

  it("after a trigger ending in a colon: the list items that follow, else the next sentence", () => {
    expect(statements("Please remember these:\n- my blood type is A+\n* my doctor is Dr. Alvarez\n1. my dentist is Dr. Lee\nok?")).toEqual([
      "my blood type is A+",
      "my doctor is Dr. Alvarez",
      "my dentist is Dr. Lee",
    ]);
    expect(statements("Note to self:\nbuy milk on the way home\nand bread")).toEqual(["buy milk on the way home"]);
    // No colon: a bare trigger keeps nothing (the next sentence is not asked for).
    expect(statements("Remember this. The sky is blue.")).toEqual([]);
    // A next sentence that has its own trigger is read as its own.
    expect(statements("Note to self:\nRemember that the cat is fed")).toEqual(["the cat is fed"]);
  });

  it("splits '… and that …' into two statements, in every language", () => {
    expect(statements("Remember that my son's name is Leo and that he is allergic to peanuts")).toEqual(["my son's name is Leo", "he is allergic to peanuts"]);
    expect(statements("Recuerda que mi hijo se llama Leo y que es alérgico")).toEqual(["mi hijo se llama Leo", "es alérgico"]);
    expect(statements("Merk dir, dass mein Sohn Leo heißt und dass er allergisch ist")).toEqual(["mein Sohn Leo heißt", "er allergisch ist"]);
    expect(statements("Souviens-toi que mon fils s'appelle Léo et qu'il est allergique")).toEqual(["mon fils s'appelle Léo", "il est allergique"]);
  });

  it("keeps a clause trigger in its statement and tags decisions", () => {
    expect(extractFact("ok so we agreed to split the rent 60/40")).toMatchObject({ statement: "we agreed to split the rent 60/40", tag: "#decision", trigger: "we-agreed" });
    expect(extractFact("计划是早上六点出发")).toMatchObject({ statement: "计划是早上六点出发", tag: "#decision" });
    expect(extractFact("Decision: we ship on Friday")).toMatchObject({ statement: "we ship on Friday", tag: "#decision" });
    expect(extractFact("note to self: how to fix the sink")?.tag).toBe("#skill");
    expect(extractFact("Recuerda que la cita es mañana")?.tag).toBe("#event");
    expect(extractFact("记住明天开会")?.tag).toBe("#event");
    expect(extractFact("Remember that the party is on 2026-12-02")?.tag).toBe("#event");
    expect(extractFact("Remember that the cat is grey")?.tag).toBe("#knowledge");
  });

  it("a trigger right after another asks through the inner one; the outer one's tag stays", () => {
    expect(statements("Important: remember that the cat is fed")).toEqual(["the cat is fed"]);
    expect(extractFact("Decision: don't forget that we ship on Friday")).toMatchObject({ statement: "we ship on Friday", tag: "#decision" });
    expect(statements("Note to self: the plan is to leave at 6")).toEqual(["the plan is to leave at 6"]);
    // Two triggers in one sentence: the earlier one asks.
    expect(statements("Remember that he said don't forget the keys")).toEqual(["he said don't forget the keys"]);
    expect(statements("don't forget: keep in mind that the gate sticks")).toEqual(["the gate sticks"]);
  });

  it("after the list, the trigger's own sentence ends; a bare line after a colon-less trigger is not taken", () => {
    expect(statements("Remember these:\n- the cat is fed\n- the dog is walked\nthanks a lot for that")).toEqual(["the cat is fed", "the dog is walked"]);
    expect(statements("Re: note to self\nbuy milk")).toEqual([]);
    expect(statements("Note to self:x\nbuy milk")).toEqual([]);
    expect(statements("Note to self:")).toEqual([]);
  });

  it("a statement needs three characters and a letter or digit", () => {
    expect(statements("remember that cat")).toEqual(["cat"]);
    expect(statements("remember that ox")).toEqual([]);
    expect(statements("remember that ( ) ( )")).toEqual([]);
  });

  it("a clause trigger is not taken for a moment recalled", () => {
    expect(statements("We agreed day trips are fine")).toEqual(["We agreed day trips are fine"]);
  });

  it("at most MAX_FACTS_PER_MESSAGE facts, each once", () => {
    const many = Array.from({ length: MAX_FACTS_PER_MESSAGE + 3 }, (_, i) => `Remember that item ${i} is ready.`).join(" ");
    expect(extractFacts(many)).toHaveLength(MAX_FACTS_PER_MESSAGE);
    expect(statements("Remember that the cat is fed. Remember that the cat is fed!")).toEqual(["the cat is fed"]);
  });

  it("nothing from a message without a trigger or correction", () => {
    expect(extractFacts("What's the weather like in Lisbon?")).toEqual([]);
    expect(extractFacts("")).toEqual([]);
    expect(extractFacts("Remember that!")).toEqual([]);
  });
});

describe("extractFacts: what is not asked", () => {
  it.each([
    ["negated", "Please don't remember that I said my salary is 95k"],
    ["negated after the trigger (German)", "Merk dir nicht, dass mein Passwort 1234 ist"],
    ["negated, French", "Ne retiens pas que mon mot de passe est 1234"],
    ["asked", "Did you remember that the plumber comes on Tuesday"],
    ["asked, with a question mark", "Remember that the gate is open?"],
    ["asked, Chinese", "你记住我的生日了吗"],
    ["asked, Spanish", "¿Recuerda que mañana viene el fontanero?"],
    ["reported", "My boss told me to remember that the report is due Friday"],
    ["reported, Chinese", "老板告诉我记住周五之前要交方案"],
    ["reported, German", "Er hat gesagt, merk dir, dass der Zug um 7 fährt"],
    ["hypothetical", "What if I told you to remember that the moon is made of cheese"],
    ["hypothetical, Chinese", "假如让你记住月亮是奶酪做的"],
    ["the speaker's own remembering", "I remember that it rained all day"],
    ["the speaker's own remembering, Chinese", "好的，我记住了，谢谢"],
    ["a moment recalled", "remember that time we got lost in Rome lol"],
    ["a trigger inside code", "look: `remember that x is 1`"],
    ["a trigger inside a quote", 'He wrote "remember that the code is 1111" in the chat'],
    ["someone else's lines after 'X wrote:'", "Tom wrote:\nremember that the tickets are on Saturday"],
    ["what was agreed, asked without a question mark", "Remind me what we decided about the restaurant list for Saturday"],
    ["what was agreed, asked, a word between", "Tell me what exactly we agreed on for the budget"],
    ["what the plan is, asked", "I forgot where the plan is written down"],
    ["what was agreed, asked, Spanish", "Recuérdame qué hemos decidido para la cena"],
    ["what was agreed, asked, French", "Rappelle-moi ce qu'on a décidé pour samedi"],
  ])("%s", (_case, text) => {
    expect(extractFacts(text)).toEqual([]);
  });

  it("a clause trigger is still a fact where no question word comes before it", () => {
    expect(statements("Remind me: we decided to book the Italian place on Saturday")).toEqual(["we decided to book the Italian place on Saturday"]);
    expect(statements("So we agreed that the budget is 500 euros")).toEqual(["we agreed that the budget is 500 euros"]);
    expect(statements("Hemos decidido que la cena es el sábado")).toEqual(["Hemos decidido que la cena es el sábado"]);
    expect(statements("On a décidé que le dîner est samedi")).toEqual(["On a décidé que le dîner est samedi"]);
  });

  it("a polite request is asked even with a question mark; 'you' alone is not the speaker remembering", () => {
    expect(statements("Can you remember that my wife's birthday is June 3?")).toEqual(["my wife's birthday is June 3"]);
    expect(statements("Would you please remember that the gate code is 1234?")).toEqual(["the gate code is 1234"]);
    expect(statements("I need you to remember that the car is due for service")).toEqual(["the car is due for service"]);
    expect(statements("你记住，我老婆的生日是6月3日")).toEqual(["我老婆的生日是6月3日"]);
    expect(statements("帮我记住，我对青霉素过敏")).toEqual(["我对青霉素过敏"]);
  });

  it("after 'X wrote:' only the lines up to a blank line are someone else's", () => {
    expect(statements("Tom wrote:\nremember that the tickets are on Saturday\n\nRemember that I pay for them")).toEqual(["I pay for them"]);
  });
});

describe("extractFacts: corrections without a trigger", () => {
  it("a cue at the start or a change marker makes a correction; cue, 'now' and ', not …' are left out", () => {
    expect(extractFacts("Actually, my locker code is 5580 now")).toEqual([{ kind: "correction", statement: "my locker code is 5580", tag: "#knowledge", trigger: "correction" }]);
    expect(statements("No, my sister lives in Lyon, not Paris")).toEqual(["my sister lives in Lyon"]);
    expect(statements("The wifi password is now moonlight")).toEqual(["The wifi password is now moonlight"]);
    expect(statements("其实我的储物柜密码现在是5580")).toEqual(["我的储物柜密码现在是5580"]);
    expect(statements("En fait, mon code est maintenant 5580")).toEqual(["mon code est maintenant 5580"]);
    expect(statements("Eigentlich ist mein Spindcode jetzt 5580")).toEqual(["ist mein Spindcode jetzt 5580"]);
    expect(statements("En realidad, mi código ahora es 5580")).toEqual(["mi código ahora es 5580"]);
  });

  it("the cue is recognised in its own language, whatever the language of the rest", () => {
    const [fact, ...more] = extractFacts("En fait, my locker code is 5580 now");
    expect(more).toEqual([]);
    expect(fact).toMatchObject({ kind: "correction" });
    expect(fact.statement).toMatch(/^my locker code is 5580/);
  });

  it("in a message with a correction, a sentence with neither a cue nor a change marker is no correction", () => {
    expect(statements("The gym is nice. Actually, my locker code is 5580 now")).toEqual(["my locker code is 5580"]);
  });

  it("a question, a hypothetical or someone else's words is no correction", () => {
    expect(extractFacts("Actually, is the gym open now?")).toEqual([]);
    expect(extractFacts("Actually, if the gym is open now we go")).toEqual([]);
    expect(extractFacts("Actually, she said the gym is open now")).toEqual([]);
  });
});

describe("ownWords and tidyStatement", () => {
  it("cuts forwarded messages and quoted e-mails to the end, handed-over lines to the next blank line", () => {
    expect(ownWords("mine\n---------- Forwarded message ---------\ntheirs")).toBe("mine\n");
    expect(ownWords("mine\nOn Mon, Anna wrote:\ntheirs\n\nmine again")).toBe("mine\n\n\n\nmine again");
    expect(ownWords("mine\nTom wrote:\ntheirs")).toBe("mine\n\n");
    expect(statements("Remember that A is 1\nTom wrote:\nremember that B is 2")).toEqual(["A is 1"]);
    expect(ownWords("a\n[Forwarded from Jeff]\nb")).toBe("a\n");
    expect(ownWords("a\n转发的消息：\nb")).toBe("a\n");
    expect(ownWords("no handover here")).toBe("no handover here");
  });

  it("code, quotes and comments give way to a space or a line break; curly apostrophes are straightened", () => {
    expect(ownWords("a<!-- x -->b")).toBe("a b");
    expect(ownWords("a<!-- never closed")).toBe("a ");
    expect(ownWords("a\n```\ncode\n```\nb")).toBe("a\n\n\nb");
    expect(ownWords("a`x`b")).toBe("a b");
    expect(ownWords("> quoted\nmine")).toBe("\nmine");
    expect(ownWords('a"q"b')).toBe("a b");
    expect(ownWords("don\u2019t")).toBe("don't");
    expect(statements("N\u2019oublie pas que le plombier vient mardi")).toEqual(["le plombier vient mardi"]);
    expect(statements("note <!-- remember that x is 5")).toEqual([]);
  });

  it("one line, no comment markers, no controls or separators, bounded", () => {
    expect(tidyStatement(" # x")).toBe("x");
    expect(tidyStatement("#x")).toBe("x");
    expect(tidyStatement("12. item")).toBe("item");
    expect(tidyStatement(",, item ;;")).toBe("item");
    expect(tidyStatement("a<b")).toBe("a b");
    const words = `${"word ".repeat(60)}end`;
    expect(tidyStatement(words)).toBe(`${"word ".repeat(55).trimEnd()}…`);
    expect(tidyStatement("x".repeat(MAX_FACT_CHARS))).toBe("x".repeat(MAX_FACT_CHARS));
    const late = `${"a".repeat(168)} ${"b".repeat(200)}`;
    expect(tidyStatement(late)).toBe(`${late.slice(0, MAX_FACT_CHARS - 1)}…`);
    const early = `${"a".repeat(169)} ${"b".repeat(200)}`;
    expect(tidyStatement(early)).toBe(`${"a".repeat(169)}…`);
    expect(tidyStatement("x\u0085y\u2028z\u2029w\u009fv <!-- a --> `b`")).toBe("x y z w v !-- a -- b");
    expect(tidyStatement("• - 1. item")).toBe("item");
    expect(tidyStatement(`${"word ".repeat(80)}end`).length).toBeLessThanOrEqual(MAX_FACT_CHARS);
    expect(tidyStatement("x".repeat(400))).toBe(`${"x".repeat(MAX_FACT_CHARS - 1)}…`);
  });
});

describe("echoesMessage", () => {
  it("compares words, without the metadata comment and the tag, and only memories of 12 characters or more", () => {
    expect(echoesMessage("#knowledge my locker code is 4312", "so: my locker code is 4312")).toBe(true);
    expect(echoesMessage("- my locker<!-- x -->code is 4312", "my locker code is 4312")).toBe(true);
    expect(echoesMessage("locker 43129", "my locker 43129 here")).toBe(true);
    expect(echoesMessage("abcde fghij", "abcde fghij")).toBe(false);
    expect(echoesMessage("my locker code is 4312", "my locker code is 4313")).toBe(false);
  });
});

describe("sentences", () => {
  it("ends at . ! ? … and CJK stops, not inside numbers, abbreviations or initials", () => {
    expect(sentencesOf("A is 4.5 m. B is here! C? D… E")).toEqual(["A is 4.5 m.", "B is here!", "C?", "D…", "E"]);
    expect(sentencesOf("记住我的密码。还有，别忘了开会！好")).toEqual(["记住我的密码。", "还有，别忘了开会！", "好"]);
    expect(sentencesOf("Ask Dr. Smith. Mr. J. R. Hartley sold it. See No. 12. I said no. Then")).toEqual(["Ask Dr. Smith.", "Mr. J. R. Hartley sold it.", "See No. 12.", "I said no.", "Then"]);
    expect(sentencesOf('He said "stop." Then left.')).toEqual(['He said "stop."', "Then left."]);
    expect(sentencesOf("line one\r\n\nline two")).toEqual(["line one", "line two"]);
  });

  it("reads on before a lowercase word, after e.g./U.S., a street abbreviation, or a day number before a month", () => {
    expect(keepsSentenceGoing("Elm St.", " next month")).toBe(true);
    expect(keepsSentenceGoing("in the U.S.", " In 2019")).toBe(true);
    expect(keepsSentenceGoing("in der Hauptstr.", " 5 praktiziert")).toBe(true);
    expect(keepsSentenceGoing("am 3.", " Juni ist")).toBe(true);
    expect(keepsSentenceGoing("on the 3.", " Then")).toBe(false);
    expect(keepsSentenceGoing("See No.", " 12")).toBe(true);
    expect(keepsSentenceGoing("I said No.", " Then")).toBe(false);
    expect(keepsSentenceGoing("It is done.", " Then")).toBe(false);
    expect(keepsSentenceGoing("It is done!", " Then")).toBe(false);
  });

  it("an initial is one capital letter; a lone lowercase letter reads on only before another letter and full stop", () => {
    expect(keepsSentenceGoing("see (J.", " Smith)")).toBe(true);
    expect(keepsSentenceGoing("made in the USA.", " Then")).toBe(false);
    expect(keepsSentenceGoing("das ist z.", " B. gut")).toBe(true);
    expect(keepsSentenceGoing("4.5 m.", " 5 more")).toBe(false);
    expect(keepsSentenceGoing("it is ok.", " B. is next")).toBe(false);
    expect(keepsSentenceGoing("das ist z.", "B. gut")).toBe(true);
    expect(keepsSentenceGoing("das ist z.", " Ba. gut")).toBe(false);
    expect(keepsSentenceGoing("It is done.", "then more")).toBe(true);
    expect(keepsSentenceGoing("It is done.", "  then more")).toBe(true);
  });

  it("a day number is one or two digits; a number abbreviation reads on only before a digit", () => {
    expect(keepsSentenceGoing("am 23.", " Juni")).toBe(true);
    expect(keepsSentenceGoing("seit 2019.", " Juni war")).toBe(false);
    expect(keepsSentenceGoing("See No.", "12")).toBe(true);
    expect(keepsSentenceGoing("See No.", " Then 12")).toBe(false);
    expect(keepsSentenceGoing("Ask Dr. ", " Smith")).toBe(true);
    expect(keepsSentenceGoing("Ask Dr", " Smith")).toBe(false);
  });

  it("only the end of a long segment is looked at", () => {
    expect(keepsSentenceGoing(`${"word ".repeat(20)}Dr.`, " Smith")).toBe(true);
    expect(keepsSentenceGoing(`${"word ".repeat(20)}done.`, " Smith")).toBe(false);
  });

  it("a line of blanks or of stops alone adds no sentence; a sentence ending the line is kept", () => {
    expect(sentencesOf("  \n. \nGo. B")).toEqual([".", "Go.", "B"]);
    expect(sentencesOf("One. Two.")).toEqual(["One.", "Two."]);
  });
});

describe("relation: analysis", () => {
  it("content keys in order, values whole, stopwords and fillers out, English stemmed, flags per key", () => {
    const shape = analyseWithSpans("my locker code is now 4312");
    expect(shape.keys).toEqual(["locker", "code", "4312"]);
    expect([0, 1, 2].map((i) => flagOf(shape, i))).toEqual([0, 0, VALUE | AFTER_RELATION]);
    expect(flagOf(shape, 3)).toBe(0);
    expect(shape.spans).toEqual([
      [3, 9],
      [10, 14],
      [22, 26],
    ]);
    expect(analyse("she lives in Lyon")).toMatchObject({ keys: ["live", "lyon"], flags: String.fromCharCode(48 + RELATION, 48 + AFTER_RELATION) });
    expect(analyse("the meeting on 2026-05-03 at 8:15").keys).toEqual(["meet", "2026-05-03", "8:15"]);
  });

  it("polarity from negation words and n't, in every language", () => {
    expect(analyse("I don't like coffee")).toMatchObject({ negated: true, keys: ["like", "coffe"] });
    expect(analyse("I can't swim").keys).toEqual(["swim"]);
    expect(analyse("我不喜欢咖啡").negated).toBe(true);
    expect(analyse("ich mag keinen Kaffee").negated).toBe(true);
    expect(analyse("je n'aime pas le café").negated).toBe(true);
    expect(analyse("no me gusta el café").negated).toBe(true);
    expect(analyse("I like coffee").negated).toBe(false);
  });

  it("detects the language by Han characters, then function words and letters; English when nothing tells", () => {
    expect(detectLanguage("我的密码")).toBe("zh");
    expect(detectLanguage("mi hermana vive en Lyon")).toBe("es");
    expect(detectLanguage("meine Schwester wohnt in Lyon")).toBe("de");
    expect(detectLanguage("ma sœur habite à Lyon")).toBe("fr");
    expect(detectLanguage("my sister lives in Lyon")).toBe("en");
    expect(detectLanguage("Priya")).toBe("en");
  });

  it("only English words are stemmed, values never; one-letter words are left out; apostrophes split words, offsets kept", () => {
    expect(analyse("mis hermanas viven en Lyon").keys).toEqual(["hermanas", "viven", "lyon"]);
    expect(analyse("the run is 10kms").keys).toEqual(["run", "10kms"]);
    expect(analyse("vitamin D is low").keys).toEqual(["vitamin", "low"]);
    expect(analyse("my TV is on channel 12").keys).toEqual(["tv", "channel", "12"]);
    expect(analyseWithSpans("my son's school is Elm").spans).toEqual([
      [3, 6],
      [9, 15],
      [19, 22],
    ]);
    // n't is English: another language's analysis keeps the word and no negation.
    expect(analyseWithSpans("Sie sagt don't", "de")).toMatchObject({ keys: ["don"], negated: false });
    expect(analyseWithSpans("l'hôtel Ritz", "fr").spans).toEqual([
      [2, 7],
      [8, 12],
    ]);
    expect(analyse("the shop Don'tStop").negated).toBe(false);
  });

  it("content is order-free and counts each key once", () => {
    expect(isRepeat(analyse("my code, my code is 4312"), analyse("my code is 4312"))).toBe(true);
    expect(isRepeat(analyse("4312 is my locker code"), analyse("my locker code is 4312"))).toBe(true);
    expect(analyse("my code is 4312").words).toBe("code");
    expect(analyse("my locker code is 4312").words).toBe("code\u0001locker");
    expect(analyse("my code is blue").words).toBe("");
  });

  it("Chinese character by character, with multi-character fillers blanked (offsets kept)", () => {
    const shape = analyseWithSpans("其实密码现在是5580");
    expect(shape.keys).toEqual(["密", "码", "5580"]);
    expect(shape.spans[2]).toEqual([7, 11]);
  });
});

describe("relation: repeat and change", () => {
  const change = (older: string, newer: string, correction = false) => changeOf(analyse(older), analyse(newer), correction);

  it("a repeat is the same content with the same polarity", () => {
    expect(isRepeat(analyse("my locker code is 4312"), analyse("the locker code is 4312!"))).toBe(true);
    expect(isRepeat(analyse("I like coffee"), analyse("I do not like coffee"))).toBe(false);
    expect(isRepeat(analyse("the"), analyse("the"))).toBe(false);
  });

  it("the other polarity of the same content is a change", () => {
    expect(change("I like coffee", "I do not like coffee")).toEqual({ how: "polarity" });
    expect(change("my locker code is 4312", "my locker code is 4312")).toBeUndefined();
    expect(change("I like tea", "I don't like coffee")).toBeUndefined();
  });

  it("a number: the same words and one value that differs", () => {
    expect(change("my locker code is 4312", "my locker code is 5580")).toEqual({ how: "value", oldRange: [2, 3], newRange: [2, 3] });
    expect(change("mein Spindcode ist 4312", "ist mein Spindcode jetzt 5580")).toMatchObject({ how: "value" });
    expect(change("the bus at 8:15 leaves from gate 4", "the bus at 9:15 leaves from gate 5")).toBeUndefined();
    expect(change("my flight is on 2026-05-03", "my flight to Paris cost 300 euros")).toBeUndefined();
    expect(change("my son is 7", "my son Tom has 2 cats")).toBeUndefined();
    expect(change("4312", "5580")).toBeUndefined();
  });

  it("a short value between a shared start and end; a restatement needs a relation word before it", () => {
    expect(change("the wifi password is sunflower", "the wifi password is moonlight")).toEqual({ how: "value", oldRange: [2, 3], newRange: [2, 3] });
    expect(change("my sister lives in Paris", "my sister lives in Lyon")).toMatchObject({ how: "value" });
    expect(change("I like coffee", "I like tea")).toBeUndefined();
    expect(change("I prefer coffee in the morning", "I prefer tea in the morning", true)).toEqual({ how: "value", oldRange: [1, 2], newRange: [1, 2] });
    expect(change("the meeting with Anna is at 3pm", "the meeting with Bob is at 4pm", true)).toBeUndefined();
    expect(change("团队例会在周二", "团队例会在周四", true)).toEqual({ how: "value", oldRange: [5, 6], newRange: [5, 6] });
    expect(change("my home is in Hamburg Altona", "my home is in Bad Tölz near Munich", true)).toBeUndefined();
    expect(change("Anna likes red", "Tom likes blue", true)).toBeUndefined();
  });

  it("a correction may name only the attribute and the value", () => {
    expect(change("my sailboat is moored at slip 14 in Sausalito", "it's slip 22 now", true)).toEqual({ how: "value", oldRange: [3, 4], newRange: [1, 2] });
    expect(change("my sailboat is moored at slip 14", "it's slip 22 now")).toBeUndefined();
    expect(change("my sailboat is moored at slip 14", "it's slip 14 now", true)).toBeUndefined();
    expect(change("my sailboat is moored at slip 14", "it's pier 22 now", true)).toBeUndefined();
    expect(change("my sailboat is at slip 14", "slip and dock and pier and boat 22", true)).toBeUndefined();
    expect(change("my sailboat is at slip 14", "22 slip", true)).toBeUndefined();
  });

  it("a number may move with its words: the same words in another order and one value that differs", () => {
    expect(change("my locker code is 4312", "the code of my locker is 5580")).toEqual({ how: "value", oldRange: [2, 3], newRange: [2, 3] });
    expect(change("gate 4 code 4312", "code 4313 gate 5")).toBeUndefined();
    expect(change("the locker code is 4312", "the locker code is 4312 5580")).toBeUndefined();
    expect(change("my code is 12 and pin is 34", "my code is 13 and pin is 35")).toBeUndefined();
    expect(change("I don't have 2 cats", "I have 3 cats")).toBeUndefined();
  });

  it("nothing changes an empty statement or is changed by one", () => {
    expect(change("I like coffee", "")).toBeUndefined();
    expect(change("", "I like coffee")).toBeUndefined();
    expect(change("", "")).toBeUndefined();
  });

  it("a value between a shared start and end is one or two words (four Chinese characters), of one kind", () => {
    expect(change("my bike is red", "my bike is now blue")).toEqual({ how: "value", oldRange: [1, 2], newRange: [1, 2] });
    expect(change("my sister lives in Paris", "my sister lives in Santa Clara County", true)).toBeUndefined();
    expect(change("my sister lives in Santa Clara County", "my sister lives in Paris", true)).toBeUndefined();
    expect(change("my sister lives in Santa Clara", "my sister lives in Paris", true)).toEqual({ how: "value", oldRange: [2, 4], newRange: [2, 3] });
    expect(change("my dog is Rex", "my dog is 7", true)).toBeUndefined();
    expect(change("meeting at 3pm with Anna", "meeting at 4pm with Bob", true)).toBeUndefined();
    expect(change("my sister Anna lives in Paris", "my sister Anna works in Lyon")).toBeUndefined();
    expect(change("团队例会在周二", "团队例会在周四下午", true)).toEqual({ how: "value", oldRange: [5, 6], newRange: [5, 8] });
    expect(change("团队例会在周二", "团队例会在下周星期四下午", true)).toBeUndefined();    expect(change("my sister lives in Paris", "my sister lives in Santa Clara", true)).toEqual({ how: "value", oldRange: [2, 3], newRange: [2, 4] });
    expect(change("the meeting with Anna is at the office building", "the meeting with Bob is at the office building", true)).toEqual({ how: "value", oldRange: [1, 2], newRange: [1, 2] });
    // A shared end never reaches into the shared start: nothing is left between them to change.
    expect(change("tea pot", "tea pot sugar pot", true)).toBeUndefined();
    expect(change("tea pot sugar pot", "tea pot", true)).toBeUndefined();
    // A restatement needs the relation word before the value on both sides.
    expect(change("my bike is red", "my bike blue")).toBeUndefined();
    expect(change("my bike red", "my bike is blue")).toBeUndefined();
  });

  it("a statement without content words neither changes nor is changed, whatever its polarity", () => {
    expect(change("I do", "I don't")).toBeUndefined();
    expect(change("I don't", "I do", true)).toBeUndefined();
  });

  it("an elliptic correction names the attribute right before its one value, and a value the older statement does not have", () => {
    expect(change("code 4312 locker", "code 5580", true)).toEqual({ how: "value", oldRange: [1, 2], newRange: [1, 2] });
    expect(change("slip 14 is where my boat is", "slip 22", true)).toEqual({ how: "value", oldRange: [1, 2], newRange: [1, 2] });
    expect(change("code 4312 slip", "slip 22", true)).toBeUndefined();
    expect(change("my sailboat is at slip 14", "slip 22 23", true)).toBeUndefined();
    expect(change("my sailboat is at slip 14", "slip 14 22", true)).toBeUndefined();
    expect(change("my sailboat is at slip 14", "22", true)).toBeUndefined();
    expect(change("my sailboat is at slip 14", "22 slip", true)).toBeUndefined();
    expect(change("my sailboat is at slip 14 near boat dock", "boat dock slip 22", true)).toEqual({ how: "value", oldRange: [2, 3], newRange: [3, 4] });
    expect(change("my sailboat is at slip 14 near boat dock", "sailboat boat dock slip 22", true)).toBeUndefined();
  });

  it("withNewValue puts the newer value into the older statement; a polarity change is the newer statement", () => {
    const older = "my sailboat is moored at slip 14 in Sausalito";
    const newer = "it's slip 22 now";
    expect(withNewValue(older, newer, change(older, newer, true)!)).toBe("my sailboat is moored at slip 22 in Sausalito");
    expect(withNewValue("my dentist is Dr. Lee", "my dentist is Dr. Park now", change("my dentist is Dr. Lee", "my dentist is Dr. Park now", true)!)).toBe("my dentist is Dr. Park");
    expect(withNewValue("我的储物柜密码是4312", "其实我的储物柜密码现在是5580", change("我的储物柜密码是4312", "其实我的储物柜密码现在是5580", true)!)).toBe("我的储物柜密码是5580");
    expect(withNewValue("I like coffee", "I don't like coffee", { how: "polarity" })).toBe("I don't like coffee");
  });
});

describe("fact lines", () => {
  const line = formatCapturedLine("my code is 1", "#knowledge", { confidence: 0.95, source: "operator", mentions: 1, last: new Date("2026-11-25") }, "2026-11-25T10:00:00.000Z");

  it("parses back what it formats; the light parse gives statement and status", () => {
    expect(parseCapturedLine(line)).toMatchObject({ statement: "my code is 1", tag: "#knowledge", capturedAt: "2026-11-25T10:00:00.000Z", superseded: false });
    expect(capturedStatement(line.replace("mentions: 1", "mentions: 1 status: superseded"))).toEqual({ statement: "my code is 1", superseded: true });
    expect(capturedStatement("- an agent note")).toBeUndefined();
    expect(capturedStatement("captured: - x")).toBeUndefined();
    expect(capturedStatement("- not ours captured: x")).toBeUndefined();
    expect(parseCapturedLine("- an agent note captured: x")).toBeUndefined();
  });

  it("a line is ours only as '- statement #tag <!-- … captured: time … -->', with nothing after the comment but blanks", () => {
    expect(parseCapturedLine("- x y #event <!-- captured:\t2026-11-25T10:00:00.000Z -->")).toEqual({
      line: "- x y #event <!-- captured:\t2026-11-25T10:00:00.000Z -->",
      statement: "x y",
      tag: "#event",
      meta: {},
      capturedAt: "2026-11-25T10:00:00.000Z",
      superseded: false,
    });
    expect(parseCapturedLine(`${line} \t`)?.statement).toBe("my code is 1");
    expect(parseCapturedLine(`${line} more`)).toBeUndefined();
    expect(parseCapturedLine(line.replace("captured:", "uncaptured:"))).toBeUndefined();
    expect(parseCapturedLine(line.replace("#knowledge", "#note"))).toBeUndefined();
    expect(parseCapturedLine(` ${line}`)).toBeUndefined();
    expect(capturedStatement(`${line} more`)).toBeUndefined();
    expect(capturedStatement(`-${line.slice(1)}`)).toEqual({ statement: "my code is 1", superseded: false });
    expect(parseCapturedLine(line.replace("mentions: 1", "mentions: 1 status: SUPERSEDED"))?.superseded).toBe(true);
  });

  it("capturedFacts reads every captured line of a day file, CRLF or LF, newest (lowest) first", () => {
    const other = line.replace("my code is 1", "my code is 2");
    expect(capturedFacts(`# 2026-11-25\r\n${line}\r\n- an agent note\n${other}\n`).map((fact) => fact.statement)).toEqual(["my code is 2", "my code is 1"]);
    expect(capturedFacts("")).toEqual([]);
  });

  it("isSupersededEntry: status superseded inside a metadata comment, any case, as whole words", () => {
    expect(isSupersededEntry("- x <!-- confidence: 1 Status:\tSuperseded captured: y -->")).toBe(true);
    expect(isSupersededEntry("- x status: superseded")).toBe(false);
    expect(isSupersededEntry("- x <!-- status:superseded -->")).toBe(true);
    expect(isSupersededEntry("- x <!-- mystatus: superseded -->")).toBe(false);
    expect(isSupersededEntry("- x <!-- status: supersededly -->")).toBe(false);
    expect(isSupersededEntry("- x <!-- status: active --> superseded -->")).toBe(false);
  });

  it("replaceLine replaces a whole line only (CRLF kept), or says it is not there", () => {
    expect(replaceLine("a\nb\nc", "b", "B")).toBe("a\nB\nc");
    expect(replaceLine("a\r\nb\r\n", "b", "B")).toBe("a\r\nB\r\n");
    expect(replaceLine("ab\nb", "b", "B")).toBe("ab\nB");
    expect(replaceLine("bc\nb", "b", "B")).toBe("bc\nB");
    expect(replaceLine("b", "b", "B")).toBe("B");
    expect(replaceLine("a\nb\r", "b", "B")).toBe("a\nB\r");
    expect(replaceLine("b\rx", "b", "B")).toBeNull();
    expect(replaceLine("abc", "b", "B")).toBeNull();
  });
});
