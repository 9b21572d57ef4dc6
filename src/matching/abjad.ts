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
  s: ["s", "ss", "c", "z"],
  z: ["z", "s", "dh"],
  t: ["t", "tt"],
  d: ["d", "dh"],
};
const DIGRAPHS = ["th", "dh", "sh", "kh", "gh"];
const SHORT_VOWELS = new Set(["a", "e", "i", "o", "u"]);
const LONG_VOWELS = new Set(["aa", "ee", "ii", "oo", "ou", "uu"]);

/**
 * True when `latin` is a plausible vowelled spelling of the consonant transliteration `abjad`.
 * Depth-first with memo on (i, j); tokens are short, so the search stays tiny.
 */
export function abjadMatches(abjad: string, latin: string): boolean {
  // Vowels roughly double a consonant skeleton at most; far longer spellings only fit by accident.
  if (latin.length > 2 * abjad.length + 2) return false;
  const seen = new Set<number>();
  const go = (i: number, j: number): boolean => {
    if (i === abjad.length) {
      // A trailing Latin vowel or "h" (ta marbuta written -a/-ah) is fine; a consonant is not.
      for (let k = j; k < latin.length; k++) if (!SHORT_VOWELS.has(latin[k]!) && latin[k] !== "h") return false;
      return true;
    }
    const key = i * 64 + j;
    if (seen.has(key)) return false;
    seen.add(key);
    // A final abjad "h" may stand for a Latin final vowel ("osama" for "'smh").
    if (i === abjad.length - 1 && abjad[i] === "h" && j === latin.length) return true;
    // A doubled abjad letter ("llh") may be one Latin letter ("allah" written with shadda elsewhere).
    if (i > 0 && abjad[i] === abjad[i - 1] && go(i + 1, j)) return true;
    const digraph = DIGRAPHS.find((d) => abjad.startsWith(d, i));
    const unit = digraph ?? abjad[i]!;
    for (const spelling of SPELLINGS[unit] ?? [unit]) {
      if (latin.startsWith(spelling, j)) {
        let next = j + spelling.length;
        // A doubled consonant (shadda) is written once in the abjad form.
        while (next < latin.length && latin[next] === latin[next - 1] && !SHORT_VOWELS.has(latin[next]!)) next++;
        if (go(i + unit.length, next)) return true;
      }
    }
    // Only short vowels go unwritten; a long one (oo, ee, aa) is written (و, ي, ا) in the script,
    // except at the start, where any-ascii renders the alif as an apostrophe that folding drops.
    const long = j > 0 && LONG_VOWELS.has(latin.slice(j, j + 2));
    return j < latin.length && SHORT_VOWELS.has(latin[j]!) && !long && go(i, j + 1);
  };
  return go(0, 0);
}
