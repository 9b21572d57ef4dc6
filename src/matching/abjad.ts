/**
 * Matching a consonant-only transliteration (Arabic, Hebrew, Thai, Indic scripts via any-ascii:
 * "mhmd", "ywsf", "hsyn") against a Latin spelling ("Mohammed", "Yusuf", "Hussein"). The Latin
 * side may add short vowels and double letters; each transliterated letter must be accounted for
 * by a Latin spelling it is commonly written as (و w ↔ u/o/ou/w/v, ي y ↔ i/e/ee/y, ق q ↔ k/g...).
 */
const SPELLINGS: Record<string, readonly string[]> = {
  th: ["th", "s", "t"],
  dh: ["dh", "z", "d", "th"],
  sh: ["sh", "sch", "ch", "s"],
  kh: ["kh", "ch", "h", "k"],
  gh: ["gh", "g"],
  q: ["q", "k", "g", "c", "ck"],
  k: ["k", "c", "ck", "q"],
  j: ["j", "g", "dj", "dzh", "zh"],
  h: ["h", "kh"],
  w: ["w", "ou", "oo", "u", "o", "v"],
  y: ["y", "ee", "ie", "i", "e", "j"],
  a: ["aa", "a", "e"],
  v: ["v", "w", "o", "u"],
  f: ["f", "ph", "p", "v"],
  p: ["p", "b", "f"],
  b: ["b", "p"],
  // Not s for z nor z for s: no romanisation in the lists writes ز as s or س as z (Indonesian and
  // Malay "Azis", "Hafis" do), and allowing it let Zarei match Suri and Razi Rossiya (docs/matching.md).
  s: ["s", "ss", "c"],
  z: ["z", "dh"],
  t: ["t", "tt"],
  d: ["d", "dh"],
};
/**
 * Per ASCII code: the Latin spellings of that abjad letter, and of it followed by "h" when SPELLINGS
 * has that digraph (its two-letter entries are exactly th, dh, sh, kh and gh).
 */
const SINGLE_SPELLINGS: (readonly string[])[] = [];
const DIGRAPH_SPELLINGS: (readonly string[] | undefined)[] = [];
for (let code = 0; code < 128; code++) {
  const letter = String.fromCharCode(code);
  SINGLE_SPELLINGS.push(SPELLINGS[letter] ?? [letter]);
  DIGRAPH_SPELLINGS.push(SPELLINGS[`${letter}h`]);
}
const H = 104;
const A = 97;
const L = 108;
const I = 105;
const Y = 121;

function isShortVowel(code: number): boolean {
  return code === 97 || code === 101 || code === 105 || code === 111 || code === 117; // a e i o u
}

/** aa, ee, ii, oo, ou, uu starting at j. */
function isLongVowel(latin: string, j: number): boolean {
  const a = latin.charCodeAt(j);
  const b = latin.charCodeAt(j + 1);
  return (isShortVowel(a) && a === b) || (a === 111 && b === 117);
}

/**
 * States (i, j) already tried by the current search, as key i * (latin.length + 1) + j, marked with
 * the search's stamp: called for every (query token, vocabulary token) pair across scripts while scoring, so a
 * fresh Set per call was a large part of its cost.
 */
let tried = new Uint32Array(4096);
let stamp = 0;

/**
 * Latin writes عبد ("abd") with the article of the name after it, and assimilated to its first
 * letter: Abdul, Abdel, Abdoul, Abdur (Rahman), Abdus (Salam), and the rarer Abdun, Abdat. The
 * Arabic script writes that article on the next word (الرحمن), which may then match without it
 * (opening).
 */
const ABD_WITH_ARTICLE_RE = /^abd(?:u|e|a|ou|o)(?:l|r|s|sh|z|n|t|d)?$/;

/** Vowels roughly double a consonant skeleton at most; far longer spellings only fit by accident. */
export function latinLengthFits(abjadLength: number, latinLength: number): boolean {
  return latinLength <= 2 * abjadLength + 2;
}

/**
 * True when `latin` is a plausible vowelled spelling of the consonant transliteration `abjad`.
 * Depth-first with memo on (i, j); tokens are short, so the search stays tiny.
 */
