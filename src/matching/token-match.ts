import { abjadMatches } from "./abjad";
import type { MatchKind } from "./expand";
import { isPatronymic, patronymicStem } from "./normalise";
import { tokenSimilarity } from "./similarity";
import { ABJAD_SIM, fuzzyCredit, INITIAL_SIM, LOOSE_EQUAL_SIM, PAIR_FLOOR_RAW } from "./weights";

/** A token in the three spellings comparison needs. */
export interface TokenForm {
  readonly text: string;
  readonly loose: string;
  readonly abjad: boolean;
}

export interface TokenComparison {
  /** Credited similarity used in scoring (0 when the tokens are not taken as the same). */
  readonly sim: number;
  readonly kind: MatchKind;
  /** Raw spelling similarity before crediting (for phonetic lifting). */
  readonly base: number;
}

const NONE: TokenComparison = { sim: 0, kind: "fuzzy", base: 0 };

/** Patronymics compare by their stems: "-ovich" shared by Igorevich and Yurevich proves nothing. */
function comparePatronymics(a: string, b: string): TokenComparison {
  const base = tokenSimilarity(patronymicStem(a), patronymicStem(b));
  return base < PAIR_FLOOR_RAW ? { sim: 0, kind: "fuzzy", base } : { sim: fuzzyCredit(base), kind: "fuzzy", base };
}

/**
 * One comparison rule for retrieval and scoring alike: exact; an initial against a full token;
 * a consonant transliteration against a Latin spelling; otherwise the better of raw and
 * transliteration-folded spelling similarity, credited through the knee.
 */
export function compareTokens(a: TokenForm, b: TokenForm): TokenComparison {
  if (a.text === b.text) return { sim: 1, kind: "exact", base: 1 };
  if (a.text.length === 1 || b.text.length === 1) {
    return a.text[0] === b.text[0] ? { sim: INITIAL_SIM, kind: "initial", base: INITIAL_SIM } : NONE;
  }
  if (a.abjad !== b.abjad) {
    const [abj, lat] = a.abjad ? [a.text, b.text] : [b.text, a.text];
    if (abjadMatches(abj, lat)) return { sim: ABJAD_SIM, kind: "transliteration", base: ABJAD_SIM };
  }
  const shorter = Math.min(a.text.length, b.text.length);
  const longer = Math.max(a.text.length, b.text.length);
  // Neither Jaro-Winkler nor edit similarity reaches the floor across such a length gap.
  if (shorter < longer * 0.55 && a.loose !== b.loose) return NONE;
  if (isPatronymic(a.text) && isPatronymic(b.text)) return comparePatronymics(a.text, b.text);
  const raw = tokenSimilarity(a.text, b.text);
  const looseEqual = a.loose === b.loose;
  const folded = a.loose !== a.text || b.loose !== b.text;
  const loose = looseEqual ? LOOSE_EQUAL_SIM : folded ? tokenSimilarity(a.loose, b.loose) - 0.02 : 0;
  const base = Math.max(raw, loose);
  if (base < PAIR_FLOOR_RAW) return { sim: 0, kind: "fuzzy", base };
  const kind: MatchKind = looseEqual && loose > raw ? "transliteration" : "fuzzy";
  return { sim: kind === "transliteration" ? base : fuzzyCredit(base), kind, base };
}
