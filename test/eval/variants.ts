import type { Rng } from "./rng";

/**
 * Generators of name variants as they occur between a customer record and a list entry.
 * Each returns null when it does not apply to the name (e.g. no middle name to drop).
 */

const PARTICLES = new Set(["al", "el", "bin", "ibn", "abu", "abd", "abdul", "van", "de", "der", "von", "ul", "ben"]);

export { naturalOrder } from "../../bench/lib/natural-order";

export function tokensOf(name: string): string[] {
  return name.split(/\s+/).filter(Boolean);
}

export function reorder(name: string, rng: Rng): string | null {
  const tokens = tokensOf(name);
  if (tokens.length < 2) return null;
  // Surname first is the common real reordering; a shuffle covers the rest.
  const moved = rng.next() < 0.5 ? [tokens[tokens.length - 1]!, ...tokens.slice(0, -1)] : rng.shuffle(tokens);
  const out = moved.join(" ");
  return out === name ? [...tokens.slice(1), tokens[0]!].join(" ") : out;
}

export function dropMiddle(name: string, rng: Rng): string | null {
  const tokens = tokensOf(name);
  if (tokens.length < 3) return null;
  const middles = tokens.map((t, i) => ({ t, i })).filter(({ t, i }) => i > 0 && i < tokens.length - 1 && t.length > 2 && !PARTICLES.has(t.toLowerCase()));
  if (middles.length === 0) return null;
  const drop = rng.pick(middles).i;
  return tokens.filter((_, i) => i !== drop).join(" ");
}

const LETTERS = "abcdefghijklmnopqrstuvwxyz";

export function typo(name: string, rng: Rng): string | null {
  const tokens = tokensOf(name);
  const eligible = tokens.map((t, i) => ({ t, i })).filter(({ t }) => /^[A-Za-z]{4,}$/.test(t));
  if (eligible.length === 0) return null;
  const { t, i } = rng.pick(eligible);
  const p = 1 + rng.int(t.length - 1);
  const letter = rng.pick([...LETTERS]);
  let out: string;
  switch (rng.int(4)) {
    case 0:
      out = t.slice(0, p) + letter + t.slice(p + 1);
      break;
    case 1:
      out = t.slice(0, p) + t.slice(p + 1);
      break;
    case 2:
      out = t.slice(0, p) + letter + t.slice(p);
      break;
    default:
      out = p < t.length - 1 ? t.slice(0, p) + t[p + 1] + t[p] + t.slice(p + 2) : t.slice(0, p - 1) + t[p] + t[p - 1];
  }
  if (out.toLowerCase() === t.toLowerCase()) return null;
  const copy = [...tokens];
  copy[i] = out;
  return copy.join(" ");
}

/** Spelling conventions of different transliteration systems (both directions where common). */
const TRANSLIT_RULES: readonly [RegExp, string][] = [
  [/ou/i, "u"], [/(?<=[bcdfghjklmnpqrstvz])u/i, "ou"], [/kh/i, "h"], [/(?<=[aeiou])y(?=[aeiou])/i, "i"],
  [/(?<=[bcdfghjklmnpqrstvz])i(?=[aeiou])/i, "y"], [/ee/i, "i"], [/(?<=[bcdfghklmnpqrstvz])i(?=[bcdfghklmnpqrstvz])/i, "ee"],
  [/\bj/i, "dj"], [/dj/i, "j"], [/sh/i, "ch"], [/v/i, "w"], [/w/i, "v"], [/ph/i, "f"], [/q/i, "k"], [/k/i, "q"],
  [/dh/i, "d"], [/th/i, "t"], [/aa/i, "a"], [/oo/i, "u"], [/x/i, "ks"], [/ks/i, "x"], [/ck/i, "k"], [/c(?=[aou])/i, "k"],
  [/(?<=[aeiou])s(?=[aeiou])/i, "z"], [/z/i, "s"], [/ts/i, "tz"], [/ya/i, "ia"], [/yu/i, "iu"], [/ei/i, "ey"],
  [/ai/i, "ay"], [/ay/i, "ai"], [/\bal(?=[- ])/i, "el"], [/\bel(?=[- ])/i, "al"], [/ov\b/i, "off"], [/ev\b/i, "eff"],
  [/sky\b/i, "ski"], [/iy\b/i, "y"], [/mm/i, "m"], [/(?<=[aeiou])([lmnrst])(?=[aeiou])/i, "$1$1"], [/ss/i, "s"],
  [/ll/i, "l"], [/e(?=d\b)/i, "a"], [/a(?=d\b)/i, "e"], [/o(?=ham)/i, "u"], [/u(?=ham)/i, "o"],
];

