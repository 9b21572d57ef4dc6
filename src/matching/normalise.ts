import { foldKoreanSyllable, KOREAN_HONORIFICS } from "./data/korean";
import { LEGAL_FORM_PHRASES } from "./data/legal-forms.gen";
import { ABJAD_PARTICLES, COMPANY_WORDS, HONORIFICS, PARTICLES } from "./data/noise-words";
import { type FoldedPiece, foldPiece, splitPieces } from "./text";

/** Per-token flags (bit set). */
export const TOKEN_NOISE = 1; // honorific, title or legal form: kept, weighted low
export const TOKEN_PARTICLE = 2; // al, bin, van...: weighted low and also indexed joined to the next token
export const TOKEN_ABJAD = 4; // transliterated from a script without written short vowels
export const TOKEN_JOIN_NEXT = 8; // written attached to the next token (hyphen, CJK/Hangul syllable)

export interface NormalisedName {
  readonly tokens: readonly string[];
  readonly flags: readonly number[];
}

/** A cache of folded pieces, owned by one caller (index build or one query); never shared globally. */
export type FoldCache = Map<string, FoldedPiece>;

const COMPANY_WORD_SET: ReadonlySet<string> = new Set(COMPANY_WORDS);

const LEGAL_BY_FIRST: ReadonlyMap<string, readonly (readonly string[])[]> = (() => {
  const map = new Map<string, string[][]>();
  for (const phrase of [...LEGAL_FORM_PHRASES, ...COMPANY_WORDS]) {
    const tokens = phrase.split(" ");
    const first = tokens[0]!;
    const list = map.get(first) ?? [];
    list.push(tokens);
    map.set(first, list);
  }
  for (const list of map.values()) list.sort((a, b) => b.length - a.length);
  return map;
})();

/**
 * Arabic-script words as names write them: the article's ligature (ﻻ, NFKC لا) or a lone lam folds to
 * a bare "l", the article "al"; ابن between two names is بن, the particle Latin writes "bin", "ibn"
 * or "ben".
 */
const ABJAD_NAME_FORMS: ReadonlyMap<string, string> = new Map([
  ["l", "al"],
  ["abn", "bn"],
]);

export function normaliseName(raw: string, cache?: FoldCache): NormalisedName {
  const tokens: string[] = [];
  const flags: number[] = [];
  const pieces = splitPieces(raw);
  // Counted at the first Hangul word: most names have none, and every listed name passes here.
  let hangulWords = -1;
  for (const piece of pieces) {
    const folded = foldCached(piece, cache);
    // A Korean title or honorific written as a word of its own is noise, as a Latin one is.
    const honorific = folded.script === "hangul" && KOREAN_HONORIFICS.has(piece) ? TOKEN_NOISE : 0;
    const n = folded.tokens.length;
    for (let i = 0; i < n; i++) {
      let text = folded.tokens[i]!;
      let flag = (i < n - 1 ? TOKEN_JOIN_NEXT : 0) | honorific;
      if (folded.script === "abjad") {
        flag |= TOKEN_ABJAD;
        text = ABJAD_NAME_FORMS.get(text) ?? text;
        // عبد starts a compound name (عبد الله): indexed joined to the next word too, as Latin "Abd"
        // is, at full weight.
        if (text === "abd") flag |= TOKEN_JOIN_NEXT;
      } else if (folded.script === "hangul") {
        if (hangulWords < 0) hangulWords = countHangulWords(pieces, cache);
        text = foldKoreanSyllable(text, i === 0 && startsWithSurname(n, hangulWords));
      }
      tokens.push(text);
      flags.push(flag);
    }
  }
  markNoise(tokens, flags);
  return { tokens, flags };
}

function foldCached(piece: string, cache: FoldCache | undefined): FoldedPiece {
  let folded = cache?.get(piece);
  if (!folded) {
    folded = foldPiece(piece);
    cache?.set(piece, folded);
  }
  return folded;
}

/** The Hangul words of a name that are not a title or honorific ("씨", "선생님"): the name's own words. */
function countHangulWords(pieces: readonly string[], cache: FoldCache | undefined): number {
  let words = 0;
  for (const piece of pieces) if (!KOREAN_HONORIFICS.has(piece) && foldCached(piece, cache).script === "hangul") words++;
  return words;
}

/**
 * Whether a Hangul word of `syllables` starts with the surname: a name written as one word (김정은,
 * 이산, "Dr 이산"), a word of three syllables, or a surname written alone (김). A word of two beside
 * other Hangul words is a given name (정은 in "김 정은"), whose first syllable takes no family
 * spelling: 정 is "Jong" in Kim Jong Un, not the surname "Jung".
 */
function startsWithSurname(syllables: number, hangulWords: number): boolean {
  return syllables !== 2 || hangulWords <= 1;
}

