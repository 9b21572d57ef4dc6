/**
 * String similarity between single name tokens. Tokens are short (almost always under 32 letters),
 * so Jaro and Levenshtein keep their bookkeeping in integer bit sets: no allocation per comparison,
 * which matters because retrieval compares a query token with hundreds of vocabulary tokens.
 */

const WINKLER_PREFIX = 4;
const WINKLER_SCALE = 0.1;
const WINKLER_BOOST_FROM = 0.7;

export function jaro(a: string, b: string): number {
  const la = a.length;
  const lb = b.length;
  if (la === 0 || lb === 0) return 0;
  if (a === b) return 1;
  if (la > 31 || lb > 31) return jaroLong(a, b);
  const window = Math.max(0, (Math.max(la, lb) >> 1) - 1);
  let usedA = 0;
  let usedB = 0;
  let m = 0;
  for (let i = 0; i < la; i++) {
    const c = a.charCodeAt(i);
    const hi = Math.min(lb - 1, i + window);
    for (let j = Math.max(0, i - window); j <= hi; j++) {
      if ((usedB >>> j) & 1 || b.charCodeAt(j) !== c) continue;
      usedA |= 1 << i;
      usedB |= 1 << j;
      m++;
      break;
    }
  }
  if (m === 0) return 0;
  let halfTranspositions = 0;
  let j = 0;
  for (let i = 0; i < la; i++) {
    if (!((usedA >>> i) & 1)) continue;
    while (!((usedB >>> j) & 1)) j++;
    if (a.charCodeAt(i) !== b.charCodeAt(j)) halfTranspositions++;
    j++;
  }
  return (m / la + m / lb + (m - halfTranspositions / 2) / m) / 3;
}

/** Jaro for strings of any length (full-name comparisons in the baseline). */
export function jaroLong(a: string, b: string): number {
  const la = a.length;
  const lb = b.length;
  if (la === 0 || lb === 0) return 0;
  const window = Math.max(0, (Math.max(la, lb) >> 1) - 1);
  const usedA = new Uint8Array(la);
  const usedB = new Uint8Array(lb);
  let m = 0;
  for (let i = 0; i < la; i++) {
    const c = a.charCodeAt(i);
    const hi = Math.min(lb - 1, i + window);
    for (let j = Math.max(0, i - window); j <= hi; j++) {
      if (usedB[j] || b.charCodeAt(j) !== c) continue;
      usedA[i] = 1;
      usedB[j] = 1;
      m++;
      break;
    }
  }
  if (m === 0) return 0;
  let half = 0;
  let j = 0;
  for (let i = 0; i < la; i++) {
    if (!usedA[i]) continue;
    while (!usedB[j]) j++;
    if (a.charCodeAt(i) !== b.charCodeAt(j)) half++;
    j++;
  }
  return (m / la + m / lb + (m - half / 2) / m) / 3;
}