export function transliterate(name: string, rng: Rng): string | null {
  const applicable = TRANSLIT_RULES.filter(([re]) => re.test(name));
  if (applicable.length === 0) return null;
  let out = name;
  const count = 1 + rng.int(Math.min(2, applicable.length));
  for (const [re, to] of rng.shuffle(applicable).slice(0, count)) out = out.replace(re, to);
  return out.toLowerCase() === name.toLowerCase() ? null : out;
}

const RUSSIAN_RE = /(ov|ova|ev|eva|in|ina|iy|skiy|sky|skaya|enko|vich|vna|yev|yeva)$/i;
const CYRILLIC: readonly [string, string][] = [
  ["shch", "щ"], ["sch", "щ"], ["sh", "ш"], ["ch", "ч"], ["zh", "ж"], ["kh", "х"], ["ts", "ц"], ["yu", "ю"], ["ya", "я"],
  ["yo", "ё"], ["ye", "е"], ["iy", "ий"], ["yy", "ый"], ["a", "а"], ["b", "б"], ["v", "в"], ["g", "г"], ["d", "д"],
  ["e", "е"], ["z", "з"], ["i", "и"], ["y", "ы"], ["k", "к"], ["l", "л"], ["m", "м"], ["n", "н"], ["o", "о"], ["p", "п"],
  ["r", "р"], ["s", "с"], ["t", "т"], ["u", "у"], ["f", "ф"], ["h", "х"], ["c", "к"], ["w", "в"], ["x", "кс"], ["j", "дж"],
  ["q", "к"],
];

function toScript(token: string, table: readonly [string, string][]): string {
  let out = "";
  const lower = token.toLowerCase();
  for (let i = 0; i < lower.length; ) {
    const hit = table.find(([lat]) => lower.startsWith(lat, i));
    if (hit) {
      out += hit[1];
      i += hit[0].length;
    } else i++;
  }
  return out;
}

/** Cyrillic writing of a Russian-looking Latin name. */
export function cyrillic(name: string): string | null {
  const tokens = tokensOf(name);
  if (!tokens.some((t) => RUSSIAN_RE.test(t)) || tokens.some((t) => !/^[A-Za-z-]+$/.test(t))) return null;
  return tokens.map((t) => toScript(t, CYRILLIC)).join(" ");
}

const ARABIC_HINT_RE = /^(muhammad|mohammed|mohamed|ahmad|ahmed|ali|hassan|hussein|abd|abdul|abu|al|bin|omar|umar|khalid|ibrahim|yusuf|mahmoud|mustafa|salem|saleh|abdullah|said|hamid|nasser)$/i;
const ARABIC: readonly [string, string][] = [
  ["sh", "ش"], ["kh", "خ"], ["th", "ث"], ["dh", "ذ"], ["gh", "غ"], ["aa", "ا"], ["ee", "ي"], ["ii", "ي"], ["oo", "و"],
  ["ou", "و"], ["b", "ب"], ["t", "ت"], ["j", "ج"], ["h", "ح"], ["d", "د"], ["r", "ر"], ["z", "ز"], ["s", "س"], ["f", "ف"],
  ["q", "ق"], ["k", "ك"], ["l", "ل"], ["m", "م"], ["n", "ن"], ["w", "و"], ["y", "ي"], ["g", "ج"], ["p", "ب"], ["v", "ف"],
  ["c", "ك"], ["x", "كس"],
];