function markNoise(tokens: string[], flags: number[]): void {
  let noise = 0;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    // Consonant transliterations ("dr" for در) are not Latin titles, legal forms or particles;
    // their own particles are ABJAD_PARTICLES.
    const latin = !(flags[i]! & TOKEN_ABJAD);
    let phraseLength = latin ? legalPhraseAt(tokens, i) : 0;
    // A company word alone, written with a hyphen onto a neighbour, is part of that word
    // ("CO-OPERATIVE"; "MARIO-CO" is a name): it stays a name word, so the joined spelling is
    // still indexed. Within a legal form ("Co-Ltd") it is noise with the rest.
    const hyphenated = flags[i]! & TOKEN_JOIN_NEXT || (i > 0 && flags[i - 1]! & TOKEN_JOIN_NEXT);
    if (phraseLength === 1 && hyphenated && COMPANY_WORD_SET.has(token)) phraseLength = 0;
    if (phraseLength > 0) {
      for (let k = i; k < i + phraseLength; k++) flags[k] = flags[k]! | TOKEN_NOISE;
      noise += phraseLength;
      i += phraseLength - 1;
    } else if (latin && HONORIFICS.has(token)) {
      flags[i] = flags[i]! | TOKEN_NOISE;
      noise++;
    } else if ((latin ? PARTICLES : ABJAD_PARTICLES).has(token) && i < tokens.length - 1) {
      flags[i] = flags[i]! | TOKEN_PARTICLE;
    }
  }
  // A name made only of noise words ("Sheikh", "Limited") is still a name: keep full weight.
  if (noise === tokens.length) for (let i = 0; i < flags.length; i++) flags[i] = flags[i]! & ~TOKEN_NOISE;
}

function legalPhraseAt(tokens: readonly string[], start: number): number {
  const candidates = LEGAL_BY_FIRST.get(tokens[start]!);
  if (!candidates) return 0;
  for (const phrase of candidates) {
    if (start + phrase.length > tokens.length) continue;
    let ok = true;
    for (let k = 1; k < phrase.length && ok; k++) ok = tokens[start + k] === phrase[k];
    if (ok) return phrase.length;
  }
  return 0;
}

/**
 * Two adjacent tokens written as one. Of two consonant transliterations the second loses its leading
 * vowel carrier (text.ts): Arabic writes none inside a word, so "عبد الله" joined is "abdllh", the
 * spelling "عبدالله" folds to, which "Abdullah" and "Abdallah" both fit.
 */
export function joinTokens(first: string, second: string, abjad: boolean): string {
  return carrierDropped(second, abjad) ? first + second.slice(1) : first + second;
}

/** Whether joinTokens drops the second token's first letter (a length known before joining). */
export function carrierDropped(second: string, abjad: boolean): boolean {
  return abjad && second.length > 1 && second.charCodeAt(0) === 97;
}

/**
 * Spellings that join two adjacent tokens: after a particle ("al qaida" → "alqaida") and across a
 * hyphen or syllable boundary ("jong-un" → "jongun"). Used so either spelling retrieves the other.
 */
export function joinedForms(name: NormalisedName): { text: string; start: number }[] {
  const out: { text: string; start: number }[] = [];
  const { tokens, flags } = name;
  for (let i = 0; i + 1 < tokens.length; i++) {
    const f = flags[i]!;
    if (f & TOKEN_NOISE || flags[i + 1]! & TOKEN_NOISE) continue;
    if (f & (TOKEN_PARTICLE | TOKEN_JOIN_NEXT)) out.push({ text: joinTokens(tokens[i]!, tokens[i + 1]!, (f & flags[i + 1]! & TOKEN_ABJAD) !== 0), start: i });
  }
  return out;
}

/**
 * The key of `exactMatch` mode: honorifics and legal forms dropped, particles merged into the next
 * token, tokens sorted (name order is free). "Al-Qaida" = "Al Qaida" = "Alqaida" = "Qaida, Al".
 */
export function exactKey(name: NormalisedName): string {
  const parts: string[] = [];
  let carry = "";
  for (let i = 0; i < name.tokens.length; i++) {
    const f = name.flags[i]!;
    if (f & TOKEN_NOISE) continue;
    if (f & TOKEN_PARTICLE) {
      carry += name.tokens[i];
      continue;
    }
    parts.push(carry + name.tokens[i]);
    carry = "";
  }
  if (carry) parts.push(carry);
  return parts.sort().join(" ");
}

const PATRONYMIC_RE = /(ovich|evich|ovych|evych|ovna|evna|ivna|ichna|ogly|oglu|ugli|kyzy|qizi)$/;

/** Russian, Ukrainian and Turkic patronymics (Ivanovich, Petrovna, Aliyev ogly). */
export function isPatronymic(token: string): boolean {
  return token.length >= 7 && PATRONYMIC_RE.test(token);
}

/** A patronymic without its suffix: "igorevich" → "igor", so the shared suffix proves nothing. */
export function patronymicStem(token: string): string {
  return token.replace(PATRONYMIC_RE, "");
}