export function jaroWinkler(a: string, b: string): number {
  const j = jaro(a, b);
  if (j < WINKLER_BOOST_FROM) return j;
  const limit = Math.min(WINKLER_PREFIX, a.length, b.length);
  let prefix = 0;
  while (prefix < limit && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  return j + prefix * WINKLER_SCALE * (1 - j);
}

/**
 * Optimal-string-alignment (restricted Damerau-Levenshtein) distance: a swap of two adjacent
 * letters ("Rasme"/"Rasem") is one edit, as typists make it. Bit-parallel after Hyyrö (2003) when
 * the first string fits in 31 bits, a plain dynamic programme otherwise.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const m = a.length;
  if (m === 0) return b.length;
  if (b.length === 0) return m;
  if (m > 31) return editDistanceLong(a, b);
  const top = 1 << (m - 1);
  let vp = m === 31 ? 0x7fffffff : (1 << m) - 1;
  let vn = 0;
  let d0 = 0;
  let prevEq = 0;
  let score = m;
  for (let k = 0; k < b.length; k++) {
    const c = b.charCodeAt(k);
    let eq = 0;
    for (let i = 0; i < m; i++) if (a.charCodeAt(i) === c) eq |= 1 << i;
    const tr = ((~d0 & eq) << 1) & prevEq;
    d0 = ((((eq & vp) + vp) | 0) ^ vp) | eq | vn | tr;
    const hp = vn | ~(d0 | vp);
    const hn = d0 & vp;
    if (hp & top) score++;
    else if (hn & top) score--;
    const x = (hp << 1) | 1;
    vn = x & d0;
    vp = (hn << 1) | ~(x | d0);
    prevEq = eq;
  }
  return score;
}

export function editDistanceLong(a: string, b: string): number {
  const n = b.length;
  let prev2 = new Uint32Array(n + 1);
  let prev = new Uint32Array(n + 1);
  let cur = new Uint32Array(n + 1);
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= n; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) {
        v = Math.min(v, prev2[j - 2]! + 1);
      }
      cur[j] = v;
    }
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[n]!;
}

/** First letters that transliterations swap freely (Yusuf/Jusuf, Qasim/Kasim, Wladimir/Vladimir). */
const FIRST_LETTER_GROUPS = ["aeiouyj", "ckqg", "wv", "sz", "fp", "td", "bp", "hk"];
const FIRST_LETTER_PENALTY = 0.08;

/** Per ASCII letter, a bit per FIRST_LETTER_GROUPS group it belongs to (compared millions of times). */
const FIRST_LETTER_MASKS: Uint16Array = (() => {
  const masks = new Uint16Array(128);
  FIRST_LETTER_GROUPS.forEach((group, bit) => {
    for (const c of group) masks[c.charCodeAt(0)]! |= 1 << bit;
  });
  return masks;
})();

function firstLettersCompatible(a: number, b: number): boolean {
  return a === b || (a < 128 && b < 128 && (FIRST_LETTER_MASKS[a]! & FIRST_LETTER_MASKS[b]!) !== 0);
}

/**
 * Spelling similarity of two name tokens in [0, 1]: the mean of Jaro-Winkler and normalised
 * Levenshtein, less a penalty when the first letters differ beyond the usual transliteration swaps.
 * Jaro-Winkler alone rates short tokens too close ("ali"/"ari" 0.78) and rewards shared prefixes;
 * the edit term pulls those down while typos in long surnames stay above 0.9. First letters are
 * what people get right most often, so "Damir"/"Samir" should fall short of a typo.
 */
export function tokenSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  const maxLength = Math.max(a.length, b.length);
  const lev = 1 - editDistance(a, b) / maxLength;
  const sim = (jaroWinkler(a, b) + lev) / 2;
  return firstLettersCompatible(a.charCodeAt(0), b.charCodeAt(0)) ? sim : Math.max(0, sim - FIRST_LETTER_PENALTY);
}

const LOOSE_RULES: readonly [RegExp, string][] = [
  [/tsch|tch/g, "ch"], [/shch|sch/g, "sh"], [/dzh|dj|zh/g, "j"], [/kh/g, "h"], [/ph/g, "f"], [/ck|q|c(?!h)/g, "k"],
  [/x/g, "ks"], [/w/g, "v"], [/y/g, "i"], [/ou|oo/g, "u"], [/ee|ie/g, "i"], [/tz/g, "ts"], [/gh/g, "g"],
  [/dh/g, "d"], [/th/g, "t"], [/(.)\1+/g, "$1"],
];

/**
 * Transliteration-folded spelling: the conventions that differ between romanisation systems
 * (kh/h, dzh/j, ou/u, y/i, w/v, doubled letters) folded to one, so "Dzhokhar" ~ "Jokhar",
 * "Youssef" ~ "Yusef".
 */
export function looseForm(token: string): string {
  let s = token;
  for (const [re, to] of LOOSE_RULES) s = s.replace(re, to);
  return s;
}

