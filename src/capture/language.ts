import { deu, eng, fra, spa } from "stopword";

// What a message has to say, word for word, before the capture keeps a fact from it: data only,
// per language (English, Chinese, Spanish, German, French). statement.ts and relation.ts apply it.
// Every pattern is a fixed V8 regex without nested quantifiers (linear per start position) and runs
// on the operator's own words of one bounded message. Patterns use \b where the letter next to it is
// ASCII; next to an accented letter (where \b sees no edge) they spell the edge out with
// (?<![\wÀ-ÿ]) and (?![\wÀ-ÿ]).

export type Lang = "en" | "zh" | "es" | "de" | "fr";
export const LANGS: readonly Lang[] = ["en", "zh", "es", "de", "fr"];

/**
 * A phrase that asks to keep something. `intro`: the statement follows it ("remember that …",
 * "merk dir, dass …"); `clause`: it is part of the statement ("we agreed to …", "计划是…").
 */
export type Trigger = {
  id: string;
  /** Lowercase text one of which every match contains: a cheap test before the pattern runs. */
  anchors: readonly string[];
  lang: Lang;
  shape: "intro" | "clause";
  decision?: boolean;
  pattern: RegExp;
};

const intro = (id: string, anchors: string[], lang: Lang, pattern: RegExp, decision = false): Trigger => ({ id, anchors, lang, shape: "intro", decision, pattern });
const clause = (id: string, anchors: string[], lang: Lang, pattern: RegExp): Trigger => ({ id, anchors, lang, shape: "clause", decision: true, pattern });