export function abjadMatches(abjad: string, latin: string): boolean {
  if (abjad === "abd" && ABD_WITH_ARTICLE_RE.test(latin)) return true;
  if (!latinLengthFits(abjad.length, latin.length)) return false;
  // One key per state: a fixed stride of 64 made (i, j) and (i + 1, j - 64) share one for spellings
  // of 64 letters or more.
  const stride = latin.length + 1;
  const keys = (abjad.length + 1) * stride;
  if (keys > tried.length) tried = new Uint32Array(keys);
  if (++stamp === 0xffffffff) {
    tried.fill(0);
    stamp = 1;
  }
  const go = (i: number, j: number): boolean => {
    if (i === abjad.length) {
      // A trailing Latin vowel or "h" (ta marbuta written -a/-ah) is fine; a consonant is not.
      for (let k = j; k < latin.length; k++) {
        const code = latin.charCodeAt(k);
        if (!isShortVowel(code) && code !== H) return false;
      }
      return true;
    }
    const key = i * stride + j;
    if (tried[key] === stamp) return false;
    tried[key] = stamp;
    const letter = abjad.charCodeAt(i);
    if (i === 0) return opening(letter);
    // A final abjad "h" may stand for a Latin final vowel ("osama" for "asmh").
    if (i === abjad.length - 1 && letter === H && j === latin.length) return true;
    // A doubled abjad letter ("llh") may be one Latin letter ("allah" written with shadda elsewhere).
    if (letter === abjad.charCodeAt(i - 1) && go(i + 1, j)) return true;
    if (spelled(i, j)) return true;
    // Only short vowels go unwritten; a long one (oo, ee, aa) is written (و, ي, ا) in the script.
    return j < latin.length && isShortVowel(latin.charCodeAt(j)) && !isLongVowel(latin, j) && go(i, j + 1);
  };
  /**
   * The first letters. A word's first vowel is written in these scripts (text.ts keeps a vowel
   * carrier as a leading "a"), so a Latin vowel never goes unwritten before a consonant form's first
   * letter: "ly" (لي) is not "Ali", nor "hmd" (حمد) "Ahmad". The leading "a" is any vowel, short or
   * long ("Omar" for "amr", "Ibrahim" for "abrhym"), or the first of the vowels the next letter
   * writes ("Odeh" for "awdh", the waw spelling "o"). Maghreb spellings drop it, and the lists carry
   * them: before two consonants ("Brahim", "Driss", "Smail") or the article's "l" ("Lahcen" for
   * "alhsn"). Nowhere else: "Padilla" is not عبدالله, nor "Gao" آغا.
   */
  const opening = (letter: number): boolean => {
    // The one exception: the particle بن, which Latin also writes "Ibn".
    if (letter !== A) return spelled(0, 0) || (abjad === "bn" && latin.charCodeAt(0) === I && spelled(0, 1));
    const first = latin.charCodeAt(0);
    if (isShortVowel(first)) return go(1, 1) || (isLongVowel(latin, 0) && go(1, 2)) || go(1, 0);
    const cluster = latin.length > 1 && !isShortVowel(latin.charCodeAt(1)) && latin.charCodeAt(1) !== Y;
    // Not before a second "l" (الله, "allh"): there the vowels that stay unwritten let "Lili" fit.
    const article = abjad.charCodeAt(1) === L && abjad.charCodeAt(2) !== L && first === L;
    if ((cluster || article) && go(1, 0)) return true;
    // Latin often leaves the article out ("Rahman" for الرحمن, "Majid" for المجيد): before at least
    // three more letters, so that enough of the name is left to match.
    return abjad.charCodeAt(1) === L && abjad.length >= 5 && first !== L && go(2, 0);
  };
  /** Abjad letter i (or its digraph with "h") written as one of its Latin spellings at j. */
  const spelled = (i: number, j: number): boolean => {
    const letter = abjad.charCodeAt(i);
    const digraph = abjad.charCodeAt(i + 1) === H && letter < 128 ? DIGRAPH_SPELLINGS[letter] : undefined;
    const spellings = digraph ?? (letter < 128 ? SINGLE_SPELLINGS[letter]! : [abjad[i]!]);
    const unitLength = digraph ? 2 : 1;
    for (const spelling of spellings) {
      if (latin.startsWith(spelling, j)) {
        let next = j + spelling.length;
        // A doubled consonant (shadda) is written once in the abjad form.
        while (next < latin.length && latin.charCodeAt(next) === latin.charCodeAt(next - 1) && !isShortVowel(latin.charCodeAt(next))) next++;
        if (go(i + unitLength, next)) return true;
      }
    }
    return false;
  };
  return go(0, 0);
}