const SKELETON_RULES: readonly [RegExp, string][] = [
  // "dj" and "dzh" are French and Russian spellings of j (Djamel, Dzhokhar); c before e, i or y is
  // an s (Belkacem, Lounici; abjadMatches reads س as c). Both are written so in Latin only.
  [/dzh|dj/g, "j"], [/sch|sh|ch|kh/g, "x"], [/c(?=[eiy])/g, "s"], [/dh/g, "d"], [/th/g, "t"], [/ph/g, "f"],
  [/[qcgj]/g, "k"], [/p/g, "b"], [/v/g, "f"],
];
const SKELETON_DROP_RE = /[aeiouyw]/g;
const DOUBLE_RE = /(.)\1+/g;

/**
 * Consonant skeleton: what Arabic, Hebrew or Thai script keeps of a name once transliterated
 * ("mhmd" for محمد), with the consonants those scripts and Latin spellings confuse merged (Latin
 * "ch" is ش in French spellings and خ in German ones, so sh/ch/kh share one key).
 * Vowels, w/y (long vowels) and a final h (ta marbuta) go; doubled letters collapse. Used only to
 * find candidates across scripts; abjadMatches decides whether they really correspond.
 */
export function skeleton(token: string): string {
  let s = token;
  for (const [re, to] of SKELETON_RULES) s = s.replace(re, to);
  s = s.replace(SKELETON_DROP_RE, "").replace(DOUBLE_RE, "$1");
  if (s.length > 1 && s.endsWith("h")) s = s.slice(0, -1);
  return s;
}

/**
 * Other Latin spellings of an abjad letter whose skeleton differs from the letter's own (abjad.ts
 * SPELLINGS accepts each): ذ ض ظ (dh) as z in Persian, Urdu and Turkish spellings (Nazar, Hafiz,
 * Mazloom), غ (gh) as g (Gul), و as v (Parviz, Mousavi), and پ before ه as b rather than the ph of
 * Latin. Kept to these four: with more (ث as s, ش as s, خ as h, ح as kh, ي as j, س as c) the real
 * lists' cross-script recall rose by 7 names in 2,164 while yente's global negatives gained alerts
 * on two- and three-letter words (ثنا معین → SON Min).
 */
const ABJAD_VARIANTS: Readonly<Record<string, readonly string[]>> = {
  dh: ["z"], gh: ["g"], w: ["v"], p: ["b"],
};
const ABJAD_DIGRAPHS = new Set(["dh", "th", "sh", "kh", "gh"]);
/** Keys kept per abjad token: a token with several such letters would otherwise multiply them. */
const MAX_ABJAD_KEYS = 16;

/**
 * The skeletons a Latin spelling of an abjad token may have: its own first, then one per choice of
 * the variants above, at most 16. In the real lists 287 of 5,163 pairs of an entity's abjad token
 * and a Latin token that abjadMatches accepted had different skeletons, so neither found the other;
 * with these keys, 174. A word whose article Latin left out (الرحمن, "Rahman") has no key without
 * it: such keys found 19 more of the lists' 2,164 Arabic-script names from Latin, and 12 more of
 * yente's 50,000 global negatives ("Macedo" for المقداد).
 */
export function abjadSkeletons(token: string): string[] {
  const units: string[] = [];
  for (let i = 0; i < token.length; i++) {
    const pair = token.slice(i, i + 2);
    if (ABJAD_DIGRAPHS.has(pair)) {
      units.push(pair);
      i++;
    } else units.push(token[i]!);
  }
  const keys = new Set<string>();
  const spell = (at: number, written: string): void => {
    if (keys.size >= MAX_ABJAD_KEYS) return;
    if (at === units.length) {
      const key = skeleton(written);
      if (key.length > 0) keys.add(key);
      return;
    }
    const unit = units[at]!;
    spell(at + 1, written + unit);
    for (const other of ABJAD_VARIANTS[unit] ?? []) spell(at + 1, written + other);
  };
  spell(0, "");
  return [...keys];
}