export const TRIGGERS: readonly Trigger[] = [
  // English. "remember when …" is a memory shared, never a fact to keep: not a trigger here.
  intro("remember-that", ["remember"], "en", /\bremember(?:\s+(?:that|this|these|the following)\b|\s*[,:])/i),
  intro("dont-forget", ["forget"], "en", /\b(?:don't|dont|do not|never)\s+forget\b(?:\s+(?:that|to)\b)?/i),
  intro("note-to-self", ["note to self"], "en", /\bnote to self\b(?:\s+that\b)?/i),
  intro("make-a-note", [" a note"], "en", /\b(?:make|take) a note\b(?:\s+(?:that|of)\b)?/i),
  intro("keep-in-mind", ["in mind"], "en", /\b(?:keep|bear) in mind\b(?:\s+that\b)?/i),
  intro("for-reference", ["for future reference", "for the record"], "en", /\bfor (?:future reference|the record)\b/i),
  intro("important", ["important"], "en", /\bimportant:/i),
  intro("decision", ["decision"], "en", /\bdecision:/i, true),
  clause("we-agreed", ["we agreed", "we decided"], "en", /\bwe (?:agreed|decided)\b/i),
  clause("the-plan-is", ["the plan is"], "en", /\bthe plan is\b/i),
  // Chinese
  intro("zh-remember", ["记", "忘", "重要", "备忘"], "zh", /(?:请|帮我)?记(?:住|一下|下来)|帮我记|(?:别|不要)忘(?:了|记)|重要[:：]|备忘[:：]/),
  intro("zh-decision", ["决定"], "zh", /决定[:：]/, true),
  clause("zh-agreed", ["我们"], "zh", /我们(?:说好|约好|商量好|定好|决定)/),
  clause("zh-plan", ["计划是"], "zh", /计划是/),
  // Spanish
  intro("es-remember", ["recuerd", "acuérd", "acuerd"], "es", /\b(?:recuerda|recuerde|acuérdate|acuerdate|acuérdese)\b(?:\s+(?:de\s+)?que\b|\s+esto\b|\s*[,:])/i),
  intro("es-dont-forget", ["olvides"], "es", /\bno\s+(?:te\s+)?olvides\b(?:\s+(?:de\s+)?que\b|\s+de\b)?/i),
  intro("es-keep-in-mind", ["en cuenta"], "es", /\bten(?:ga)? en cuenta\b(?:\s+que\b)?/i),
  intro("es-note", ["apunta", "anota", "toma nota", "nota para"], "es", /\b(?:apunta|anota|toma nota)\b(?:\s+(?:de\s+)?que\b|\s*:)|\bnota para m[ií](?![\wÀ-ÿ])\s*:?/i),
  intro("es-important", ["importante"], "es", /\bimportante\s*:/i),
  intro("es-decision", ["decisi"], "es", /\bdecisi[oó]n\s*:/i, true),
  clause("es-agreed", ["acordado", "quedado en", "decidido", "quedamos en"], "es", /\b(?:hemos|habíamos) (?:acordado|quedado en|decidido)\b|\bquedamos en\b/i),
  clause("es-plan", ["el plan es"], "es", /\bel plan es\b/i),
  // German
  intro("de-remember", ["merk", "denk"], "de", /\b(?:merke?\s+dir|merken sie sich)\b(?:\s+(?:bitte|auch|mal))*(?:\s*,?\s*dass\b|\s*:)?|\bdenke? (?:daran|dran)\b(?:\s*,?\s*dass\b|\s*:)?/i),
  intro("de-dont-forget", ["vergiss", "vergessen"], "de", /\bvergiss(?:\s+(?:bitte|auch))*\s+nicht\b(?:\s*,?\s*dass\b)?|\bnicht vergessen\s*[:!]/i),
  intro("de-keep-in-mind", ["behalt"], "de", /\bbehalte? im (?:hinter)?kopf\b(?:\s*,?\s*dass\b)?/i),
  intro("de-note", ["notiz an mich"], "de", /\bnotiz an mich\b/i),
  intro("de-important", ["wichtig"], "de", /\bwichtig\s*:/i),
  intro("de-decision", ["entscheidung"], "de", /\bentscheidung\s*:/i, true),
  clause("de-agreed", ["wir haben"], "de", /\bwir haben (?:vereinbart|abgemacht|beschlossen|entschieden)\b/i),
  clause("de-plan", ["der plan ist"], "de", /\bder plan ist\b/i),
  // French
  intro("fr-remember", ["souvien", "rappel", "retien", "retenez"], "fr", /\b(?:souviens-toi|rappelle-toi|souvenez-vous|rappelez-vous)(?:\s+(?:bien\s+)?(?:que\b|qu'|de ceci\b)|\s*[,:])|\b(?:retiens|retenez)(?:\s+bien)?(?:\s+(?:que\b|qu'|ceci\b)|\s*:)/i),
  intro("fr-dont-forget", ["oublie"], "fr", /\bn'oublie(?:z)? pas\b(?:\s+(?:que\b|qu'|de\b|d')|\s*:)?/i),
  intro("fr-note", ["note"], "fr", /\bnote(?:z)?\s+(?:bien\s+)?(?:que\b|qu')|\bprends? note\b(?:\s+(?:que\b|qu'))?|\bnote pour moi\b/i),
  intro("fr-keep-in-mind", ["garde"], "fr", /\bgarde(?:z)? (?:en tête|à l'esprit)\b(?:\s+(?:que\b|qu'))?/i),
  intro("fr-important", ["important"], "fr", /\bimportant\s+:/i),
  intro("fr-decision", ["décision"], "fr", /\bdécision\s*:/i, true),
  clause("fr-agreed", ["convenu", "décidé", "d'accord"], "fr", /\b(?:on a|nous avons) (?:convenu|décidé)(?![\wÀ-ÿ])|\bon s'est mis d'accord\b/i),
  clause("fr-plan", ["le plan"], "fr", /\ble plan (?:est|c'est)\b/i),
];

/** How one language marks what is not a fact to keep. Each pattern is described where it is used. */
export type LanguageRules = {
  /** Before the trigger: a negation ("don't remember that", "不要记住"). */
  negatedBefore: RegExp;
  /** Right after the trigger: a negation ("merk dir das nicht"). */
  negatedAfter: RegExp;
  /** The sentence asks ("do you remember that …", "你记住了吗", "¿…?"). */
  question: RegExp;
  /** Before the trigger: a polite request, which a question mark does not turn into a question. */
  request: RegExp;
  /** Before the trigger: someone else's words ("she said", "老板告诉我"). */
  reportedBefore: RegExp;
  /** Before the trigger: a hypothetical ("if I ever say", "假如", "angenommen"). */
  hypotheticalBefore: RegExp;
  /**
   * Right before a clause trigger: a question word that makes the clause the object of a question
   * ("remind me what we decided", "ce qu'on a décidé"): the message asks what was agreed.
   */
  askedBefore: RegExp;
  /** Before the trigger: the speaker remembering, not asking ("I'll remember that", "我记住了"). */
  selfBefore: RegExp;
  /** Right after "remember that/this": a moment shared, not a fact ("remember that time we …"). */
  reminiscenceAfter: RegExp;
  /** Words at the seam after the trigger, and at the statement's end. */
  leadingFiller: RegExp;
  trailingFiller: RegExp;
  /** "… and that …": a second statement after the same trigger. */
  andThat: RegExp;
  /** A correction without a trigger: the cue at the start ("actually, …") or a change marker ("… now"). */
  correctionStart: RegExp;
  correctionMarker: RegExp;
  /** ", not Paris" at the end of a correction. */
  notTail: RegExp;
  /** "… now" at the end of a correction: the change, not the fact. */
  changeTail: RegExp;
  /** Words that turn a statement around; relation words (copulas, single-valued verbs); words a restatement adds. */
  negations: ReadonlySet<string>;
  relations: ReadonlySet<string>;
  fillers: ReadonlySet<string>;
  /** Filler made of several characters where words are not spaced (Chinese "现在"), blanked before the words are read. */
  fillerPhrases?: RegExp;
  stopwords: ReadonlySet<string>;
};

const words = (...lists: (readonly string[] | string)[]) =>
  new Set(lists.flatMap((list) => (typeof list === "string" ? list.split(" ") : [...list])).map((word) => fold(word)));

/** Lowercase without accents: "Código" and "codigo" are one word. */
export function fold(word: string): string {
  return /^[\x00-\x7f]*$/.test(word) ? word.toLowerCase() : word.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase();
}

/** Words of the English stopword list that carry the content of a fact ("I like coffee", "I never eat meat"). */
const EN_CONTENT = new Set("like never make take come came get got same other many more most much well way only".split(" "));

const EN_QUESTION_START =
  /^(?:(?:and|so|but|hey|wait|ok|okay|oh|um)[\s,]+)*(?:(?:do|did|does|don't|didn't|doesn't|have|haven't|has|hasn't|had|are|aren't|were|weren't|is|isn't|was|wasn't|can't|won't|shall|would)\s+(?:you|u|ya|i|we|they|he|she|it)\b|(?:why|how|what|when|where|who|which)\b)/i;

export const RULES: Record<Lang, LanguageRules> = {
  en: {
    negatedBefore: /\b(?:don't|dont|do not|never|no need to|needn't|not|shouldn't|mustn't|no reason to|stop)\b(?:\s+\S+){0,3}\s*$/i,
    negatedAfter: /(?!)/,
    question: new RegExp(`${EN_QUESTION_START.source}|[?]\\s*$`, "i"),
    request: /\b(?:can|could|will) you\b|\bwould you (?:please|kindly)\b/i,
    reportedBefore:
      /\b(?!i\b|we\b)[\p{L}'’]+\s+(?:(?:always|just|then|also|kept|keeps|once|even|literally|has|had|was|would)\s+)?(?:said|says|saying|told|tells|wrote|writes|texted|texts|messaged|emailed|asked|asks|replied|reminded)\b/iu,
    hypotheticalBefore: /\b(?:if|what if|suppose|supposing|imagine|pretend|hypothetically|let's say|lets say|in case|whenever|unless)\b/i,
    askedBefore: /\b(?:what|whatever|whether|how|why|when|where|which|who|whom)\b(?:\s+\S+){0,2}\s*$/i,
    selfBefore:
      /\b(?:(?:i|we|i'll|we'll|i'd|we'd|he|she|they)(?:\s+(?:will|would|can|can't|cannot|could|do|don't|did|didn't|still|always|also|just|really|totally|definitely|probably|never|try to|want to|need to|have to|might|may|should|must))*|you(?:'ll)?(?:\s+(?:will|would|can|do|did|still|always|also|just|really|never|might|may))*)\s*$/i,
    reminiscenceAfter: /^\s*(?:time|times|day|days|night|week|weekend|summer|winter|spring|autumn|fall|year|trip|party|evening|morning|afternoon|place|guy|girl|song|movie|restaurant|one)\b/i,
    leadingFiller: /^(?:[\s,;:：，、—–-]+|(?:that|this|these|the following|to|about|please|also|really)\b)+/i,
    trailingFiller: /(?:[\s,;:—–-]+|\b(?:please|pls|thanks|thank you|ok|okay|so|and|but|lol|haha)\b)+$/i,
    andThat: /,?\s+and\s+(?:also\s+)?that\s+/i,
    correctionStart: /^(?:actually|correction|update|scratch that|sorry|oops|wait|no|nope|not quite|to be precise|rather)\b[\s,:;!—–-]*/i,
    correctionMarker: /\b(?:now|no longer|anymore|changed to|switched to|from now on)\b/i,
    notTail: /,?\s+not\s+[^,.;]+$/i,
    changeTail: /\s+(?:now|anymore|these days|from now on)$/i,
    negations: words("not no never nobody nothing none cannot"),
    relations: words("is are was were am be been 's live lives lived living work works worked stay stays called named spelled spelt cost costs costed start starts begin begins open opens close closes end ends leave leaves land lands arrive arrives due"),
    fillers: words("now actually anymore currently still new old changed switched updated correction update instead"),
    stopwords: words(
      eng.filter((word) => !EN_CONTENT.has(word)),
      "i me you he him she her it its we us they them s t d ll re ve m also just really please",
    ),
  },
  zh: {
    negatedBefore: /(?:不要|别|不用|不必|无需|不需要|没必要|千万别|不准|不许)\s*$/,
    negatedAfter: /(?!)/,
    question: /[吗呢][\s。！!？?]*$|[？?]\s*$|是否|有没有/,
    request: /请|帮我|能不能|能否|可不可以|可以|麻烦/,
    reportedBefore: /(?<![我你])(?:说|讲|告诉我|告诉他|告诉她|写道|提醒我|叫我|让我)[:：,，\s]*$/,
    hypotheticalBefore: /如果|假如|假设|要是|万一|假使|倘若|想象|设想/,
    askedBefore: /(?!)/,
    selfBefore: /(?<![帮给替为让叫])我(?:会|要|能|得|已经|一定|都|也|肯定|就)*\s*$/,
    reminiscenceAfter: /^(?:那次|那天|那时|当时)/,
    leadingFiller: /^(?:[\s,;:：，、。—–-]+|这个|这件事|一下|下来|好了|了)+/,
    trailingFiller: /(?:[\s,;:：，、。！!—–-]+|谢谢|好吗|好不好|哦|啊|吧|呀|哈)+$/,
    andThat: /[，,]\s*(?:而且|并且)/,
    correctionStart: /^(?:其实|实际上|不对|不是的|不是|更正|纠正|更新|错了)[\s,，:：!！]*/,
    correctionMarker: /现在|改成|换成|改为|变成|不再/,
    notTail: /[，,]\s*不是[^，,。]+$/,
    changeTail: /(?:了)$/,
    negations: words("不 没 别 未"),
    relations: words("是 叫 在 住"),
    fillers: words(),
    fillerPhrases: /现在|其实|实际上|已经|改成|换成|改为|变成|目前/g,
    // 是, 在, 叫 relate a subject to its value (like "is"): relation words, not content.
    stopwords: words("我 你 他 她 它 的 了 着 过 吗 呢 吧 啊 也 都 就 和 与 及 个 这 那 们 得 地 很 还 又 是 在 叫"),
  },
  es: {
    negatedBefore: /\b(?:no|nunca|jamás)\s*$/i,
    negatedAfter: /(?!)/,
    question: /^¿|[?]\s*$/,
    request: /\b(?:puedes|podrías|podría|puede|podéis)\b/i,
    reportedBefore: /\b(?:dijo|dice|dijeron|decía|escribió|comentó|repetía|pidió|me dijo)\b/i,
    hypotheticalBefore: /\b(?:si|supongamos|suponiendo|imagina|imagínate|hipotéticamente|pongamos que)\b/i,
    askedBefore: /(?<![\wÀ-ÿ])(?:qué|cuándo|dónde|cómo|cuál|cuáles|quién|quiénes|por qué|lo que)(?![\wÀ-ÿ])(?:\s+\S+){0,2}\s*$/i,
    selfBefore: /\b(?:yo)\s*$/i,
    reminiscenceAfter: /^\s*(?:cuando|aquella|aquel)\b/i,
    leadingFiller: /^(?:[\s,;:—–-]+|(?:que|de que|esto|por favor|también)\b)+/i,
    trailingFiller: /(?:[\s,;:—–-]+|\b(?:por favor|gracias|vale)\b)+$/i,
    andThat: /,?\s+y\s+(?:también\s+)?(?:de\s+)?que\s+/i,
    correctionStart: /^(?:en realidad|corrección|actualización|perdón|no)\b[\s,:;!—–-]*/i,
    correctionMarker: /\b(?:ahora|ya no|cambió a|ha cambiado)\b/i,
    notTail: /,?\s+no\s+[^,.;]+$/i,
    changeTail: /\s+(?:ahora|ya)$/i,
    negations: words("no nunca jamas ni"),
    relations: words("es son era eran esta estan vive viven trabaja llama llamo cuesta costo empieza abre cierra sale llega"),
    fillers: words("ahora realidad actualmente nuevo nueva ya"),
    stopwords: words(spa, "y o de del la las el los un una unos unas en mi mis tu su al por para con que se me te le lo"),
  },
  de: {
    negatedBefore: /\b(?:nicht|nie|niemals|kein|keine)\s*$/i,
    negatedAfter: /^\s*(?:(?:das|es|dir|bitte)\s+)*nicht\b/i,
    question: /[?]\s*$|^(?:weißt du|erinnerst du|hast du|kannst du dich)\b/i,
    request: /\b(?:kannst du|könntest du|können sie|könnten sie)\b/i,
    reportedBefore: /\b(?:sagte|sagt|gesagt|schrieb|geschrieben|meinte|gemeint)\b/i,
    hypotheticalBefore: /\b(?:wenn|falls|angenommen|stell dir vor|stellen sie sich vor|hypothetisch|was wäre)\b/i,
    askedBefore: /\b(?:was|ob|wie|warum|wann|wo|welche[nmrs]?)\b(?:\s+\S+){0,2}\s*$/i,
    selfBefore: /\b(?:ich|wir)\s*$/i,
    reminiscenceAfter: /^\s*(?:als|wie wir)\b/i,
    leadingFiller: /^(?:[\s,;:—–-]+|(?:dass|bitte|auch|mal|folgendes)\b)+/i,
    trailingFiller: /(?:[\s,;:—–-]+|\b(?:bitte|danke|ok)\b)+$/i,
    andThat: /,?\s+und\s+(?:auch\s+)?dass\s+/i,
    correctionStart: /^(?:eigentlich|korrektur|update|nein|doch|sorry|pardon)\b[\s,:;!—–-]*/i,
    correctionMarker: /\b(?:jetzt|inzwischen|mittlerweile|nicht mehr|geändert)\b/i,
    notTail: /,?\s+nicht\s+[^,.;]+$/i,
    changeTail: /\s+(?:jetzt|inzwischen|mittlerweile)$/i,
    negations: words("nicht kein keine keinen keinem keiner nie niemals"),
    relations: words("ist sind war waren wohnt wohnen arbeitet heisst heißt kostet beginnt offnet öffnet schliesst schließt"),
    fillers: words("jetzt eigentlich inzwischen mittlerweile neu neue neuer neues geandert geändert"),
    stopwords: words(deu),
  },
  fr: {
    negatedBefore: /\b(?:ne|n'|jamais|pas)\s*$/i,
    negatedAfter: /^\s*pas\b/i,
    question: /[?]\s*$|^est-ce que\b/i,
    request: /\b(?:peux-tu|pourrais-tu|pouvez-vous|pourriez-vous|tu peux|tu pourrais)\b/i,
    reportedBefore: /\b(?:a dit|m'a dit|dit|disait|répète|répétait)\b|(?<![\wÀ-ÿ])(?:a )?écrit\b/i,
    hypotheticalBefore: /\b(?:si|imagine|imaginons|suppose|supposons|admettons|hypothétiquement|et si)\b/i,
    askedBefore: /(?:\bce qu'|(?<![\wÀ-ÿ])(?:ce que|comment|pourquoi|quand|où|quels?|quelles?)(?![\wÀ-ÿ])(?:\s+\S+){0,2}\s*)$/i,
    selfBefore: /\b(?:je|j'|nous|on)\s*$/i,
    reminiscenceAfter: /^\s*(?:quand|la fois|le jour)\b/i,
    leadingFiller: /^(?:[\s,;:—–-]+|(?:que|qu'|de|d'|ceci|ça|cela|bien)(?=[\s,:]|$)|qu'|d')+/i,
    trailingFiller: /(?:[\s,;:—–-]+|\b(?:s'il te plaît|s'il vous plaît|stp|svp|merci)\b)+$/i,
    andThat: /,?\s+et\s+(?:aussi\s+)?(?:que\s+|qu')/i,
    correctionStart: /^(?:en fait|correction|mise à jour|non|pardon|plutôt)\b[\s,:;!—–-]*/i,
    correctionMarker: /\b(?:maintenant|désormais|ne\s+\S+\s+plus)\b|\ba changé(?![\wÀ-ÿ])/i,
    notTail: /,?\s+pas\s+[^,.;]+$/i,
    changeTail: /\s+(?:maintenant|désormais)$/i,
    negations: words("ne n pas jamais aucun aucune plus"),
    relations: words("est sont etait était habite habitent vit vivent travaille appelle coute coûte commence ouvre ferme part arrive"),
    fillers: words("maintenant desormais désormais fait nouveau nouvelle actuellement"),
    stopwords: words(fra),
  },
};

/** Abbreviations whose full stop does not end a sentence (any of the five languages, lowercase, no dot). */
export const ABBREVIATIONS: ReadonlySet<string> = words(
  "dr dra drs mr mrs ms mx prof st sr sra srta jr vs etc approx ave av avda blvd bd rd mt ft fig gen gov hon rev sgt capt col lt mme mlle mgr bzw ca usw vgl evtl ggf inkl jan feb mar apr jun jul aug sep sept oct okt nov dec dez mon tue tues wed thu thur thurs fri sat sun",
);

/** Abbreviations that stand before a number ("No. 12"); elsewhere the word ends a sentence ("I said no."). */
export const NUMBER_ABBREVIATIONS: ReadonlySet<string> = words("no nr nº num");

/** A day number's full stop ("am 3. Juni", "le 1er") does not end a sentence before a month. */
export const MONTH_START =
  /^(?:jan|feb|mär|mar|apr|mai|may|jun|jul|aug|sep|okt|oct|nov|dez|dec|januar|februar|märz|april|juni|juli|august|september|oktober|november|dezember|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|janvier|février|mars|avril|juin|juillet|août|septembre|octobre|novembre|décembre)/i;

/**
 * Where someone else's text starts: a forwarded message, a quoted e-mail ("On Monday, Anna
 * wrote:") or a line handing over to another speaker ("Tom wrote:"). Matched at a line start.
 */
export const FORWARDED_START =
  /^[ \t]*(?:-{2,}[ \t]*(?:forwarded message|original message|mensaje reenviado|mensaje original|weitergeleitete nachricht|ursprüngliche nachricht|message transféré|message d'origine|message original)[ \t]*-{2,}|begin forwarded message|forwarded from\b|\[forwarded from|fwd?:|fw:|【?转发(?:的消息)?】?[:：]?|inicio del mensaje reenviado|anfang der weitergeleiteten nachricht|début du message (?:réexpédié|transféré))/im;
export const HANDOVER_LINE =
  /^[^\n]{0,200}\b(?:wrote|writes|said|says|schrieb|sagte|a écrit|a dit|escribió|dijo)[ \t]*[:：][ \t]*$|^[^\n]{0,60}(?:写道|说)[:：][ \t]*$/imu;

/** A score per language for a statement with no trigger to tell: common function words and letters. */
export const DETECT: Record<Exclude<Lang, "zh">, { words: ReadonlySet<string>; letters: RegExp }> = {
  en: { words: words("the is are my and of to that it with for on at i you this was have"), letters: /(?!)/ },
  es: { words: words("el los las es mi mis del y por con para esta está son"), letters: /[ñ¿¡áíóú]/i },
  de: { words: words("der die das ist mein meine und nicht ich mit zu den dem ein eine am im um"), letters: /[äöüß]/i },
  fr: { words: words("le les est mon ma mes et du des je pour avec au aux c'est"), letters: /[èêçœàù]/i },
};