/** Arabic-script writing of an Arabic-looking name: consonants and long vowels, short vowels dropped. */
export function arabic(name: string): string | null {
  const tokens = tokensOf(name.replace(/-/g, " "));
  if (!tokens.some((t) => ARABIC_HINT_RE.test(t)) || tokens.some((t) => !/^[A-Za-z']+$/.test(t))) return null;
  return tokens
    .map((t) => {
      const lower = t.toLowerCase().replace(/'/g, "");
      const initial = /^[aeiou]/.test(lower) ? "ا" : "";
      const body = lower.replace(/(?<=.)[aeio](?![aeiou])/g, "").replace(/^[aeiou]/, "");
      const final = /[iy]$/.test(lower) ? "ي" : /u$/.test(lower) ? "و" : "";
      return initial + toScript(body.replace(/[iu]$/, ""), ARABIC) + final;
    })
    .join(" ");
}

export function spacing(name: string, rng: Rng): string | null {
  const tokens = tokensOf(name);
  if (/[A-Za-z]-[A-Za-z]/.test(name)) return rng.next() < 0.5 ? name.replace(/-/g, " ") : name.replace(/-/g, "");
  const particle = tokens.findIndex((t, i) => PARTICLES.has(t.toLowerCase()) && i < tokens.length - 1);
  if (particle >= 0) {
    const joined = tokens[particle]! + tokens[particle + 1]!.toLowerCase();
    return [...tokens.slice(0, particle), joined, ...tokens.slice(particle + 2)].join(" ");
  }
  const long = tokens.map((t, i) => ({ t, i })).filter(({ t }) => t.length >= 8 && /^[A-Za-z]+$/.test(t));
  if (long.length === 0) return null;
  const { t, i } = rng.pick(long);
  const cut = 3 + rng.int(t.length - 5);
  const copy = [...tokens];
  copy[i] = `${t.slice(0, cut)} ${t.slice(cut)}`;
  return copy.join(" ");
}

const HONORIFICS = ["Mr", "Dr.", "Sheikh", "Haji", "Mullah", "General", "Mrs.", "Prof."];
const LEGAL_SWAPS: readonly [RegExp, string][] = [
  [/\bL\.?L\.?C\.?$/i, "Limited Liability Company"], [/\bLTD\.?$/i, "Limited"], [/\bLIMITED$/i, "Ltd."],
  [/\bCO\.,? LTD\.?$/i, "Company Limited"], [/\bINC\.?$/i, "Incorporated"], [/\bCORPORATION$/i, "Corp."],
  [/\bCORP\.?$/i, "Corporation"], [/\bCOMPANY$/i, "Co."], [/\bCO\.?$/i, "Company"],
  [/\bS\.?A\.?$/i, "Sociedad Anonima"], [/\bGMBH$/i, ""], [/\bJSC$/i, "Joint Stock Company"], [/\bOOO\b/i, "LLC"],
];

export function noise(name: string, isPerson: boolean, rng: Rng): string | null {
  if (isPerson) return `${rng.pick(HONORIFICS)} ${name}`;
  const swap = LEGAL_SWAPS.find(([re]) => re.test(name));
  if (swap) return name.replace(swap[0], swap[1]).trim();
  return `${name} ${rng.pick(["LLC", "Ltd", "Limited", "GmbH", "S.A."])}`;
}

export function nickname(name: string, table: ReadonlyMap<string, readonly string[]>, rng: Rng): string | null {
  const tokens = tokensOf(name);
  const options = tokens.map((t, i) => ({ i, alts: table.get(t.toLowerCase()) ?? [] })).filter((o) => o.alts.length > 0);
  if (options.length === 0) return null;
  const { i, alts } = options[0]!;
  const copy = [...tokens];
  copy[i] = rng.pick(alts);
  return copy.join(" ");
}
